// EvoLM: a rubric generator co-evolving with the policy (docs/evolm.md, Method). The policy and the generator
// share parameters and differ by role token. The frozen judge scores a response under a rubric as the
// weight-normalised sum of satisfied criteria, J in [0, 1]. The policy is trained with GRPO on J (no answer
// labels); the generator with GRPO on 0.7 (J(a+) - J(a-)) + 0.3 format, on preference pairs built without labels.
// Training alternates K policy steps and K generator steps; the sequential variant trains the generator first.
// The generator reads (own_cot) one extra answer per prompt that is neither scored nor in a pair (sampleLayout).
// Controls: judge-only rows whose rubrics come from the teacher or a frozen cold start (no generator phase), and
// a two-model variant whose generator has its own weights.
import { tf } from '../../models/backend.js';
import { createPolicy } from '../../models/index.js';
import { sample, type Policy } from '../../models/policy.js';
import {
  parseVerifierSetting,
  settingJudge,
  type VerifierModels,
  type VerifierSetting,
} from '../../models/verifier.js';
import type { Rng } from '../../util/random.js';
import type { Problem } from '../../world/problems.js';
import { isCorrect, parseTrace, promptTokens } from '../../world/trace.js';
import { decode, encode } from '../../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../../world/defaults.js';
import type { Parsed } from '../../rubrics/rubric.js';
import { normalisedScore } from '../../rubrics/rewards.js';
import { checkRunBase, referencePolicy, type RunBase } from '../../rl/trainer.js';
import { checkGrpoConfig, defaultGrpoConfig, grpoUpdate, type GrpoConfig } from '../../rl/grpo.js';
import { optimizersState, restoreOptimizers, type OptimizerState } from '../../rl/optim.js';
import { adaptOptimizer, rateOf, setRate } from '../../rl/kl-adaptive.js';
import { mean, type Rollout } from '../../rl/rollout.js';
import {
  ConfigError,
  requireInteger,
  requireNonNegative,
  requirePositive,
  requireProbability,
} from '../../util/validate.js';
import { hintTokens } from '../../rl/rubricator.js';
import { isConcrete } from '../../rubrics/criteria.js';
import { sourceRubrics } from '../../rl/rubricator.js';

export const PAIR_SOURCES = ['temporal', 'perturbation', 'rubric_conditioned'] as const;
export type PairSource = (typeof PAIR_SOURCES)[number];

export interface EvolmConfig extends RunBase {
  /** policy steps (the generator's steps come on top: as many again) */
  steps: number;
  /** policy samples per prompt, and rubrics per prompt in a generator step (GRPO groups) */
  rollouts: number;
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
  /**
   * temporal contrast: the negative comes from the policy as it was a gap of policy steps earlier, uniform in
   * [lo, hi] = these fractions of the run's policy steps (rounded, lo at least 1; see temporalGapSteps): the default
   * [1/75, 1/15] is the paper's [20, 100] at 1,500 steps and [1, 4] at Table 2's 60
   */
  temporalGapFraction: [number, number];
  /** the gap [lo, hi] in policy steps, whatever the run's length (the earlier default: [20, 100]); null = the fraction */
  temporalGap: [number, number] | null;
  /**
   * what the generator reads: 'own_cot' (default here: the question and one of the current policy's answers,
   * because the cold start teaches rubric writing only after a CoT) or 'question' (the paper's rho(r | q))
   */
  generatorReads: 'own_cot' | 'question';
  /**
   * where the rubrics that score the policy come from: 'generator' (EvoLM: the co-evolving generator), 'teacher' (the
   * teacher's reference rubric) or 'frozen_coldstart' (written by a frozen copy of the cold-start policy). The last two
   * are the judge-only (no labels) prompted-rubric controls: they have no generator phase (policy steps only)
   */
  rubricSource: 'generator' | 'teacher' | 'frozen_coldstart';
  /**
   * 'shared' (EvoLM: the generator is the policy in the rubricator role) or 'separate' (the two-model control: a
   * second policy from the same checkpoint, passed to the trainer, writes the rubrics and only the generator phase
   * trains it)
   */
  generatorWeights: 'shared' | 'separate';
  /**
   * the judge's competence (docs/verifier.md): 'learned' (the frozen distilled verifier), 'competent' (the
   * column-aligned one), 'oracle' (the teacher's exact judgement) or 'oracle@A' (exact, each verdict flipped with
   * probability 1 - A from the run seed's own stream)
   */
  verifier: VerifierSetting;
  policyLr: number;
  /**
   * the generator's rate: 0.5x the policy's, the largest multiple the pre-registered rule admits
   * (results/evolm/generator_rate_rule.md, generator_rate_choice.json). The first EvoLM rows ran at 1x; their
   * records are in results/runs/superseded/table2-generator-1x
   */
  generatorLr: number;
  /**
   * hold the policy's approx. KL per update to this target by adapting its rate between policy steps
   * (src/rl/kl-adaptive.ts; the KL-matched control row sets it to RLVR's at the same size and seed); null (default):
   * the policy's rate stays policyLr
   */
  policyKlTarget: number | null;
  grpo: GrpoConfig;
}

