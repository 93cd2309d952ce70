// `make reproduce-rubicon` (aggregation step): finished Rubicon runs -> results/rubicon/table.csv
// (profile,aggregator,schedule,column,mean,ci_low,ci_high,seeds) and results/rubicon/hacking.csv
// (step,aggregator,hack_rate,judge_score,accuracy: joint-schedule runs, means over seeds), and the paper's reported
// numbers beside them in results/rubicon/reported.csv (labelled as reported); seesaw.csv gives each run's change
// over the untrained cold start (paired by seed) in the constraint and quality dimensions and in accuracy, and
// claims.csv each of the paper's qualitative claims as a paired difference with a verdict.
// Usage: tsx analysis/rubicon.ts <profile> [runs/rubicon] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { CLAIM_COLUMNS, claimRows, interval, meanCi, pairedDifference, type Claim, type Scores } from './aggregate.js';
import { RUBICON_REPORTED, TASK_FAMILIES } from '../src/methods/rubicon.js';
import { runMain } from '../src/cli/args.js';

export function aggregateRubicon(profile: string, root = 'runs/rubicon', out = profile === 'full' ? 'results/rubicon' : path.join('results', profile, 'rubicon')): void {
  const dirs = findFinishedRuns(path.join(root, profile));
  if (dirs.length === 0) throw new Error(`no finished Rubicon runs under ${path.join(root, profile)}`);
  const finals = dirs.flatMap((d) => readCsv(path.join(d, 'final.csv')));
  const table = meanCi(finals, ['aggregator', 'schedule', 'column'], ['value']).map((r) => {
    const m = Number(r.value_mean);
    return { profile, aggregator: r.aggregator, schedule: r.schedule, column: r.column, mean: m, ...interval(m, r.value_ci95), seeds: r.n };
  });
  writeCsv(path.join(out, 'table.csv'), table, ['profile', 'aggregator', 'schedule', 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
  // hacking curves: the joint schedule under each aggregator; judge_score is the soft verification dimension on constraint prompts
  const steps = dirs.flatMap((d) => {
    const cfg = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')).rubicon as { aggregator: string; schedule: string; filterQuantiles: unknown };
    if (cfg.schedule !== 'joint' || cfg.filterQuantiles !== null) return [];
    return readMetrics(d).map((m) => ({ step: Number(m.step), aggregator: cfg.aggregator, hack_rate: Number(m.hack_rate),
      judge_score: Number(m['dim/constraints/verification'] ?? NaN), accuracy: Number(m.accuracy) }));
  }).filter((r) => Number.isFinite(r.judge_score));
  if (steps.length) {
    const agg = meanCi(steps, ['step', 'aggregator'], ['hack_rate', 'judge_score', 'accuracy']);
    writeCsv(path.join(out, 'hacking.csv'), agg.map((r) => ({ step: r.step, aggregator: r.aggregator, hack_rate: r.hack_rate_mean, judge_score: r.judge_score_mean, accuracy: r.accuracy_mean, seeds: r.n })),
      ['step', 'aggregator', 'hack_rate', 'judge_score', 'accuracy', 'seeds']);
  }
  const seesaw = seesawTable(finals, profile);
  if (seesaw.length) writeCsv(path.join(out, 'seesaw.csv'), seesaw, ['profile', 'aggregator', 'schedule', 'measure', 'delta', 'ci_low', 'ci_high', 'seeds']);
  writeCsv(path.join(out, 'claims.csv'), claimsTable(finals, profile), CLAIM_COLUMNS);
  writeCsv(path.join(out, 'reported.csv'), RUBICON_REPORTED.map((r) => ({ ...r, base: r.base ?? '', trained: r.trained ?? '', note: 'reported by the paper, not measured here' })),
    ['experiment', 'benchmark', 'analogue', 'base', 'trained', 'delta', 'source', 'note']);
  console.log(`Rubicon tables (${profile}): ${dirs.length} runs -> ${out}`);
}

/**
 * Each run's summary scores per seed, keyed "aggregator|schedule" then by seed: the mean of each task family's
 * dimensions on that family's prompts (`constraints`, `quality`), the mean accuracy over the families, and the
 * hack rate on constraint prompts (`hack_rate`).
 */
export function runScores(finals: Row[]): Map<string, Map<string, Scores>> {
  const measures: Record<string, (c: string) => boolean> = {
    ...Object.fromEntries(Object.entries(TASK_FAMILIES).map(([f, dims]) => [f, (c: string) => dims.some((d) => c === `${f}/${d}`)])),
    accuracy: (c: string) => c.startsWith('accuracy/'),
    hack_rate: (c: string) => c === 'constraints/hack_rate',
  };
  const cells = new Map<string, Row[]>();
  for (const r of finals) { const k = `${r.aggregator}|${r.schedule}|${r.seed}`; cells.set(k, [...(cells.get(k) ?? []), r]); }
  const out = new Map<string, Map<string, Scores>>();
  for (const [k, rows] of cells) {
    const [aggregator, schedule, seed] = k.split('|'), run = `${aggregator}|${schedule}`;
    const scores = Object.fromEntries(Object.entries(measures).map(([m, ok]) => {
      const v = rows.filter((r) => ok(String(r.column))).map((r) => Number(r.value));
      return [m, v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN];
    }));
    if (!out.has(run)) out.set(run, new Map());
    out.get(run)!.set(seed, scores);
  }
  return out;
}

/**
 * The seesaw read off the final tables: every run's change over the same seed's untrained cold start (the `base`
 * row) in the constraint dimensions, the quality dimensions and accuracy. Empty without base runs.
 */
export function seesawTable(finals: Row[], profile: string): Row[] {
  const scores = runScores(finals);
  return [...scores.keys()].filter((run) => run !== 'none|base').flatMap((run) => ['constraints', 'quality', 'accuracy'].flatMap((measure) => {
    const d = pairedDifference(scores, run, 'none|base', measure);
    const [aggregator, schedule] = run.split('|');
    return d ? [{ profile, aggregator, schedule, measure, ...d }] : [];
  }));
}

/** Rubicon's qualitative claims, each read as a paired difference between two runs (see `claimRows`). */
export const RUBICON_CLAIMS: Claim[] = [
  { claim: 'seesaw: quality-only training lowers the constraint dimensions', a: 'weighted_sum|quality_only', b: 'none|base', measure: 'constraints', sign: -1 },
  { claim: 'seesaw: quality-only training raises the quality dimensions', a: 'weighted_sum|quality_only', b: 'none|base', measure: 'quality', sign: 1 },
  { claim: 'seesaw: constraints-only training lowers the quality dimensions', a: 'weighted_sum|constraints_only', b: 'none|base', measure: 'quality', sign: -1 },
  { claim: 'seesaw: constraints-only training raises the constraint dimensions', a: 'weighted_sum|constraints_only', b: 'none|base', measure: 'constraints', sign: 1 },
  { claim: 'stage-wise keeps more constraint following than quality-only training', a: 'weighted_sum|stagewise', b: 'weighted_sum|quality_only', measure: 'constraints', sign: 1 },
  { claim: 'stage-wise keeps more quality than constraints-only training', a: 'weighted_sum|stagewise', b: 'weighted_sum|constraints_only', measure: 'quality', sign: 1 },
  { claim: 'the hack is learned under the weighted sum (hack rate above the cold start)', a: 'weighted_sum|joint', b: 'none|base', measure: 'hack_rate', sign: 1 },
  { claim: 'the veto blocks the hack (hack rate below the weighted sum; joint schedule)', a: 'veto|joint', b: 'weighted_sum|joint', measure: 'hack_rate', sign: -1 },
  { claim: 'the veto raises accuracy over the weighted sum (joint schedule)', a: 'veto|joint', b: 'weighted_sum|joint', measure: 'accuracy', sign: 1 },
  { claim: 'central-quantile filtering raises accuracy over unfiltered data (weighted sum; joint schedule)', a: 'weighted_sum|joint_filtered', b: 'weighted_sum|joint', measure: 'accuracy', sign: 1 },
];

export const claimsTable = (finals: Row[], profile: string): Row[] => claimRows(runScores(finals), RUBICON_CLAIMS, profile);

if (process.argv[1]?.endsWith('rubicon.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateRubicon(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/rubicon', process.argv[4]));
}
