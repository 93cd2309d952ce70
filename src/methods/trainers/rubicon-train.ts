// Rubicon's RL in our world: GRPO on a rubric-anchored reward vector aggregated to a scalar, with two task families
// trained jointly, one at a time, or stage-wise (constraints first, then quality), and optional central-quantile
// filtering of the training prompts by the cold start's reward.
import { tf } from '../../models/backend.js';
import { sample, type Policy } from '../../models/policy.js';
import { learnedJudge, learnedProbability, oracleJudge } from '../../models/verifier.js';
import type { Rng } from '../../util/random.js';
import type { Problem } from '../../world/problems.js';
import { isCorrect, parseTrace, promptTokens } from '../../world/trace.js';
import { decode, encode } from '../../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../../world/defaults.js';
import { toTokens, type RubricItem } from '../../rubrics/rubric.js';
import { domainOf } from '../../world/problems.js';
import {
  aggregate,
  AGGREGATORS,
  checkInteractions,
  defaultAggregatorParams,
  type AggregatorName,
  type AggregatorParams,
} from '../../rubrics/aggregators.js';
import { checkRunBase, referencePolicy, type RunBase } from '../../rl/trainer.js';
import { checkGrpoConfig, defaultGrpoConfig, grpoUpdate, type GrpoConfig } from '../../rl/grpo.js';
import { mean, type Rollout } from '../../rl/rollout.js';
import { optimizersState, restoreOptimizers, type OptimizerState } from '../../rl/optim.js';
import { ConfigError, requireInteger, requireProbability } from '../../util/validate.js';
import {
  ANCHORS,
  hackMeasures,
  lengthBudget,
  rewardVectors,
  TASK_PAIR_NAMES,
  TASK_PAIRS,
  tightLengthBudget,
  type Anchor,
  type BatchJudge,
  type TaskPair,
} from '../../rubrics/rubicon.js';

export type TaskFamily = 'constraints' | 'quality';
export const SCHEDULES = ['joint', 'constraints_only', 'quality_only', 'stagewise'] as const;
export type Schedule = (typeof SCHEDULES)[number];
export const SOFT_SCORES = ['probability', 'verdict'] as const;
export type SoftScores = (typeof SOFT_SCORES)[number];
export const DEFENCES = ['auto', 'yes', 'no'] as const;
export type Defence = (typeof DEFENCES)[number];

/** Whether a run's reward has the defence rubric ('auto': with the veto only). */
export const hasDefence = (defence: Defence, aggregator: AggregatorName | 'none') =>
  defence === 'yes' || (defence === 'auto' && aggregator === 'veto');

export interface RubiconConfig extends RunBase {
  aggregator: AggregatorName;
  aggregatorParams: AggregatorParams;
  schedule: Schedule;
  /** stage-wise: share of the steps spent on constraints before switching to quality */
  stageSplit: number;
  /** central-quantile filtering: keep pool prompts whose cold-start reward lies between these quantiles (null: no filter) */
  filterQuantiles: [number, number] | null;
  /** size of the fixed training-prompt pool that filtering selects from */
  poolSize: number;
  verifier: 'learned' | 'oracle';
  /**
   * how the learned verifier scores a soft dimension: 'probability' (its P(satisfied), continuous, so that the
   * saturation and shaping aggregators have graded scores to act on) or 'verdict' (P > 1/2 as 0/1, as before the fair
   * comparisons of docs/rubicon-fairness.md). The oracle verifier has only verdicts.
   */
  softScores: SoftScores;
  /**
   * the defence rubric (`honest_verification`): 'auto' joins it under the veto only (as before the fair comparisons of
   * docs/rubicon-fairness.md), 'yes' under every aggregator, 'no' never. Under the veto it is a critical gate of
   * weight 0, elsewhere a dimension of weight 1.
   */
  defence: Defence;
  /** the task pair: 'standard' (TASK_FAMILIES) or 'competing' (a binding length budget against thoroughness) */
  tasks: TaskPair;
  grpo: GrpoConfig;
}

export const defaultRubiconConfig: RubiconConfig = {
  steps: 60,
  prompts: 16,
  rollouts: 8,
  temperature: 1,
  aggregator: 'weighted_sum',
  aggregatorParams: defaultAggregatorParams,
  schedule: 'joint',
  stageSplit: 0.5,
  filterQuantiles: null,
  poolSize: 512,
  verifier: 'learned',
  softScores: 'probability',
  defence: 'auto',
  tasks: 'standard',
  grpo: defaultGrpoConfig,
  world: defaultWorld,
};

