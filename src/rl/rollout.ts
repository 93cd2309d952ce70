// What the rollout stage hands to the update stage: sequences with a scalar reward on the last token.
import { tf } from '../models/backend.js';
import type { SequenceBatch } from '../models/logprobs.js';
import type { Role } from '../world/vocab.js';
import type { Rng } from '../util/random.js';

export interface Rollout {
  role: Role;
  /** prompt id: rollouts of one prompt form a GRPO group */
  group: number;
  prompt: number[];
  completion: number[];
  /** total scalar reward, placed on the last completion token */
  reward: number;
  /** every reward component, logged separately */
  components: Record<string, number>;
  /**
   * per-token rewards over the completion, added to `reward` (on the last token) before GAE: a process reward
   * model's step rewards (the dense positive control); absent for every other row
   */
  tokenRewards?: number[];
  /**
   * the outcome term of the reward (+-1 on the training label), where the reward has one: PPO's equalGroups reads it
   * to find groups whose outcomes are all equal; absent where the reward has no outcome (format, random, scalar RM)
   */
  outcome?: number;
}

/** Place per-row token arrays into the [B, T] layout of a sequence batch. */
export function toGrid(sb: SequenceBatch, rows: ArrayLike<number>[]): tf.Tensor2D {
  const B = rows.length,
    T = sb.T,
    out = new Float32Array(B * T);
  rows.forEach((r, i) => {
    for (let j = 0; j < r.length; j++) out[i * T + sb.start[i] + j] = r[j];
  });
  return tf.tensor2d(out, [B, T]);
}

/** Read a [B, T] tensor back as per-row arrays over each completion. */
export function fromGrid(sb: SequenceBatch, t: tf.Tensor): Float64Array[] {
  const d = t.dataSync(),
    T = sb.T;
  return sb.completionLengths.map((n, i) => Float64Array.from({ length: n }, (_, j) => d[i * T + sb.start[i] + j]));
}

/** Shuffle indices and split them into `parts` minibatches. */
export function minibatches(n: number, parts: number, rng: Rng): number[][] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const size = Math.ceil(n / parts);
  return Array.from({ length: Math.ceil(n / size) }, (_, k) => idx.slice(k * size, (k + 1) * size));
}

export { mean } from '../util/stats.js';
