// Label-free RL as CO-RL compares it (docs/corl.md, Methods), all with GRPO: GT-reward (the supervised upper
// reference), TTRL (agreement with one's own majority vote), Intuitor (self-certainty), RENT (negative entropy),
// and CO-RL (agent n rewarded by agreement with the majority vote of agent n-1, a ring). All rollouts and
// pseudo-labels are computed before any update; then each agent takes its own GRPO step with its own Adam.
import { tf } from '../../models/backend.js';
import { sample, type Policy } from '../../models/policy.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenConfidence } from '../../models/logprobs.js';
import type { Rng } from '../../util/random.js';
import { surfaceForm, type Problem } from '../../world/problems.js';
import { answerOf, parseTrace, promptTokens } from '../../world/trace.js';
import { encode, decode } from '../../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../../world/defaults.js';
import { majorityAnswer } from '../../rl/evaluate.js';
import { fromGrid, mean, type Rollout } from '../../rl/rollout.js';
import { checkGrpoConfig, defaultGrpoConfig, grpoUpdate, type GrpoConfig } from '../../rl/grpo.js';
import { ConfigError } from '../../util/validate.js';
import { checkRunBase, referencePolicy, type RunBase } from '../../rl/trainer.js';

export const LABEL_FREE_METHODS = ['gt_reward', 'ttrl', 'intuitor', 'rent', 'corl'] as const;
export type LabelFreeMethod = (typeof LABEL_FREE_METHODS)[number];

// ---- rewards: small pure functions over one prompt's group of answers ----

/** GT-reward: 1 when the answer equals the truth. */
export const gtRewards = (answers: (string | null)[], truth: string) => answers.map((a) => +(a === truth));

/**
 * Agreement with a pseudo-label: 1 when the answer equals `label`. A group whose voters gave no parseable answer
 * has no label (CO-RL's "unlabeled" sentinel) and earns 0 everywhere.
 */
export const agreementRewards = (answers: (string | null)[], label: string | null) =>
  answers.map((a) => +(label !== null && a === label));

/** TTRL: agreement with the group's own majority vote. */
export const ttrlRewards = (answers: (string | null)[]) => agreementRewards(answers, majorityAnswer(answers));

/** Intuitor: mean over the completion's tokens of KL(U || pi); RENT: minus the mean token entropy. */
export const intuitorReward = (selfCertainty: ArrayLike<number>) => mean(Array.from(selfCertainty));
export const rentReward = (entropy: ArrayLike<number>) => -mean(Array.from(entropy));

// ---- the trainer ----

export interface LabelFreeConfig extends RunBase {
  /** prompts per step (the same problems for every agent) */
  prompts: number;
  /** completions per prompt and agent (K) */
  rollouts: number;
  method: LabelFreeMethod;
  /** data decoupling: agents with an odd index see each problem in another surface form with the same answer */
  decoupled: boolean;
  grpo: GrpoConfig;
}

export const defaultLabelFreeConfig: LabelFreeConfig = {
  steps: 100,
  prompts: 16,
  rollouts: 8,
  temperature: 1,
  method: 'corl',
  decoupled: false,
  grpo: defaultGrpoConfig,
  world: defaultWorld,
};

export function checkLabelFreeConfig(c: LabelFreeConfig, agents: number): void {
  checkRunBase(c);
  if (!LABEL_FREE_METHODS.includes(c.method))
    throw new ConfigError(`method must be one of ${LABEL_FREE_METHODS.join(', ')} (got "${c.method}")`);
  if (c.method === 'corl' && agents < 2) throw new ConfigError('corl needs at least two agents (a ring)');
  checkGrpoConfig(c.grpo);
}

interface AgentRollout extends Rollout {
  problem: Problem;
  answer: string | null;
}