export function checkRubiconConfig(c: RubiconConfig): void {
  checkRunBase(c);
  if (!AGGREGATORS.includes(c.aggregator))
    throw new ConfigError(`aggregator must be one of ${AGGREGATORS.join(', ')} (got "${c.aggregator}")`);
  if (!SCHEDULES.includes(c.schedule))
    throw new ConfigError(`schedule must be one of ${SCHEDULES.join(', ')} (got "${c.schedule}")`);
  requireProbability('stageSplit', c.stageSplit);
  requireInteger('poolSize', c.poolSize, 1);
  if (c.filterQuantiles !== null) {
    const [lo, hi] = c.filterQuantiles;
    if (!(lo >= 0 && hi <= 1 && lo < hi))
      throw new ConfigError(`filterQuantiles must be [lo, hi] with 0 <= lo < hi <= 1 (got [${lo}, ${hi}])`);
  }
  if (c.verifier !== 'learned' && c.verifier !== 'oracle')
    throw new ConfigError(`verifier must be "learned" or "oracle" (got "${c.verifier}")`);
  const oneOf = (name: string, v: string, known: readonly string[]) => {
    if (!known.includes(v)) throw new ConfigError(`${name} must be one of ${known.join(', ')} (got "${v}")`);
  };
  oneOf('softScores', c.softScores, SOFT_SCORES);
  oneOf('defence', c.defence, DEFENCES);
  oneOf('tasks', c.tasks, TASK_PAIR_NAMES);
  // an antagonistic interaction on a required dimension fails here, before any step
  if (c.aggregator === 'interaction') {
    for (const f of ['constraints', 'quality'] as const) {
      checkInteractions(familyAnchors(f, c.aggregator, c.defence, c.tasks), c.aggregatorParams);
    }
  }
  checkGrpoConfig(c.grpo);
}

/** The task family a step trains on (joint: each prompt draws one). */
export function familyOf(
  step: number,
  c: Pick<RubiconConfig, 'steps' | 'schedule' | 'stageSplit'>,
  rng: Rng,
): TaskFamily {
  if (c.schedule === 'constraints_only') return 'constraints';
  if (c.schedule === 'quality_only') return 'quality';
  if (c.schedule === 'stagewise') return step < Math.round(c.steps * c.stageSplit) ? 'constraints' : 'quality';
  return rng.next() < 0.5 ? 'constraints' : 'quality';
}

/**
 * The prompt of a task. Standard pair: constraint prompts state their constraints as a hint (verification, a length
 * budget), quality prompts are plain. Competing pair: the constraint prompt states the tight budget, the quality
 * prompt asks for a verification, so each prompt asks for what the other family's dimensions cost.
 */
export function taskPrompt(p: Problem, family: TaskFamily, tasks: TaskPair = 'standard'): string[] {
  const verify: RubricItem = { category: 'validation', criterion: { name: 'VERIFY', args: [] }, points: 1 };
  const len = (n: number): RubricItem => ({
    category: 'focus',
    criterion: { name: 'LEN', args: [Math.min(99, n)] },
    points: 1,
  });
  const hint = (items: RubricItem[]) =>
    promptTokens(p, 'hint', toTokens({ domain: domainOf(p.family), items }).slice(0, -1));
  if (tasks === 'competing') return family === 'quality' ? hint([verify]) : hint([len(tightLengthBudget(p))]);
  if (family === 'quality') return promptTokens(p, 'reason');
  return hint([verify, len(lengthBudget(p))]);
}

/**
 * The anchors (dimensions) a family's reward reads. With the defence rubric (`hasDefence`) it joins the vector:
 * under the veto with weight 0 (a critical gate only), under any other aggregator with its own weight 1.
 */
export function familyAnchors(
  family: TaskFamily,
  aggregator: AggregatorName,
  defence: Defence = 'auto',
  tasks: TaskPair = 'standard',
): Anchor[] {
  const base = TASK_PAIRS[tasks][family].map((n) => ANCHORS[n]);
  if (!hasDefence(defence, aggregator)) return base;
  return [...base, aggregator === 'veto' ? { ...ANCHORS.honest_verification, weight: 0 } : ANCHORS.honest_verification];
}

