// `make reproduce-table2` (aggregation step): finished runs of a profile -> the tidy Table 2
// (profile,size,method,column,mean,ci_low,ci_high,seeds), the training curves behind the RLCER figures, and the
// papers' reported numbers in their own table (labelled as reported), and the papers' claims as paired differences
// with verdicts (table2_claims.csv).
// Usage: tsx analysis/table2.ts <profile> [runs/table2] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { CLAIM_COLUMNS, claimRows, interval, meanCi, scoresBySeed, type Claim, type Scores } from './aggregate.js';
import { runMain } from '../src/cli/args.js';
import { REPORTED, TABLE2_ROWS, METHODS } from '../src/methods/table2.js';

/** Finished run directories of a profile: runs/table2/<profile>/<size>/<method>/seed-<n>. */
export function finishedRuns(root: string, profile: string): { size: string; method: string; seed: number; dir: string }[] {
  return findFinishedRuns(path.join(root, profile)).map((dir) => {
    const [size, method, s] = path.relative(path.join(root, profile), dir).split(path.sep);
    return { size, method, seed: Number(s.replace('seed-', '')), dir };
  });
}

/** Metrics logged per step that the RLCER figures draw. */
export const KIND_METRICS = ['STEPS', 'ORDER', 'NSTEP', 'SHORT', 'VERIFY', 'REVISE', 'CARRY', 'STEPOK', 'REPEAT', 'LEN', 'COL', 'NDIG', 'MATCH'].map((k) => `kind/${k}`);
export const CURVE_METRICS = ['probe_accuracy', 'accuracy', 'reward/outcome', 'reward/cot', 'reward/rubricator', 'format_rate', 'criteria_proposed',
  'criteria_valid', 'valid_fraction', 'corr_proposed', 'corr_valid', 'concrete_share', 'response_length', 'reason/entropy', 'reason/approx_kl', 'verifier_agreement',
  'judge_score', 'generator_reward', 'margin', 'pair_accuracy', 'criteria_per_rubric', 'mean_length'];

/**
 * The papers' claims that Table 2 tests (papers.md sections 1 and 3), each read as a paired difference over seeds
 * between two rows on one column (`claimRows`: a verdict from the side of 0 the 95% interval lies on).
 */
export const TABLE2_CLAIMS: Claim[] = [
  { claim: 'RLCER beats RLVR (average accuracy)', a: 'rlcer', b: 'rlvr', measure: 'average', sign: 1 },
  { claim: 'RLCER beats RLCER without evolving (average accuracy)', a: 'rlcer', b: 'rlcer_no_evolve', measure: 'average', sign: 1 },
  { claim: 'self-evolution raises rubric quality (RLCER over RLCER without evolving)', a: 'rlcer', b: 'rlcer_no_evolve', measure: 'rubric_quality', sign: 1 },
  { claim: 'rubric-only training improves on the cold start (average accuracy)', a: 'rlcer_rubric_only', b: 'sft', measure: 'average', sign: 1 },
  { claim: 'rubric-only training with valid rubrics beats random rubrics (average accuracy)', a: 'rlcer_rubric_only', b: 'rlcer_rubric_only_random', measure: 'average', sign: 1 },
  { claim: 'EvoLM co-evolving beats the sequential variant (average accuracy)', a: 'evolm', b: 'evolm_sequential', measure: 'average', sign: 1 },
  { claim: 'EvoLM beats fixed teacher rubrics (average accuracy)', a: 'evolm', b: 'fixed_teacher', measure: 'average', sign: 1 },
  { claim: 'EvoLM beats the static scalar RM (average accuracy)', a: 'evolm', b: 'scalar_rm', measure: 'average', sign: 1 },
  { claim: 'the static scalar RM ranks pairs better than EvoLM\'s rubrics (rubric quality)', a: 'scalar_rm', b: 'evolm', measure: 'rubric_quality', sign: 1 },
  { claim: 'co-evolved rubrics rank pairs better than the untrained rubricator\'s (rubric quality)', a: 'evolm', b: 'fixed_untrained', measure: 'rubric_quality', sign: 1 },
];

/** final.csv rows -> scores keyed "size|method", then seed, then column. */
export function finalScores(finals: Row[]): Map<string, Map<string, Scores>> {
  return scoresBySeed(finals.map((r) => ({ run: `${r.size}|${r.method}`, seed: r.seed, measure: String(r.column), value: Number(r.value) })));
}

