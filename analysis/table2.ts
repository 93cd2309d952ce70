// `make reproduce-table2` (aggregation step): finished runs of a profile -> the tidy Table 2
// (profile,size,method,column,mean,ci_low,ci_high,seeds), the training curves behind the RLCER figures, and the
// papers' reported numbers in their own table (labelled as reported), and the papers' claims as paired differences
// with verdicts (table2_claims.csv) and the power of each (table2_power.csv: MDE, power at a difference of 0.03).
// For an archived profile (full) the committed run records in TABLE2_ARCHIVE count beside runs/. Every table is written
// whole from the runs found (a size with no runs has no rows), and runs of one size must share their inputs.
// Usage: tsx analysis/table2.ts <profile> [runs/table2] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import {
  CLAIM_COLUMNS,
  CLAIM_POWER_COLUMNS,
  claimPowerRows,
  claimRows,
  interval,
  meanCi,
  scoresBySeed,
  type Claim,
  withEndpoints,
  withInDistribution,
  type Scores,
} from './aggregate.js';
import { runMain } from '../src/io/args.js';
import { ConfigError } from '../src/util/validate.js';
import { CLAIM_PARITY_COLUMNS, claimParity, PARITY_COLUMNS, updateParity } from './parity.js';
import { mean } from '../src/util/stats.js';
import { FAMILIES } from '../src/world/families.js';
import { REPORTED, TABLE2_ROWS, METHODS, TABLE2_ARCHIVE, profileSpec } from '../src/methods/tables/table2.js';

/** Finished run directories of a profile: runs/table2/<profile>/<size>/<method>/seed-<n>. */
export function finishedRuns(
  root: string,
  profile: string,
): { size: string; method: string; seed: number; dir: string }[] {
  return findFinishedRuns(path.join(root, profile)).map((dir) => {
    const [size, method, s] = path.relative(path.join(root, profile), dir).split(path.sep);
    return { size, method, seed: Number(s.replace('seed-', '')), dir };
  });
}

/** Finished runs under `root`, with the archive's for every (size, method, seed) that `root` lacks. */
export function runsWithArchive(
  root: string,
  archive: string | null,
  profile: string,
): ReturnType<typeof finishedRuns> {
  const fresh = finishedRuns(root, profile),
    key = (r: { size: string; method: string; seed: number }) => `${r.size}|${r.method}|${r.seed}`;
  const have = new Set(fresh.map(key));
  return [...fresh, ...(archive ? finishedRuns(archive, profile).filter((r) => !have.has(key(r))) : [])];
}

/** Write a table whole from the runs found now (no row is carried forward without its records). */
function writeTable(file: string, rows: Row[], columns?: string[]): void {
  if (rows.length) writeCsv(file, rows, columns);
  else fs.rmSync(file, { force: true });
}

/**
 * The inputs a run recorded (content hashes of its cold start, verifier, scalar RM), as one string; runs made before
 * inputs were recorded read "unrecorded". Runs of one size with different inputs are not comparable.
 */
export function recordedInputs(dir: string): string {
  const file = path.join(dir, 'config.json');
  const inputs = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { inputs?: Record<string, string> }).inputs
    : undefined;
  if (!inputs) return 'unrecorded';
  return ['coldstart', 'verifier'].map((k) => `${k}=${inputs[k] ?? '?'}`).join(' ');
}

/**
 * Refuse to aggregate runs of one size that read different cold starts or verifiers (one line naming two runs). A
 * row that declares another cold start (`MethodSpec.coldstart`) is checked against the rows of that cold start.
 */
export function checkSameInputs(runs: { size: string; method?: string; dir: string }[]): void {
  const first = new Map<string, { dir: string; inputs: string }>();
  for (const r of runs) {
    const variant = r.method ? METHODS[r.method]?.coldstart : undefined,
      group = `${r.size}|${variant ?? ''}`;
    const inputs = recordedInputs(r.dir),
      seen = first.get(group);
    if (!seen) {
      first.set(group, { dir: r.dir, inputs });
      continue;
    }
    if (seen.inputs !== inputs) {
      throw new ConfigError(
        `runs of size ${r.size}${variant ? ` (cold start "${variant}")` : ''} have different inputs: ` +
          `${seen.dir} (${seen.inputs}) and ${r.dir} (${inputs}); ` +
          'rerun or move aside the stale ones',
      );
    }
  }
}

