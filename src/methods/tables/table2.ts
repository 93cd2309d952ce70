// Table 2: the reward sources compared (rows), how each is trained, where its rubric quality comes from, the two
// profiles, and the papers' reported numbers (labelled as reported, never mixed with ours).
import type { RlcerConfig } from '../trainers/rlcer.js';
import type { EvolmConfig } from '../trainers/evolm.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DeepPartial } from '../../io/config.js';
import { ConfigError } from '../../util/validate.js';
import { readMetrics } from '../../io/run.js';
import { didYouMean } from '../../util/names.js';

/** The cold start of a size; a variant names another cold start of that size (`MethodSpec.coldstart`). */
export const coldStartCheckpoint = (size: string, variant?: string) =>
  `data/checkpoints/coldstart-transformer-${size}${variant ? `-${variant}` : ''}.json`;
export const scalarRmCheckpoint = (size: string) => `data/checkpoints/scalar-rm-${size}.json`;
export const VERIFIER_CHECKPOINT = 'data/checkpoints/verifier-S.json';
/** The competent verifier (make verifier-competent; docs/verifier.md), the knob's `competent` setting. */
export const COMPETENT_VERIFIER_CHECKPOINT = 'data/checkpoints/verifier-competent-S.json';

/** What every Table 2 row declares, whatever its kind. */
interface MethodSpecBase {
  /**
   * whose rubrics the rubric-quality column reads: a fixed external source where the row's reward comes from one
   * (the cold-start rubricator, the teacher, the scalar RM), the row's trained generator where it has its own
   * weights (EvoLM's two-model control), else the row's final policy in the rubricator role
   */
  quality: 'policy' | 'coldstart' | 'teacher' | 'scalar_rm' | 'generator';
  label: string;
  /**
   * the cold start the row starts from, when not the size's own: a variant name (`coldStartCheckpoint`), e.g. 'q',
   * the cold start fine-tuned to also write rubrics from the question alone (docs/evolm.md)
   */
  coldstart?: string;
  /**
   * the KL-matched control: the reasoner's (EvoLM: the policy's) approx. KL per update held to RLVR's at the same
   * profile, size and seed (`rlvrKlTarget`, read from RLVR's committed record) by the KL-adaptive rate
   */
  klMatch?: 'rlvr';
}

/**
 * A Table 2 row, by how its policy is trained (`kind`): not at all (the cold start), RLVR, the static scalar RM,
 * RLCER or EvoLM. Each kind carries its own block only: an `evolm` block on an RLCER row is a type error here, and a
 * one-line config error at run time (`checkMethodSpec`).
 */
export type MethodSpec =
  | (MethodSpecBase & { kind: 'sft' | 'scalar_rm' })
  | (MethodSpecBase & {
      kind: 'rlvr';
      /**
       * the reward: the outcome (default), or a control: a random +1/-1, the format only, or a positive control: the
       * outcome plus the exact process score on the last token, or on each step's last token
       */
      reward?: 'outcome' | 'random' | 'format' | 'process_oracle' | 'process_oracle_dense';
    })
  | (MethodSpecBase & { kind: 'rlcer'; rlcer?: DeepPartial<RlcerConfig> })
  | (MethodSpecBase & { kind: 'evolm'; evolm?: DeepPartial<EvolmConfig> });

/** The blocks a kind may carry beyond the common fields. */
const KIND_BLOCKS: Record<MethodSpec['kind'], string[]> = {
  sft: [],
  scalar_rm: [],
  rlvr: ['reward'],
  rlcer: ['rlcer'],
  evolm: ['evolm'],
};
const COMMON_FIELDS = ['kind', 'quality', 'label', 'coldstart', 'klMatch'];

