// The policies' decode steps as one TensorFlow graph each, for the native backend. Eagerly, a transformer step is
// about 130 small ops, each a round trip through tfjs and TensorFlow's eager runtime (about 30 us each, most of a
// step's time); as a graph it is one session call. Each graph is written here op for op as the eager step of
// transformer.ts or gru.ts (the same TensorFlow kernels in the same order: BatchMatMulV2 for every matmul, tfjs's
// moments, its GELU), held in a SavedModel with no variables (weights, caches and tokens are inputs, so one graph
// serves every update of the weights) under the system's temporary folder, named by its content's hash, and run
// through tfjs-node's session binding; the graphs write each step's keys and values into their caches in place
// (cacheColumns), where the eager steps concatenate. test/decode-graph.test.ts checks each graph's outputs
// equal the eager step's, bit for bit. Kernel generation 2 (backend.ts) also runs the transformer's prefill as one
// graph (prefillGraphBytes), which rounds otherwise than the eager prefill (tested within 1e-6); generation 3 the
// transformer's last-position pass (lastGraphBytes); generation 4 its decode steps with sampling, a chunk at a time,
// in one while loop (chunkGraphBytes; test/chunk-graph.test.ts).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { nativeBackend, nativePackage, tf } from './backend.js';
import { decodeGraphOn } from './engine-settings.js';

const DT_FLOAT = 1,
  DT_INT32 = 3;

/** What a transformer decode graph depends on. */
export interface DecodeGraphSpec {
  layers: number;
  heads: number;
  dModel: number;
  alibi: boolean;
  eps: number;
}

/**
 * The decode graphs' caches (the transformer's keys and values, the GRU's read cache) have room for this many more
 * columns at a time: a step writes into the caches it is fed (see cacheColumns), zeros past the last written column,
 * so no step copies a cache.
 */
export const CACHE_CHUNK = 32;
/** What a GRU decode graph depends on (`attend`: the recall attention read). */
export interface GruGraphSpec {
  layers: number;
  dModel: number;
  vocab: number;
  attend: boolean;
  eps: number;
}

/** Input names of the transformer's graph, in the order `run` takes them. */
export function decodeInputs(s: DecodeGraphSpec): string[] {
  const perLayer = ['ln1_g', 'ln1_b', 'wqkv', 'wo', 'ln2_g', 'ln2_b', 'w1', 'b1', 'w2', 'b2', 'k', 'v'];
  return [
    'tokens',
    ...(s.alibi ? ['slopes'] : ['positions']),
    'key_mask',
    'tok_emb',
    ...(s.alibi ? [] : ['pos_emb']),
    ...Array.from({ length: s.layers }, (_, l) => perLayer.map((p) => `l${l}_${p}`)).flat(),
    'lnf_g',
    'lnf_b',
    'head',
    'temperature',
  ];
}

/**
 * Output names of the transformer's graph: the logits, the next token's probabilities at the temperature, the grown
 * key mask (the caches are written in place).
 */
export const decodeOutputs = () => ['logits', 'probs', 'key_mask_out'];

/** Input names of the GRU's graph, in the order `run` takes them. */
export function gruInputs(s: GruGraphSpec): string[] {
  return [
    'tokens',
    'tok_emb',
    ...Array.from({ length: s.layers }, (_, l) => [`l${l}_wx`, `l${l}_b`, `l${l}_wh`, `l${l}_h`]).flat(),
    ...(s.attend ? ['att_q', 'att_k', 'att_v', 'att_o', 'k', 'v', 'key_mask'] : []),
    'lnf_g',
    'lnf_b',
    'head',
    'temperature',
  ];
}

/**
 * Output names of the GRU's graph: the logits, the probabilities, each layer's new state, the read cache's grown key
 * mask (its keys and values are written in place).
 */
export const gruOutputs = (s: GruGraphSpec) => [
  'logits',
  'probs',
  ...Array.from({ length: s.layers }, (_, l) => `l${l}_h_out`),
  ...(s.attend ? ['key_mask_out'] : []),
];

const INT_INPUTS = ['tokens', 'positions', 'cache_pads'];
export { DT_INT32 };
const dtypeOf = (input: string) => (INT_INPUTS.includes(input) ? DT_INT32 : DT_FLOAT);

// biome-ignore lint/suspicious/noExplicitAny: protobufjs message classes, built at run time from the descriptor
export type Proto = Record<string, (...a: unknown[]) => unknown> & { [k: string]: any };
export type GraphBuilder = ReturnType<typeof graphBuilder>;

