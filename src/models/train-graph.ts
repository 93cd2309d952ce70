// Kernel generation 2 on the native backend: the transformer's full forward pass (training and scoring) as one
// TensorFlow graph, and its backward pass as another, written by hand: eagerly, a PPO update's forward and backward
// passes are about 800 kernels dispatched one by one through tfjs (about 20 ms of a 200 ms update), and the graph
// runs TensorFlow's own softmax. The forward graph returns the trunk's output (the final layer norm's) beside what
// the backward graph reads (the normalised activations, the attention weights, the pre-activations); transformer.ts
// wraps the pair as one custom-gradient op over the trunk's weights (the read-outs stay eager). Same model as the
// eager pass, other float32 rounding: test/train-graph.test.ts checks the outputs and every weight's gradient
// against tfjs's autodiff.
import {
  DT_INT32,
  graphBuilder,
  loadGraph,
  type DecodeGraph,
  type DecodeGraphSpec,
  type GraphBuilder,
  type Proto,
} from './decode-graph.js';

/** What the training graphs depend on: the decode graphs' spec, the vocabulary and the context. */
export interface TrainGraphSpec extends DecodeGraphSpec {
  vocab: number;
  context: number;
}

const LAYER_WEIGHTS = ['ln1_g', 'ln1_b', 'wq', 'wk', 'wv', 'wo', 'ln2_g', 'ln2_b', 'w1', 'b1', 'w2', 'b2'];
const SAVED = ['xhat1', 'rstd1', 'h1', 'q', 'k', 'v', 'att', 'y', 'xhat2', 'rstd2', 'h2', 'u', 's', 'g'];

/**
 * The weights the forward graph takes, in order, as the policy names them (transformer.ts): the trunk's, up to the
 * final layer norm. The read-outs (logits and values) stay eager, so that a loss which reads only one of them gives
 * the other's weights no gradient, as autodiff does.
 */
export function trainWeights(s: TrainGraphSpec): string[] {
  return [
    'tok_emb',
    ...(s.alibi ? [] : ['pos_emb']),
    ...Array.from({ length: s.layers }, (_, l) => LAYER_WEIGHTS.map((w) => `l${l}.${w}`)).flat(),
    'lnf_g',
    'lnf_b',
  ];
}
const graphName = (w: string) => w.replace('.', '_');
/** The activations the forward graph hands to the backward graph, in order. */
export const savedNames = (s: TrainGraphSpec) => [
  ...Array.from({ length: s.layers }, (_, l) => SAVED.map((a) => `l${l}_${a}`)).flat(),
  'xhatf',
  'rstdf',
];

/** Forward inputs: the batch (tokens, positions for learned positions, the additive mask), then the weights. */
export const forwardInputs = (s: TrainGraphSpec) => [
  'tokens',
  ...(s.alibi ? [] : ['positions']),
  'mask',
  ...trainWeights(s).map(graphName),
];
/** Forward outputs: the final layer norm's output [B * T, d], then the saved activations. */
export const forwardOutputs = (s: TrainGraphSpec) => ['hf', ...savedNames(s)];
/** Backward inputs: the gradient of `hf`, the batch's ids, the weights, the saved activations. */
export const backwardInputs = (s: TrainGraphSpec) => [
  'dhf',
  'tokens',
  ...(s.alibi ? [] : ['positions']),
  ...trainWeights(s).map(graphName),
  ...savedNames(s),
];
/** Backward outputs: each weight's gradient, in trainWeights order. */
export const backwardOutputs = (s: TrainGraphSpec) => trainWeights(s).map((w) => `d_${graphName(w)}`);