/** Throws a one-line ConfigError for a spec field its kind does not read (it would be ignored). */
export function checkMethodSpec(id: string, spec: MethodSpec): void {
  const own = KIND_BLOCKS[spec.kind];
  if (!own) throw new ConfigError(`method ${id}: unknown kind "${spec.kind}" (known: ${Object.keys(KIND_BLOCKS)})`);
  for (const k of Object.keys(spec))
    if (!COMMON_FIELDS.includes(k) && !own.includes(k))
      throw new ConfigError(
        `method ${id}: a ${spec.kind} row does not read "${k}"` +
          `${own.length ? ` (its kind's own: ${own.join(', ')})` : ''}`,
      );
}

export const METHODS: Record<string, MethodSpec> = {
  sft: { kind: 'sft', quality: 'policy', label: 'cold-start SFT' },
  rlvr: { kind: 'rlvr', quality: 'policy', label: 'RLVR (outcome only)' },
  scalar_rm: { kind: 'scalar_rm', quality: 'scalar_rm', label: 'static scalar RM' },
  fixed_untrained: {
    kind: 'rlcer',
    rlcer: { rubricSource: 'fixed_untrained' },
    quality: 'coldstart',
    label: 'fixed rubrics, untrained rubricator',
  },
  fixed_teacher: {
    kind: 'rlcer',
    rlcer: { rubricSource: 'teacher' },
    quality: 'teacher',
    label: 'fixed teacher rubrics',
  },
  rlcer_no_evolve: { kind: 'rlcer', rlcer: { evolve: false }, quality: 'policy', label: 'RLCER w/o evolving' },
  rlcer: { kind: 'rlcer', rlcer: {}, quality: 'policy', label: 'RLCER' },
  rlcer_rubric_only: { kind: 'rlcer', rlcer: { outcomeWeight: 0 }, quality: 'policy', label: 'RLCER rubric-only' },
  evolm_sequential: { kind: 'evolm', evolm: { schedule: 'sequential' }, quality: 'policy', label: 'EvoLM sequential' },
  evolm: { kind: 'evolm', evolm: { schedule: 'alternate' }, quality: 'policy', label: 'EvoLM (co-evolving)' },
  // the regime map's controls (docs/regimes.md): RLVR's update with a reward that ignores the answer
  random_reward: { kind: 'rlvr', reward: 'random', quality: 'policy', label: 'control: random +1/-1 reward' },
  format_only: { kind: 'rlvr', reward: 'format', quality: 'policy', label: 'control: format-only reward' },
  // ablations beyond the table's rows
  rlcer_rubric_only_random: {
    kind: 'rlcer',
    rlcer: { outcomeWeight: 0, validity: 'random' },
    quality: 'policy',
    label: 'rubric-only, random rubrics',
  },
  rlcer_oracle: { kind: 'rlcer', rlcer: { verifier: 'oracle' }, quality: 'policy', label: 'RLCER, oracle verifier' },
  // the paper's literal settings, kept as ablation rows: one Adam over the weighted sum of the roles' objectives
  // with the rubricator at 10x the reasoner's rate, and the correlation test read literally for negative points
  rlcer_paper_rate: {
    kind: 'rlcer',
    rlcer: {
      ppo: { roleMixing: 'weighted_sum', lr: { reason: 1e-4, rubric: 1e-3, hint: 1e-4 } },
    },
    quality: 'policy',
    label: 'RLCER, one Adam over the weighted sum, rubricator 10x',
  },
  rlcer_literal_validity: {
    kind: 'rlcer',
    rlcer: { validityReading: 'literal' },
    quality: 'policy',
    label: 'RLCER, validity read literally',
  },
  // earlier ablations of how the rates meet (literal validity, as they were run; run with --methods)
  rlcer_equal_rates: {
    kind: 'rlcer',
    rlcer: {
      validityReading: 'literal',
      ppo: { roleMixing: 'weighted_sum', lr: { reason: 1e-4, rubric: 1e-4, hint: 1e-4 } },
    },
    quality: 'policy',
    label: 'RLCER, rubricator rate = reasoner rate',
  },
  rlcer_separate_adam: {
    kind: 'rlcer',
    rlcer: {
      validityReading: 'literal',
      ppo: { roleMixing: 'separate_adam', lr: { reason: 1e-4, rubric: 1e-3, hint: 1e-4 } },
    },
    quality: 'policy',
    label: 'RLCER, one Adam per role, rubricator 10x',
  },
  // EvoLM ablations: the alternation period K (the default keeps the paper's K = steps / 10), no format reward,
  // each preference-pair source alone
  evolm_k_half: {
    kind: 'evolm',
    evolm: { alternationFraction: 0.05 },
    quality: 'policy',
    label: 'EvoLM, K = steps / 20',
  },
  evolm_k_double: {
    kind: 'evolm',
    evolm: { alternationFraction: 0.2 },
    quality: 'policy',
    label: 'EvoLM, K = steps / 5',
  },
  evolm_no_format: {
    kind: 'evolm',
    evolm: { marginWeight: 1, formatWeight: 0 },
    quality: 'policy',
    label: 'EvoLM without the format reward',
  },
  evolm_temporal: {
    kind: 'evolm',
    evolm: { pairSources: { temporal: 1, perturbation: 0, rubric_conditioned: 0 } },
    quality: 'policy',
    label: 'EvoLM, temporal pairs only',
  },
  evolm_perturbation: {
    kind: 'evolm',
    evolm: { pairSources: { temporal: 0, perturbation: 1, rubric_conditioned: 0 } },
    quality: 'policy',
    label: 'EvoLM, perturbation pairs only',
  },
  evolm_rubric_conditioned: {
    kind: 'evolm',
    evolm: { pairSources: { temporal: 0, perturbation: 0, rubric_conditioned: 1 } },
    quality: 'policy',
    label: 'EvoLM, rubric-conditioned pairs only',
  },
  // the paper's reading of what the generator sees (the question alone), against our default (question + own CoT)
  evolm_reads_question: {
    kind: 'evolm',
    evolm: { generatorReads: 'question' },
    quality: 'policy',
    label: 'EvoLM, generator reads the question only',
  },
  // the same from the cold start that also learnt to write rubrics from the question alone, with its own controls
  sft_q: { kind: 'sft', coldstart: 'q', quality: 'policy', label: 'cold-start SFT (question-reading cold start)' },
  evolm_q: {
    kind: 'evolm',
    coldstart: 'q',
    evolm: { schedule: 'alternate' },
    quality: 'policy',
    label: 'EvoLM, generator reads an answer (question-reading cold start)',
  },
  evolm_q_reads_question: {
    kind: 'evolm',
    coldstart: 'q',
    evolm: { generatorReads: 'question' },
    quality: 'policy',
    label: 'EvoLM, generator reads the question only (question-reading cold start)',
  },
  // EvoLM's controls. Judge-only rows, the prompted-rubric analogues: the policy trained with EvoLM's policy step on J
  // alone (no labels, unlike fixed_teacher and fixed_untrained, which add the outcome and label-based validity) under
  // the teacher's reference rubric or rubrics written by a frozen cold start; no generator phase. Their rubric quality
  // reads the same fixed source as the labelled rows (teacher, coldstart): the rubrics that scored the policy.
  judge_teacher: {
    kind: 'evolm',
    evolm: { rubricSource: 'teacher' },
    quality: 'teacher',
    label: 'judge-only, teacher rubrics',
  },
  judge_untrained: {
    kind: 'evolm',
    evolm: { rubricSource: 'frozen_coldstart' },
    quality: 'coldstart',
    label: 'judge-only, untrained rubric writer',
  },
  // the paper's two-model control: the generator has its own weights (a second copy of the cold start); rubric quality
  // reads that trained generator, which wrote the row's rubrics (the policy's rubricator role is never trained here)
  evolm_two_model: {
    kind: 'evolm',
    evolm: { generatorWeights: 'separate' },
    quality: 'generator',
    label: 'EvoLM, separate generator weights',
  },
  // the KL-matched controls (results/rlcer/kl_match_rule.md): the shared role's step held to RLVR's size
  rlcer_kl_matched: {
    kind: 'rlcer',
    rlcer: {},
    klMatch: 'rlvr',
    quality: 'policy',
    label: "RLCER, reasoner rate KL-adapted to RLVR's step",
  },
  evolm_kl_matched: {
    kind: 'evolm',
    evolm: { schedule: 'alternate' },
    klMatch: 'rlvr',
    quality: 'policy',
    label: "EvoLM, policy rate KL-adapted to RLVR's step",
  },
  // the positive controls (docs/sensitivity.md): rewards known by construction to carry information beyond the
  // outcome, at RLVR's budget, rate and evaluation. The exact process score, ungated, on the last token or per step
  process_oracle: {
    kind: 'rlvr',
    reward: 'process_oracle',
    quality: 'policy',
    label: 'positive control: outcome + exact process score',
  },
  process_oracle_dense: {
    kind: 'rlvr',
    reward: 'process_oracle_dense',
    quality: 'policy',
    label: 'positive control: outcome + exact per-step process rewards',
  },
  // RLCER with rubric signal kept in all-right and all-wrong groups (every criterion whose satisfaction varies)
  rlcer_discriminative: {
    kind: 'rlcer',
    rlcer: { constantCorrectness: 'discriminative' },
    quality: 'policy',
    label: 'RLCER, validity kept in constant-correctness groups',
  },
  // EvoLM's side: the exact judge in place of the learned one (does the collapse measure the judge or EvoLM?)
  judge_teacher_oracle: {
    kind: 'evolm',
    evolm: { rubricSource: 'teacher', verifier: 'oracle' },
    quality: 'teacher',
    label: 'judge-only, teacher rubrics, exact judge',
  },
  evolm_oracle_judge: {
    kind: 'evolm',
    evolm: { schedule: 'alternate', verifier: 'oracle' },
    quality: 'policy',
    label: 'EvoLM (co-evolving), exact judge',
  },
};

/** The positive controls and their EvoLM-side counterparts (`--methods positive-controls`). */
export const POSITIVE_CONTROLS = [
  'process_oracle',
  'process_oracle_dense',
  'rlcer_discriminative',
  'judge_teacher_oracle',
  'evolm_oracle_judge',
];

/** The paper's rows of Table 2, in order (the quick profile runs these). */
export const TABLE2_CORE_ROWS = [
  'sft',
  'rlvr',
  'scalar_rm',
  'fixed_untrained',
  'fixed_teacher',
  'rlcer_no_evolve',
  'rlcer',
  'rlcer_rubric_only',
  'evolm_sequential',
  'evolm',
];
/**
 * Table 2's rows in order: the paper's, then the fairness controls (docs/rlcer.md, Method; docs/evolm.md, Controls):
 * the paper's literal RLCER settings (one Adam over the weighted sum at 10x; validity read literally), EvoLM's
 * judge-only rows and its two-model control.
 */
export const TABLE2_ROWS = [
  ...TABLE2_CORE_ROWS,
  'rlcer_paper_rate',
  'rlcer_literal_validity',
  'judge_teacher',
  'judge_untrained',
  'evolm_two_model',
];
/** Ablation runs that feed the RLCER figures (same profile, not table rows). */
export const RLCER_ABLATIONS = ['rlcer_rubric_only_random', 'rlcer_oracle'];
/** EvoLM's ablations (`make reproduce-evolm`), compared with the `evolm` row of the same profile. */
export const EVOLM_ABLATIONS = [
  'evolm_k_half',
  'evolm_k_double',
  'evolm_no_format',
  'evolm_temporal',
  'evolm_perturbation',
  'evolm_rubric_conditioned',
  'evolm_reads_question',
];
/** EvoLM's controls (`--methods evolm-controls`): judge-only rows with fixed rubric sources, and two models. */
export const EVOLM_CONTROLS = ['judge_teacher', 'judge_untrained', 'evolm_two_model'];
/** The KL-matched controls (`--methods kl-matched`): RLCER's reasoner and EvoLM's policy at RLVR's step size. */
export const KL_MATCHED = ['rlcer_kl_matched', 'evolm_kl_matched'];
/** The paper's question-reading generator, from the cold start that learnt it, beside its own SFT and EvoLM rows. */
export const EVOLM_QUESTION = ['sft_q', 'evolm_q', 'evolm_q_reads_question'];

export interface Profile {
  /** the rows (method ids) a profile runs when no --methods is given */
  methods: string[];
  steps: number;
  seeds: number[];
  sizes: ('S' | 'M')[];
  /** evaluation problems per (family, difficulty) cell and samples per problem, at the end */
  evalPerCell: number;
  evalSamples: number;
  /** steps between the small evaluations that draw accuracy curves */
  curveEvery: number;
  /** problems per cell from which held-out preference pairs are drawn */
  pairsPerCell: number;
  /** keep each finished run's record (config, metrics, tables; not the weights) under TABLE2_ARCHIVE, committed */
  archived: boolean;
  /**
   * the pre-registered endpoints (docs/sensitivity.md): in-distribution accuracy at the training cells, held-out
   * composition, trace error, written as endpoints.csv with the final evaluation; per-step process scores in the
   * metrics; and each positive control's rollouts (completion tokens, outcome, process score) every 10th step
   */
  endpoints?: boolean;
  /** steps (before the last) after which the full final evaluation is also written, as <table>-<step>.csv */
  horizons?: number[];
  /** a row's own number of steps where it differs from the profile's (the campaign's 60-step-only arms) */
  stepsByMethod?: Record<string, number>;
}

/** The long profile's rows: RLVR against RLCER with and without evolving, and fixed teacher rubrics. */
export const LONG_ROWS = ['rlvr', 'rlcer', 'rlcer_no_evolve', 'fixed_teacher'];

/** The confirmatory campaign's arms at S: those that run 300 steps (and are read at 60 too), and those at 60 only. */
export const CAMPAIGN_ARMS_300 = ['rlvr', 'rlcer', 'fixed_teacher', 'process_oracle', 'process_oracle_dense'];
export const CAMPAIGN_ARMS_60 = ['rlcer_no_evolve', 'rlcer_discriminative'];
export const CAMPAIGN_ARMS = [...CAMPAIGN_ARMS_300, ...CAMPAIGN_ARMS_60];
/** The campaign's arms at M (the baseline regime, 60 steps). */
export const CAMPAIGN_ARMS_M = ['rlvr', 'rlcer', 'process_oracle'];

/** Where archived profiles keep their finished runs' records: <archive>/<profile>/<size>/<method>/seed-<n>. */
export const TABLE2_ARCHIVE = 'results/runs/table2';

export const PROFILES: Record<string, Profile> = {
  quick: {
    methods: TABLE2_CORE_ROWS,
    steps: 10,
    seeds: [0, 1],
    sizes: ['S'],
    evalPerCell: 8,
    evalSamples: 4,
    curveEvery: 5,
    pairsPerCell: 8,
    archived: false,
  },
  // a pipeline check (tests, a new machine): one step, tiny evaluations
  smoke: {
    methods: TABLE2_CORE_ROWS,
    steps: 1,
    seeds: [0],
    sizes: ['S'],
    evalPerCell: 1,
    evalSamples: 1,
    curveEvery: 1,
    pairsPerCell: 2,
    archived: false,
  },
  // the long horizon (docs/rlcer.md, The long horizon): does RLCER catch up with RLVR, as its paper's curve suggests?
  // Held-out evaluation every 20 steps (the curve), the full final evaluation at the end
  long: {
    methods: LONG_ROWS,
    steps: 300,
    seeds: [0, 1, 2],
    sizes: ['S'],
    evalPerCell: 24,
    evalSamples: 8,
    curveEvery: 20,
    pairsPerCell: 24,
    archived: true,
  },
  // the sensitivity pilot and campaign (results/sensitivity/preregistration.md): the full profile's evaluation, the
  // three endpoints, and the full evaluation at 60 steps inside a 300-step run (a run's first 60 steps are the same
  // whatever its length: tested)
  sensitivity: {
    methods: ['rlvr', 'process_oracle'],
    steps: 300,
    seeds: [0, 1, 2],
    sizes: ['S'],
    evalPerCell: 24,
    evalSamples: 8,
    curveEvery: 20,
    pairsPerCell: 24,
    archived: true,
    endpoints: true,
    horizons: [60],
  },
  // the confirmatory campaign (results/sensitivity/preregistration.md): the pilot's profile, with the arms that run 60
  // steps only (the others run 300 and are evaluated at 60 on the way)
  confirm: {
    methods: CAMPAIGN_ARMS,
    steps: 300,
    seeds: [0, 1, 2],
    sizes: ['S'],
    evalPerCell: 24,
    evalSamples: 8,
    curveEvery: 20,
    pairsPerCell: 24,
    archived: true,
    endpoints: true,
    horizons: [60],
    stepsByMethod: Object.fromEntries(CAMPAIGN_ARMS_60.map((m) => [m, 60])),
  },
  full: {
    methods: [...TABLE2_ROWS, ...RLCER_ABLATIONS],
    steps: 60,
    seeds: [0, 1, 2],
    sizes: ['S', 'M'],
    evalPerCell: 24,
    evalSamples: 8,
    curveEvery: 20,
    pairsPerCell: 24,
    archived: true,
  },
};

/**
 * The KL-matched rows' target: RLVR's mean approx. KL per update (`reason/approx_kl`) over its finished run of the
 * same profile, size and seed, from runs/table2 or else the committed archive; a one-line error when neither has it.
 */
export function rlvrKlTarget(
  profile: string,
  size: string,
  seed: number,
  roots = ['runs/table2', TABLE2_ARCHIVE],
): { target: number; from: string } {
  for (const root of roots) {
    const dir = path.join(root, profile, size, 'rlvr', `seed-${seed}`);
    if (!fs.existsSync(path.join(dir, 'done.json'))) continue;
    const kl = readMetrics(dir)
      .map((m) => m['reason/approx_kl'])
      .filter((v) => v !== null && v !== undefined && Number.isFinite(Number(v)))
      .map(Number);
    if (kl.length) return { target: kl.reduce((a, b) => a + b, 0) / kl.length, from: dir };
  }
  throw new ConfigError(
    `a KL-matched row needs RLVR's finished run of profile ${profile}, size ${size}, seed ${seed} ` +
      `(in ${roots.join(' or ')}): run the rlvr row first`,
  );
}

export function methodSpec(id: string): MethodSpec {
  const m = METHODS[id];
  if (!m) {
    const near = didYouMean(id, Object.keys(METHODS));
    throw new ConfigError(`unknown method "${id}"${near} (known: ${Object.keys(METHODS).join(', ')})`);
  }
  checkMethodSpec(id, m);
  return m;
}

export function profileSpec(name: string): Profile {
  const p = PROFILES[name];
  if (!p)
    throw new ConfigError(
      `unknown profile "${name}"${didYouMean(name, Object.keys(PROFILES))} (known: ${Object.keys(PROFILES).join(', ')})`,
    );
  return p;
}

/**
 * Where the held-out preference pairs of a profile are cached (deterministic, shared by every row and seed): per
 * profile, size, cold-start checkpoint (its hash) and kernel generation, since the cold start's samples, and so the
 * pairs, differ between generations.
 */
export function pairsCacheFile(profile: string, size: string, coldstart: string, kernels: number): string {
  return `runs/table2/pairs-${profile}-${size}-${coldstart}-k${kernels}.json`;
}

/**
 * Numbers the papers report for rows that exist there, as reported (scales and benchmarks differ from ours;
 * compare orderings and gaps, not values). EvoLM Table 2: RewardBench-2 and the OLMo3-Adapt 12-benchmark average;
 * RLCER: average accuracy over AIME24/AIME25/AMC23 read from its evolving-ablation figure (8B). EvoLM's prompted-rubric
 * rows train on the judge alone, without labels: their analogues are our judge-only rows.
 */
export const REPORTED: {
  paper: string;
  method: string;
  source: string;
  rubric_quality: number | null;
  policy_average: number | null;
}[] = [
  {
    paper: 'EvoLM Table 2',
    method: 'scalar_rm',
    source: 'Skywork-RM-V2 (8B scalar RM)',
    rubric_quality: 86.4,
    policy_average: 59.7,
  },
  {
    paper: 'EvoLM Table 2',
    method: 'judge_untrained',
    source: 'Qwen3-8B prompted rubrics',
    rubric_quality: 26.2,
    policy_average: 67.5,
  },
  {
    paper: 'EvoLM Table 2',
    method: 'judge_teacher',
    source: 'GPT-4.1 prompted rubrics',
    rubric_quality: 36.6,
    policy_average: 66.7,
  },
  {
    paper: 'EvoLM Table 2',
    method: 'rlcer',
    source: 'RLCER (among baselines reported as 66.7-67.6)',
    rubric_quality: null,
    policy_average: null,
  },
  {
    paper: 'EvoLM Table 2',
    method: 'evolm_sequential',
    source: 'Sequential',
    rubric_quality: 47.2,
    policy_average: 68.3,
  },
  {
    paper: 'EvoLM Table 2',
    method: 'evolm',
    source: 'EvoLM (co-evolving)',
    rubric_quality: 46.0,
    policy_average: 69.3,
  },
  {
    paper: 'RLCER evolving-ablation figure',
    method: 'rlvr',
    source: 'RLVR, end of training',
    rubric_quality: null,
    policy_average: 49,
  },
  {
    paper: 'RLCER evolving-ablation figure',
    method: 'rlcer_no_evolve',
    source: 'RLCER w/o evolving, end of training',
    rubric_quality: null,
    policy_average: 51,
  },
  {
    paper: 'RLCER evolving-ablation figure',
    method: 'rlcer',
    source: 'RLCER, end of training',
    rubric_quality: null,
    policy_average: 52,
  },
];