export function makeRubiconTrainer(policy: Policy, c: RubiconConfig, verifier?: Policy, coldStart?: Policy) {
  checkRubiconConfig(c);
  if (c.verifier === 'learned' && !verifier) throw new ConfigError('verifier "learned" needs a verifier checkpoint');
  const judge: BatchJudge =
    c.verifier === 'oracle'
      ? (xs) => xs.map((x) => oracleJudge(x.c, x.p, x.completion))
      : c.softScores === 'probability'
        ? learnedProbability(verifier!)
        : learnedJudge(verifier!);
  const opt = tf.train.adam(c.grpo.lr);
  const ref = referencePolicy(policy, c.grpo.klCoef); // the cold start, frozen (none without a KL penalty)
  const draw = (rng: Rng) => drawTrainingProblem(c.world, rng);
  const reward = (family: TaskFamily, items: { p: Problem; completion: string[] }[]) => {
    const anchors = familyAnchors(family, c.aggregator, c.defence, c.tasks);
    return {
      anchors,
      vectors: rewardVectors(anchors, items, judge),
      scalar: (v: number[]) => aggregate(c.aggregator, v, anchors, c.aggregatorParams),
    };
  };
  // central-quantile filtering: score a fixed pool with the cold start once, keep the middle of the distribution
  let pool: { p: Problem; family: TaskFamily }[] | null = null;
  const poolFor = (rng: Rng) => {
    if (pool || c.filterQuantiles === null) return pool;
    const all = Array.from({ length: c.poolSize }, (_, i) => ({
      p: draw(rng),
      family: (i % 2 === 0 ? 'constraints' : 'quality') as TaskFamily,
    }));
    const scorer = coldStart ?? policy,
      n = 4;
    const prompts = all.flatMap((x) => Array.from({ length: n }, () => encode(taskPrompt(x.p, x.family, c.tasks))));
    const outs = sample(scorer, prompts, { maxNew: 96, temperature: 1, topP: 1 }, rng).map(decode);
    const scores = all.map((x, i) => {
      const r = reward(
        x.family,
        outs.slice(i * n, (i + 1) * n).map((completion) => ({ p: x.p, completion })),
      );
      return mean(r.vectors.map(r.scalar));
    });
    const sorted = [...scores].sort((a, b) => a - b),
      q = (u: number) => sorted[Math.min(sorted.length - 1, Math.floor(u * sorted.length))];
    const [lo, hi] = [q(c.filterQuantiles[0]), q(c.filterQuantiles[1])];
    pool = all.filter((_, i) => scores[i] >= lo && scores[i] <= hi);
    if (pool.length === 0) pool = all;
    return pool;
  };

  return {
    /**
     * What an exact resume needs beyond the weights: Adam's moments and the filter's pool (drawn and scored from the
     * first step's stream, so it is kept, not drawn again at the step a resumed run starts from)
     */
    state: async () => ({ optimizers: await optimizersState({ grpo: opt }), pool }),
    restore: async (s: Record<string, unknown>) => {
      await restoreOptimizers({ grpo: opt }, s.optimizers as Record<string, OptimizerState>, () =>
        Object.values(policy.weights),
      );
      pool = (s.pool as typeof pool) ?? null;
    },
    step(step: number, rng: Rng): Record<string, number> {
      const chosen = poolFor(rng);
      const tasks = Array.from({ length: c.prompts }, () => {
        if (chosen) {
          const t = chosen[rng.int(chosen.length)];
          return { p: t.p, family: c.schedule === 'joint' ? t.family : familyOf(step, c, rng) };
        }
        return { p: draw(rng), family: familyOf(step, c, rng) };
      });
      const prompts = tasks.flatMap((t) =>
        Array.from({ length: c.rollouts }, () => encode(taskPrompt(t.p, t.family, c.tasks))),
      );
      const outs = sample(policy, prompts, { maxNew: 96, temperature: c.temperature, topP: 1 }, rng).map(decode);
      const rs: Rollout[] = [];
      const dims: Record<string, number[]> = {};
      for (const family of ['constraints', 'quality'] as const) {
        const idx = outs.map((_, i) => i).filter((i) => tasks[Math.floor(i / c.rollouts)].family === family);
        if (!idx.length) continue;
        const r = reward(
          family,
          idx.map((i) => ({ p: tasks[Math.floor(i / c.rollouts)].p, completion: outs[i] })),
        );
        idx.forEach((i, j) => {
          const scalar = r.scalar(r.vectors[j]);
          rs.push({
            role: 'reason',
            group: Math.floor(i / c.rollouts),
            prompt: prompts[i],
            completion: encode(outs[i]),
            reward: scalar,
            components: Object.fromEntries(r.anchors.map((a, k) => [a.name, r.vectors[j][k]])),
          });
          r.anchors.forEach((a, k) => {
            (dims[`${family}/${a.name}`] ??= []).push(r.vectors[j][k]);
          });
        });
      }
      const upd = grpoUpdate(policy, opt, rs, c.grpo, rng, ref);
      const items = outs.map((completion, i) => ({ p: tasks[Math.floor(i / c.rollouts)].p, completion }));
      return {
        accuracy: mean(items.map((x) => +isCorrect(x.p, parseTrace(x.completion)))),
        reward: mean(rs.map((r) => r.reward)),
        ...hackMeasures(items),
        constraint_share: mean(tasks.map((t) => +(t.family === 'constraints'))),
        response_length: mean(outs.map((o) => o.length)),
        ...Object.fromEntries(Object.entries(dims).map(([k, v]) => [`dim/${k}`, mean(v)])),
        ...upd,
      };
    },
  };
}

