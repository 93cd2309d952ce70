// The positive controls (docs/sensitivity.md): RLVR's outcome reward plus an exact, ungated process reward from the
// world's ground truth (src/world/process.ts), known by construction to carry information beyond the outcome.
// `process_oracle` puts the process score on the last token beside the outcome; `process_oracle_dense` puts the same
// information on each step's last token (PRM-style), so PPO's GAE carries the credit to the step that went wrong.
import { denseProcessRewards, processScore } from '../../world/process.js';
import { outcomeReward, type RewardFn } from '../../rl/trainer.js';

/**
 * The process reward's weight, pre-registered (results/sensitivity/preregistration.md) from a criterion that reads no
 * accuracy: the scale of RLCER's CoT reward (cotWeight 1 on a score in [0, 1], beside an outcome of +-1), so that the
 * positive control and RLCER differ in what their extra reward measures and in its gating, not in its size.
 */
export const PROCESS_WEIGHT = 1;

/** Outcome (+-1 on the training label) + weight * the trace's process score, on the last token. */
export function processOracleRewardFn(weight = PROCESS_WEIGHT): RewardFn {
  return (rs) =>
    rs.map((r) => {
      const o = outcomeReward({ correct: r.label }),
        p = processScore(r.problem, r.trace).score;
      return { reward: o + weight * p, components: { outcome: o, process: p } };
    });
}

/** Outcome (+-1) on the last token; weight * each credited step's share of the process score on that step's last token. */
export function denseProcessOracleRewardFn(weight = PROCESS_WEIGHT): RewardFn {
  return (rs) =>
    rs.map((r) => {
      const o = outcomeReward({ correct: r.label }),
        s = processScore(r.problem, r.trace);
      const dense = denseProcessRewards(r.problem, r.trace, r.completion.length, s).map((v) => weight * v);
      return { reward: o, components: { outcome: o, process: s.score }, tokenRewards: dense };
    });
}