/** A GraphDef under construction, with the ops the decode steps use (float32 unless named otherwise). */
export function graphBuilder(pb: Proto) {
  const g = new pb.GraphDef();
  const attr = (set: (a: Proto) => void) => {
    const a = new pb.AttrValue();
    set(a);
    return a;
  };
  const type = (t: number) => attr((a) => a.setType(t));
  const bool = (v: boolean) => attr((a) => a.setB(v)),
    int = (v: number) => attr((a) => a.setI(v)),
    string = (v: string) => attr((a) => a.setS(new TextEncoder().encode(v)));
  const unknown = () => {
    const sh = new pb.TensorShape();
    sh.setUnknownRank(true);
    return sh;
  };
  const T = { T: type(DT_FLOAT) };
  let n = 0;
  /** inside a while loop's body: the node every constant depends on, so that it runs in the loop's frame */
  const frame = { pivot: '' };
  const op = (kind: string, inputs: string[], attrs: Record<string, unknown> = T, name = `${kind}_${n++}`) => {
    const nd = new pb.NodeDef();
    nd.setName(name);
    nd.setOp(kind);
    nd.setInputList(inputs);
    for (const [k, v] of Object.entries(attrs)) nd.getAttrMap().set(k, v);
    g.addNode(nd);
    return name;
  };
  const constant = (dtype: number, values: number[], shape: number[]) => {
    const t = new pb.Tensor();
    t.setDtype(dtype);
    const sh = new pb.TensorShape();
    for (const d of shape) {
      const dim = new pb.TensorShape.Dim();
      dim.setSize(d);
      sh.addDim(dim);
    }
    t.setTensorShape(sh);
    if (dtype === DT_FLOAT) t.setFloatValList(values);
    else t.setIntValList(values);
    return op('Const', frame.pivot ? [`^${frame.pivot}`] : [], {
      dtype: type(dtype),
      value: attr((a) => a.setTensor(t)),
    });
  };
  const ints = (v: number[]) => constant(DT_INT32, v, [v.length]);
  const scalar = (v: number) => constant(DT_FLOAT, [v], []);
  const b = {
    T,
    frame,
    type,
    string,
    bool,
    int,
    op,
    ints,
    scalar,
    constant,
    /** a placeholder per name (int32 for token ids, positions and pads, else float32) */
    inputs: (names: string[]) =>
      names.forEach((name) =>
        op('Placeholder', [], { dtype: type(dtypeOf(name)), shape: attr((a) => a.setShape(unknown())) }, name),
      ),
    output: (name: string, x: string) => op('Identity', [x], T, name),
    add: (x: string, y: string) => op('Add', [x, y]),
    sub: (x: string, y: string) => op('Sub', [x, y]),
    mul: (x: string, y: string) => op('Mul', [x, y]),
    matMul: (x: string, y: string, adjY = false) =>
      op('BatchMatMulV2', [x, y], { ...T, adj_x: bool(false), adj_y: bool(adjY) }),
    reshape: (x: string, shape: number[]) => op('Reshape', [x, ints(shape)], { ...T, Tshape: type(DT_INT32) }),
    reduce: (kind: string, x: string, axis: number) =>
      op(kind, [x, ints([axis])], { ...T, Tidx: type(DT_INT32), keep_dims: bool(true) }),
    concat: (xs: string[], axis: number) =>
      op('ConcatV2', [...xs, constant(DT_INT32, [axis], [])], { ...T, N: int(xs.length), Tidx: type(DT_INT32) }),
    /** tf.split(x, 3, axis): outputs `${name}:0..2` */
    split3: (x: string, size: number, axis: number) =>
      op('SplitV', [x, ints([size, size, size]), constant(DT_INT32, [axis], [])], {
        ...T,
        Tlen: type(DT_INT32),
        num_split: int(3),
      }),
    /** the size of x's dimension i, an int32 scalar */
    dim: (x: string, i: number) =>
      op('StridedSlice', [op('Shape', [x], { ...T, out_type: type(DT_INT32) }), ints([i]), ints([i + 1]), ints([1])], {
        T: type(DT_INT32),
        Index: type(DT_INT32),
        shrink_axis_mask: int(1),
        begin_mask: int(0),
        end_mask: int(0),
        ellipsis_mask: int(0),
        new_axis_mask: int(0),
      }),
    /** rows `ids` of `params` (tf.gather) */
    gather: (params: string, ids: string) =>
      op('GatherV2', [params, ids, constant(DT_INT32, [0], [])], {
        Tparams: type(DT_FLOAT),
        Tindices: type(DT_INT32),
        Taxis: type(DT_INT32),
        batch_dims: int(0),
      }),
    transpose: (x: string, perm: number[]) => op('Transpose', [x, ints(perm)], { ...T, Tperm: type(DT_INT32) }),
    /** int32 ids of any shape as one row */
    flatIds: (ids: string) => op('Reshape', [ids, ints([-1])], { T: type(DT_INT32), Tshape: type(DT_INT32) }),
    /** rows [B * rows, H * dh] -> [B, H, rows, dh] (B and rows int32 scalars) */
    heads: (x: string, B: string, rows: string, H: number, dh: number) => {
      const shape = op('Pack', [B, rows, constant(DT_INT32, [H], []), constant(DT_INT32, [dh], [])], {
        T: type(DT_INT32),
        N: int(4),
        axis: int(0),
      });
      return b.transpose(op('Reshape', [x, shape], { ...T, Tshape: type(DT_INT32) }), [0, 2, 1, 3]);
    },
    /** a tensor of `value` shaped like `x` sliced to `size` (the eager steps' tf.zeros / tf.ones of [B, 1, ...]) */
    filled: (x: string, size: number[], value: 0 | 1) =>
      op(value ? 'OnesLike' : 'ZerosLike', [
        op('Slice', [x, ints(size.map(() => 0)), ints(size)], { ...T, Index: type(DT_INT32) }),
      ]),
    /**
     * tfjs's layerNorm: mean, the mean of square(x - mean), (x - mean) * rsqrt(var + eps) * gain + bias; with the
     * normalised rows xhat and rstd = rsqrt(var + eps), which the training graphs keep for the backward pass
     */
    layerNormParts: (x: string, gain: string, bias: string, eps: string) => {
      const xc = b.sub(x, b.reduce('Mean', x, 1));
      const rstd = op('Rsqrt', [b.add(b.reduce('Mean', op('Square', [xc]), 1), eps)]),
        xhat = b.mul(xc, rstd);
      return { xhat, rstd, y: b.add(b.mul(xhat, gain), bias) };
    },
    layerNorm: (x: string, gain: string, bias: string, eps: string) => b.layerNormParts(x, gain, bias, eps).y,
    /**
     * Softmax as TensorFlow's CPU kernel computes it (exp(x - max), times 1 / sum): oneDNN's graph pass swaps the
     * Softmax op for its own kernel, which differs in the last bit from the eager runtime's (Eigen's).
     */
    softmax: (x: string) => {
      const e = op('Exp', [b.sub(x, b.reduce('Max', x, -1))]);
      return b.mul(e, op('Reciprocal', [b.reduce('Sum', e, -1)]));
    },
    /** the logits' output, and sampling's probabilities softmax(logits / temperature) (policy.ts, `nextProbs`) */
    logitsAndProbs: (logits: string) => {
      b.output('logits', logits);
      b.output('probs', b.softmax(op('RealDiv', [logits, 'temperature'])));
    },
    /** The SavedModel bytes, with a signature over the named inputs and outputs. */
    savedModel(inputs: string[], outputs: string[]): Uint8Array {
      const meta = new pb.MetaGraphDef(),
        info = new pb.MetaGraphDef.MetaInfoDef();
      info.setTagsList(['serve']);
      meta.setMetaInfoDef(info);
      meta.setGraphDef(g);
      const sig = new pb.SignatureDef();
      sig.setMethodName('tensorflow/serving/predict');
      const tensorInfo = (name: string, dtype: number) => {
        const t = new pb.TensorInfo();
        t.setName(`${name}:0`);
        t.setDtype(dtype);
        t.setTensorShape(unknown());
        return t;
      };
      for (const name of inputs) sig.getInputsMap().set(name, tensorInfo(name, dtypeOf(name)));
      for (const name of outputs) sig.getOutputsMap().set(name, tensorInfo(name, DT_FLOAT));
      meta.getSignatureDefMap().set('serving_default', sig);
      const sm = new pb.SavedModel();
      sm.setSavedModelSchemaVersion(1);
      sm.addMetaGraphs(meta);
      return sm.serializeBinary() as Uint8Array;
    },
  };
  return b;
}

