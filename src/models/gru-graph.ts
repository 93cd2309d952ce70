// Kernel generation 3 on the native backend: the GRU's recurrence as one TensorFlow graph per layer and its
// backward pass (backpropagation through time) as another, written by hand. Eagerly, each of the T steps of a layer
// is about a dozen kernels forward and two dozen backward, dispatched one by one through tfjs and recorded on its
// tape; the graphs unroll the steps. The input projections (x Wx + b), the recall read and the read-outs stay eager,
// so gru.ts wraps the pair as one custom-gradient op over (x Wx + b, Wh). Same model as the eager recurrence, other
// float32 rounding: test/gru-graph.test.ts checks the outputs and the gradients against tfjs's autodiff.
import { graphBuilder, loadGraph, type DecodeGraph, type GraphBuilder, type Proto } from './decode-graph.js';

/** The recurrence's graphs are unrolled per length; lengths are padded up to a multiple of this (invalid steps). */
export const GRU_STEP_BUCKET = 16;

/** The steps a graph unrolls for a batch of T positions. */
export const unrolledSteps = (T: number) => Math.ceil(T / GRU_STEP_BUCKET) * GRU_STEP_BUCKET;

const SAVED = ['z', 'r', 'n', 'hn', 'hprev'];

/** Forward inputs: the gate inputs x Wx + b [B, T, 3d] (z | r | n), the recurrent weights [d, 3d], validity [B, T, 1]. */
export const gruForwardInputs = () => ['xp', 'wh', 'valid'];
/** Forward outputs: every step's state [B, T, d], then what the backward pass reads, each [B, T, d]. */
export const gruForwardOutputs = () => ['seq', ...SAVED];
/** Backward inputs: the gradient of `seq`, the recurrent weights, validity, the saved activations. */
export const gruBackwardInputs = () => ['dseq', 'wh', 'valid', ...SAVED];
/** Backward outputs: the gradients of the gate inputs and of the recurrent weights. */
export const gruBackwardOutputs = () => ['dxp', 'dwh'];

/** Steps unrolled and the state width: one pair of graphs per pair. */
export interface GruRecurrenceSpec {
  steps: number;
  dModel: number;
}

/** [B, T, w] -> T tensors [B, w] (Unpack along the time axis). */
function steps(b: GraphBuilder, x: string, T: number): string[] {
  const u = b.op('Unpack', [x], { ...b.T, num: b.int(T), axis: b.int(1) });
  return Array.from({ length: T }, (_, t) => (t === 0 ? u : `${u}:${t}`));
}
/** T tensors [B, w] -> [B, T, w] */
const stack = (b: GraphBuilder, xs: string[]) => b.op('Pack', xs, { ...b.T, N: b.int(xs.length), axis: b.int(1) });

/**
 * The SavedModel bytes of the recurrence (gru.ts, `cell`): per step h' = (1 - z) n + z h on valid steps, h on
 * padding, with z = sigmoid(xz + h Whz), r = sigmoid(xr + h Whr), n = tanh(xn + r (h Whn)), from h = 0.
 */
export function gruForwardBytes(s: GruRecurrenceSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb),
    { op, add, sub, mul } = b,
    T = s.steps,
    d = s.dModel;
  b.inputs(gruForwardInputs());
  const one = b.scalar(1);
  const xs = steps(b, 'xp', T),
    valid = steps(b, 'valid', T);
  let h = b.filled(xs[0], [-1, d], 0); // h0 = 0, [B, d]
  const saved: Record<string, string[]> = Object.fromEntries(SAVED.map((k) => [k, []]));
  const outs: string[] = [];
  for (let t = 0; t < T; t++) {
    const x = b.split3(xs[t], d, 1),
      hp = b.split3(op('MatMul', [h, 'wh'], { ...b.T, transpose_a: b.bool(false), transpose_b: b.bool(false) }), d, 1);
    const z = op('Sigmoid', [add(`${x}:0`, `${hp}:0`)]),
      r = op('Sigmoid', [add(`${x}:1`, `${hp}:1`)]);
    const n = op('Tanh', [add(`${x}:2`, mul(r, `${hp}:2`))]);
    const next = add(mul(sub(one, z), n), mul(z, h));
    const v = valid[t];
    saved.z.push(z);
    saved.r.push(r);
    saved.n.push(n);
    saved.hn.push(`${hp}:2`);
    saved.hprev.push(h);
    h = add(mul(next, v), mul(h, sub(one, v)));
    outs.push(h);
  }
  b.output('seq', stack(b, outs));
  for (const k of SAVED) b.output(k, stack(b, saved[k]));
  return b.savedModel(gruForwardInputs(), gruForwardOutputs());
}

