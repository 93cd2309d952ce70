// Finite-sample version of the binary theory: tabular agents, K sampled answers per problem and step,
// majority-vote pseudo-labels (own for self-rewarding, the peer's for co-training), GRPO updates.
//
// Agent: one softmax per problem over M answers; answer 0 is correct, answers 1..M-1 are wrong.
// With M = 2 this is exactly the ODE's binary reduction: one GRPO step of size lr on the logits moves
// the log-odds by 2*lr*(2Z-1)*sqrt(C(K-C))/K, i.e. the ODE with eta = 1 at time t = 2*lr*step.
import type { Rng } from '../util/random.js';
import { groupAdvantages } from '../util/advantages.js';
import { requireOddK, requirePositive, requireInteger, requireNonNegative, ConfigError } from '../util/validate.js';

export interface TabularAgent {
  problems: number;
  answers: number;
  /** logits, row-major [problems x answers] */
  logits: Float64Array;
}

/** Agent from per-problem answer distributions (each row sums to 1, positive entries). */
export function agentFromProbs(rows: number[][]): TabularAgent {
  const M = rows[0]?.length ?? 0;
  if (M < 2) throw new ConfigError('answers per problem must be >= 2 (one correct, at least one wrong)');
  const logits = new Float64Array(rows.length * M);
  rows.forEach((r, x) => {
    if (r.length !== M) throw new ConfigError(`problem ${x} has ${r.length} answers, expected ${M}`);
    r.forEach((v, a) => {
      if (!(v > 0 && v <= 1)) throw new ConfigError(`answer probability [${x}][${a}] must be in (0, 1] (got ${v})`);
      logits[x * M + a] = Math.log(v);
    });
  });
  return { problems: rows.length, answers: M, logits };
}

/** Binary agent: problem x answers correctly with probability p[x], else the single wrong answer. */
export function binaryAgent(p: number[]): TabularAgent {
  return agentFromProbs(
    p.map((v, i) => {
      if (!(v > 0 && v < 1)) throw new ConfigError(`p[${i}] must be in (0, 1) for a tabular agent (got ${v})`);
      return [v, 1 - v];
    }),
  );
}

export function cloneAgent(a: TabularAgent): TabularAgent {
  return { ...a, logits: a.logits.slice() };
}

/** Softmax of problem x into out. */
export function answerProbs(agent: TabularAgent, x: number, out: Float64Array): Float64Array {
  const M = agent.answers,
    o = x * M;
  let mx = -Infinity;
  for (let a = 0; a < M; a++) mx = Math.max(mx, agent.logits[o + a]);
  let z = 0;
  for (let a = 0; a < M; a++) {
    out[a] = Math.exp(agent.logits[o + a] - mx);
    z += out[a];
  }
  for (let a = 0; a < M; a++) out[a] /= z;
  return out;
}

/** P(correct) per problem. */
export function correctProbs(agent: TabularAgent): number[] {
  const buf = new Float64Array(agent.answers);
  return Array.from({ length: agent.problems }, (_, x) => answerProbs(agent, x, buf)[0]);
}

/** Plurality vote; a tie goes to the tied answer that appeared first (as CO-RL's Counter.most_common). */
export function majorityVote(samples: ArrayLike<number>, answers: number): number {
  const counts = new Int32Array(answers);
  let top = 0;
  for (let k = 0; k < samples.length; k++) top = Math.max(top, ++counts[samples[k]]);
  for (let k = 0; k < samples.length; k++) if (counts[samples[k]] === top) return samples[k];
  throw new Error('majorityVote needs at least one sample');
}

export type Supervision = 'self_reward' | 'co_training';

export interface TabularConfig {
  /** samples per problem and step */
  K: number;
  /** step size on the logits */
  lr: number;
  /** optimisation steps */
  steps: number;
  /** epsilon in the GRPO advantage denominator */
  advantageEps: number;
}

export function checkTabularConfig(c: TabularConfig): void {
  requireOddK('K', c.K);
  requirePositive('lr', c.lr);
  requireInteger('steps', c.steps, 0);
  requireNonNegative('advantageEps', c.advantageEps);
}