/** The SavedModel bytes of the transformer's decode step (transformer.ts, `step`). */
export function decodeGraphBytes(s: DecodeGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb);
  b.inputs(decodeInputs(s));
  const caches = Array.from({ length: s.layers }, (_, l) => ({ k: `l${l}_k`, v: `l${l}_v` }));
  const { logits, keyMask } = decodeStep(b, s, 'tokens', s.alibi ? null : 'positions', 'key_mask', caches);
  b.output('key_mask_out', keyMask);
  b.logitsAndProbs(logits);
  return b.savedModel(decodeInputs(s), decodeOutputs());
}

/**
 * One decode step of the transformer (transformer.ts, `step`), op for op: the tokens fed at their positions (ALiBi:
 * the `slopes` input), the key mask grown by one column, each layer's keys and values written in place into its
 * caches at that column; returns the logits and the grown mask, and sets `caches` to the written caches (a later
 * step in the same graph reads them, so its reads follow these writes).
 */
function decodeStep(
  b: GraphBuilder,
  s: DecodeGraphSpec,
  tokens: string,
  positions: string | null,
  keyMask: string,
  caches: { k: string; v: string }[],
  input: (name: string) => string = (name) => name,
): { logits: string; keyMask: string } {
  const { op, add, mul, matMul, reshape, concat, type } = b;
  const { layers: L, heads: H, dModel: d } = s,
    dh = d / H,
    I = { T: type(DT_INT32) };
  const eps = b.scalar(s.eps);
  const km = concat([keyMask, b.filled(keyMask, [-1, 1, 1, 1], 0)], 3);
  let x = b.gather(input('tok_emb'), tokens);
  if (positions) x = add(x, b.gather(input('pos_emb'), positions));
  const tk = b.dim(km, 3);
  // ALiBi: the new token's distance to key j is tk - 1 - j (tk keys, left padding included)
  let bias = km;
  if (s.alibi) {
    const start = op('Cast', [op('Sub', [tk, b.constant(DT_INT32, [1], [])], I)], {
      SrcT: type(DT_INT32),
      DstT: type(DT_FLOAT),
      Truncate: b.bool(false),
    });
    const range = op('Range', [start, b.scalar(-1), b.scalar(-1)], { Tidx: type(DT_FLOAT) });
    bias = add(km, mul(input('slopes'), reshape(range, [1, 1, 1, -1])));
  }
  const scale = b.scalar(1 / Math.sqrt(dh)),
    c1702 = b.scalar(1.702);
  const cols = cacheColumns(b, caches[0].k, tk, dh, 2);
  for (let l = 0; l < L; l++) {
    const p = (w: string) => input(`l${l}_${w}`);
    const split = b.split3(matMul(b.layerNorm(x, p('ln1_g'), p('ln1_b'), eps), p('wqkv')), d, 1);
    const [q, k1, v1] = [0, 1, 2].map((i) => reshape(`${split}:${i}`, [-1, H, 1, dh]));
    const k = cols.write(caches[l].k, k1),
      v = cols.write(caches[l].v, v1);
    caches[l] = { k, v };
    x = add(x, matMul(reshape(cols.read(q, k, v, scale, bias), [-1, d]), p('wo')));
    const u = add(matMul(b.layerNorm(x, p('ln2_g'), p('ln2_b'), eps), p('w1')), p('b1'));
    x = add(x, add(matMul(mul(u, op('Sigmoid', [mul(u, c1702)])), p('w2')), p('b2')));
  }
  return { logits: matMul(b.layerNorm(x, input('lnf_g'), input('lnf_b'), eps), input('head')), keyMask: km };
}

/** Input names of the transformer's chunk graph (kernels 4): the decode graph's, then the draws and the rows' state. */
export const chunkInputs = (s: DecodeGraphSpec): string[] => [...decodeInputs(s), 'uniforms', 'done', 'eos_on'];
/** Output names of the chunk graph: the sampled tokens [K, B] (as floats), the rows' done flags, the grown key mask. */
export const chunkOutputs = () => ['tokens_out', 'done_out', 'key_mask_out'];

