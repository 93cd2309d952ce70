// `make reproduce-rubicon` (aggregation step): finished Rubicon runs -> results/rubicon/table.csv
// (profile,aggregator,schedule,column,mean,ci_low,ci_high,seeds) and results/rubicon/hacking.csv
// (step,aggregator,hack_rate,judge_score,accuracy: joint-schedule runs, means over seeds), and the paper's reported
// numbers beside them in results/rubicon/reported.csv (labelled as reported); seesaw.csv gives each run's change
// over the untrained cold start (paired by seed) in the constraint and quality dimensions and in accuracy.
// Usage: tsx analysis/rubicon.ts <profile> [runs/rubicon] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { meanCi } from './aggregate.js';
import { RUBICON_REPORTED, TASK_FAMILIES } from '../src/methods/rubicon.js';
import { runMain } from '../src/cli/args.js';

export function aggregateRubicon(profile: string, root = 'runs/rubicon', out = profile === 'full' ? 'results/rubicon' : path.join('results', profile, 'rubicon')): void {
  const dirs = findFinishedRuns(path.join(root, profile));
  if (dirs.length === 0) throw new Error(`no finished Rubicon runs under ${path.join(root, profile)}`);
  const finals = dirs.flatMap((d) => readCsv(path.join(d, 'final.csv')));
  const table = meanCi(finals, ['aggregator', 'schedule', 'column'], ['value']).map((r) => {
    const m = Number(r.value_mean), h = r.value_ci95 === '' ? NaN : Number(r.value_ci95);
    return { profile, aggregator: r.aggregator, schedule: r.schedule, column: r.column, mean: m, ci_low: Number.isNaN(h) ? '' : m - h, ci_high: Number.isNaN(h) ? '' : m + h, seeds: r.n };
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
  writeCsv(path.join(out, 'reported.csv'), RUBICON_REPORTED.map((r) => ({ ...r, base: r.base ?? '', trained: r.trained ?? '', note: 'reported by the paper, not measured here' })),
    ['experiment', 'benchmark', 'analogue', 'base', 'trained', 'delta', 'source', 'note']);
  console.log(`Rubicon tables (${profile}): ${dirs.length} runs -> ${out}`);
}

/**
 * The seesaw read off the final tables: per run and seed, the mean of each task family's dimensions (on that
 * family's prompts) and the mean accuracy, minus the same seed's untrained cold start (the `base` row); then mean
 * and 95% CI of the paired differences over seeds. Empty without base runs.
 */
export function seesawTable(finals: Row[], profile: string): Row[] {
  const measures: Record<string, (c: string) => boolean> = {
    ...Object.fromEntries(Object.entries(TASK_FAMILIES).map(([f, dims]) => [f, (c: string) => dims.some((d) => c === `${f}/${d}`)])),
    accuracy: (c: string) => c.startsWith('accuracy/'),
  };
  const score = (rows: Row[]) => Object.fromEntries(Object.entries(measures).map(([m, ok]) => {
    const v = rows.filter((r) => ok(String(r.column))).map((r) => Number(r.value));
    return [m, v.reduce((a, b) => a + b, 0) / v.length];
  }));
  const runs = new Map<string, Row[]>();
  for (const r of finals) { const k = `${r.aggregator}|${r.schedule}|${r.seed}`; runs.set(k, [...(runs.get(k) ?? []), r]); }
  const deltas: Row[] = [];
  for (const [k, rows] of runs) {
    const [aggregator, schedule, seed] = k.split('|');
    const base = runs.get(`none|base|${seed}`);
    if (!base || aggregator === 'none') continue;
    const s = score(rows), b = score(base);
    for (const m of Object.keys(measures)) deltas.push({ aggregator, schedule, measure: m, delta: s[m] - b[m] });
  }
  return meanCi(deltas, ['aggregator', 'schedule', 'measure'], ['delta']).map((r) => {
    const m = Number(r.delta_mean), h = r.delta_ci95 === '' ? NaN : Number(r.delta_ci95);
    return { profile, aggregator: r.aggregator, schedule: r.schedule, measure: r.measure, delta: m, ci_low: Number.isNaN(h) ? '' : m - h, ci_high: Number.isNaN(h) ? '' : m + h, seeds: r.n };
  });
}

if (process.argv[1]?.endsWith('rubicon.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateRubicon(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/rubicon', process.argv[4]));
}
