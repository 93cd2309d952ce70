// `make reproduce-corl` (aggregation step): finished CO-RL runs of a profile -> the tidy Table 1 analogue
// (profile,agent,method,column,mean,ci_low,ci_high,seeds), the error overlap of each pair before training
// (pair,kappa,c,w,u), the theory's per-problem predictions against training outcomes, per-step curves, and CO-RL's
// reported Table 1 averages in their own table (labelled as reported).
// Usage: tsx analysis/table1.ts <profile> [runs/corl] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { interval, meanCi } from './aggregate.js';
import { runMain } from '../src/cli/args.js';
import { CORL_REPORTED } from '../src/methods/table1.js';

const ci = (profile: string, r: Row, keys: string[]) => {
  const m = Number(r.value_mean);
  return { profile, ...Object.fromEntries(keys.map((k) => [k, r[k]])), mean: m, ...interval(m, r.value_ci95), seeds: r.n };
};

export function aggregateTable1(profile: string, root = 'runs/corl', out = profile === 'full' ? 'results/corl' : path.join('results', profile, 'corl')): void {
  const dirs = findFinishedRuns(path.join(root, profile));
  if (dirs.length === 0) throw new Error(`no finished CO-RL runs under ${path.join(root, profile)}`);
  const read = (name: string) => dirs.filter((d) => fs.existsSync(path.join(d, `${name}.csv`))).flatMap((d) => readCsv(path.join(d, `${name}.csv`)));
  const table = meanCi(read('final'), ['agent', 'method', 'column'], ['value']).map((r) => ci(profile, r, ['agent', 'method', 'column']));
  writeCsv(path.join(out, 'table1.csv'), table, ['profile', 'agent', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
  const overlap = read('overlap');
  if (overlap.length) {
    const agg = meanCi(overlap, ['pair'], ['kappa', 'c', 'w', 'u']);
    writeCsv(path.join(out, 'error_overlap.csv'), agg.map((r) => ({ pair: r.pair, kappa: r.kappa_mean, c: r.c_mean, w: r.w_mean, u: r.u_mean, kappa_ci95: r.kappa_ci95, seeds: r.n })));
  }
  const theory = read('theory');
  if (theory.length) writeCsv(path.join(out, 'theory_vs_experiment.csv'), meanCi(theory, ['method', 'agent', 'rule'], ['agreement', 'predicted_correct', 'actual_correct']));
  const steps = dirs.flatMap((d) => {
    const cfg = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')) as { method: string; agents: string[]; seed: number };
    return readMetrics(d).flatMap((m) => cfg.agents.map((agent, n) => ({ method: cfg.method, agent, seed: cfg.seed, step: Number(m.step),
      accuracy: Number(m[`agent${n}/accuracy`]), reward_std: Number(m[`agent${n}/reward_std`]), response_length: Number(m[`agent${n}/response_length`]),
      pseudo_label_accuracy: Number(m[`agent${n}/pseudo_label_accuracy`]), agreement: m.agreement === undefined ? NaN : Number(m.agreement) })));
  });
  if (steps.length) {
    const curves = ['accuracy', 'reward_std', 'response_length', 'pseudo_label_accuracy', 'agreement'].flatMap((k) => {
      const rows = steps.filter((s) => Number.isFinite(s[k as keyof typeof s] as number)).map((s) => ({ method: s.method, agent: s.agent, step: s.step, value: s[k as keyof typeof s] as number }));
      return meanCi(rows, ['method', 'agent', 'step'], ['value']).map((r) => ({ method: r.method, agent: r.agent, step: r.step, metric: k, mean: r.value_mean, ci95: r.value_ci95, n: r.n }));
    });
    writeCsv(path.join(out, 'curves.csv'), curves);
  }
  writeCsv(path.join(out, 'table1_reported.csv'), CORL_REPORTED.map((r) => ({ ...r, note: 'reported by the paper, not measured here' })));
  console.log(`CO-RL tables (${profile}): ${dirs.length} runs -> ${out}`);
}

if (process.argv[1]?.endsWith('table1.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateTable1(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/corl', process.argv[4]));
}