/**
 * The SavedModel bytes of decode steps with sampling in the graph (kernel generation 4; policy.ts, `sample`): as many
 * steps as `uniforms` [k, B] has rows, in one while loop (TensorFlow's loop primitives: Enter, Merge, Switch,
 * NextIteration, Exit; one iteration at a time), so one graph serves every k. Step j feeds its tokens at `positions` + j
 * (the decode step above; past the context, steps the caller discards, the last position), takes the probabilities
 * softmax(logits / temperature) as the decode graph does, and draws the next token by inverse CDF from row j of
 * `uniforms` (drawn by the caller's seeded generator): the number of cumulative probabilities at or below u times their
 * total, at most V - 1. A row whose `done` is 1 draws PAD (0); a row that draws EOS (1) is done from the next step on
 * where `eos_on` is 1.
 */
export function chunkGraphBytes(s: DecodeGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb),
    { op, type } = b;
  const I = { T: type(DT_INT32) };
  b.inputs(chunkInputs(s));
  const lastPosition = s.alibi ? '' : op('Sub', [b.dim('pos_emb', 0), b.constant(DT_INT32, [1], [])], I);
  const layers = Array.from({ length: s.layers }, (_, l) => l);
  const state = [
    { name: 'key_mask', init: 'key_mask' },
    ...layers.flatMap((l) => [`l${l}_k`, `l${l}_v`].map((name) => ({ name, init: name }))),
  ];
  const exits = samplingLoop(b, state, (v, j, tokens, input) => {
    const positions = s.alibi
      ? null
      : op('Minimum', [op('Add', [input('positions', DT_INT32), j], I), input(lastPosition, DT_INT32)], I);
    const caches = layers.map((l) => ({ k: v[`l${l}_k`], v: v[`l${l}_v`] }));
    const step = decodeStep(b, s, tokens, positions, v.key_mask, caches, input);
    const next: Record<string, string> = { key_mask: step.keyMask };
    layers.forEach((l) => {
      next[`l${l}_k`] = caches[l].k;
      next[`l${l}_v`] = caches[l].v;
    });
    return { logits: step.logits, next };
  });
  b.output('key_mask_out', exits.key_mask);
  return b.savedModel(chunkInputs(s), chunkOutputs());
}

/**
 * The chunk graphs' loop (TensorFlow's loop primitives: Enter, Merge, Switch, NextIteration, Exit; one iteration at a
 * time): as many iterations as `uniforms` [k, B] has rows; each feeds the tokens (the `tokens` input, then the last
 * draw) to `step`, which returns the logits and the model's next `state` (float32 tensors, from their inputs), then
 * draws from softmax(logits / temperature) by inverse CDF at row j of `uniforms`: the number of cumulative
 * probabilities at or below u times their total, at most V - 1; a row whose `done` is 1 draws PAD (0), a row that
 * draws EOS (1) is done from the next iteration on where `eos_on` is 1. Writes `tokens_out` [k, B] and `done_out`;
 * returns the state's values after the loop. Inside the loop every input is read through `input` (entered into the
 * loop's frame once) and every constant depends on the iteration (the builder's frame pivot).
 */
function samplingLoop(
  b: GraphBuilder,
  state: { name: string; init: string }[],
  step: (
    v: Record<string, string>,
    j: string,
    tokens: string,
    input: (name: string, dtype?: number) => string,
  ) => { logits: string; next: Record<string, string> },
): Record<string, string> {
  const { op, mul, type } = b;
  const I = { T: type(DT_INT32) },
    F = 'decode_chunk',
    DT_BOOL = 10;
  const cast = (x: string, from: number, to: number) =>
    op('Cast', [x], { SrcT: type(from), DstT: type(to), Truncate: b.bool(false) });
  const frame = (x: string, dtype: number, constant: boolean) =>
    op('Enter', [x], {
      T: type(dtype),
      frame_name: b.string(F),
      is_constant: b.bool(constant),
      parallel_iterations: b.int(1),
    });
  const emptyDraws = op(
    'Fill',
    [op('Pack', [b.constant(DT_INT32, [0], []), b.dim('done', 0)], { ...I, N: b.int(2), axis: b.int(0) }), b.scalar(0)],
    { ...b.T, index_type: type(DT_INT32) },
  );
  // the loop's variables: entered, merged with their next iteration's values, switched on the condition
  const vars = [
    { name: 'j', init: b.constant(DT_INT32, [0], []), dtype: DT_INT32 },
    { name: 'tokens', init: 'tokens', dtype: DT_INT32 },
    { name: 'done', init: 'done', dtype: DT_FLOAT },
    { name: 'draws', init: emptyDraws, dtype: DT_FLOAT },
    ...state.map((x) => ({ ...x, dtype: DT_FLOAT })),
  ];
  const merged = vars.map(({ name, init, dtype }) =>
    op('Merge', [frame(init, dtype, false), `${name}_next`], { T: type(dtype), N: b.int(2) }, `${name}_merge`),
  );
  const invariant = new Map<string, string>();
  const input = (name: string, dtype = DT_FLOAT) => {
    if (!invariant.has(name)) invariant.set(name, frame(name, dtype, true));
    return invariant.get(name)!;
  };
  const cond = op('LoopCond', [op('Less', [merged[0], input(b.dim('uniforms', 0), DT_INT32)], I)], {});
  const body: Record<string, string> = {},
    exits: Record<string, string> = {};
  vars.forEach(({ name, dtype }, i) => {
    const sw = op('Switch', [merged[i], cond], { T: type(dtype) });
    exits[name] = op('Exit', [`${sw}:0`], { T: type(dtype) });
    body[name] = op('Identity', [`${sw}:1`], { T: type(dtype) });
  });
  b.frame.pivot = body.j;
  const { logits, next } = step(body, body.j, body.tokens, input);
  const probs = b.softmax(op('RealDiv', [logits, input('temperature')]));
  const cdf = op('Cumsum', [probs, b.constant(DT_INT32, [1], [])], {
    ...b.T,
    Tidx: type(DT_INT32),
    exclusive: b.bool(false),
    reverse: b.bool(false),
  });
  const row = op('GatherV2', [input('uniforms'), body.j, b.constant(DT_INT32, [0], [])], {
    Tparams: type(DT_FLOAT),
    Tindices: type(DT_INT32),
    Taxis: type(DT_INT32),
    batch_dims: b.int(0),
  });
  const u = mul(b.reshape(row, [-1, 1]), b.reduce('Max', cdf, 1));
  const below = cast(op('LessEqual', [cdf, u]), DT_BOOL, DT_FLOAT);
  const last = cast(op('Sub', [b.dim(probs, 1), b.constant(DT_INT32, [1], [])], I), DT_INT32, DT_FLOAT);
  const count = op('Sum', [below, b.ints([1])], { ...b.T, Tidx: type(DT_INT32), keep_dims: b.bool(false) });
  const token = mul(op('Minimum', [count, last]), b.sub(b.scalar(1), body.done));
  const isEos = cast(
    op('Equal', [token, b.scalar(1)], { ...b.T, incompatible_shape_error: b.bool(true) }),
    DT_BOOL,
    DT_FLOAT,
  );
  const nextAll: Record<string, string> = {
    ...next,
    j: op('Add', [body.j, b.constant(DT_INT32, [1], [])], I),
    tokens: cast(token, DT_FLOAT, DT_INT32),
    done: op('Maximum', [body.done, mul(isEos, input('eos_on'))]),
    draws: b.concat([body.draws, b.reshape(token, [1, -1])], 0),
  };
  b.frame.pivot = '';
  for (const { name, dtype } of vars) op('NextIteration', [nextAll[name]], { T: type(dtype) }, `${name}_next`);
  b.output('tokens_out', exits.draws);
  b.output('done_out', exits.done);
  return exits;
}