/** Metrics logged per step that the RLCER figures draw. */
export const KIND_METRICS = [
  'STEPS',
  'ORDER',
  'NSTEP',
  'SHORT',
  'VERIFY',
  'REVISE',
  'CARRY',
  'STEPOK',
  'REPEAT',
  'LEN',
  'COL',
  'NDIG',
  'MATCH',
].map((k) => `kind/${k}`);
export const CURVE_METRICS = [
  'probe_accuracy',
  'accuracy',
  'reward/outcome',
  'reward/cot',
  'reward/rubricator',
  'format_rate',
  'criteria_proposed',
  'criteria_valid',
  'valid_fraction',
  'corr_proposed',
  'corr_valid',
  'concrete_share',
  'response_length',
  'reason/entropy',
  'reason/approx_kl',
  'verifier_agreement',
  'judge_score',
  'generator_reward',
  'margin',
  'pair_accuracy',
  'criteria_per_rubric',
  'mean_length',
];

/**
 * The papers' claims that Table 2 tests (RLCER's and EvoLM's: docs/rlcer.md and docs/evolm.md, Claims), each read
 * as a paired difference over seeds between two rows on one column (`claimRows`: a verdict from the side of 0 the
 * 95% interval lies on).
 */
export const TABLE2_CLAIMS: Claim[] = withEndpoints([
  { claim: 'RLCER beats RLVR (average accuracy)', a: 'rlcer', b: 'rlvr', measure: 'average', sign: 1 },
  // the KL-matched control (results/rlcer/kl_match_rule.md): the reasoner's step held to RLVR's size
  {
    claim: "RLCER beats RLVR, its reasoner's rate KL-adapted to RLVR's update size (average accuracy)",
    a: 'rlcer_kl_matched',
    b: 'rlvr',
    measure: 'average',
    sign: 1,
  },
  {
    claim: 'RLCER beats RLCER without evolving (average accuracy)',
    a: 'rlcer',
    b: 'rlcer_no_evolve',
    measure: 'average',
    sign: 1,
  },
  {
    claim: 'self-evolution raises rubric quality (RLCER over RLCER without evolving)',
    a: 'rlcer',
    b: 'rlcer_no_evolve',
    measure: 'rubric_quality',
    sign: 1,
  },
  {
    claim: 'rubric-only training improves on the cold start (average accuracy)',
    a: 'rlcer_rubric_only',
    b: 'sft',
    measure: 'average',
    sign: 1,
  },
  {
    claim: 'rubric-only training with valid rubrics beats random rubrics (average accuracy)',
    a: 'rlcer_rubric_only',
    b: 'rlcer_rubric_only_random',
    measure: 'average',
    sign: 1,
  },
  {
    claim: 'EvoLM co-evolving beats the sequential variant (average accuracy)',
    a: 'evolm',
    b: 'evolm_sequential',
    measure: 'average',
    sign: 1,
  },
  // EvoLM's prompted-rubric rows are judge-only (no labels): their analogues are the judge_* rows (docs/evolm.md,
  // Controls), not the labelled fixed_* rows
  {
    claim: "EvoLM beats judge-only training on the teacher's rubrics (average accuracy)",
    a: 'evolm',
    b: 'judge_teacher',
    measure: 'average',
    sign: 1,
  },
  {
    claim: "EvoLM beats judge-only training on the untrained rubricator's rubrics (average accuracy)",
    a: 'evolm',
    b: 'judge_untrained',
    measure: 'average',
    sign: 1,
  },
  {
    claim: 'EvoLM beats the static scalar RM (average accuracy)',
    a: 'evolm',
    b: 'scalar_rm',
    measure: 'average',
    sign: 1,
  },
  // the exact judge in place of the learned one (docs/sensitivity.md): does the label-free rows' collapse measure the
  // judge? Run at S only (make evolm-oracle), on the committed rows' kernel generation
  {
    claim: "the exact judge keeps judge-only training on the teacher's rubrics from collapsing (average accuracy)",
    a: 'judge_teacher_oracle',
    b: 'judge_teacher',
    measure: 'average',
    sign: 1,
    sizes: ['S'],
    profiles: ['full'],
  },
  {
    claim: 'EvoLM with the exact judge beats EvoLM with the learned judge (average accuracy)',
    a: 'evolm_oracle_judge',
    b: 'evolm',
    measure: 'average',
    sign: 1,
    sizes: ['S'],
    profiles: ['full'],
  },
  {
    claim: "the static scalar RM ranks pairs better than EvoLM's rubrics (rubric quality)",
    a: 'scalar_rm',
    b: 'evolm',
    measure: 'rubric_quality',
    sign: 1,
  },
  {
    claim: "co-evolved rubrics rank pairs better than the untrained rubricator's (rubric quality)",
    a: 'evolm',
    b: 'judge_untrained',
    measure: 'rubric_quality',
    sign: 1,
  },
  // RLCER's claims about training dynamics and hints, on the per-seed measures of `dynamicsMeasures`
  {
    claim:
      "with self-evolution the proposed criteria's mean correlation with correctness rises (last window over first)",
    a: 'rlcer',
    b: 'rlcer',
    measure: 'corr_proposed_late',
    measureB: 'corr_proposed_early',
    sign: 1,
  },
  {
    claim: 'the mean correlation rises more with self-evolution than without',
    a: 'rlcer',
    b: 'rlcer_no_evolve',
    measure: 'corr_proposed_rise',
    sign: 1,
  },
  {
    claim: 'the CoT reward falls from its peak with self-evolution more than without (it saturates without)',
    a: 'rlcer',
    b: 'rlcer_no_evolve',
    measure: 'cot_reward_fall',
    sign: 1,
  },
  {
    claim: "the reasoner's own rubrics as in-prompt hints help at inference (RLCER, average accuracy)",
    a: 'rlcer',
    b: 'rlcer',
    measure: 'hinted_average',
    measureB: 'plain_average',
    sign: 1,
  },
]);

