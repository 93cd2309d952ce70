// A role's update size held to a target: the KL-adaptive learning rate of rl_games (AdaptiveScheduler) and skrl
// (KLAdaptiveRL). After each update, an approx. KL per update above KL_FACTOR x the target divides the role's rate by
// LR_FACTOR (not below MIN_LR), one below the target / KL_FACTOR multiplies it (not above MAX_LR); in between the
// rate stays. With KL_FACTOR 2 the dead band is the parity band [0.5, 2] x the target (analysis/parity.ts).
import type { tf } from '../models/backend.js';
import { requirePositive } from '../util/validate.js';
import { adamInternals } from './optim.js';

export const KL_FACTOR = 2;
export const LR_FACTOR = 1.5;
export const MIN_LR = 1e-6;
export const MAX_LR = 1e-2;

/** The rate for the next update, given this update's approx. KL and the target (a KL that is not finite: no change). */
export function adaptRate(lr: number, kl: number, target: number): number {
  requirePositive('klTarget', target);
  if (!Number.isFinite(kl)) return lr;
  if (kl > KL_FACTOR * target) return Math.max(lr / LR_FACTOR, MIN_LR);
  if (kl < target / KL_FACTOR) return Math.min(lr * LR_FACTOR, MAX_LR);
  return lr;
}

/** An Adam's current rate (tfjs reads it at every applyGradients). */
export const rateOf = (opt: tf.Optimizer) => adamInternals(opt).learningRate;
export function setRate(opt: tf.Optimizer, lr: number): void {
  adamInternals(opt).learningRate = lr;
}

/** After an update that logged `kl`: move the optimiser's rate toward the target, and return the rate now in force. */
export function adaptOptimizer(opt: tf.Optimizer, kl: number, target: number): number {
  setRate(opt, adaptRate(rateOf(opt), kl, target));
  return rateOf(opt);
}