/** One run of a profile: an aggregator, a schedule, the filter, the defence rubric and the task pair. */
export interface RubiconRun {
  aggregator: AggregatorName;
  schedule: Schedule;
  filter: boolean;
  defence: Defence;
  tasks: TaskPair;
}

/**
 * The aggregators the Rubicon campaign runs jointly beside the weighted sum, named here: an aggregator added to
 * src/rubrics/aggregators.ts joins the campaign only when it is added to this list (test/rubicon.test.ts).
 */
export const RUBICON_CAMPAIGN_AGGREGATORS: AggregatorName[] = ['veto', 'saturation', 'interaction', 'shaping'];

/**
 * The runs of `make reproduce-rubicon`: every schedule under the weighted sum, every aggregator jointly, the
 * filter; the 2x2 {weighted sum, veto} x {with, without the defence rubric} (joint); and every schedule of the
 * competing pair under the weighted sum (stage-wise against joint is its key comparison).
 */
export const RUBICON_RUNS: RubiconRun[] = [
  ...SCHEDULES.map((schedule) => ({ aggregator: 'weighted_sum' as AggregatorName, schedule, filter: false })),
  ...RUBICON_CAMPAIGN_AGGREGATORS.map((aggregator) => ({
    aggregator,
    schedule: 'joint' as Schedule,
    filter: false,
  })),
  { aggregator: 'veto' as AggregatorName, schedule: 'stagewise' as Schedule, filter: false },
  { aggregator: 'weighted_sum' as AggregatorName, schedule: 'joint' as Schedule, filter: true },
]
  .map((r) => ({ ...r, defence: 'auto' as Defence, tasks: 'standard' as TaskPair }))
  .concat([
    // the other half of the 2x2 (the weighted sum without and the veto with the defence are the runs above)
    { aggregator: 'weighted_sum', schedule: 'joint', filter: false, defence: 'yes', tasks: 'standard' },
    { aggregator: 'veto', schedule: 'joint', filter: false, defence: 'no', tasks: 'standard' },
    ...SCHEDULES.map((schedule) => ({
      aggregator: 'weighted_sum' as AggregatorName,
      schedule,
      filter: false,
      defence: 'auto' as Defence,
      tasks: 'competing' as TaskPair,
    })),
  ]);

/**
 * A run's directory under runs/rubicon/<profile>/ (and its record's under results/runs/rubicon/<profile>/): the
 * task pair, the aggregator with the defence rubric's presence, the schedule (and the filter), the seed.
 */
export function rubiconRunDir(r: RubiconRun, seed: number): string {
  const defence = hasDefence(r.defence, r.aggregator) ? 'defence' : 'nodefence';
  return `${r.tasks}/${r.aggregator}-${defence}/${r.schedule}${r.filter ? '-filtered' : ''}/seed-${seed}`;
}

/** Where full-profile run records are committed: <archive>/<profile>/<rubiconRunDir> (no weights, no logs). */
export const RUBICON_ARCHIVE = 'results/runs/rubicon';

export interface RubiconProfile {
  steps: number;
  seeds: number[];
  evalPerCell: number;
  evalSamples: number;
  archived: boolean;
}

export const RUBICON_PROFILES: Record<string, RubiconProfile> = {
  quick: { steps: 8, seeds: [0, 1], evalPerCell: 4, evalSamples: 2, archived: false },
  full: { steps: 60, seeds: [0, 1, 2], evalPerCell: 16, evalSamples: 4, archived: true },
};
