// `make reproduce-rubicon` (aggregation step): finished Rubicon runs -> results/rubicon/table.csv
// (profile,aggregator,schedule,column,mean,ci_low,ci_high,seeds) and results/rubicon/hacking.csv
// (step,aggregator,hack_rate,judge_score,accuracy: joint-schedule runs, means over seeds).
// Usage: tsx analysis/rubicon.ts <profile> [runs/rubicon] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { meanCi } from './aggregate.js';
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
  console.log(`Rubicon tables (${profile}): ${dirs.length} runs -> ${out}`);
}

if (process.argv[1]?.endsWith('rubicon.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateRubicon(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/rubicon', process.argv[4]));
}