/** Steps over which the claims about training dynamics average the start, the best stretch and the end of a curve. */
export const DYNAMICS_WINDOW = 10;

/**
 * Per-seed measures of one run beyond its final table, for the claims about dynamics and hints. For the curves of
 * `corr_proposed` and `reward/cot` (`cot_reward`), over the steps where the metric is defined: `_early` and `_late`,
 * the means of the first and last DYNAMICS_WINDOW values; `_rise` = late - early; `_fall` = the best window's mean
 * - late. From hints.csv: `plain_average` and `hinted_average`, the mean accuracy over families without and with
 * the run's own rubric in the prompt.
 */
export function dynamicsMeasures(dir: string): { measure: string; value: number }[] {
  const metrics = readMetrics(dir).sort((a, b) => Number(a.step) - Number(b.step));
  const out: { measure: string; value: number }[] = [];
  for (const [key, name] of [
    ['corr_proposed', 'corr_proposed'],
    ['reward/cot', 'cot_reward'],
  ]) {
    const xs = metrics
      .map((m) => m[key])
      .filter((v) => v !== null && v !== undefined && Number.isFinite(Number(v)))
      .map(Number);
    if (xs.length < 2 * DYNAMICS_WINDOW) continue; // too short to tell a start from an end
    const w = DYNAMICS_WINDOW,
      early = mean(xs.slice(0, w)),
      late = mean(xs.slice(-w));
    const best = Math.max(...xs.slice(0, xs.length - w + 1).map((_, i) => mean(xs.slice(i, i + w))));
    out.push(
      { measure: `${name}_early`, value: early },
      { measure: `${name}_late`, value: late },
      { measure: `${name}_rise`, value: late - early },
      { measure: `${name}_fall`, value: best - late },
    );
  }
  const hintsFile = path.join(dir, 'hints.csv');
  const h = fs.existsSync(hintsFile) ? readCsv(hintsFile) : [];
  if (h.length) {
    out.push(
      { measure: 'plain_average', value: mean(h.map((r) => Number(r.plain))) },
      { measure: 'hinted_average', value: mean(h.map((r) => Number(r.hinted))) },
    );
  }
  return out;
}

/** final.csv rows and the runs' dynamics measures -> scores keyed "size|method", then seed, then measure. */
export function runScores(finals: Row[], runs: ReturnType<typeof finishedRuns> = []): Map<string, Map<string, Scores>> {
  return scoresBySeed([
    ...withInDistribution(
      finals.map((r) => ({
        run: `${r.size}|${r.method}`,
        seed: r.seed,
        measure: String(r.column),
        value: Number(r.value),
      })),
    ),
    ...runs.flatMap((r) => dynamicsMeasures(r.dir).map((d) => ({ run: `${r.size}|${r.method}`, seed: r.seed, ...d }))),
  ]);
}

