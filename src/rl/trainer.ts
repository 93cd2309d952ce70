// The skeleton every trainer shares: the reasoner's rollout (prompts drawn from the world, completions sampled,
// parsed and checked), the outcome reward, the reward-function type rewards plug in as, and the Trainer interface a
// method's trainer implements (one step; its state for an exact resume). Methods live in src/methods/trainers/ and
// import these from here, never from one another.
import { sample, type Policy } from '../models/policy.js';
import { copyPolicy } from '../models/index.js';
import type { Rng } from '../util/random.js';
import type { Problem } from '../world/problems.js';
import { isCorrect, parseTrace, promptTokens, type ParsedTrace } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { checkWorldConfig, drawTrainingProblem, type WorldConfig } from '../world/defaults.js';
import { requireInteger, requirePositive } from '../util/validate.js';
import type { Rollout } from './rollout.js';

/**
 * What every RL trainer's config holds, checked once (`checkRunBase`): the run's length, its batch (prompts per step,
 * rollouts per prompt), the sampling temperature and the world its training problems come from. Each trainer's
 * config extends it with its own settings.
 */
export interface RunBase {
  steps: number;
  /** prompts per step */
  prompts: number;
  /** rollouts per prompt */
  rollouts: number;
  temperature: number;
  world: WorldConfig;
}

/** Throws a ConfigError naming the first bad field of a run's base (`least`: a trainer's own floors). */
export function checkRunBase(c: RunBase, least: { prompts?: number; rollouts?: number } = {}): void {
  requireInteger('steps', c.steps, 0);
  requireInteger('prompts', c.prompts, least.prompts ?? 1);
  requireInteger('rollouts', c.rollouts, least.rollouts ?? 1);
  requirePositive('temperature', c.temperature);
  checkWorldConfig(c.world);
}

/**
 * A reasoner rollout: `correct` is the exact outcome (logged accuracy), `label` the training label the rewards read
 * (the same, unless the world's labelNoise flipped it).
 */
export interface ReasonerRollout extends Rollout {
  problem: Problem;
  trace: ParsedTrace;
  correct: boolean;
  label: boolean;
}

/** The training label of an outcome: flipped with probability `noise` (no draw from `rng` when noise is 0). */
export function noisyLabel(correct: boolean, noise: number, rng: Rng): boolean {
  return noise > 0 && rng.next() < noise ? !correct : correct;
}

/** Draw `prompts` training problems and `rollouts` completions of each. */
export function rollOutReasoner(
  policy: Policy,
  c: { prompts: number; rollouts: number; temperature: number; world: WorldConfig },
  rng: Rng,
): ReasonerRollout[] {
  const problems = Array.from({ length: c.prompts }, () => drawTrainingProblem(c.world, rng));
  const prompts = problems.flatMap((p) => Array.from({ length: c.rollouts }, () => encode(promptTokens(p, 'reason'))));
  const outs = sample(policy, prompts, { maxNew: 96, temperature: c.temperature, topP: 1 }, rng);
  const noise = c.world.labelNoise ?? 0;
  return outs.map((completion, i) => {
    const problem = problems[Math.floor(i / c.rollouts)],
      trace = parseTrace(decode(completion)),
      correct = isCorrect(problem, trace);
    const label = noisyLabel(correct, noise, rng);
    return {
      role: 'reason',
      group: Math.floor(i / c.rollouts),
      prompt: prompts[i],
      completion,
      problem,
      trace,
      correct,
      label,
      reward: 0,
      components: {},
    };
  });
}

/**
 * The frozen reference a KL penalty reads: a copy of `policy` as the trainer receives it (the cold start; a resumed
 * run loads its weights after the trainer is made, so the reference stays the cold start), or none when `klCoef` is 0.
 */
export function referencePolicy(policy: Policy, klCoef: number): Policy | undefined {
  return klCoef > 0 ? copyPolicy(policy) : undefined;
}

/** The outcome reward: +1 for a correct final answer, -1 otherwise (malformed included). */
export function outcomeReward(r: Pick<ReasonerRollout, 'correct'>): number {
  return r.correct ? 1 : -1;
}

export interface Trainer {
  step(rng: Rng): Record<string, number>;
  /** the last step's rollouts (for a per-rollout log) */
  lastRollouts?: () => ReasonerRollout[];
  /** what an exact resume needs beyond the policy's weights (optimizer moments, ...), and its restoration */
  state?: () => Promise<Record<string, unknown>>;
  restore?: (state: Record<string, unknown>) => Promise<void>;
}

/**
 * A reward as a small pluggable function: each rollout's reward (on its last token), its logged components, and
 * optionally per-token rewards over its completion (a process reward model's step rewards; PPO only).
 */
export type RewardFn = (
  rs: ReasonerRollout[],
) => { reward: number; components: Record<string, number>; tokenRewards?: number[] }[];
