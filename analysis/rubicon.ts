// `make reproduce-rubicon` (aggregation step): finished Rubicon runs -> results/rubicon/table.csv
// (profile,tasks,aggregator,defence,schedule,column,mean,ci_low,ci_high,seeds) and results/rubicon/hacking.csv
// (step,aggregator,defence,hack_rate,check_rate,mismatch_rate,judge_score,accuracy,seeds: joint-schedule runs of the
// standard pair, means over seeds), and the paper's reported numbers beside them in results/rubicon/reported.csv
// (labelled as reported); seesaw.csv gives each run's change over the same pair's untrained cold start (paired by
// seed) in the constraint and quality dimensions and in accuracy, and claims.csv each of the paper's qualitative
// claims as a paired difference with a verdict (power.csv: the power of each, MDE and power at a difference of
// 0.03). An archived profile (full) reads the committed run records under results/runs/rubicon/<profile>/ beside
// runs/ (a run in runs/ replaces its record), so every number can be recomputed from the records alone. Runs from
// before the task-pair option (docs/rubicon-fairness.md; final.csv without a `tasks` column) are skipped.
// Usage: tsx analysis/rubicon.ts <profile> [runs/rubicon] [out dir] [archive dir, or "none"]
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
  pairedDifference,
  type Claim,
  type Scores,
} from './aggregate.js';
import { RUBICON_REPORTED, TASK_PAIRS, type TaskPair } from '../src/rubrics/rubicon.js';
import { hasDefence, RUBICON_ARCHIVE, RUBICON_PROFILES, type Defence } from '../src/methods/trainers/rubicon-train.js';
import type { AggregatorName } from '../src/rubrics/aggregators.js';
import { runMain } from '../src/io/args.js';
import { mean } from '../src/util/stats.js';

/** Finished runs under <root>/<profile>, and the archived records under <archive>/<profile> not replaced by runs/. */
export function rubiconRuns(root: string, archive: string | null, profile: string): string[] {
  const fresh = findFinishedRuns(path.join(root, profile));
  const have = new Set(fresh.map((d) => path.relative(path.join(root, profile), d)));
  if (!archive) return fresh;
  const from = path.join(archive, profile);
  return [...fresh, ...findFinishedRuns(from).filter((d) => !have.has(path.relative(from, d)))];
}

/** A run's key in the claims: aggregator|schedule|defence|tasks (the cold start: none|base|no|<tasks>). */
export const runKey = (r: Row) => `${r.aggregator}|${r.schedule}|${r.defence}|${r.tasks}`;