/** 2-D products (MatMul, oneDNN's), sums over rows, the heads' layout, layer norm's backward pass. */
function ops(b: GraphBuilder, s: TrainGraphSpec) {
  const { op, type, bool, ints } = b,
    H = s.heads,
    dh = s.dModel / s.heads;
  const mm = (x: string, y: string, ta = false, tb = false) =>
    op('MatMul', [x, y], { ...b.T, transpose_a: bool(ta), transpose_b: bool(tb) });
  const sum0 = (x: string) => op('Sum', [x, ints([0])], { ...b.T, Tidx: type(DT_INT32), keep_dims: bool(false) });
  return {
    mm,
    sum0,
    /** [B * T, d] -> [B, H, T, dh] */
    heads: (t: string, B: string, T: string) => b.heads(t, B, T, H, dh),
    /** [B, H, T, dh] -> [B * T, d] */
    merge: (t: string) => b.reshape(b.transpose(t, [0, 2, 1, 3]), [-1, s.dModel]),
    /** layer norm's backward pass in closed form (layers.ts): dx, dgain, dbias */
    layerNormBack: (dy: string, xhat: string, rstd: string, gain: string) => {
      const gdy = b.mul(dy, gain),
        m1 = b.reduce('Mean', gdy, 1),
        m2 = b.reduce('Mean', b.mul(gdy, xhat), 1);
      return { dx: b.mul(b.sub(b.sub(gdy, m1), b.mul(xhat, m2)), rstd), dgain: sum0(b.mul(dy, xhat)), dbias: sum0(dy) };
    },
  };
}

/** The SavedModel bytes of the forward pass (transformer.ts `run`, kernels 2). */
export function forwardGraphBytes(s: TrainGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb),
    o = ops(b, s),
    { op, add, mul, matMul } = b,
    d = s.dModel;
  b.inputs(forwardInputs(s));
  const eps = b.scalar(s.eps),
    scale = b.scalar(1 / Math.sqrt(d / s.heads)),
    c1702 = b.scalar(1.702);
  const B = b.dim('mask', 0),
    T = b.dim('mask', 3);
  let x = b.gather('tok_emb', b.flatIds('tokens'));
  if (!s.alibi) x = add(x, b.gather('pos_emb', b.flatIds('positions')));
  for (let l = 0; l < s.layers; l++) {
    const p = (w: string) => `l${l}_${w}`,
      save = (name: string, t: string) => {
        b.output(p(name), t);
        return t;
      };
    const ln1 = b.layerNormParts(x, p('ln1_g'), p('ln1_b'), eps);
    save('xhat1', ln1.xhat);
    save('rstd1', ln1.rstd);
    const h1 = save('h1', ln1.y);
    const qkv = b.split3(o.mm(h1, b.concat([p('wq'), p('wk'), p('wv')], 1)), d, 1);
    const q = save('q', mul(o.heads(`${qkv}:0`, B, T), scale));
    const k = save('k', o.heads(`${qkv}:1`, B, T)),
      v = save('v', o.heads(`${qkv}:2`, B, T));
    const att = save('att', op('Softmax', [add(matMul(q, k, true), 'mask')]));
    const y = save('y', o.merge(matMul(att, v)));
    x = add(x, o.mm(y, p('wo')));
    const ln2 = b.layerNormParts(x, p('ln2_g'), p('ln2_b'), eps);
    save('xhat2', ln2.xhat);
    save('rstd2', ln2.rstd);
    const u = save('u', add(o.mm(save('h2', ln2.y), p('w1')), p('b1')));
    const g = save('g', mul(u, save('s', op('Sigmoid', [mul(u, c1702)]))));
    x = add(x, add(o.mm(g, p('w2')), p('b2')));
  }
  const lnf = b.layerNormParts(x, 'lnf_g', 'lnf_b', eps);
  b.output('xhatf', lnf.xhat);
  b.output('rstdf', lnf.rstd);
  b.output('hf', lnf.y);
  return b.savedModel(forwardInputs(s), forwardOutputs(s));
}