export const FINAL_COLUMNS = ['profile', 'size', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds'];

/** final.csv rows of runs -> per (size, method, column) the mean and 95% interval over seeds. */
export function finalTable(profile: string, finals: Row[]): Row[] {
  return meanCi(finals, ['size', 'method', 'column'], ['value']).map((r) => {
    const m = Number(r.value_mean);
    return {
      profile,
      size: r.size,
      method: r.method,
      column: r.column,
      mean: m,
      ...interval(m, r.value_ci95),
      seeds: r.n,
    };
  });
}

export function aggregateTable2(
  profile: string,
  root = 'runs/table2',
  out = profile === 'full' ? 'results' : path.join('results', profile),
  archive: string | null = profileSpec(profile).archived ? TABLE2_ARCHIVE : null,
): void {
  const runs = runsWithArchive(root, archive, profile);
  if (runs.length === 0)
    throw new Error(
      `no finished Table 2 runs under ${path.join(root, profile)}${archive ? ` or ${path.join(archive, profile)}` : ''}`,
    );
  checkSameInputs(runs);
  const sizes = [...new Set(runs.map((r) => r.size))];
  const finals = runs.flatMap((r) => readCsv(path.join(r.dir, 'final.csv')));
  const order = (m: string) => {
    const i = TABLE2_ROWS.indexOf(m);
    return i < 0 ? 100 + Object.keys(METHODS).indexOf(m) : i;
  };
  const table = finalTable(profile, finals).sort(
    (a, b) =>
      String(b.size).localeCompare(String(a.size)) ||
      order(String(a.method)) - order(String(b.method)) ||
      String(a.column).localeCompare(String(b.column)),
  );
  // the table's rows, and the ablations (RLCER's and EvoLM's) in their own table
  const columns = FINAL_COLUMNS;
  writeTable(
    path.join(out, 'table2.csv'),
    table.filter((r) => TABLE2_ROWS.includes(String(r.method))),
    columns,
  );
  writeTable(
    path.join(out, 'ablations.csv'),
    table.filter((r) => !TABLE2_ROWS.includes(String(r.method))),
    columns,
  );
  const scores = runScores(finals, runs);
  const claimsHere = TABLE2_CLAIMS.filter((c) => !c.profiles || c.profiles.includes(profile));
  const sized = (size: string) =>
    claimsHere
      .filter((c) => !c.sizes || c.sizes.includes(size))
      .map((c) => ({ ...c, a: `${size}|${c.a}`, b: `${size}|${c.b}` }));
  writeTable(
    path.join(out, 'table2_claims.csv'),
    sizes.flatMap((size) => claimRows(scores, sized(size), profile)),
    CLAIM_COLUMNS,
  );
  // beside it, each claim's power: the same per-seed differences, sized against a true difference of 0.03
  writeTable(
    path.join(out, 'table2_power.csv'),
    sizes.flatMap((size) => claimPowerRows(scores, sized(size), profile)),
    CLAIM_POWER_COLUMNS,
  );
  writeCsv(
    path.join(out, 'table2_reported.csv'),
    REPORTED.map((r) => ({
      ...r,
      rubric_quality: r.rubric_quality ?? '',
      policy_average: r.policy_average ?? '',
      note: 'reported by the paper, not measured here',
    })),
  );

  // per-step curves (mean and CI over seeds) and the evaluation curves, for the figures
  const steps: Row[] = runs.flatMap((r) =>
    readMetrics(r.dir).map((m) => ({
      size: r.size,
      method: r.method,
      seed: r.seed,
      step: Number(m.step),
      ...Object.fromEntries(
        [...CURVE_METRICS, ...KIND_METRICS].map((k) => [
          k,
          m[k] === null || m[k] === undefined
            ? k.startsWith('kind/') && m.criteria_proposed !== undefined && m.criteria_proposed !== null
              ? 0
              : NaN
            : Number(m[k]),
        ]),
      ),
    })),
  );
  const curveDir = path.join(out, 'rlcer');
  // long format (one row per size, method, step, metric); a metric undefined at a step (no valid criterion, say)
  // is left out of that step's mean rather than counted as zero
  const curves = [...CURVE_METRICS, ...KIND_METRICS].flatMap((k) => {
    const rows = steps
      .filter((s) => Number.isFinite(Number(s[k])))
      .map((s) => ({ size: s.size, method: s.method, step: s.step, value: Number(s[k]) }));
    return meanCi(rows, ['size', 'method', 'step'], ['value']).map((r) => ({
      size: r.size,
      method: r.method,
      step: r.step,
      metric: k,
      mean: r.value_mean,
      ci95: r.value_ci95,
      n: r.n,
    }));
  });
  writeTable(path.join(curveDir, 'curves.csv'), curves);
  const evalCurves = runs
    .filter((r) => fs.existsSync(path.join(r.dir, 'curve.csv')))
    .flatMap((r) =>
      readCsv(path.join(r.dir, 'curve.csv')).map((c) => ({ size: r.size, method: r.method, seed: r.seed, ...c })),
    );
  writeTable(
    path.join(curveDir, 'eval_curves.csv'),
    meanCi(evalCurves, ['size', 'method', 'step', 'family'], ['accuracy']),
  );
  // EvoLM's rubric evolution (co-evolving row): per size and global step, means over seeds
  const evo = curves.filter((r) => r.method === 'evolm');
  const evoRows = [...new Set(evo.map((r) => `${r.size}|${r.step}`))]
    .map((k) => {
      const [size, step] = k.split('|'),
        at = (metric: string) =>
          evo.find((r) => String(r.size) === size && String(r.step) === step && r.metric === metric)?.mean ?? '';
      return {
        size,
        step: Number(step),
        concrete_share: at('concrete_share'),
        criteria_per_rubric: at('criteria_per_rubric'),
        mean_length: at('mean_length'),
        format_rate: at('format_rate'),
      };
    })
    .sort((a, b) => a.size.localeCompare(b.size) || a.step - b.step);
  writeTable(path.join(out, 'evolm', 'rubric_evolution.csv'), evoRows, [
    'size',
    'step',
    'concrete_share',
    'criteria_per_rubric',
    'mean_length',
    'format_rate',
  ]);
  const hints = runs
    .filter((r) => fs.existsSync(path.join(r.dir, 'hints.csv')))
    .flatMap((r) => readCsv(path.join(r.dir, 'hints.csv')));
  writeTable(
    path.join(curveDir, 'hints.csv'),
    meanCi(hints, ['size', 'method', 'family'], ['plain', 'hinted', 'hint_rate']),
  );
  // each role's update size against RLVR's at the same size and seed (the parity check of the comparison)
  const parity = updateParity(runs.map((r) => ({ ...r, metrics: readMetrics(r.dir) })));
  writeTable(path.join(curveDir, 'update_parity.csv'), parity, PARITY_COLUMNS);
  // and each claim's two rows against each other: did A and B take the same size of step?
  writeTable(path.join(curveDir, 'claim_parity.csv'), claimParity(parity, claimsHere), CLAIM_PARITY_COLUMNS);
  console.log(
    `Table 2 (${profile}): ${runs.length} runs (sizes ${sizes.join(', ')}) -> ${path.join(out, 'table2.csv')}; curves -> ${curveDir}`,
  );
  printTable(readCsv(path.join(out, 'table2.csv')));
}

/** A readable print of the table: one line per (size, method), columns mean ± half-width. */
function printTable(rows: Row[]): void {
  const cols = ['rubric_quality', ...FAMILIES, 'average'];
  console.log(['size', 'method'.padEnd(26), ...cols.map((c) => c.padStart(15))].join(' '));
  for (const key of [...new Set(rows.map((r) => `${r.size}|${r.method}`))]) {
    const [size, method] = key.split('|');
    const cell = (c: string) => {
      const r = rows.find((x) => x.size === size && x.method === method && x.column === c);
      if (!r) return ''.padStart(15);
      const h = r.ci_high === '' ? '' : ` ±${((Number(r.ci_high) - Number(r.ci_low)) / 2).toFixed(3)}`;
      return `${Number(r.mean).toFixed(3)}${h}`.padStart(15);
    };
    console.log([size.padEnd(4), method.padEnd(26), ...cols.map(cell)].join(' '));
  }
}

if (process.argv[1]?.endsWith('table2.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateTable2(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/table2', process.argv[4]));
}