export function aggregateTable2(profile: string, root = 'runs/table2', out = profile === 'full' ? 'results' : path.join('results', profile)): void {
  const runs = finishedRuns(root, profile);
  if (runs.length === 0) throw new Error(`no finished Table 2 runs under ${path.join(root, profile)}`);
  const finals = runs.flatMap((r) => readCsv(path.join(r.dir, 'final.csv')));
  const order = (m: string) => { const i = TABLE2_ROWS.indexOf(m); return i < 0 ? 100 + Object.keys(METHODS).indexOf(m) : i; };
  const table = meanCi(finals, ['size', 'method', 'column'], ['value']).map((r) => {
    const m = Number(r.value_mean);
    return { profile, size: r.size, method: r.method, column: r.column, mean: m, ...interval(m, r.value_ci95), seeds: r.n };
  }).sort((a, b) => String(a.size).localeCompare(String(b.size)) || order(String(a.method)) - order(String(b.method)) || String(a.column).localeCompare(String(b.column)));
  // the table's rows, and the ablations (RLCER's and EvoLM's) in their own table
  const columns = ['profile', 'size', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds'];
  writeCsv(path.join(out, 'table2.csv'), table.filter((r) => TABLE2_ROWS.includes(String(r.method))), columns);
  const ablations = table.filter((r) => !TABLE2_ROWS.includes(String(r.method)));
  if (ablations.length) writeCsv(path.join(out, 'ablations.csv'), ablations, columns);
  const sizes = [...new Set(runs.map((r) => r.size))];
  writeCsv(path.join(out, 'table2_claims.csv'), sizes.flatMap((size) => claimRows(finalScores(finals), TABLE2_CLAIMS.map((c) => ({ ...c, a: `${size}|${c.a}`, b: `${size}|${c.b}` })), profile)), CLAIM_COLUMNS);
  writeCsv(path.join(out, 'table2_reported.csv'), REPORTED.map((r) => ({ ...r, rubric_quality: r.rubric_quality ?? '', policy_average: r.policy_average ?? '', note: 'reported by the paper, not measured here' })));

  // per-step curves (mean and CI over seeds) and the evaluation curves, for the figures
  const steps: Row[] = runs.flatMap((r) => readMetrics(r.dir).map((m) => ({ size: r.size, method: r.method, seed: r.seed, step: Number(m.step),
    ...Object.fromEntries([...CURVE_METRICS, ...KIND_METRICS].map((k) => [k, m[k] === null || m[k] === undefined ? (k.startsWith('kind/') && m.criteria_proposed !== undefined && m.criteria_proposed !== null ? 0 : NaN) : Number(m[k])])) })));
  const curveDir = path.join(out, 'rlcer');
  // long format (one row per size, method, step, metric); a metric undefined at a step (no valid criterion, say)
  // is left out of that step's mean rather than counted as zero
  const curves = [...CURVE_METRICS, ...KIND_METRICS].flatMap((k) => {
    const rows = steps.filter((s) => Number.isFinite(Number(s[k]))).map((s) => ({ size: s.size, method: s.method, step: s.step, value: Number(s[k]) }));
    return meanCi(rows, ['size', 'method', 'step'], ['value']).map((r) => ({ size: r.size, method: r.method, step: r.step, metric: k, mean: r.value_mean, ci95: r.value_ci95, n: r.n }));
  });
  if (curves.length) writeCsv(path.join(curveDir, 'curves.csv'), curves);
  const evalCurves = runs.filter((r) => fs.existsSync(path.join(r.dir, 'curve.csv'))).flatMap((r) => readCsv(path.join(r.dir, 'curve.csv')).map((c) => ({ size: r.size, method: r.method, seed: r.seed, ...c })));
  if (evalCurves.length) writeCsv(path.join(curveDir, 'eval_curves.csv'), meanCi(evalCurves, ['size', 'method', 'step', 'family'], ['accuracy']));
  // EvoLM's rubric evolution (co-evolving row): per global step, means over seeds
  const evo = curves.filter((r) => r.method === 'evolm');
  if (evo.length) {
    const at = (step: unknown, metric: string) => evo.find((r) => r.step === step && r.metric === metric)?.mean ?? '';
    const stepsSeen = [...new Set(evo.map((r) => r.step))].sort((a, b) => Number(a) - Number(b));
    writeCsv(path.join(out, 'evolm', 'rubric_evolution.csv'), stepsSeen.map((step) => ({ step,
      concrete_share: at(step, 'concrete_share'), criteria_per_rubric: at(step, 'criteria_per_rubric'), mean_length: at(step, 'mean_length'), format_rate: at(step, 'format_rate') })),
      ['step', 'concrete_share', 'criteria_per_rubric', 'mean_length', 'format_rate']);
  }
  const hints = runs.filter((r) => fs.existsSync(path.join(r.dir, 'hints.csv'))).flatMap((r) => readCsv(path.join(r.dir, 'hints.csv')));
  if (hints.length) writeCsv(path.join(curveDir, 'hints.csv'), meanCi(hints, ['size', 'method', 'family'], ['plain', 'hinted', 'hint_rate']));
  console.log(`Table 2 (${profile}): ${runs.length} runs -> ${path.join(out, 'table2.csv')}; curves -> ${curveDir}`);
  printTable(table);
}

/** A readable print of the table: one line per (size, method), columns mean ± half-width. */
function printTable(rows: Row[]): void {
  const cols = ['rubric_quality', 'add', 'sub', 'chain', 'chain_ood', 'average'];
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
