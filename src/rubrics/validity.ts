// RLCER's validity test for a criterion on one prompt's rollouts: its satisfaction v (0/1 per rollout)
// must vary (std > 0) and correlate with correctness z: Pearson corr(v, z) > threshold (0.2 in the paper).
import { pearson } from '../util/stats.js';

/** Pearson correlation (src/util/stats.ts); null when either side is constant (the correlation is undefined). */
export { pearson };

/** Valid iff satisfaction varies and corr(v, z) > threshold (a constant z makes every criterion invalid). */
export function isValidCriterion(v: ArrayLike<number>, z: ArrayLike<number>, threshold = 0.2): boolean {
  const r = pearson(v, z);
  return r !== null && r > threshold;
}