export function makeLabelFreeTrainer(agents: Policy[], c: LabelFreeConfig) {
  checkLabelFreeConfig(c, agents.length);
  const opts = agents.map(() => tf.train.adam(c.grpo.lr));
  const refs = agents.map((a) => referencePolicy(a, c.grpo.klCoef)); // each agent's cold start, frozen (KL only)
  return {
    step(rng: Rng): Record<string, number> {
      const t0 = Date.now();
      const problems = Array.from({ length: c.prompts }, () => drawTrainingProblem(c.world, rng));
      // 1. every agent's rollouts, before any update
      const rs: AgentRollout[][] = agents.map((policy, n) => {
        const seen = c.decoupled && n % 2 === 1 ? problems.map(surfaceForm) : problems;
        const prompts = seen.flatMap((p) =>
          Array.from({ length: c.rollouts }, () => encode(promptTokens(p, 'reason'))),
        );
        return sample(policy, prompts, { maxNew: 96, temperature: c.temperature, topP: 1 }, rng).map(
          (completion, i) => {
            const problem = problems[Math.floor(i / c.rollouts)];
            return {
              role: 'reason' as const,
              group: Math.floor(i / c.rollouts),
              prompt: prompts[i],
              completion,
              problem,
              answer: answerOf(parseTrace(decode(completion))),
              reward: 0,
              components: {},
            };
          },
        );
      });
      const t1 = Date.now();
      const groupOf = (n: number, g: number) => rs[n].slice(g * c.rollouts, (g + 1) * c.rollouts);
      const labels = agents.map((_, n) => problems.map((_, g) => majorityAnswer(groupOf(n, g).map((r) => r.answer))));
      // 2. rewards (token statistics for Intuitor and RENT come from each agent's own pre-update policy)
      agents.forEach((policy, n) => {
        let conf: { entropy: Float64Array[]; selfCertainty: Float64Array[] } | null = null;
        if (c.method === 'intuitor' || c.method === 'rent') {
          const sb = makeSequenceBatch(
            rs[n].map((r) => r.prompt),
            rs[n].map((r) => r.completion),
          );
          const t = tokenConfidence(policy, sb);
          conf = { entropy: fromGrid(sb, t.entropy), selfCertainty: fromGrid(sb, t.selfCertainty) };
          tf.dispose([t.entropy, t.selfCertainty]);
          disposeSequenceBatch(sb);
        }
        const peer = (n + agents.length - 1) % agents.length;
        problems.forEach((p, g) => {
          const group = groupOf(n, g),
            answers = group.map((r) => r.answer);
          const rewards =
            c.method === 'gt_reward'
              ? gtRewards(answers, p.answer.join(''))
              : c.method === 'ttrl'
                ? ttrlRewards(answers)
                : c.method === 'corl'
                  ? agreementRewards(answers, labels[peer][g])
                  : group.map((_, k) =>
                      c.method === 'intuitor'
                        ? intuitorReward(conf!.selfCertainty[g * c.rollouts + k])
                        : rentReward(conf!.entropy[g * c.rollouts + k]),
                    );
          group.forEach((r, k) => {
            r.reward = rewards[k];
            r.components = { [c.method]: rewards[k] };
          });
        });
      });
      // 3. each agent's own GRPO step
      const metrics: Record<string, number> = {};
      let updateMs = 0;
      agents.forEach((policy, n) => {
        const u0 = Date.now();
        const upd = grpoUpdate(policy, opts[n], rs[n], c.grpo, rng, refs[n]);
        updateMs += Date.now() - u0;
        const truthOf = (g: number) => problems[g].answer.join('');
        const pseudo = c.method === 'corl' ? labels[(n + agents.length - 1) % agents.length] : labels[n];
        Object.assign(metrics, {
          [`agent${n}/accuracy`]: mean(rs[n].map((r) => +(r.answer === r.problem.answer.join('')))),
          [`agent${n}/reward`]: mean(rs[n].map((r) => r.reward)),
          [`agent${n}/reward_std`]: mean(
            problems.map((_, g) => {
              const x = groupOf(n, g).map((r) => r.reward),
                m = mean(x);
              return Math.sqrt(mean(x.map((v) => (v - m) ** 2)));
            }),
          ),
          [`agent${n}/response_length`]: mean(rs[n].map((r) => r.completion.length)),
          [`agent${n}/pseudo_label_accuracy`]: mean(problems.map((_, g) => +(pseudo[g] === truthOf(g)))),
          [`agent${n}/majority_ratio`]: mean(
            problems.map((_, g) => {
              const a = groupOf(n, g).map((r) => r.answer);
              return a.filter((x) => x !== null && x === labels[n][g]).length / a.length;
            }),
          ),
          ...Object.fromEntries(Object.entries(upd).map(([k, v]) => [`agent${n}/${k}`, v])),
        });
      });
      if (agents.length > 1)
        metrics.agreement = mean(problems.map((_, g) => +labels.every((l) => l[g] !== null && l[g] === labels[0][g])));
      // where the step's time went: every agent's sampling, and their updates (the rewards are the rest)
      metrics.sample_ms = t1 - t0;
      metrics.update_ms = updateMs;
      return metrics;
    },
  };
}
