// EvoLM: a rubric generator co-evolving with the policy (papers.md section 3.1). The policy and the generator
// share parameters and differ by role token. The frozen judge scores a response under a rubric as the
// weight-normalised sum of satisfied criteria, J in [0, 1]. The policy is trained with GRPO on J (no answer
// labels); the generator with GRPO on 0.7 (J(a+) - J(a-)) + 0.3 format, on preference pairs built without labels.
// Training alternates K policy steps and K generator steps; the sequential variant trains the generator first.
import { tf } from '../models/backend.js';
import { createPolicy } from '../models/index.js';
import { sample, type Policy } from '../models/policy.js';
import { learnedJudge, oracleJudge } from '../models/verifier.js';
import type { Rng } from '../util/random.js';
import type { Problem } from '../world/problems.js';
import { isCorrect, parseTrace, promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { defaultWorld, drawTrainingProblem, type WorldConfig } from '../world/defaults.js';
import type { Criterion } from '../rubrics/criteria.js';
import type { Parsed } from '../rubrics/rubric.js';
import { normalisedScore } from '../rubrics/rewards.js';
import { checkGrpoConfig, defaultGrpoConfig, grpoUpdate, type GrpoConfig } from '../rl/grpo.js';
import { mean, type Rollout } from '../rl/rollout.js';
import { ConfigError, requireInteger, requireNonNegative, requirePositive, requireProbability } from '../io/validate.js';
import { hintTokens, writeRubrics } from './rubricator.js';
import { isConcrete } from './rlcer.js';

export const PAIR_SOURCES = ['temporal', 'perturbation', 'rubric_conditioned'] as const;
export type PairSource = (typeof PAIR_SOURCES)[number];

export interface EvolmConfig {
  /** policy steps (the generator's steps come on top: as many again) */
  steps: number;
  prompts: number;
  /** policy samples per prompt, and rubrics per prompt in a generator step (GRPO groups) */
  rollouts: number;
  temperature: number;
  /** 'alternate' (co-evolving: K policy steps, then K generator steps, ...) or 'sequential' (all generator steps first, then frozen) */
  schedule: 'alternate' | 'sequential';
  /** alternation period K in policy steps; 0 = round(alternationFraction x steps) */
  alternation: number;
  /** K as a fraction of the policy steps when `alternation` is 0 (the paper: 50 of 500 = 0.1) */
  alternationFraction: number;
  /** weight of the margin J(a+) - J(a-) and of the format reward in the generator's reward */
  marginWeight: number;
  formatWeight: number;
  /** preference-pair sources and their mixing weights (default uniform over the three) */
  pairSources: Record<PairSource, number>;
  /** temporal contrast: the negative comes from the policy as it was this many policy steps earlier (uniform in range) */
  temporalGap: [number, number];
  /**
   * what the generator reads: 'own_cot' (default here: the question and one of the current policy's answers,
   * because the cold start teaches rubric writing only after a CoT) or 'question' (the paper's rho(r | q))
   */
  generatorReads: 'own_cot' | 'question';
  verifier: 'learned' | 'oracle';
  policyLr: number;
  generatorLr: number;
  grpo: GrpoConfig;
  world: WorldConfig;
}

export const defaultEvolmConfig: EvolmConfig = {
  steps: 100, prompts: 16, rollouts: 8, temperature: 1, schedule: 'alternate', alternation: 0, alternationFraction: 0.1, marginWeight: 0.7, formatWeight: 0.3,
  pairSources: { temporal: 1, perturbation: 1, rubric_conditioned: 1 }, temporalGap: [20, 100], generatorReads: 'own_cot', verifier: 'learned',
  policyLr: 1e-4, generatorLr: 1e-4, grpo: defaultGrpoConfig, world: defaultWorld,
};

export function checkEvolmConfig(c: EvolmConfig): void {
  requireInteger('steps', c.steps, 0); requireInteger('prompts', c.prompts, 2); requireInteger('rollouts', c.rollouts, 1);
  requirePositive('temperature', c.temperature); requireInteger('alternation', c.alternation, 0); requireProbability('alternationFraction', c.alternationFraction);
  requireProbability('marginWeight', c.marginWeight); requireProbability('formatWeight', c.formatWeight);
  if (c.schedule !== 'alternate' && c.schedule !== 'sequential') throw new ConfigError(`schedule must be "alternate" or "sequential" (got "${c.schedule}")`);
  if (c.generatorReads !== 'own_cot' && c.generatorReads !== 'question') throw new ConfigError(`generatorReads must be "own_cot" or "question" (got "${c.generatorReads}")`);
  if (c.verifier !== 'learned' && c.verifier !== 'oracle') throw new ConfigError(`verifier must be "learned" or "oracle" (got "${c.verifier}")`);
  for (const k of Object.keys(c.pairSources)) if (!(PAIR_SOURCES as readonly string[]).includes(k)) throw new ConfigError(`unknown pair source "${k}" (known: ${PAIR_SOURCES.join(', ')})`);
  Object.entries(c.pairSources).forEach(([k, v]) => requireNonNegative(`pairSources.${k}`, v));
  if (Object.values(c.pairSources).reduce((a, b) => a + b, 0) <= 0) throw new ConfigError('pairSources must have a positive total');
  const [lo, hi] = c.temporalGap;
  if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 1 && hi >= lo)) throw new ConfigError(`temporalGap must be [lo, hi] with 1 <= lo <= hi (got [${lo}, ${hi}])`);
  requirePositive('policyLr', c.policyLr); requirePositive('generatorLr', c.generatorLr);
  checkGrpoConfig(c.grpo);
}