/** The SavedModel bytes of the recurrence's backward pass: the gate inputs' and Wh's gradients from seq's. */
export function gruBackwardBytes(s: GruRecurrenceSpec, pb: Proto): Uint8Array {
  const b = graphBuilder(pb),
    { op, add, sub, mul } = b,
    T = s.steps,
    d = s.dModel;
  b.inputs(gruBackwardInputs());
  const one = b.scalar(1);
  const dseq = steps(b, 'dseq', T),
    valid = steps(b, 'valid', T);
  const a = Object.fromEntries(SAVED.map((k) => [k, steps(b, k, T)]));
  const mm = (x: string, y: string, ta: boolean, tb: boolean) =>
    op('MatMul', [x, y], { ...b.T, transpose_a: b.bool(ta), transpose_b: b.bool(tb) });
  const dxp: string[] = new Array(T),
    dhp: string[] = new Array(T);
  let carry = '';
  for (let t = T - 1; t >= 0; t--) {
    const z = a.z[t],
      r = a.r[t],
      n = a.n[t],
      v = valid[t];
    const dh = carry ? add(dseq[t], carry) : dseq[t];
    // h_t = v next + (1 - v) h, next = (1 - z) n + z h
    const dnext = mul(dh, v),
      oneMinusZ = sub(one, z);
    const dz = mul(dnext, sub(a.hprev[t], n)),
      dn = mul(dnext, oneMinusZ);
    const dpn = mul(dn, sub(one, op('Square', [n]))); // tanh'
    const dpz = mul(dz, mul(z, oneMinusZ)); // sigmoid'
    const dpr = mul(mul(dpn, a.hn[t]), mul(r, sub(one, r)));
    dxp[t] = b.concat([dpz, dpr, dpn], 1);
    dhp[t] = b.concat([dpz, dpr, mul(dpn, r)], 1);
    carry = add(add(mul(dh, sub(one, v)), mul(dnext, z)), mm(dhp[t], 'wh', false, true));
  }
  b.output('dxp', stack(b, dxp));
  // dWh = sum over steps of h_{t-1}^T dhp_t: one product over the [B * T] rows
  b.output('dwh', mm(b.reshape('hprev', [-1, d]), b.reshape(stack(b, dhp), [-1, 3 * d]), true, false));
  return b.savedModel(gruBackwardInputs(), gruBackwardOutputs());
}

/** The recurrence's forward and backward graphs for `s`, or null where the decode graphs do not run (loadGraph). */
export function gruTrainGraphs(s: GruRecurrenceSpec): { forward: DecodeGraph; backward: DecodeGraph } | null {
  const key = JSON.stringify(s);
  const forward = loadGraph(
    `gru forward ${key}`,
    (pb) => gruForwardBytes(s, pb),
    gruForwardInputs(),
    gruForwardOutputs(),
  );
  const backward =
    forward &&
    loadGraph(`gru backward ${key}`, (pb) => gruBackwardBytes(s, pb), gruBackwardInputs(), gruBackwardOutputs());
  return forward && backward ? { forward, backward } : null;
}
