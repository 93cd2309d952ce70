// Rubicon's aggregators: a response's reward vector (one score in [0, 1] per rubric dimension) to a scalar reward.
// The paper describes them in prose only (docs/rubicon.md, Anchors and aggregators); the formulas here are our
// explicit choices, each named beside the paper's wording.
import { ConfigError } from '../util/validate.js';

export interface Dimension {
  name: string;
  /** weight in the weighted sum (weights are normalised to sum to 1) */
  weight: number;
  /** a critical dimension can veto the whole reward */
  critical?: boolean;
}

export const AGGREGATORS = ['weighted_sum', 'veto', 'saturation', 'interaction', 'shaping'] as const;
export type AggregatorName = (typeof AGGREGATORS)[number];

export interface AggregatorParams {
  /** veto: a critical dimension scoring below this fails ("failing a critical dimension zeroes the reward") */
  vetoThreshold: number;
  /** saturation: curvature alpha of f(s) = (1 - e^(-alpha s)) / (1 - e^(-alpha)) ("diminishing returns per dimension") */
  saturationAlpha: number;
  /** interaction: gamma per named pair, > 0 synergy, < 0 antagonism ("synergy or antagonism between named pairs") */
  interactions: { a: string; b: string; gamma: number }[];
  /** shaping: power p > 1 of the convex map x^p ("stretching differences near the top") */
  shapingPower: number;
}

/**
 * Default interaction pairs for our world's anchors: synergy between writing steps and getting their digits right,
 * and between keeping to the length budget and verifying (doing both is worth more than either). Every dimension of
 * a family's vector is a required behaviour, so no default term is antagonistic (see `checkInteractions`).
 */
export const defaultAggregatorParams: AggregatorParams = {
  vetoThreshold: 0.5,
  saturationAlpha: 3,
  shapingPower: 3,
  interactions: [
    { a: 'steps', b: 'digits', gamma: 0.5 },
    { a: 'length', b: 'verification', gamma: 0.5 },
  ],
};

function check(scores: number[], dims: Dimension[]): number[] {
  if (scores.length !== dims.length) throw new ConfigError(`${scores.length} scores for ${dims.length} dimensions`);
  scores.forEach((s, k) => {
    if (!(s >= 0 && s <= 1)) throw new ConfigError(`score of ${dims[k].name} must be in [0, 1] (got ${s})`);
  });
  const total = dims.reduce((a, d) => a + d.weight, 0);
  if (!(total > 0) || dims.some((d) => !(d.weight >= 0)))
    throw new ConfigError('dimension weights must be non-negative with a positive total');
  return dims.map((d) => d.weight / total);
}

/** Weighted sum: sum_k w_k s_k (weights normalised). */
export function weightedSum(scores: number[], dims: Dimension[]): number {
  const w = check(scores, dims);
  return scores.reduce((a, s, k) => a + w[k] * s, 0);
}

/** Veto: 0 if any critical dimension scores below the threshold, else the weighted sum. */
export function veto(scores: number[], dims: Dimension[], p = defaultAggregatorParams): number {
  check(scores, dims);
  return dims.some((d, k) => d.critical && scores[k] < p.vetoThreshold) ? 0 : weightedSum(scores, dims);
}

/** Saturation-aware: sum_k w_k f(s_k) with the concave f(s) = (1 - e^(-alpha s)) / (1 - e^(-alpha)); f(0) = 0, f(1) = 1. */
export function saturation(scores: number[], dims: Dimension[], p = defaultAggregatorParams): number {
  const w = check(scores, dims),
    a = p.saturationAlpha;
  if (!(a > 0)) throw new ConfigError(`saturationAlpha must be > 0 (got ${a})`);
  return scores.reduce((acc, s, k) => acc + (w[k] * (1 - Math.exp(-a * s))) / (1 - Math.exp(-a)), 0);
}

/** A dimension is required when it carries weight or is critical; only a weightless, non-critical one is not. */
const required = (d: Dimension) => d.weight > 0 || !!d.critical;

/**
 * The interaction pairs that apply to a vector (pairs naming a dimension it does not have are skipped; `strict`
 * makes that an error). An antagonistic term (gamma < 0) on a pair with a required dimension would lower the reward
 * of satisfying that dimension, so it is rejected with a ConfigError.
 */
export function checkInteractions(
  dims: Dimension[],
  p = defaultAggregatorParams,
  strict = false,
): { i: number; j: number; gamma: number }[] {
  const idx = (n: string) => {
    const i = dims.findIndex((d) => d.name === n);
    if (i < 0 && strict) throw new ConfigError(`interaction names unknown dimension "${n}"`);
    return i;
  };
  const pairs = p.interactions.map((t) => ({ ...t, i: idx(t.a), j: idx(t.b) })).filter((t) => t.i >= 0 && t.j >= 0);
  for (const t of pairs) {
    const what = `interaction gamma(${t.a}, ${t.b})`;
    if (!Number.isFinite(t.gamma)) throw new ConfigError(`${what} must be a number (got ${t.gamma})`);
    if (t.gamma < 0 && (required(dims[t.i]) || required(dims[t.j]))) {
      throw new ConfigError(`${what} = ${t.gamma} < 0 would penalise satisfying a required dimension`);
    }
  }
  return pairs;
}

/**
 * Pairwise interaction: (weighted sum + sum_pairs gamma s_a s_b) / (1 + sum_pairs gamma), clipped to [0, 1].
 * Only synergy (gamma >= 0) may touch a required dimension (`checkInteractions`), so the reward never falls when a
 * required dimension's score rises, and all-ones scores exactly 1 (numerator and denominator are the same sums).
 */
export function interaction(scores: number[], dims: Dimension[], p = defaultAggregatorParams, strict = false): number {
  check(scores, dims);
  const pairs = checkInteractions(dims, p, strict);
  // the weighted sum as (sum_k weight_k s_k) / total: with all-ones the two sums are the same float, so it is 1 exactly
  const total = dims.reduce((a, d) => a + d.weight, 0);
  const ws = dims.reduce((a, d, k) => a + d.weight * scores[k], 0) / total;
  const num = ws + pairs.reduce((a, t) => a + t.gamma * scores[t.i] * scores[t.j], 0);
  const den = 1 + pairs.reduce((a, t) => a + t.gamma, 0);
  return Math.min(1, Math.max(0, num / den));
}

/** Targeted high-score shaping: the weighted sum through the convex map x^p (slope p at the top, flat near 0). */
export function shaping(scores: number[], dims: Dimension[], p = defaultAggregatorParams): number {
  if (!(p.shapingPower >= 1)) throw new ConfigError(`shapingPower must be >= 1 (got ${p.shapingPower})`);
  return weightedSum(scores, dims) ** p.shapingPower;
}

export function aggregate(
  name: AggregatorName,
  scores: number[],
  dims: Dimension[],
  p = defaultAggregatorParams,
): number {
  switch (name) {
    case 'weighted_sum':
      return weightedSum(scores, dims);
    case 'veto':
      return veto(scores, dims, p);
    case 'saturation':
      return saturation(scores, dims, p);
    case 'interaction':
      return interaction(scores, dims, p);
    case 'shaping':
      return shaping(scores, dims, p);
    default:
      throw new ConfigError(`unknown aggregator "${name as string}" (known: ${AGGREGATORS.join(', ')})`);
  }
}