/** Input names of the transformer's prefill graph (kernels 2), in the order `run` takes them. */
export function prefillInputs(s: DecodeGraphSpec): string[] {
  const perLayer = ['ln1_g', 'ln1_b', 'wqkv', 'wo', 'ln2_g', 'ln2_b', 'w1', 'b1', 'w2', 'b2'];
  return [
    'tokens',
    ...(s.alibi ? [] : ['positions']),
    'mask',
    'cache_pads',
    'tok_emb',
    ...(s.alibi ? [] : ['pos_emb']),
    ...Array.from({ length: s.layers }, (_, l) => perLayer.map((p) => `l${l}_${p}`)).flat(),
    'lnf_g',
    'lnf_b',
    'head',
    'temperature',
  ];
}

/** Output names of the prefill graph: the last position's logits and probabilities, each layer's padded caches. */
export const prefillOutputs = (s: DecodeGraphSpec) => [
  'logits',
  'probs',
  ...Array.from({ length: s.layers }, (_, l) => [`l${l}_k_out`, `l${l}_v_out`]).flat(),
];

/**
 * The SavedModel bytes of the transformer's prefill (kernel generation 2; transformer.ts, `prefill`): the prompts'
 * forward pass as one graph, from tokens [B, T] (flattened; positions too) and the additive attention mask
 * [B, H or 1, T, T] that the eager pass builds, to the last position's logits and each layer's keys and values
 * [B, H, T, dh] padded by `cache_pads` (room for the decode graph's in-place writes). TensorFlow's own softmax, and
 * the last layer computed for the last position only (the keys and values for every position): the same model as
 * the eager pass, with other float32 rounding (test/decode-graph.test.ts compares them within 1e-6).
 */
export function prefillGraphBytes(s: DecodeGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb);
  b.inputs(prefillInputs(s));
  const { x, eps } = lastPositionTrunk(b, s, true);
  b.logitsAndProbs(b.matMul(b.layerNorm(x, 'lnf_g', 'lnf_b', eps), 'head'));
  return b.savedModel(prefillInputs(s), prefillOutputs(s));
}

/** Input names of the transformer's last-position graph (kernels 3), in the order `forwardLast` takes them. */
export const lastInputs = (s: DecodeGraphSpec): string[] =>
  prefillInputs(s).filter((n) => !['cache_pads', 'head', 'temperature'].includes(n));
/** Output of the last-position graph: the final layer norm's output at each row's last position [B, d]. */
export const lastOutputs = () => ['hf'];

/**
 * The SavedModel bytes of the transformer's last-position pass (kernel generation 3; transformer.ts, `forwardLast`:
 * a classifier such as the verifier reads one token per row): the prefill graph's pass without its caches, to the
 * final layer norm's output at the last position; the read-outs stay eager. Same model as the eager pass, other
 * float32 rounding (test/decode-graph.test.ts).
 */
export function lastGraphBytes(s: DecodeGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb);
  b.inputs(lastInputs(s));
  const { x, eps } = lastPositionTrunk(b, s, false);
  b.output('hf', b.layerNorm(x, 'lnf_g', 'lnf_b', eps));
  return b.savedModel(lastInputs(s), lastOutputs());
}

/**
 * The forward pass of the prefill and last-position graphs, from the inputs to the last position's rows [B, d] before
 * the final layer norm (and the layer norms' epsilon): TensorFlow's own softmax, the last layer computed for the last position only (its keys and
 * values for every position), each layer's keys and values output padded by `cache_pads` where `caches`.
 */