/** The SavedModel bytes of the backward pass: every weight's gradient from the gradient of `hf`. */
export function backwardGraphBytes(s: TrainGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb),
    o = ops(b, s),
    { op, add, sub, mul, matMul } = b,
    d = s.dModel;
  b.inputs(backwardInputs(s));
  const scale = b.scalar(1 / Math.sqrt(d / s.heads)),
    c1702 = b.scalar(1.702),
    one = b.scalar(1);
  const grad = (w: string, t: string) => b.output(`d_${graphName(w)}`, t);
  const fin = o.layerNormBack('dhf', 'xhatf', 'rstdf', 'lnf_g');
  grad('lnf_g', fin.dgain);
  grad('lnf_b', fin.dbias);
  let dx = fin.dx;
  for (let l = s.layers - 1; l >= 0; l--) {
    const p = (w: string) => `l${l}_${w}`,
      gw = (w: string, t: string) => grad(`l${l}.${w}`, t);
    // x_out = x_mid + gelu(h2 w1 + b1) w2 + b2
    gw('w2', o.mm(p('g'), dx, true));
    gw('b2', o.sum0(dx));
    const sg = p('s'),
      gelu1 = mul(sg, add(one, mul(mul(p('u'), c1702), sub(one, sg)))); // GELU's derivative
    const du = mul(o.mm(dx, p('w2'), false, true), gelu1);
    gw('w1', o.mm(p('h2'), du, true));
    gw('b1', o.sum0(du));
    const ln2 = o.layerNormBack(o.mm(du, p('w1'), false, true), p('xhat2'), p('rstd2'), p('ln2_g'));
    gw('ln2_g', ln2.dgain);
    gw('ln2_b', ln2.dbias);
    dx = add(dx, ln2.dx);
    // x_mid = x_in + merge(softmax(q k^T + mask) v) wo, q already scaled
    gw('wo', o.mm(p('y'), dx, true));
    const att = p('att'),
      B = b.dim(att, 0),
      T = b.dim(att, 2);
    const dyh = o.heads(o.mm(dx, p('wo'), false, true), B, T);
    const datt = matMul(dyh, p('v'), true),
      dv = op('BatchMatMulV2', [att, dyh], { ...b.T, adj_x: b.bool(true), adj_y: b.bool(false) });
    const ds = mul(att, sub(datt, b.reduce('Sum', mul(datt, att), -1)));
    const dq = mul(matMul(ds, p('k')), scale),
      dk = op('BatchMatMulV2', [ds, p('q')], { ...b.T, adj_x: b.bool(true), adj_y: b.bool(false) });
    const dqkv = b.concat([o.merge(dq), o.merge(dk), o.merge(dv)], 1);
    const dw = b.split3(o.mm(p('h1'), dqkv, true), d, 1);
    gw('wq', `${dw}:0`);
    gw('wk', `${dw}:1`);
    gw('wv', `${dw}:2`);
    const ln1 = o.layerNormBack(
      o.mm(dqkv, b.concat([p('wq'), p('wk'), p('wv')], 1), false, true),
      p('xhat1'),
      p('rstd1'),
      p('ln1_g'),
    );
    gw('ln1_g', ln1.dgain);
    gw('ln1_b', ln1.dbias);
    dx = add(dx, ln1.dx);
  }
  const segments = (ids: string, n: number) =>
    op('UnsortedSegmentSum', [dx, b.flatIds(ids), b.constant(DT_INT32, [n], [])], {
      ...b.T,
      Tindices: b.type(DT_INT32),
      Tnumsegments: b.type(DT_INT32),
    });
  grad('tok_emb', segments('tokens', s.vocab));
  if (!s.alibi) grad('pos_emb', segments('positions', s.context));
  return b.savedModel(backwardInputs(s), backwardOutputs(s));
}

/** The forward and backward graphs for `s`, or null where the decode graphs do not run (see loadGraph). */
export function trainGraphs(s: TrainGraphSpec): { forward: DecodeGraph; backward: DecodeGraph } | null {
  const forward = loadGraph(
    `forward ${JSON.stringify(s)}`,
    (pb) => forwardGraphBytes(s, pb),
    forwardInputs(s),
    forwardOutputs(s),
  );
  const backward =
    forward &&
    loadGraph(
      `backward ${JSON.stringify(s)}`,
      (pb) => backwardGraphBytes(s, pb),
      backwardInputs(s),
      backwardOutputs(s),
    );
  return forward && backward ? { forward, backward } : null;
}
