// RLVR: RL with a verifiable outcome reward only (+1 correct, -1 wrong), the baseline every rubric method
// is compared with. One readable path: sample prompts -> roll out -> reward -> PPO (or GRPO) update.
import { tf } from '../../models/backend.js';
import type { Policy } from '../../models/policy.js';
import type { Rng } from '../../util/random.js';
import type { ParsedTrace } from '../../world/trace.js';
import { defaultWorld } from '../../world/defaults.js';
import { classifyStyle } from '../../rl/evaluate.js';
import {
  checkPpoConfig,
  criticsState,
  defaultPpoConfig,
  makeCritics,
  makeRoleOptimizers,
  ppoUpdate,
  restoreCritics,
  type PpoConfig,
} from '../../rl/ppo.js';
import { createPolicy } from '../../models/index.js';
import { checkGrpoConfig, defaultGrpoConfig, grpoUpdate, type GrpoConfig } from '../../rl/grpo.js';
import { optimizersState, restoreOptimizers, type OptimizerState } from '../../rl/optim.js';
import { mean } from '../../rl/rollout.js';
import {
  outcomeReward,
  referencePolicy,
  rollOutReasoner,
  type ReasonerRollout,
  type RewardFn,
  type Trainer,
  checkRunBase,
  type RunBase,
} from '../../rl/trainer.js';
import { ConfigError } from '../../util/validate.js';

export interface RlvrConfig extends RunBase {
  algo: 'ppo' | 'grpo';
  ppo: PpoConfig;
  grpo: GrpoConfig;
}

export const defaultRlvrConfig: RlvrConfig = {
  steps: 100,
  prompts: 16,
  rollouts: 8,
  temperature: 1,
  algo: 'ppo',
  ppo: { ...defaultPpoConfig, epochs: 1, minibatches: 2 },
  grpo: defaultGrpoConfig,
  world: defaultWorld,
};

export function checkRlvrConfig(c: RlvrConfig): void {
  checkRunBase(c);
  if (c.algo !== 'ppo' && c.algo !== 'grpo') throw new ConfigError(`algo must be "ppo" or "grpo" (got "${c.algo}")`);
  checkPpoConfig(c.ppo);
  checkGrpoConfig(c.grpo);
}

/** RLVR's reward: the outcome reward of each rollout's training label (its exact correctness unless labels are noisy). */
export const outcomeRewardFn: RewardFn = (rs) =>
  rs.map((r) => {
    const o = outcomeReward({ correct: r.label });
    return { reward: o, components: { outcome: o } };
  });

/** The format-only reward: +1 for a well-formed trace that ends with <eos> after its answer, -1 otherwise, right or wrong. */
export function formatReward(t: Pick<ParsedTrace, 'terminated' | 'issues'>): number {
  return t.terminated && t.issues.length === 0 ? 1 : -1;
}

/** Control: +1 or -1 for every rollout with probability 1/2 each, drawn from `rng`, whatever the rollout. */
export function randomRewardFn(rng: Rng): RewardFn {
  return (rs) =>
    rs.map(() => {
      const r = rng.next() < 0.5 ? 1 : -1;
      return { reward: r, components: { random: r } };
    });
}

/** Control: the format-only reward. */
export const formatRewardFn: RewardFn = (rs) =>
  rs.map((r) => {
    const f = formatReward(r.trace);
    return { reward: f, components: { format: f } };
  });

/**
 * PPO's equalGroups 'resample' (DAPO's dynamic sampling) for a reward whose outcome is the training label: the
 * batch's groups whose labels all agree are replaced by groups of further prompts, drawn `prompts` at a time, at most
 * RESAMPLE_ROUNDS rounds; every rollout sampled counts in `sampled` (the budget), and the groups still all-equal when
 * the rounds run out fill the batch (PPO zeroes them).
 */