function lastPositionTrunk(b: GraphBuilder, s: DecodeGraphSpec, caches: boolean): { x: string; eps: string } {
  const { op, add, mul, matMul, reshape, transpose, ints, type } = b;
  const { layers: L, heads: H, dModel: d } = s,
    dh = d / H,
    I = { T: type(DT_INT32) };
  const eps = b.scalar(s.eps),
    scale = b.scalar(1 / Math.sqrt(dh)),
    c1702 = b.scalar(1.702);
  const B = b.dim('mask', 0),
    T = b.dim('mask', 3),
    lastT = op('Sub', [T, b.constant(DT_INT32, [1], [])], I);
  let x = b.gather('tok_emb', b.flatIds('tokens'));
  if (!s.alibi) x = add(x, b.gather('pos_emb', b.flatIds('positions')));
  // the last position of [B, T, ...]: Slice from (0, T - 1, 0, ...) of size (-1, 1, -1, ...)
  const lastOf = (t: string, rank: number, axis: number) =>
    op(
      'Slice',
      [
        t,
        op('Mul', [ints(Array.from({ length: rank }, (_, i) => (i === axis ? 1 : 0))), lastT], I),
        ints(Array.from({ length: rank }, (_, i) => (i === axis ? 1 : -1))),
      ],
      { ...b.T, Index: type(DT_INT32) },
    );
  /** rows [B * T, d] -> the last position's [B, d] */
  const lastRows = (t: string) =>
    reshape(
      lastOf(
        op('Reshape', [t, op('Pack', [B, T, b.constant(DT_INT32, [d], [])], { ...I, N: b.int(3), axis: b.int(0) })], {
          ...b.T,
          Tshape: type(DT_INT32),
        }),
        3,
        1,
      ),
      [-1, d],
    );
  const heads = (t: string, rows: string) => b.heads(t, B, rows, H, dh);
  for (let l = 0; l < L; l++) {
    const p = (w: string) => `l${l}_${w}`,
      lastLayer = l === L - 1;
    const split = b.split3(matMul(b.layerNorm(x, p('ln1_g'), p('ln1_b'), eps), p('wqkv')), d, 1);
    const k = heads(`${split}:1`, T),
      v = heads(`${split}:2`, T);
    if (caches) {
      b.output(p('k_out'), op('Pad', [k, 'cache_pads'], { ...b.T, Tpaddings: type(DT_INT32) }));
      b.output(p('v_out'), op('Pad', [v, 'cache_pads'], { ...b.T, Tpaddings: type(DT_INT32) }));
    }
    // the last layer's queries, attention and MLP for the last position only (nothing else reads them)
    const q = lastLayer ? heads(lastRows(`${split}:0`), b.constant(DT_INT32, [1], [])) : heads(`${split}:0`, T);
    if (lastLayer) x = lastRows(x);
    const mask = lastLayer ? lastOf('mask', 4, 2) : 'mask';
    const att = op('Softmax', [add(matMul(mul(q, scale), k, true), mask)]);
    x = add(x, matMul(reshape(transpose(matMul(att, v), [0, 2, 1, 3]), [-1, d]), p('wo')));
    const u = add(matMul(b.layerNorm(x, p('ln2_g'), p('ln2_b'), eps), p('w1')), p('b1'));
    x = add(x, add(matMul(mul(u, op('Sigmoid', [mul(u, c1702)])), p('w2')), p('b2')));
  }
  return { x, eps };
}

/**
 * A step's in-place cache writes and attention reads (every cache of a step has one shape, so their index arithmetic
 * is built once, from `first`). `write` sets column tk - 1 of a cache [B, H, capacity, dh] (axis 2; the GRU's read
 * cache [B, capacity, d], axis 1), zeros past the written columns, seen as rows of [B * H * capacity, dh], by
 * TensorFlow's InplaceUpdate, which writes into its input's buffer, the fed tensor's own (an alias by design:
 * inplace_ops.cc), and returns it: the cache must be a buffer the decode state alone holds (the states pad it into a
 * fresh one: roomFor). `read` is the attention read of one query over caches written to column tk - 1: the scores
 * over the capacity cut to the tk written columns, softmax(scores * scale + bias), the weights padded back with zeros
 * for the read over V (products over zero padding equal the exact ones: test/decode-graph.test.ts); q [.., 1, dh],
 * k and v [.., capacity, dh].
 */
function cacheColumns(b: ReturnType<typeof graphBuilder>, first: string, tk: string, dh: number, axis: 1 | 2) {
  const { op, ints, type } = b,
    I = { T: type(DT_INT32) },
    rank = axis + 2;
  const shape = op('Shape', [first], { ...b.T, out_type: type(DT_INT32) }),
    at = (i: number) => b.dim(first, i);
  const one = b.constant(DT_INT32, [1], []),
    cap = at(axis),
    n = axis === 2 ? op('Mul', [at(0), at(1)], I) : at(0);
  const rows = op('Range', [b.constant(DT_INT32, [0], []), n, one], { Tidx: type(DT_INT32) });
  const index = op('Add', [op('Mul', [rows, cap], I), op('Sub', [tk, one], I)], I);
  const flat = (x: string) => op('Reshape', [x, ints([-1, dh])], { ...b.T, Tshape: type(DT_INT32) });
  const last = (x: number, at1: number) => Array.from({ length: rank }, (_, i) => (i === rank - 1 ? at1 : x));
  const cut = op('Add', [ints(last(-1, 0)), op('Mul', [ints(last(0, 1)), tk], I)], I);
  const pads = op(
    'Reshape',
    [op('Mul', [ints([...Array(2 * rank - 1).fill(0), 1]), op('Sub', [cap, tk], I)], I), ints([rank, 2])],
    { ...I, Tshape: type(DT_INT32) },
  );
  return {
    write: (cache: string, value: string) =>
      op('Reshape', [op('InplaceUpdate', [flat(cache), index, flat(value)], b.T), shape], {
        ...b.T,
        Tshape: type(DT_INT32),
      }),
    read: (q: string, k: string, v: string, scale: string, bias: string) => {
      const scores = op('Slice', [b.matMul(q, k, true), ints(last(0, 0)), cut], { ...b.T, Index: type(DT_INT32) });
      const att = op('Pad', [b.softmax(b.add(b.mul(scores, scale), bias)), pads], {
        ...b.T,
        Tpaddings: type(DT_INT32),
      });
      return b.matMul(att, v);
    },
  };
}

