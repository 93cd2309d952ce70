// Advantage estimators on plain arrays: GRPO's group normalisation, GAE, whitening. Tensor-free: theory uses them too.
import { ConfigError, requireNonNegative, requireProbability } from './validate.js';

export interface GroupNorm {
  /** 'sample' (Bessel, as verl, OpenRLHF and TRL) or 'population' (CO-RL's theory) */
  std: 'sample' | 'population' | 'none';
  /** added to the std before dividing */
  eps: number;
  /** advantage of a group of one response: 0 (TRL; nothing to compare with) or its raw reward (verl) */
  singleton: 'zero' | 'raw';
}

export const defaultGroupNorm: GroupNorm = { std: 'sample', eps: 1e-6, singleton: 'zero' };

/**
 * GRPO advantages of one group: (r - mean) / (std + eps). A group whose rewards are all equal gets zeros
 * (its std is 0 and so is every r - mean); std 'none' is Dr. GRPO's mean-only variant.
 */
export function groupAdvantages(
  rewards: ArrayLike<number>,
  g: GroupNorm = defaultGroupNorm,
  out = new Float64Array(rewards.length),
): Float64Array {
  const n = rewards.length;
  if (n === 0) throw new ConfigError('a GRPO group needs at least one response');
  if (n === 1) {
    out[0] = g.singleton === 'raw' ? rewards[0] : 0;
    return out;
  }
  let mean = 0;
  for (let i = 0; i < n; i++) mean += rewards[i];
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (rewards[i] - mean) ** 2;
  const std = g.std === 'none' ? 1 : Math.sqrt(ss / (g.std === 'sample' ? n - 1 : n));
  for (let i = 0; i < n; i++) out[i] = std === 0 ? 0 : (rewards[i] - mean) / (std + (g.std === 'none' ? 0 : g.eps));
  return out;
}

/**
 * Generalised advantage estimation over one response's tokens: delta_t = r_t + gamma V_{t+1} - V_t,
 * A_t = delta_t + gamma lambda A_{t+1}, with V after the last token = 0. Returns advantages and returns (A + V).
 */
export function gae(rewards: ArrayLike<number>, values: ArrayLike<number>, gamma: number, lambda: number) {
  requireProbability('gamma', gamma);
  requireProbability('lambda', lambda);
  const T = rewards.length,
    adv = new Float64Array(T),
    ret = new Float64Array(T);
  let next = 0,
    nextValue = 0;
  for (let t = T - 1; t >= 0; t--) {
    const delta = rewards[t] + gamma * nextValue - values[t];
    next = delta + gamma * lambda * next;
    adv[t] = next;
    ret[t] = next + values[t];
    nextValue = values[t];
  }
  return { advantages: adv, returns: ret };
}

/** Whiten values in place to mean 0 and std 1 (population std + eps) over all entries. */
export function whiten(xs: Float64Array[], eps = 1e-8): void {
  requireNonNegative('eps', eps);
  let n = 0,
    mean = 0;
  for (const x of xs)
    for (const v of x) {
      mean += v;
      n++;
    }
  if (n === 0) return;
  mean /= n;
  let ss = 0;
  for (const x of xs) for (const v of x) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / n);
  for (const x of xs) for (let i = 0; i < x.length; i++) x[i] = (x[i] - mean) / (std + eps);
}