export const defaultEvolmConfig: EvolmConfig = {
  steps: 100,
  prompts: 16,
  rollouts: 8,
  temperature: 1,
  schedule: 'alternate',
  alternation: 0,
  alternationFraction: 0.1,
  marginWeight: 0.7,
  formatWeight: 0.3,
  pairSources: { temporal: 1, perturbation: 1, rubric_conditioned: 1 },
  temporalGapFraction: [1 / 75, 1 / 15],
  temporalGap: null,
  generatorReads: 'own_cot',
  rubricSource: 'generator',
  generatorWeights: 'shared',
  verifier: 'learned',
  policyLr: 1e-4,
  generatorLr: 0.5e-4,
  policyKlTarget: null,
  grpo: defaultGrpoConfig,
  world: defaultWorld,
};

export function checkEvolmConfig(c: EvolmConfig): void {
  checkRunBase(c, { prompts: 2 });
  if ((c.world.labelNoise ?? 0) !== 0)
    throw new ConfigError('world.labelNoise is implemented for RLVR and RLCER only (EvoLM reads exact labels)');
  requireInteger('alternation', c.alternation, 0);
  requireProbability('alternationFraction', c.alternationFraction);
  requireProbability('marginWeight', c.marginWeight);
  requireProbability('formatWeight', c.formatWeight);
  if (c.schedule !== 'alternate' && c.schedule !== 'sequential')
    throw new ConfigError(`schedule must be "alternate" or "sequential" (got "${c.schedule}")`);
  if (c.generatorReads !== 'own_cot' && c.generatorReads !== 'question')
    throw new ConfigError(`generatorReads must be "own_cot" or "question" (got "${c.generatorReads}")`);
  parseVerifierSetting(c.verifier);
  for (const k of Object.keys(c.pairSources))
    if (!(PAIR_SOURCES as readonly string[]).includes(k))
      throw new ConfigError(`unknown pair source "${k}" (known: ${PAIR_SOURCES.join(', ')})`);
  Object.entries(c.pairSources).forEach(([k, v]) => requireNonNegative(`pairSources.${k}`, v));
  if (Object.values(c.pairSources).reduce((a, b) => a + b, 0) <= 0)
    throw new ConfigError('pairSources must have a positive total');
  const [flo, fhi] = c.temporalGapFraction;
  if (!(flo > 0 && fhi >= flo && fhi <= 1)) {
    throw new ConfigError(`temporalGapFraction must be [lo, hi] with 0 < lo <= hi <= 1 (got [${flo}, ${fhi}])`);
  }
  if (c.temporalGap !== null) {
    const [lo, hi] = c.temporalGap;
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 1 && hi >= lo)) {
      throw new ConfigError(`temporalGap must be null or [lo, hi] with 1 <= lo <= hi (got [${lo}, ${hi}])`);
    }
  }
  if (!['generator', 'teacher', 'frozen_coldstart'].includes(c.rubricSource)) {
    throw new ConfigError(
      `rubricSource must be "generator", "teacher" or "frozen_coldstart" (got "${c.rubricSource}")`,
    );
  }
  if (c.generatorWeights !== 'shared' && c.generatorWeights !== 'separate') {
    throw new ConfigError(`generatorWeights must be "shared" or "separate" (got "${c.generatorWeights}")`);
  }
  if (c.generatorWeights === 'separate' && c.rubricSource !== 'generator') {
    throw new ConfigError('generatorWeights "separate" trains a generator: it needs rubricSource "generator"');
  }
  requirePositive('policyLr', c.policyLr);
  requirePositive('generatorLr', c.generatorLr);
  if (c.policyKlTarget !== null) requirePositive('policyKlTarget', c.policyKlTarget);
  checkGrpoConfig(c.grpo);
}