/** Zero columns a cache of `capacity` needs for room for `width` (to a multiple of CACHE_CHUNK), 0 if it has room. */
export const roomFor = (capacity: number, width: number) =>
  width <= capacity ? 0 : Math.ceil(width / CACHE_CHUNK) * CACHE_CHUNK - capacity;

/** The SavedModel bytes of the GRU's decode step (gru.ts, `step`). */
export function gruGraphBytes(s: GruGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb);
  b.inputs(gruInputs(s));
  const hs = Array.from({ length: s.layers }, (_, l) => `l${l}_h`);
  const step = gruStep(b, s, 'tokens', hs, s.attend ? { k: 'k', v: 'v', keyMask: 'key_mask' } : null);
  step.hs.forEach((h, l) => b.output(`l${l}_h_out`, h));
  if (step.keyMask) b.output('key_mask_out', step.keyMask);
  b.logitsAndProbs(step.logits);
  return b.savedModel(gruInputs(s), gruOutputs(s));
}

/**
 * One decode step of the GRU (gru.ts, `step`), op for op: the tokens fed, each layer's state from `hs`, the read
 * cache (`kv`, where the model attends) written in place at a new column of its key mask; returns the logits, the new
 * states and the grown key mask. Inputs are read through `input` (a loop's frame; the names themselves elsewhere).
 */
function gruStep(
  b: GraphBuilder,
  s: GruGraphSpec,
  tokens: string,
  hs: string[],
  kv: { k: string; v: string; keyMask: string } | null,
  input: (name: string) => string = (name) => name,
): { logits: string; hs: string[]; keyMask: string | null } {
  const { op, add, sub, mul, matMul, reshape, concat, type, int } = b,
    d = s.dModel;
  const eps = b.scalar(s.eps),
    one = b.scalar(1);
  // the one-hot embedding: tfjs's oneHot (0/1) cast to float32, times the table
  const oneHot = op('OneHot', [tokens, b.constant(DT_INT32, [s.vocab], []), b.scalar(1), b.scalar(0)], {
    T: type(DT_FLOAT),
    TI: type(DT_INT32),
    axis: int(-1),
  });
  let x = matMul(oneHot, input('tok_emb'));
  const ones = b.filled(x, [-1, 1], 1),
    zeros = b.filled(x, [-1, 1], 0);
  const out: string[] = [];
  for (let l = 0; l < s.layers; l++) {
    const p = (w: string) => input(`l${l}_${w}`),
      h = hs[l];
    const xs = b.split3(add(matMul(x, p('wx')), p('b')), d, 1),
      hh = b.split3(matMul(h, p('wh')), d, 1);
    const z = op('Sigmoid', [add(`${xs}:0`, `${hh}:0`)]),
      r = op('Sigmoid', [add(`${xs}:1`, `${hh}:1`)]);
    const nn = op('Tanh', [add(`${xs}:2`, mul(r, `${hh}:2`))]);
    const next = add(mul(sub(one, z), nn), mul(z, h));
    x = add(mul(next, ones), mul(h, zeros));
    out.push(x);
  }
  let keyMask: string | null = null;
  if (kv) {
    // the read cache written in place, as the transformer's (decodeGraphBytes)
    const proj = (w: string) => reshape(matMul(x, input(w)), [-1, 1, d]);
    keyMask = concat([kv.keyMask, b.filled(kv.keyMask, [-1, 1, 1], 0)], 2);
    const cols = cacheColumns(b, kv.k, b.dim(keyMask, 2), d, 1),
      k = cols.write(kv.k, proj('att_k'));
    const v = cols.write(kv.v, proj('att_v'));
    kv.k = k;
    kv.v = v;
    const y = cols.read(proj('att_q'), k, v, b.scalar(1 / Math.sqrt(d)), keyMask);
    x = add(x, matMul(reshape(y, [-1, d]), input('att_o')));
  }
  const logits = matMul(b.layerNorm(x, input('lnf_g'), input('lnf_b'), eps), input('head'));
  return { logits, hs: out, keyMask };
}

/** Input names of the GRU's chunk graph (kernels 4): its decode graph's, then the draws and the rows' state. */
export const gruChunkInputs = (s: GruGraphSpec): string[] => [...gruInputs(s), 'uniforms', 'done', 'eos_on'];
/** Output names of the GRU's chunk graph: the drawn tokens, the done flags, each layer's state, the read cache's mask. */
export const gruChunkOutputs = (s: GruGraphSpec) => [
  'tokens_out',
  'done_out',
  ...Array.from({ length: s.layers }, (_, l) => `l${l}_h_out`),
  ...(s.attend ? ['key_mask_out'] : []),
];