export const RESAMPLE_ROUNDS = 2;
function rollOutMixed(policy: Policy, c: RlvrConfig, rng: Rng): { rs: ReasonerRollout[]; sampled: number } {
  const groupsOf = (rs: ReasonerRollout[]) =>
    [...new Set(rs.map((r) => r.group))].map((g) => rs.filter((r) => r.group === g));
  const mixed = (g: ReasonerRollout[]) => new Set(g.map((r) => r.label)).size > 1;
  const first = groupsOf(rollOutReasoner(policy, c, rng));
  let keep = first.filter(mixed),
    sampled = c.prompts * c.rollouts;
  for (let round = 0; round < RESAMPLE_ROUNDS && keep.length < c.prompts; round++) {
    keep = [...keep, ...groupsOf(rollOutReasoner(policy, c, rng)).filter(mixed)];
    sampled += c.prompts * c.rollouts;
  }
  const filled = [...keep, ...first.filter((g) => !mixed(g))].slice(0, c.prompts);
  return { rs: filled.flatMap((g, k) => g.map((r) => ({ ...r, group: k }))), sampled };
}

/** RLVR by default; another reward function (the static scalar RM) trains the same way. */
export function makeRlvrTrainer(policy: Policy, c: RlvrConfig, rewardFn: RewardFn = outcomeRewardFn): Trainer {
  checkRlvrConfig(c);
  const opts = makeRoleOptimizers(c.ppo.lr),
    grpoOpt = tf.train.adam(c.grpo.lr);
  const all = { ...opts, grpo: grpoOpt },
    vars = () => Object.values(policy.weights);
  const critics = makeCritics(policy, c.ppo, (p) => createPolicy(p.config)); // none unless ppo.critic is 'separate'
  const ref = referencePolicy(policy, c.algo === 'ppo' ? c.ppo.klCoef : c.grpo.klCoef); // the cold start, frozen
  let last: ReasonerRollout[] = [];
  return {
    lastRollouts: () => last,
    state: async () => ({
      optimizers: await optimizersState(all),
      ...(c.ppo.critic === 'separate' ? { critics: await criticsState(critics) } : {}),
    }),
    restore: async (s) => {
      await restoreOptimizers(all, s.optimizers as Record<string, OptimizerState>, vars);
      if (c.ppo.critic === 'separate') await restoreCritics(critics, s.critics as Parameters<typeof restoreCritics>[1]);
    },
    step(rng) {
      const t0 = Date.now();
      const { rs, sampled } =
        c.algo === 'ppo' && c.ppo.equalGroups === 'resample'
          ? rollOutMixed(policy, c, rng)
          : { rs: rollOutReasoner(policy, c, rng), sampled: 0 };
      const t1 = Date.now();
      rewardFn(rs).forEach((x, i) => {
        rs[i].reward = x.reward;
        // the outcome term, where the reward has one: PPO's equalGroups finds all-equal groups by it
        if (x.components.outcome !== undefined) rs[i].outcome = x.components.outcome;
        rs[i].components = { outcome: outcomeReward(rs[i]), ...x.components };
        if (x.tokenRewards) {
          if (c.algo !== 'ppo') throw new ConfigError('per-token rewards (a dense process reward) need algo "ppo"');
          rs[i].tokenRewards = x.tokenRewards;
        }
      });
      last = rs;
      const upd =
        c.algo === 'ppo'
          ? ppoUpdate(policy, opts, rs, c.ppo, rng, ref, critics)
          : grpoUpdate(policy, grpoOpt, rs, c.grpo, rng, ref);
      const groups = [...new Set(rs.map((r) => r.group))].map((g) => rs.filter((r) => r.group === g));
      const styles: Record<string, number> = {};
      for (const r of rs) {
        const s = classifyStyle(r.trace, r.problem);
        styles[s] = (styles[s] ?? 0) + 1 / rs.length;
      }
      return {
        accuracy: mean(rs.map((r) => +r.correct)),
        ...Object.fromEntries(
          Object.keys(rs[0].components).map((k) => [`reward/${k}`, mean(rs.map((r) => r.components[k]))]),
        ),
        reward_std: mean(
          groups.map((g) => {
            const m = mean(g.map((r) => r.reward));
            return Math.sqrt(mean(g.map((r) => (r.reward - m) ** 2)));
          }),
        ),
        mixed_groups: mean(groups.map((g) => +(new Set(g.map((r) => r.correct)).size > 1))),
        response_length: mean(rs.map((r) => r.completion.length)),
        terminated: mean(rs.map((r) => +r.trace.terminated)),
        ...Object.fromEntries(Object.entries(styles).map(([k, v]) => [`style/${k}`, v])),
        ...upd,
        ...(sampled ? { rollouts_sampled: sampled } : {}),
        sample_ms: t1 - t0,
        update_ms: Date.now() - t1,
      };
    },
  };
}