/** The generator's reward for one rubric: marginWeight (J(a+) - J(a-)) + formatWeight format (margin 0 when unparsed). */
export function generatorReward(
  parsed: boolean,
  jPlus: number,
  jMinus: number,
  marginWeight = 0.7,
  formatWeight = 0.3,
): number {
  return parsed ? marginWeight * (jPlus - jMinus) + formatWeight : 0;
}

/** The temporal gap [lo, hi] in policy steps: the fraction of the run's steps (rounded, lo >= 1), or the absolute gap. */
export function temporalGapSteps(
  c: Pick<EvolmConfig, 'steps' | 'temporalGapFraction' | 'temporalGap'>,
): [number, number] {
  if (c.temporalGap) return c.temporalGap;
  const lo = Math.max(1, Math.round(c.steps * c.temporalGapFraction[0]));
  return [lo, Math.max(lo, Math.round(c.steps * c.temporalGapFraction[1]))];
}

/**
 * Where a step's answers sit in its batch of prompts x (n + 1) samples (prompt g's at g (n + 1) ...): per prompt, n
 * answers the step scores or pairs (the policy's GRPO group; the plain answer of a generator step, n = 1) and one more,
 * `read`, that only the generator reads, so that it never reads an answer it scores or one of a pair. Without
 * `withRead` (nothing reads an answer) the batch is prompts x n and `read` is empty.
 */
export function sampleLayout(prompts: number, n: number, withRead = true): { scored: number[][]; read: number[] } {
  const stride = n + (withRead ? 1 : 0);
  const scored = Array.from({ length: prompts }, (_, g) => Array.from({ length: n }, (_, i) => g * stride + i));
  return { scored, read: withRead ? scored.map((_, g) => g * stride + n) : [] };
}

/** A pair member: a plain answer of the step (its index in the batch), the past policy's answer, or the hinted one. */
export type PairMember = number | 'past' | 'hinted';

/** Prompt g's preference pair (a+, a-) by its source, given each prompt's plain answer (`plain[h]`, batch indices). */
export function pairMembers(source: PairSource, g: number, plain: number[]): { pos: PairMember; neg: PairMember } {
  if (source === 'temporal') return { pos: plain[g], neg: 'past' }; // the same problem, the policy `gap` steps ago
  if (source === 'perturbation') return { pos: plain[g], neg: plain[(g + 1) % plain.length] }; // another problem's answer
  return { pos: 'hinted', neg: plain[g] }; // rubric-conditioned: a+ written with a first rubric as a hint, a- without
}

/** Whether the trainer needs a second policy to write rubrics: the separate generator, or the frozen cold start. */
export const needsGeneratorPolicy = (c: Pick<EvolmConfig, 'rubricSource' | 'generatorWeights'>) =>
  c.rubricSource === 'frozen_coldstart' || c.generatorWeights === 'separate';

/**
 * Which phase a global step is in: the schedule's k-th step trains the policy or the generator. Rows whose rubrics
 * come from the teacher or a frozen cold start have no generator to train: every step is a policy step.
 */