/** The SavedModel bytes of the GRU's decode steps with sampling, a chunk per call (kernel generation 4; samplingLoop). */
export function gruChunkGraphBytes(s: GruGraphSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb);
  b.inputs(gruChunkInputs(s));
  const layers = Array.from({ length: s.layers }, (_, l) => `l${l}_h`);
  const state = [...layers, ...(s.attend ? ['k', 'v', 'key_mask'] : [])].map((name) => ({ name, init: name }));
  const exits = samplingLoop(b, state, (v, _j, tokens, input) => {
    const kv = s.attend ? { k: v.k, v: v.v, keyMask: v.key_mask } : null;
    const step = gruStep(
      b,
      s,
      tokens,
      layers.map((h) => v[h]),
      kv,
      input,
    );
    const next: Record<string, string> = Object.fromEntries(layers.map((h, l) => [h, step.hs[l]]));
    if (kv && step.keyMask) Object.assign(next, { k: kv.k, v: kv.v, key_mask: step.keyMask });
    return { logits: step.logits, next };
  });
  layers.forEach((h, l) => b.output(`l${l}_h_out`, exits[h]));
  if (s.attend) b.output('key_mask_out', exits.key_mask);
  return b.savedModel(gruChunkInputs(s), gruChunkOutputs(s));
}

/**
 * A loaded graph: `run` takes its inputs in order, but for a last input named `temperature`, which it feeds itself
 * (default 1); returns the outputs.
 */
export interface DecodeGraph {
  run(inputs: tf.Tensor[], temperature?: number): tf.Tensor[];
}

const loaded = new Map<string, DecodeGraph | null>();

/**
 * A decode graph, loaded once per process (its SavedModel written once per machine, named by its content's hash);
 * null off the native backend, with WORKBENCH_DECODE_GRAPH=0, or where tfjs-node's session binding is missing.
 */
export function loadGraph(key: string, bytesOf: (pb: Proto) => Uint8Array, inputs: string[], outputs: string[]) {
  if (tf.getBackend() !== 'tensorflow' || !decodeGraphOn()) return null;
  if (loaded.has(key)) return loaded.get(key)!;
  const backend = nativeBackend();
  let pb: Proto;
  try {
    // resolved from the working directory (the repository root for every target, test and notebook): no
    // import.meta here, which tslab's CommonJS compile of the notebooks rejects; elsewhere the eager step runs
    const require = createRequire(path.join(process.cwd(), 'package.json'));
    const dist = path.dirname(require.resolve(nativePackage() ?? 'tfjs-node-native'));
    pb = require(path.join(dist, 'proto', 'api_pb.js')) as Proto;
  } catch {
    loaded.set(key, null);
    return null;
  }
  const bytes = bytesOf(pb);
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `workbench-decode-${hash}`);
  if (!fs.existsSync(path.join(dir, 'saved_model.pb'))) {
    const tmp = `${dir}.${process.pid}`;
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(path.join(tmp, 'saved_model.pb'), bytes);
    try {
      fs.renameSync(tmp, dir);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true });
    } // another process won
  }
  const id = backend.loadSavedModelMetaGraph(dir, 'serve');
  const infos = inputs.map((name) => ({
    name: `${name}:0`,
    tfDtype: dtypeOf(name) === DT_INT32 ? 'DT_INT32' : 'DT_FLOAT',
  }));
  const fetch = outputs.map((name) => `${name}:0`);
  const graph =
    inputs.at(-1) === 'temperature'
      ? {
          run: (xs: tf.Tensor[], temperature = 1) => {
            const t = tf.scalar(temperature);
            try {
              return backend.runSavedModel(id, [...xs, t], infos, fetch);
            } finally {
              t.dispose();
            }
          },
        }
      : { run: (xs: tf.Tensor[]) => backend.runSavedModel(id, xs, infos, fetch) };
  loaded.set(key, graph);
  return graph;
}

/** The transformer's decode graph for `s` (see loadGraph). */
export const decodeGraph = (s: DecodeGraphSpec): DecodeGraph | null =>
  loadGraph(`transformer ${JSON.stringify(s)}`, (pb) => decodeGraphBytes(s, pb), decodeInputs(s), decodeOutputs());

/** The transformer's graph of decode steps with sampling (kernel generation 4; see loadGraph). */
export const chunkGraph = (s: DecodeGraphSpec): DecodeGraph | null =>
  loadGraph(`chunk ${JSON.stringify(s)}`, (pb) => chunkGraphBytes(s, pb), chunkInputs(s), chunkOutputs());

/** The transformer's prefill graph for `s` (kernel generation 2; see loadGraph). */
export const prefillGraph = (s: DecodeGraphSpec): DecodeGraph | null =>
  loadGraph(`prefill ${JSON.stringify(s)}`, (pb) => prefillGraphBytes(s, pb), prefillInputs(s), prefillOutputs(s));

/** The transformer's last-position graph for `s` (kernel generation 3; see loadGraph). */
export const lastGraph = (s: DecodeGraphSpec): DecodeGraph | null =>
  loadGraph(`last ${JSON.stringify(s)}`, (pb) => lastGraphBytes(s, pb), lastInputs(s), lastOutputs());

/** The GRU's decode graph for `s` (see loadGraph). */
export const gruDecodeGraph = (s: GruGraphSpec): DecodeGraph | null =>
  loadGraph(`gru ${JSON.stringify(s)}`, (pb) => gruGraphBytes(s, pb), gruInputs(s), gruOutputs(s));

/** The GRU's graph of decode steps with sampling (kernel generation 4; see loadGraph). */
export const gruChunkGraph = (s: GruGraphSpec): DecodeGraph | null =>
  loadGraph(`gru chunk ${JSON.stringify(s)}`, (pb) => gruChunkGraphBytes(s, pb), gruChunkInputs(s), gruChunkOutputs(s));
