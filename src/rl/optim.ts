// Gradient utilities shared by SFT, PPO and GRPO.
import { tf } from '../models/backend.js';

/** Clip gradients to a global norm in place; returns the norm before clipping. Throws on a non-finite gradient. */
export function clipByGlobalNorm(grads: Record<string, tf.Tensor>, maxNorm: number): number {
  const norm = Math.sqrt(Object.values(grads).reduce((s, g) => s + tf.tidy(() => g.square().sum().dataSync()[0]), 0));
  if (!Number.isFinite(norm)) throw new Error(`non-finite gradient norm (${norm}): the update would write NaN into the weights`);
  if (norm > maxNorm) for (const k of Object.keys(grads)) { const g = grads[k]; grads[k] = g.mul(maxNorm / norm); g.dispose(); }
  return norm;
}