export function phaseOf(
  step: number,
  c: Pick<EvolmConfig, 'steps' | 'schedule' | 'alternation' | 'alternationFraction'> &
    Partial<Pick<EvolmConfig, 'rubricSource'>>,
): 'policy' | 'generator' {
  if ((c.rubricSource ?? 'generator') !== 'generator') return 'policy';
  if (c.schedule === 'sequential') return step < c.steps ? 'generator' : 'policy';
  const K = c.alternation > 0 ? c.alternation : Math.max(1, Math.round(c.steps * c.alternationFraction));
  return Math.floor(step / K) % 2 === 0 ? 'policy' : 'generator';
}

/**
 * `generator`: the policy that writes the rubrics when it is not `policy` itself: the two-model variant's generator
 * (generatorWeights 'separate', trained by the generator phase only) or the frozen cold start (rubricSource
 * 'frozen_coldstart', never trained). The policy's update is always a GRPO step of the policy role with its own Adam.
 */
export function makeEvolmTrainer(
  policy: Policy,
  c: EvolmConfig,
  verifier?: Policy,
  generator?: Policy,
  judgeModels: Pick<VerifierModels, 'competent' | 'seed'> = {},
) {
  checkEvolmConfig(c);
  if (c.verifier === 'learned' && !verifier) throw new ConfigError('verifier "learned" needs a verifier checkpoint');
  if (needsGeneratorPolicy(c) !== !!generator) {
    throw new ConfigError(
      generator
        ? 'a generator policy is for generatorWeights "separate" or rubricSource "frozen_coldstart" only'
        : `rubricSource "${c.rubricSource}" with generatorWeights "${c.generatorWeights}" needs the generator policy`,
    );
  }
  // the judge of the setting (`judgeModels`: the competent verifier, the run's seed for the noisy oracle's stream);
  // 'learned' and 'oracle' judge as they did before the knob
  const judge = settingJudge(c.verifier, { learned: verifier, ...judgeModels });
  const judgeItems = judge.judge;
  const noisy = parseVerifierSetting(c.verifier).accuracy !== null;
  // who writes rubrics: the generator (shared weights or its own), the frozen cold start, or nobody (the teacher's)
  const writer = c.rubricSource === 'teacher' ? undefined : (generator ?? policy);
  const policyOpt = tf.train.adam(c.policyLr),
    generatorOpt = tf.train.adam(c.generatorLr);
  // the frozen references a KL penalty reads (grpo.klCoef > 0): the policy's and the generator's starting weights
  const policyRef = referencePolicy(policy, c.grpo.klCoef),
    generatorRef = generator ? referencePolicy(generator, c.grpo.klCoef) : policyRef;
  const gap = temporalGapSteps(c);
  // snapshots of the policy's weights every 5 policy steps (every lo when the gap is shorter), for temporal
  // contrast; the cold start is the first
  const snapEvery = Math.min(5, gap[0]);
  const snapshots: { step: number; weights: Record<string, Float32Array> }[] = [];
  const snap = (step: number) =>
    snapshots.push({
      step,
      weights: Object.fromEntries(
        Object.entries(policy.weights).map(([k, v]) => [k, (v.dataSync() as Float32Array).slice()]),
      ),
    });
  const past = createPolicy(policy.config);
  let policySteps = 0;
  let last: (Rollout & { problem: Problem })[] = [];
  snap(0);

  const problemsFor = (rng: Rng) => Array.from({ length: c.prompts }, () => drawTrainingProblem(c.world, rng));
  const answer = (who: Policy, prompts: number[][], rng: Rng) =>
    sample(who, prompts, { maxNew: 96, temperature: c.temperature, topP: 1 }, rng).map(decode);
  const reason = (ps: Problem[]) => ps.map((p) => encode(promptTokens(p, 'reason')));
  /**
   * n answers per problem that the step scores or pairs, and one more that only the generator reads (sampleLayout),
   * drawn only where a rubric is written from an answer (not from the teacher, not from the question alone)
   */
  const readsAnswer = c.generatorReads === 'own_cot' && c.rubricSource !== 'teacher';
  const answerAndRead = (ps: Problem[], n: number, rng: Rng) => {
    const per = n + (readsAnswer ? 1 : 0),
      layout = sampleLayout(ps.length, n, readsAnswer);
    const prompts = reason(ps.flatMap((p) => Array.from({ length: per }, () => p)));
    return { layout, prompts, outs: answer(policy, prompts, rng) };
  };
  /**
   * Batch indices of the last step's answers: scored (the policy's GRPO group), paired (plain members of the
   * generator's pairs), read (what the rubric writer read, recorded where it reads them): read meets neither
   */
  let batch = { scored: [] as number[], paired: [] as number[], read: [] as number[] };
  /** J of each (rubric, completion) pair. */
  const judgeScores = (rubrics: Parsed[], ps: Problem[], completions: string[][]) => {
    const items = rubrics.flatMap((r, i) =>
      r.ok ? r.rubric.items.map((it) => ({ c: it.criterion, p: ps[i], completion: completions[i] })) : [],
    );
    const ans = judgeItems(items);
    let q = 0;
    return rubrics.map((r) =>
      r.ok
        ? normalisedScore(
            r.rubric.items.map((it) => it.points),
            r.rubric.items.map(() => ans[q++]),
          )
        : 0,
    );
  };
  /** rubrics for problems `ps`, the writer reading answers `read` of the step's batch `all` (or the question only) */
  const rubricsFor = (ps: Problem[], all: string[][], read: number[], rng: Rng) => {
    if (readsAnswer) batch.read.push(...read);
    const cots = c.generatorReads === 'own_cot' ? read.map((i) => all[i]) : ps.map(() => []);
    return sourceRubrics(writer, ps, cots, rng, c.temperature);
  };
  const rubricStats = (rs: Parsed[]) => {
    const ok = rs.filter((r) => r.ok),
      items = ok.flatMap((r) => r.rubric!.items);
    return {
      format_rate: ok.length / rs.length,
      criteria_per_rubric: ok.length ? items.length / ok.length : NaN,
      concrete_share: items.length ? items.filter((i) => isConcrete(i.criterion)).length / items.length : NaN,
      mean_length: items.length
        ? mean(items.map((i) => [i.criterion.name, ...i.criterion.args].join(' ').length))
        : NaN,
    };
  };

  const opts = { policy: policyOpt, generator: generatorOpt };
  const f32 = {
    encode: (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64'),
    decode: (s: string) => {
      const b = Buffer.from(s, 'base64');
      return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    },
  };
  const weightsOf = (p: Policy) =>
    Object.fromEntries(Object.entries(p.weights).map(([k, v]) => [k, f32.encode(v.dataSync() as Float32Array)]));
  return {
    /**
     * An exact resume needs, besides the policy's weights: the step counter, the snapshots for temporal contrast,
     * both Adams' moments, and the two-model generator's weights (the frozen writer and the verifier are inputs).
     */
    state: async () => ({
      policySteps,
      optimizers: await optimizersState(opts),
      ...(c.policyKlTarget !== null ? { policyLr: rateOf(policyOpt) } : {}),
      snapshots: snapshots.map((s) => ({
        step: s.step,
        weights: Object.fromEntries(Object.entries(s.weights).map(([k, v]) => [k, f32.encode(v)])),
      })),
      ...(generator && c.generatorWeights === 'separate' ? { generator: weightsOf(generator) } : {}),
      ...(noisy ? { judgeDraws: judge.draws() } : {}),
    }),
    restore: async (s: Record<string, unknown>) => {
      policySteps = s.policySteps as number;
      if (noisy) judge.skip(s.judgeDraws as number);
      const saved = s.snapshots as { step: number; weights: Record<string, string> }[];
      snapshots.splice(
        0,
        snapshots.length,
        ...saved.map((x) => ({
          step: x.step,
          weights: Object.fromEntries(Object.entries(x.weights).map(([k, v]) => [k, f32.decode(v)])),
        })),
      );
      if (generator && c.generatorWeights === 'separate') {
        for (const [k, v] of Object.entries(generator.weights)) {
          const t = tf.tensor(f32.decode((s.generator as Record<string, string>)[k]), v.shape);
          v.assign(t);
          t.dispose();
        }
      }
      await restoreOptimizers(opts, s.optimizers as Record<string, OptimizerState>, (k) =>
        Object.values((k === 'generator' ? (generator ?? policy) : policy).weights),
      );
      if (c.policyKlTarget !== null) setRate(policyOpt, s.policyLr as number);
    },
    phaseOf: (step: number) => phaseOf(step, c),
    totalSteps: c.rubricSource === 'generator' ? 2 * c.steps : c.steps,
    /** the last step's rollouts (the policy's or the generator's), each with its problem */
    lastRollouts: () => last,
    lastBatch: () => batch,
    step(step: number, rng: Rng): Record<string, number> {
      const t0 = Date.now();
      const problems = problemsFor(rng);
      batch = { scored: [], paired: [], read: [] };
      if (phaseOf(step, c) === 'policy') {
        // the policy's GRPO step on J (no labels) under the (frozen) rubric source's rubric for each prompt, written
        // after reading an answer outside the group
        const { layout, prompts, outs: all } = answerAndRead(problems, c.rollouts, rng);
        const idx = layout.scored.flat(),
          outs = idx.map((i) => all[i]);
        batch.scored = idx;
        const ps = layout.scored.flatMap((ids, g) => ids.map(() => problems[g]));
        const t1 = Date.now();
        const rubrics = rubricsFor(problems, all, layout.read, rng).sets;
        const t2 = Date.now();
        const J = judgeScores(
          ps.map((_, i) => rubrics[Math.floor(i / c.rollouts)]),
          ps,
          outs,
        );
        last = outs.map((o, i) => ({
          role: 'reason',
          group: Math.floor(i / c.rollouts),
          prompt: prompts[idx[i]],
          completion: encode(o),
          reward: J[i],
          components: { judge: J[i] },
          problem: ps[i],
        }));
        const t3 = Date.now();
        const upd = grpoUpdate(policy, policyOpt, last, c.grpo, rng, policyRef);
        const t4 = Date.now();
        // the KL-matched control: the policy's next rate from this update's size (the rate used is logged)
        const rate: Record<string, number> =
          c.policyKlTarget === null
            ? {}
            : { lr: rateOf(policyOpt), next_lr: adaptOptimizer(policyOpt, upd.approx_kl, c.policyKlTarget) };
        policySteps++;
        if (policySteps % snapEvery === 0) snap(policySteps);
        const correct = outs.map((o, i) => +isCorrect(ps[i], parseTrace(o)));
        return {
          phase: 0,
          accuracy: mean(correct),
          judge_score: mean(J),
          // the competent or noisy judge's agreement with the teacher over this step's verdicts (absent otherwise)
          ...(Number.isNaN(judge.lastAgreement()) ? {} : { judge_agreement: judge.lastAgreement() }),
          response_length: mean(outs.map((o) => o.length)),
          ...rubricStats(rubrics),
          ...Object.fromEntries(Object.entries({ ...upd, ...rate }).map(([k, v]) => [`policy/${k}`, v])),
          sample_ms: t1 - t0,
          rubric_ms: t2 - t1,
          judge_ms: t3 - t2,
          update_ms: t4 - t3,
        };
      }
      // the generator's GRPO step: pairs of the policy's answers built without labels, rollouts-many rubrics per
      // prompt, each written after reading an answer that is in no pair
      const { layout, outs: all } = answerAndRead(problems, 1, rng);
      const weights = PAIR_SOURCES.map((s) => c.pairSources[s] ?? 0);
      const sources = problems.map(() => PAIR_SOURCES[rng.categorical(weights)]);
      const pairs = sources.map((s, g) =>
        pairMembers(
          s,
          g,
          layout.scored.map((x) => x[0]),
        ),
      );
      batch.paired = pairs.flatMap((p) => [p.pos, p.neg].filter((m): m is number => typeof m === 'number'));
      const others: Record<'past' | 'hinted', string[][]> = { past: [], hinted: [] };
      // temporal contrast: the same problem answered by the policy as it was `gap` policy steps ago
      const tIdx = problems.map((_, g) => g).filter((g) => pairs[g].neg === 'past');
      if (tIdx.length) {
        const back = gap[0] + rng.int(gap[1] - gap[0] + 1);
        const old = [...snapshots].reverse().find((s) => s.step <= policySteps - back) ?? snapshots[0];
        for (const [k, v] of Object.entries(past.weights)) {
          const t = tf.tensor(old.weights[k], v.shape);
          v.assign(t);
          t.dispose(); // the variable keeps its own reference to the data
        }
        answer(past, reason(tIdx.map((g) => problems[g])), rng).forEach((o, j) => {
          others.past[tIdx[j]] = o;
        });
      }
      // rubric-conditioned: the policy answers with a first rubric's positive criteria as a hint
      const rIdx = problems.map((_, g) => g).filter((g) => pairs[g].pos === 'hinted');
      if (rIdx.length) {
        const first = rubricsFor(
          rIdx.map((g) => problems[g]),
          all,
          rIdx.map((g) => layout.read[g]),
          rng,
        ).sets;
        const hinted = answer(
          policy,
          rIdx.map((g, j) => {
            const h = hintTokens(first[j], problems[g]);
            return encode(h.length ? promptTokens(problems[g], 'hint', h) : promptTokens(problems[g], 'reason'));
          }),
          rng,
        );
        rIdx.forEach((g, j) => {
          others.hinted[g] = hinted[j];
        });
      }
      const member = (m: PairMember, g: number) => (typeof m === 'number' ? all[m] : others[m][g]);
      const pos = pairs.map((p, g) => member(p.pos, g)),
        neg = pairs.map((p, g) => member(p.neg, g));
      const ps = problems.flatMap((p) => Array.from({ length: c.rollouts }, () => p));
      const t1 = Date.now();
      const { written, sets: parsed } = rubricsFor(
        ps,
        all,
        ps.map((_, i) => layout.read[Math.floor(i / c.rollouts)]),
        rng,
      );
      const t2 = Date.now();
      const jPlus = judgeScores(
        parsed,
        ps,
        ps.map((_, i) => pos[Math.floor(i / c.rollouts)]),
      );
      const jMinus = judgeScores(
        parsed,
        ps,
        ps.map((_, i) => neg[Math.floor(i / c.rollouts)]),
      );
      const t3 = Date.now();
      const rewards = parsed.map((r, i) => generatorReward(r.ok, jPlus[i], jMinus[i], c.marginWeight, c.formatWeight));
      last = written!.map((w, i) => ({
        role: 'rubric',
        group: Math.floor(i / c.rollouts),
        prompt: w.prompt,
        completion: w.completion,
        reward: rewards[i],
        components: { margin: jPlus[i] - jMinus[i] },
        problem: ps[i],
      }));
      const upd = grpoUpdate(generator ?? policy, generatorOpt, last, c.grpo, rng, generatorRef);
      const t4 = Date.now();
      return {
        phase: 1,
        generator_reward: mean(rewards),
        margin: mean(parsed.map((r, i) => (r.ok ? jPlus[i] - jMinus[i] : 0))),
        pair_accuracy: mean(
          parsed.map((r, i) => (r.ok ? (jPlus[i] > jMinus[i] ? 1 : jPlus[i] === jMinus[i] ? 0.5 : 0) : 0.5)),
        ),
        ...Object.fromEntries(
          PAIR_SOURCES.map((s) => [`pairs/${s}`, sources.filter((x) => x === s).length / sources.length]),
        ),
        ...rubricStats(parsed),
        ...Object.fromEntries(Object.entries(upd).map(([k, v]) => [`generator/${k}`, v])),
        sample_ms: t1 - t0,
        rubric_ms: t2 - t1,
        judge_ms: t3 - t2,
        update_ms: t4 - t3,
      };
    },
  };
}