export interface StepStats {
  step: number;
  /** mean P(correct) over problems, per agent */
  accuracy: number[];
  /** share of problems whose pseudo-label (used for agent n) is the correct answer */
  pseudoLabelAccuracy: number[];
  /** share of problems where the agents' own majority votes agree */
  agreement: number;
  /** mean within-group reward std, per agent */
  rewardStd: number[];
}

/**
 * Train agents together for c.steps steps. Self-rewarding: agent n is rewarded against its own vote.
 * Co-training: agent n against the vote of agent n-1 (a ring; two agents supervise each other).
 * All samples and labels are drawn before any update, as in CO-RL. Agents are updated in place.
 */
export function trainTabular(
  agents: TabularAgent[],
  mode: Supervision,
  c: TabularConfig,
  rng: Rng,
  onStep?: (s: StepStats) => void,
): void {
  checkTabularConfig(c);
  const N = agents.length,
    P = agents[0].problems,
    M = agents[0].answers,
    K = c.K;
  if (agents.some((a) => a.problems !== P || a.answers !== M))
    throw new ConfigError('agents must share problems and answers');
  if (mode === 'co_training' && N < 2) throw new ConfigError('co_training needs at least 2 agents');
  const probs = agents.map(() => new Float64Array(P * M));
  const samples = agents.map(() => new Int32Array(P * K));
  const votes = agents.map(() => new Int32Array(P));
  const row = new Float64Array(M),
    rewards = new Float64Array(K),
    adv = new Float64Array(K);
  const report = (step: number, labelHits: number[], stdSum: number[]) => {
    if (!onStep) return;
    const accuracy = agents.map((_, n) => {
      let s = 0;
      for (let x = 0; x < P; x++) s += probs[n][x * M];
      return s / P;
    });
    let agree = 0;
    for (let x = 0; x < P; x++) if (votes.every((v) => v[x] === votes[0][x])) agree++;
    onStep({
      step,
      accuracy,
      pseudoLabelAccuracy: labelHits.map((h) => h / P),
      agreement: agree / P,
      rewardStd: stdSum.map((s) => s / P),
    });
  };
  for (let step = 0; step <= c.steps; step++) {
    // 1. rollouts: K answers per problem from every agent, and each agent's own majority vote
    for (let n = 0; n < N; n++) {
      for (let x = 0; x < P; x++) {
        answerProbs(agents[n], x, row);
        probs[n].set(row, x * M);
        for (let k = 0; k < K; k++) samples[n][x * K + k] = rng.categorical(row);
        votes[n][x] = majorityVote(samples[n].subarray(x * K, x * K + K), M);
      }
    }
    // 2. rewards against the pseudo-label, GRPO advantages, and the update (skipped after the last report)
    const labelHits = new Array(N).fill(0),
      stdSum = new Array(N).fill(0);
    for (let n = 0; n < N; n++) {
      const labels = mode === 'self_reward' ? votes[n] : votes[(n - 1 + N) % N];
      for (let x = 0; x < P; x++) {
        const label = labels[x];
        if (label === 0) labelHits[n]++;
        let mean = 0;
        for (let k = 0; k < K; k++) {
          rewards[k] = samples[n][x * K + k] === label ? 1 : 0;
          mean += rewards[k];
        }
        mean /= K;
        stdSum[n] += Math.sqrt(mean * (1 - mean));
        if (step === c.steps) continue;
        groupAdvantages(rewards, { std: 'population', eps: c.advantageEps, singleton: 'zero' }, adv);
        // d log pi(a) / d logits = onehot(a) - pi; averaged over the group
        const o = x * M,
          pr = probs[n];
        for (let k = 0; k < K; k++) {
          if (adv[k] === 0) continue;
          const g = (c.lr * adv[k]) / K;
          const a = samples[n][x * K + k];
          agents[n].logits[o + a] += g;
          for (let b = 0; b < M; b++) agents[n].logits[o + b] -= g * pr[o + b];
        }
      }
    }
    report(step, labelHits, stdSum);
  }
}
