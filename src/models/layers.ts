// Building blocks tuned for tfjs-wasm (docs/engine.md, Speed: XNNPACK serves only unbatched, untransposed matmuls): a
// linear layer whose backward pass uses only untransposed matmuls (XNNPACK's fast path), layer norm from moments, and
// a sigmoid GELU (no erf/tanh loops).
// On the native backend the backward matmuls read their operands transposed instead (oneDNN does it in the
// kernel; an explicit transpose of a [B*T, 4d] activation costs as much as the matmul).
import { kernelVersion, tf } from './backend.js';
import { makeRng } from '../util/random.js';

/** a^T @ b and a @ b^T for 2-D a, b: transposed operands on the native backend, explicit transposes elsewhere */
const native = () => tf.getBackend() === 'tensorflow';
const matMulTA = (a: tf.Tensor2D, b: tf.Tensor2D) => (native() ? tf.matMul(a, b, true) : tf.matMul(tf.transpose(a), b));
const matMulTB = (a: tf.Tensor2D, b: tf.Tensor2D) =>
  native() ? tf.matMul(a, b, false, true) : tf.matMul(a, tf.transpose(b));

/**
 * tf.customGrad with the op's signature typed. tfjs types the custom function as taking its tensors and the save
 * function in one rest list, and the op it returns as `(...args: Tensor[]) => Tensor`: no signature of ours matches
 * either, so every custom gradient of the workbench goes through this one cast.
 */
export const customOp = <Op extends (...xs: never[]) => tf.Tensor>(
  // biome-ignore lint/suspicious/noExplicitAny: tfjs passes the tensors and the save function in one list
  f: (...args: any[]) => { value: tf.Tensor; gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[] },
): Op => tf.customGrad(f) as unknown as Op;

/** y = x @ w for 2-D x, with the backward pass above. */
export const linear = customOp<(x: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D>(
  (x: tf.Tensor, w: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x, w]);
    return {
      value: tf.matMul(x as tf.Tensor2D, w as tf.Tensor2D),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, ws] = saved as tf.Tensor2D[];
        return [matMulTB(dy as tf.Tensor2D, ws), matMulTA(xs, dy as tf.Tensor2D)];
      },
    };
  },
);

/** y = onehot @ table for a constant one-hot input: the backward pass computes only the table's gradient. */
export const embedLinear = customOp<(x: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D>(
  (x: tf.Tensor, w: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x]);
    return {
      value: tf.matMul(x as tf.Tensor2D, w as tf.Tensor2D),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [
        tf.zerosLike(saved[0]),
        matMulTA(saved[0] as tf.Tensor2D, dy as tf.Tensor2D),
      ],
    };
  },
);

/** One-hot rows as float32. Trap: tfjs-wasm 4.22's OneHot with dtype 'float32' writes int32 bits (1 reads as 1.4e-45); cast instead. */
export const oneHotF = (ids: tf.Tensor, depth: number) =>
  tf.oneHot(ids.reshape([-1]) as tf.Tensor1D, depth).toFloat() as tf.Tensor2D;

/**
 * Layer norm over the last axis: (x - mean) * rsqrt(var + eps) * gain + bias, the forward pass as tfjs's moments
 * compute it (the same ops in the same order either way, so the decode graphs match it). Its backward pass depends on
 * the engine's kernels (backend.ts, `kernelVersion`): 1 differentiates those ops one by one (tfjs's autodiff, about
 * 25 kernels), 2 uses the closed form, with xhat = (x - mean) * rstd and g = gain * dy:
 *   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  dgain = sum over rows of dy * xhat,  dbias = sum of dy
 * (11 kernels; test/kernels.test.ts checks it against autodiff and a hand-computed case).
 */
export function layerNorm(x: tf.Tensor2D, gain: tf.Tensor1D, bias: tf.Tensor1D): tf.Tensor2D {
  if (kernelVersion() >= 2) return closedFormLayerNorm(x, gain, bias);
  const { mean, variance } = tf.moments(x, -1, true);
  return x
    .sub(mean)
    .mul(tf.rsqrt(variance.add(LN_EPS)))
    .mul(gain)
    .add(bias);
}

/** Layer norm's epsilon (the decode graphs take it as `eps`). */
export const LN_EPS = 1e-5;

const closedFormLayerNorm = customOp<(x: tf.Tensor2D, gain: tf.Tensor1D, bias: tf.Tensor1D) => tf.Tensor2D>(
  (x: tf.Tensor, gain: tf.Tensor, bias: tf.Tensor, save: tf.GradSaveFunc) => {
    const xc = tf.sub(x, tf.mean(x, -1, true));
    const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), LN_EPS)),
      xhat = tf.mul(xc, rstd);
    save([xhat, rstd, gain]);
    return {
      value: tf.add(tf.mul(xhat, gain), bias),
      gradFunc: (dy: tf.Tensor, [xh, rs, g]: tf.Tensor[]) => {
        const gdy = tf.mul(dy, g),
          meanG = tf.mean(gdy, -1, true),
          meanGx = tf.mean(tf.mul(gdy, xh), -1, true);
        const dx = tf.mul(tf.sub(tf.sub(gdy, meanG), tf.mul(xh, meanGx)), rs);
        return [dx, tf.sum(tf.mul(dy, xh), 0), tf.sum(dy, 0)];
      },
    };
  },
);

/** The additive mask value that removes an attention score. */
export const NEG = -1e9;

/** Causal attention mask [T, T]: 0 where key j <= query i, NEG above the diagonal. */
export const causalMask = (T: number) =>
  tf.linalg
    .bandPart(tf.ones([T, T]), -1, 0)
    .sub(1)
    .mul(-NEG) as tf.Tensor2D;

/**
 * GELU approximated as x * sigmoid(1.702 x). Kernels 2 (backend.ts) take its derivative in closed form,
 * s * (1 + 1.702 x (1 - s)) with s = sigmoid(1.702 x): five passes over x where autodiff makes seven.
 */
export const gelu = (x: tf.Tensor) => (kernelVersion() >= 2 ? closedFormGelu(x) : x.mul(tf.sigmoid(x.mul(1.702))));

const closedFormGelu = customOp<(x: tf.Tensor) => tf.Tensor>((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const u = x.mul(1.702),
    s = tf.sigmoid(u);
  save([u, s]);
  return {
    value: x.mul(s),
    gradFunc: (dy: tf.Tensor, [u1, s1]: tf.Tensor[]) => dy.mul(s1.mul(u1.mul(tf.sub(1, s1)).add(1))),
  };
});

/**
 * A model's weight registry. `param` creates a trainable variable, initialised from the seeded RNG (Gaussian
 * with the given std, or ones, or zeros), so that a seed fixes the model.
 */
export function weightRegistry(seed: number) {
  const rng = makeRng(seed),
    weights: Record<string, tf.Variable> = {};
  const param = (name: string, shape: number[], std: number | 'one' | 'zero') => {
    const n = shape.reduce((a, b) => a * b, 1),
      data = new Float32Array(n);
    if (std === 'one') data.fill(1);
    else if (std !== 'zero') for (let i = 0; i < n; i++) data[i] = std * rng.normal();
    weights[name] = tf.variable(tf.tensor(data, shape), true); // tfjs variable names are global: leave them unnamed
  };
  return {
    weights,
    param,
    P: (n: string): tf.Tensor2D => weights[n] as tf.Variable<tf.Rank.R2>,
    G: (n: string): tf.Tensor1D => weights[n] as tf.Variable<tf.Rank.R1>,
  };
}