/** The generator's reward for one rubric: marginWeight (J(a+) - J(a-)) + formatWeight format (margin 0 when unparsed). */
export function generatorReward(parsed: boolean, jPlus: number, jMinus: number, marginWeight = 0.7, formatWeight = 0.3): number {
  return parsed ? marginWeight * (jPlus - jMinus) + formatWeight : 0;
}

/** Which phase a global step is in: the schedule's k-th step trains the policy or the generator. */
export function phaseOf(step: number, c: Pick<EvolmConfig, 'steps' | 'schedule' | 'alternation' | 'alternationFraction'>): 'policy' | 'generator' {
  if (c.schedule === 'sequential') return step < c.steps ? 'generator' : 'policy';
  const K = c.alternation > 0 ? c.alternation : Math.max(1, Math.round(c.steps * c.alternationFraction));
  return Math.floor(step / K) % 2 === 0 ? 'policy' : 'generator';
}

export function makeEvolmTrainer(policy: Policy, c: EvolmConfig, verifier?: Policy) {
  checkEvolmConfig(c);
  if (c.verifier === 'learned' && !verifier) throw new ConfigError('verifier "learned" needs a verifier checkpoint');
  const judgeItems = c.verifier === 'learned' ? learnedJudge(verifier!) : (xs: { c: Criterion; p: Problem; completion: string[] }[]) => xs.map((x) => oracleJudge(x.c, x.p, x.completion));
  const policyOpt = tf.train.adam(c.policyLr), generatorOpt = tf.train.adam(c.generatorLr);
  // snapshots of the policy's weights every 5 policy steps, for temporal contrast; the cold start is the first
  const snapshots: { step: number; weights: Record<string, Float32Array> }[] = [];
  const snap = (step: number) => snapshots.push({ step, weights: Object.fromEntries(Object.entries(policy.weights).map(([k, v]) => [k, (v.dataSync() as Float32Array).slice()])) });
  const past = createPolicy(policy.config);
  let policySteps = 0;
  snap(0);

  const problemsFor = (rng: Rng) => Array.from({ length: c.prompts }, () => drawTrainingProblem(c.world, rng));
  const answer = (who: Policy, prompts: number[][], rng: Rng) => sample(who, prompts, { maxNew: 96, temperature: c.temperature, topP: 1 }, rng).map(decode);
  const reason = (ps: Problem[]) => ps.map((p) => encode(promptTokens(p, 'reason')));
  /** J of each (rubric, completion) pair. */
  const judgeScores = (rubrics: Parsed[], ps: Problem[], completions: string[][]) => {
    const items = rubrics.flatMap((r, i) => (r.ok ? r.rubric.items.map((it) => ({ c: it.criterion, p: ps[i], completion: completions[i] })) : []));
    const ans = judgeItems(items);
    let q = 0;
    return rubrics.map((r) => (r.ok ? normalisedScore(r.rubric.items.map((it) => it.points), r.rubric.items.map(() => ans[q++])) : 0));
  };
  const rubricsFor = (ps: Problem[], cots: string[][], rng: Rng) => writeRubrics(policy, ps, c.generatorReads === 'own_cot' ? cots : ps.map(() => []), rng, c.temperature);
  const rubricStats = (rs: Parsed[]) => {
    const ok = rs.filter((r) => r.ok), items = ok.flatMap((r) => r.rubric!.items);
    return { format_rate: ok.length / rs.length, criteria_per_rubric: ok.length ? items.length / ok.length : NaN,
      concrete_share: items.length ? items.filter((i) => isConcrete(i.criterion)).length / items.length : NaN,
      mean_length: items.length ? mean(items.map((i) => [i.criterion.name, ...i.criterion.args].join(' ').length)) : NaN };
  };

  return {
    phaseOf: (step: number) => phaseOf(step, c),
    totalSteps: 2 * c.steps,
    step(step: number, rng: Rng): Record<string, number> {
      const problems = problemsFor(rng);
      if (phaseOf(step, c) === 'policy') {
        // the policy's GRPO step on J under the (frozen) generator's rubric for each prompt
        const prompts = problems.flatMap((p) => Array.from({ length: c.rollouts }, () => encode(promptTokens(p, 'reason'))));
        const outs = answer(policy, prompts, rng);
        const ps = problems.flatMap((p) => Array.from({ length: c.rollouts }, () => p));
        const rubrics = rubricsFor(problems, problems.map((_, g) => outs[g * c.rollouts]), rng).map((w) => w.parsed);
        const J = judgeScores(ps.map((_, i) => rubrics[Math.floor(i / c.rollouts)]), ps, outs);
        const rs: Rollout[] = outs.map((o, i) => ({ role: 'reason', group: Math.floor(i / c.rollouts), prompt: prompts[i], completion: encode(o), reward: J[i], components: { judge: J[i] } }));
        const upd = grpoUpdate(policy, policyOpt, rs, c.grpo, rng);
        policySteps++;
        if (policySteps % 5 === 0) snap(policySteps);
        const correct = outs.map((o, i) => +isCorrect(ps[i], parseTrace(o)));
        return { phase: 0, accuracy: mean(correct), judge_score: mean(J), response_length: mean(outs.map((o) => o.length)), ...rubricStats(rubrics),
          ...Object.fromEntries(Object.entries(upd).map(([k, v]) => [`policy/${k}`, v])) };
      }
      // the generator's GRPO step: pairs built without labels, rollouts-many rubrics per prompt
      const plain = answer(policy, reason(problems), rng);
      const weights = PAIR_SOURCES.map((s) => c.pairSources[s] ?? 0);
      const sources = problems.map(() => PAIR_SOURCES[rng.categorical(weights)]);
      const neg: string[][] = plain.map(() => []), pos: string[][] = plain.slice();
      // temporal contrast: the same problem answered by the policy as it was `gap` policy steps ago
      const tIdx = problems.map((_, g) => g).filter((g) => sources[g] === 'temporal');
      if (tIdx.length) {
        const [lo, hi] = c.temporalGap, gap = lo + rng.int(hi - lo + 1);
        const old = [...snapshots].reverse().find((s) => s.step <= policySteps - gap) ?? snapshots[0];
        for (const [k, v] of Object.entries(past.weights)) v.assign(tf.tensor(old.weights[k], v.shape));
        answer(past, reason(tIdx.map((g) => problems[g])), rng).forEach((o, j) => { neg[tIdx[j]] = o; });
      }
      // question perturbation: the answer to another prompt of the batch
      problems.forEach((_, g) => { if (sources[g] === 'perturbation') neg[g] = plain[(g + 1) % problems.length]; });
      // rubric-conditioned: a+ written with a first rubric as a hint, a- without
      const rIdx = problems.map((_, g) => g).filter((g) => sources[g] === 'rubric_conditioned');
      if (rIdx.length) {
        const first = rubricsFor(rIdx.map((g) => problems[g]), rIdx.map((g) => plain[g]), rng);
        const hinted = answer(policy, rIdx.map((g, j) => { const h = hintTokens(first[j].parsed, problems[g]); return encode(h.length ? promptTokens(problems[g], 'hint', h) : promptTokens(problems[g], 'reason')); }), rng);
        rIdx.forEach((g, j) => { pos[g] = hinted[j]; neg[g] = plain[g]; });
      }
      const ps = problems.flatMap((p) => Array.from({ length: c.rollouts }, () => p));
      const written = rubricsFor(ps, ps.map((_, i) => plain[Math.floor(i / c.rollouts)]), rng);
      const parsed = written.map((w) => w.parsed);
      const jPlus = judgeScores(parsed, ps, ps.map((_, i) => pos[Math.floor(i / c.rollouts)]));
      const jMinus = judgeScores(parsed, ps, ps.map((_, i) => neg[Math.floor(i / c.rollouts)]));
      const rewards = parsed.map((r, i) => generatorReward(r.ok, jPlus[i], jMinus[i], c.marginWeight, c.formatWeight));
      const rs: Rollout[] = written.map((w, i) => ({ role: 'rubric', group: Math.floor(i / c.rollouts), prompt: w.prompt, completion: w.completion, reward: rewards[i], components: { margin: jPlus[i] - jMinus[i] } }));
      const upd = grpoUpdate(policy, generatorOpt, rs, c.grpo, rng);
      return { phase: 1, generator_reward: mean(rewards), margin: mean(parsed.map((r, i) => (r.ok ? jPlus[i] - jMinus[i] : 0))),
        pair_accuracy: mean(parsed.map((r, i) => (r.ok ? (jPlus[i] > jMinus[i] ? 1 : jPlus[i] === jMinus[i] ? 0.5 : 0) : 0.5))),
        ...Object.fromEntries(PAIR_SOURCES.map((s) => [`pairs/${s}`, sources.filter((x) => x === s).length / sources.length])),
        ...rubricStats(parsed), ...Object.fromEntries(Object.entries(upd).map(([k, v]) => [`generator/${k}`, v])) };
    },
  };
}
