// Token-level policy-gradient losses (tf tensors, [B, T] with a 0/1 mask over completion tokens).
import { tf } from '../models/backend.js';

/** Mean over masked tokens of the whole batch ("token-mean", verl's default aggregation). */
export const tokenMean = (x: tf.Tensor, mask: tf.Tensor) =>
  x.mul(mask).sum().div(tf.maximum(mask.sum(), 1)) as tf.Scalar;

/**
 * PPO clipped surrogate: -min(ratio A, clip(ratio, 1-eps, 1+eps) A), ratio = exp(logp - oldLogp)
 * (the log-ratio clamped to +-20 as verl does). Also returns the clipped fraction and approx KL.
 */
export function clippedSurrogate(logp: tf.Tensor, oldLogp: tf.Tensor, adv: tf.Tensor, mask: tf.Tensor, eps: number) {
  const logRatio = tf.clipByValue(logp.sub(oldLogp), -20, 20);
  const ratio = tf.exp(logRatio);
  const unclipped = ratio.mul(adv),
    clipped = tf.clipByValue(ratio, 1 - eps, 1 + eps).mul(adv);
  const loss = tokenMean(tf.minimum(unclipped, clipped).neg(), mask);
  const clipfrac = tokenMean(tf.greater(tf.abs(ratio.sub(1)), eps).toFloat(), mask);
  const approxKl = tokenMean(logRatio.neg(), mask); // k1 estimate of KL(old || new)
  return { loss, clipfrac, approxKl };
}

/** Clipped value loss: 0.5 max((V - R)^2, (V_old + clip(V - V_old, +-eps) - R)^2). */
export function clippedValueLoss(v: tf.Tensor, vOld: tf.Tensor, returns: tf.Tensor, mask: tf.Tensor, eps: number) {
  const vClip = vOld.add(tf.clipByValue(v.sub(vOld), -eps, eps));
  return tokenMean(tf.maximum(tf.square(v.sub(returns)), tf.square(vClip.sub(returns))).mul(0.5), mask);
}

/** k3 estimator of KL(pi || ref) per token: exp(ref - logp) - (ref - logp) - 1, clamped to [-10, 10]. */
export function klK3(logp: tf.Tensor, refLogp: tf.Tensor) {
  const d = tf.clipByValue(refLogp.sub(logp), -20, 20);
  return tf.clipByValue(tf.exp(d).sub(d).sub(1), -10, 10);
}
