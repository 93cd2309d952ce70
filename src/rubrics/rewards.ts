// RLCER's rubric rewards and EvoLM's judge score as small pure functions over one prompt's group of rollouts.
// Formulas (docs/rlcer.md, Method, and its table of options), with the paper's ambiguities as named options.
import { pearson } from '../util/stats.js';
import type { RubricItem } from './rubric.js';
import type { Rng } from '../util/random.js';

/**
 * What happens when correctness z is constant over the group (all right or all wrong), where Pearson is undefined:
 * 'none_valid' (default; the paper's test read literally: corr > 0.2 cannot hold, so no criterion is valid) or
 * 'discriminative' (EvoLM's re-implementation: keep every criterion whose satisfaction varies).
 */
export type ConstantCorrectness = 'none_valid' | 'discriminative';

export interface Validity {
  valid: boolean[];
  corr: (number | null)[];
}

/**
 * How the correlation test reads a criterion with negative points (a flaw: "satisfied" means the flaw is
 * present): 'sign_aware' tests corr(sign(points) * v, z) > threshold, so a penalty is valid when the flaw goes with
 * wrong answers; 'literal' tests corr(v, z) > threshold for every criterion, as the paper's formula is written (a
 * penalty then survives only when the flaw goes with correct answers).
 */
export type ValidityReading = 'sign_aware' | 'literal';

/**
 * Validity of each criterion: `v[k]` is criterion k's satisfaction (0/1) over the N rollouts, `z` their correctness.
 * With `signs` (each criterion's sign of points, reading 'sign_aware') the test correlates sign * v; without, it
 * reads every criterion literally. `corr` is the correlation the test compared with the threshold.
 */
export function criterionValidity(
  v: number[][],
  z: number[],
  threshold = 0.2,
  constant: ConstantCorrectness = 'none_valid',
  signs?: number[],
): Validity {
  const zVaries = z.some((x) => x !== z[0]);
  const corr = v.map((vk, k) => {
    const r = pearson(vk, z);
    return r === null || !signs ? r : signs[k] < 0 ? -r : r;
  });
  const valid = v.map((vk, k) => {
    const varies = vk.some((x) => x !== vk[0]);
    if (!varies) return false;
    if (!zVaries) return constant === 'discriminative';
    return corr[k] !== null && (corr[k] as number) > threshold;
  });
  return { valid, corr };
}

/** The random-rubrics control: the same number of criteria as the filter kept, chosen uniformly at random. */
export function randomValidity(valid: boolean[], rng: Rng): boolean[] {
  const n = valid.filter(Boolean).length,
    idx = valid.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const keep = new Set(idx.slice(0, n));
  return valid.map((_, i) => keep.has(i));
}

/**
 * Min-max normalised score of satisfied items: (sum of points of satisfied items - min) / (max - min), with min the
 * sum of negative points and max the sum of positive points; 0 for an empty item list. This is RLCER's CoT reward
 * over the valid criteria, and EvoLM's judge score J in [0, 1] over a whole rubric.
 */
export function normalisedScore(points: number[], satisfied: boolean[]): number {
  if (points.length === 0) return 0;
  const min = points.reduce((s, p) => s + Math.min(0, p), 0),
    max = points.reduce((s, p) => s + Math.max(0, p), 0);
  const raw = points.reduce((s, p, k) => s + (satisfied[k] ? p : 0), 0);
  return max === min ? 0 : (raw - min) / (max - min);
}

/**
 * Min-max normalisation of the CoT reward: 'rubric' (default; over the valid criteria's point range, as EvoLM's
 * re-implementation reads Eq. 6) or 'group' (over the raw scores of the group's rollouts; 0 when they are all equal).
 */
export type CotNorm = 'rubric' | 'group';

/** CoT reward of each rollout: `sat[i][k]` is whether rollout i satisfies valid item k (points `points[k]`). */
export function cotRewards(points: number[], sat: boolean[][], norm: CotNorm = 'rubric'): number[] {
  if (points.length === 0) return sat.map(() => 0);
  if (norm === 'rubric') return sat.map((s) => normalisedScore(points, s));
  const raw = sat.map((s) => points.reduce((a, p, k) => a + (s[k] ? p : 0), 0));
  const lo = Math.min(...raw),
    hi = Math.max(...raw);
  return raw.map((r) => (hi === lo ? 0 : (r - lo) / (hi - lo)));
}

/** The rubricator's reward: K_valid / K (when evolving) + format (1 if the output parsed into a valid rubric set). */
export function rubricatorReward(
  parsed: boolean,
  proposed: number,
  valid: number,
  evolve: boolean,
): { evolving: number; format: number } {
  return { evolving: evolve && parsed && proposed > 0 ? valid / proposed : 0, format: parsed ? 1 : 0 };
}

/** Pool valid items from several rubric sets, one copy per criterion (the first set's points win). */
export function poolItems<T = RubricItem>(sets: T[][], key: (i: T) => string): T[] {
  const seen = new Set<string>(),
    out: T[] = [];
  for (const s of sets)
    for (const i of s) {
      const k = key(i);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(i);
      }
    }
  return out;
}