export function aggregateRubicon(
  profile: string,
  root = 'runs/rubicon',
  out = profile === 'full' ? 'results/rubicon' : path.join('results', profile, 'rubicon'),
  archive: string | null = RUBICON_PROFILES[profile]?.archived ? RUBICON_ARCHIVE : null,
): void {
  const all = rubiconRuns(root, archive, profile);
  const current = (d: string) => {
    const rows = readCsv(path.join(d, 'final.csv'));
    return rows.length > 0 && 'tasks' in rows[0];
  };
  const dirs = all.filter(current);
  if (dirs.length < all.length) {
    console.log(
      `skipping ${all.length - dirs.length} runs from before the task-pair option (final.csv without tasks): rerun them`,
    );
  }
  if (dirs.length === 0) {
    const where = `${path.join(root, profile)}${archive ? ` or ${path.join(archive, profile)}` : ''}`;
    throw new Error(`no finished Rubicon runs under ${where}`);
  }
  const finals = dirs.flatMap((d) => readCsv(path.join(d, 'final.csv')));
  const table = meanCi(finals, ['tasks', 'aggregator', 'defence', 'schedule', 'column'], ['value']).map((r) => {
    const m = Number(r.value_mean);
    return {
      profile,
      tasks: r.tasks,
      aggregator: r.aggregator,
      defence: r.defence,
      schedule: r.schedule,
      column: r.column,
      mean: m,
      ...interval(m, r.value_ci95),
      seeds: r.n,
    };
  });
  const head = ['profile', 'tasks', 'aggregator', 'defence', 'schedule'];
  writeCsv(path.join(out, 'table.csv'), table, [...head, 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
  // hacking curves: the joint schedule of the standard pair under each aggregator, with and without the defence
  // rubric; judge_score is the soft verification dimension on constraint prompts
  const steps = dirs
    .flatMap((d) => {
      const cfg = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')).rubicon as {
        aggregator: AggregatorName;
        schedule: string;
        filterQuantiles: unknown;
        defence: Defence;
        tasks: string;
      };
      if (cfg.schedule !== 'joint' || cfg.filterQuantiles !== null || cfg.tasks !== 'standard') return [];
      const defence = hasDefence(cfg.defence, cfg.aggregator) ? 'yes' : 'no';
      return readMetrics(d).map((m) => ({
        step: Number(m.step),
        aggregator: cfg.aggregator,
        defence,
        hack_rate: Number(m.hack_rate),
        check_rate: Number(m.check_rate),
        mismatch_rate: Number(m.mismatch_rate),
        judge_score: Number(m['dim/constraints/verification'] ?? NaN),
        accuracy: Number(m.accuracy),
      }));
    })
    .filter((r) => Number.isFinite(r.judge_score) && Number.isFinite(r.check_rate));
  if (steps.length) {
    const v = ['hack_rate', 'check_rate', 'mismatch_rate', 'judge_score', 'accuracy'];
    const agg = meanCi(steps, ['step', 'aggregator', 'defence'], v);
    const rows = agg.map((r) => ({
      step: r.step,
      aggregator: r.aggregator,
      defence: r.defence,
      ...Object.fromEntries(v.map((k) => [k, r[`${k}_mean`]])),
      seeds: r.n,
    }));
    writeCsv(path.join(out, 'hacking.csv'), rows, ['step', 'aggregator', 'defence', ...v, 'seeds']);
  }
  const seesaw = seesawTable(finals, profile);
  if (seesaw.length) {
    writeCsv(path.join(out, 'seesaw.csv'), seesaw, [...head, 'measure', 'delta', 'ci_low', 'ci_high', 'seeds']);
  }
  writeCsv(path.join(out, 'claims.csv'), claimsTable(finals, profile), CLAIM_COLUMNS);
  writeCsv(path.join(out, 'power.csv'), powerTable(finals, profile), CLAIM_POWER_COLUMNS);
  writeCsv(
    path.join(out, 'reported.csv'),
    RUBICON_REPORTED.map((r) => ({
      ...r,
      base: r.base ?? '',
      trained: r.trained ?? '',
      note: 'reported by the paper, not measured here',
    })),
    ['experiment', 'benchmark', 'analogue', 'base', 'trained', 'delta', 'source', 'note'],
  );
  console.log(`Rubicon tables (${profile}): ${dirs.length} runs -> ${out}`);
}

/**
 * Each run's summary scores per seed, keyed by `runKey` then by seed: the mean of each task family's dimensions
 * (of the run's task pair) on that family's prompts (`constraints`, `quality`), their mean (`overall`), the mean
 * accuracy over the families, and the hack measures on constraint prompts (`hack_rate`, `check_rate`,
 * `dishonest_share`, `stamp_share`).
 */
export function runScores(finals: Row[]): Map<string, Map<string, Scores>> {
  const measures = (tasks: TaskPair): Record<string, (c: string) => boolean> => ({
    ...Object.fromEntries(
      Object.entries(TASK_PAIRS[tasks]).map(([f, dims]) => [f, (c: string) => dims.some((d) => c === `${f}/${d}`)]),
    ),
    accuracy: (c: string) => c.startsWith('accuracy/'),
    hack_rate: (c: string) => c === 'constraints/hack_rate',
    check_rate: (c: string) => c === 'constraints/check_rate',
    dishonest_share: (c: string) => c === 'constraints/dishonest_share',
    stamp_share: (c: string) => c === 'constraints/stamp_share',
  });
  const cells = new Map<string, Row[]>();
  for (const r of finals) {
    const k = `${runKey(r)}#${r.seed}`;
    cells.set(k, [...(cells.get(k) ?? []), r]);
  }
  const out = new Map<string, Map<string, Scores>>();
  for (const [k, rows] of cells) {
    const [run, seed] = k.split('#'),
      tasks = String(rows[0].tasks) as TaskPair;
    if (!TASK_PAIRS[tasks]) throw new Error(`unknown task pair "${tasks}" in a final.csv`);
    const scores: Scores = Object.fromEntries(
      Object.entries(measures(tasks)).map(([m, ok]) => {
        const v = rows.filter((r) => ok(String(r.column))).map((r) => Number(r.value));
        return [m, v.length ? mean(v) : NaN];
      }),
    );
    scores.overall = (scores.constraints + scores.quality) / 2;
    if (!out.has(run)) out.set(run, new Map());
    out.get(run)!.set(seed, scores);
  }
  return out;
}

/**
 * The seesaw read off the final tables: every run's change over the same seed's untrained cold start of its task
 * pair (the `base` row) in the constraint dimensions, the quality dimensions and accuracy. Empty without base runs.
 */
export function seesawTable(finals: Row[], profile: string): Row[] {
  const scores = runScores(finals);
  const runs = [...scores.keys()].filter((run) => run.split('|')[1] !== 'base');
  return runs.flatMap((run) =>
    ['constraints', 'quality', 'accuracy'].flatMap((measure) => {
      const [aggregator, schedule, defence, tasks] = run.split('|');
      const d = pairedDifference(scores, run, `none|base|no|${tasks}`, measure);
      return d ? [{ profile, tasks, aggregator, defence, schedule, measure, ...d }] : [];
    }),
  );
}

const S = (agg: string, schedule: string, defence = 'no') => `${agg}|${schedule}|${defence}|standard`;
const BASE = 'none|base|no|standard';

/** A claim of `a` minus `b` on `measure`, expected to have `sign` (see `claimRows`). */
const C = (claim: string, a: string, b: string, measure: string, sign: 1 | -1): Claim => ({
  claim,
  a,
  b,
  measure,
  sign,
});
const WS = S('weighted_sum', 'joint'),
  QO = S('weighted_sum', 'quality_only');
const CO = S('weighted_sum', 'constraints_only');
const SW = S('weighted_sum', 'stagewise'),
  VETO = S('veto', 'joint', 'yes');

/** Rubicon's qualitative claims, each read as a paired difference between two runs (see `claimRows`). */
export const RUBICON_CLAIMS: Claim[] = [
  C('seesaw: quality-only training lowers the constraint dimensions', QO, BASE, 'constraints', -1),
  C('seesaw: quality-only training raises the quality dimensions', QO, BASE, 'quality', 1),
  C('seesaw: constraints-only training lowers the quality dimensions', CO, BASE, 'quality', -1),
  C('seesaw: constraints-only training raises the constraint dimensions', CO, BASE, 'constraints', 1),
  C('stage-wise keeps more constraint following than quality-only training', SW, QO, 'constraints', 1),
  C('stage-wise keeps more quality than constraints-only training', SW, CO, 'quality', 1),
  C('the hack is learned under the weighted sum (hack rate above the cold start)', WS, BASE, 'hack_rate', 1),
  C('the veto blocks the hack (hack rate below the weighted sum; joint schedule)', VETO, WS, 'hack_rate', -1),
  C('the veto raises accuracy over the weighted sum (joint schedule)', VETO, WS, 'accuracy', 1),
  // the 2x2: which of the two, the veto or the defence rubric, does the blocking
  C(
    '2x2: the veto without the defence rubric blocks the hack (hack rate below the weighted sum; joint)',
    S('veto', 'joint', 'no'),
    WS,
    'hack_rate',
    -1,
  ),
  C(
    '2x2: the defence rubric blocks the hack under the weighted sum (hack rate below it without; joint)',
    S('weighted_sum', 'joint', 'yes'),
    WS,
    'hack_rate',
    -1,
  ),
  C(
    '2x2: the veto adds to the defence rubric (hack rate below the weighted sum with it; joint)',
    VETO,
    S('weighted_sum', 'joint', 'yes'),
    'hack_rate',
    -1,
  ),
  C(
    'central-quantile filtering raises accuracy over unfiltered data (weighted sum; joint schedule)',
    S('weighted_sum', 'joint_filtered'),
    WS,
    'accuracy',
    1,
  ),
  // the paper's key comparison, on the pair whose families trade off at the cold start (pre-registered)
  C(
    'stagewise_beats_joint: stage-wise training scores higher than joint on the competing pair (mean of both families)',
    'weighted_sum|stagewise|no|competing',
    'weighted_sum|joint|no|competing',
    'overall',
    1,
  ),
];

export const claimsTable = (finals: Row[], profile: string): Row[] =>
  claimRows(runScores(finals), RUBICON_CLAIMS, profile);
/** The power of each claim's paired comparison, from the same per-seed differences (`claimPowerRows`). */
export const powerTable = (finals: Row[], profile: string): Row[] =>
  claimPowerRows(runScores(finals), RUBICON_CLAIMS, profile);

if (process.argv[1]?.endsWith('rubicon.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => {
    const [profile = 'quick', root = 'runs/rubicon', out, archive] = process.argv.slice(2);
    aggregateRubicon(profile, root, out, archive === undefined ? undefined : archive === 'none' ? null : archive);
  });
}
