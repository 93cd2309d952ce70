// Trace error, split (wave 4; docs/sensitivity.md, "Trace error, split"): what the committed sensitivity records can
// say about the two flaws the campaign's trace_error pools (src/world/process.ts, traceFlaws): a true step written
// wrong or missing (`trace_error` now, Uesato et al.'s sense) and a step repeated or added (`repeat_rate`).
//
// The records written before the split hold the trace error only as an aggregate (endpoints.csv: the share of right
// answers with a process score below 1, now `flaw_rate`); no record stores its evaluation's samples, so no committed
// claim can be recomputed under the split. Two tables say so and read what is there:
// - trace_split_records.csv: per (campaign, size, method, cell), the finished records, how many hold the split
//   endpoints (repeat_rate beside trace_error: none before the split), the evaluation's traces (none), training
//   rollouts (rollouts.jsonl.gz, the positive controls' only) and their logged steps, and per-step process metrics;
// - trace_split_rollouts.csv (exploratory, not pre-registered): the split on the logged training rollouts of the
//   records that kept them, at the cold start (step 0) and the last logged step before each horizon (50, 290): the
//   share of right answers with a wrong or missing step, with a repeated or added step, with either, and the share of
//   the flawed ones that have a wrong or missing step; mean over seeds with a 95% t interval. Training prompts, the
//   policy's own samples during training, and only the arms that logged them: no arm is compared with another;
// - trace_split_proxy.csv (exploratory, not pre-registered): every arm against RLVR, paired by seed, on the committed
//   trace error (now `flaw_rate`) and on the one repeat measure every record holds: eval.csv's `style_redundant`, the
//   share of all in-distribution samples (right or wrong) whose trace repeats a column step, among the terminated
//   traces with steps and without a verification segment (a verified trace is counted as verified, repeats or not),
//   averaged over the in-distribution cells. A lower bound on the repeats, not the split: it says how much of an arm's
//   trace-error difference could be repeats.
//
// Usage: tsx analysis/trace-split.ts [--root results/runs/sensitivity] [--out results/sensitivity/confirm]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { readGzipLines } from '../src/io/gzip-lines.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { mean, meanInterval } from '../src/util/stats.js';
import { solve, type Family } from '../src/world/problems.js';
import { processScore, traceFlaws } from '../src/world/process.js';
import { isCorrect, parseTrace } from '../src/world/trace.js';

/** One finished record: where it sits in the campaign tree, and what it holds. */
export interface RecordInfo {
  campaign: string;
  size: string;
  method: string;
  cell: string;
  seed: number;
  dir: string;
}

/** Every finished record (done.json) under root, as <campaign>/<size>/<method>/<cell>/seed-<n>, in path order. */
export function findRecords(root: string): RecordInfo[] {
  const out: RecordInfo[] = [];
  const dirs = (d: string) =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  for (const campaign of dirs(root))
    for (const size of dirs(path.join(root, campaign)))
      for (const method of dirs(path.join(root, campaign, size)))
        for (const cell of dirs(path.join(root, campaign, size, method)))
          for (const s of dirs(path.join(root, campaign, size, method, cell))) {
            const dir = path.join(root, campaign, size, method, cell, s);
            if (/^seed-\d+$/.test(s) && fs.existsSync(path.join(dir, 'done.json')))
              out.push({ campaign, size, method, cell, seed: Number(s.slice(5)), dir });
          }
  return out;
}

/** The split of a set of rollouts' right answers: counts of each flaw (src/world/process.ts, traceFlaws). */
export function splitCounts(rollouts: { problem: string; completion: string; correct?: boolean }[]): {
  right: number;
  wrong: number;
  extra: number;
  flawed: number;
} {
  let right = 0,
    wrong = 0,
    extra = 0,
    flawed = 0;
  for (const r of rollouts) {
    const [family, ...operands] = r.problem.split(' ');
    const problem = solve(family as Family, operands.map(Number)),
      trace = parseTrace(r.completion.split(' ')),
      correct = isCorrect(problem, trace);
    if (r.correct !== undefined && r.correct !== correct)
      throw new Error(`rollout of ${r.problem}: logged correct ${r.correct}, the world says ${correct}`);
    if (!correct) continue;
    const s = processScore(problem, trace),
      f = traceFlaws(s);
    right++;
    wrong += +f.wrongStep;
    extra += +f.extraStep;
    flawed += +(s.score < 1);
  }
  return { right, wrong, extra, flawed };
}

/** The logged rollouts of a record, by step (empty without rollouts.jsonl.gz). */
function rolloutsByStep(dir: string): Map<number, { problem: string; completion: string }[]> {
  const by = new Map<number, { problem: string; completion: string }[]>();
  const file = path.join(dir, 'rollouts.jsonl.gz');
  if (!fs.existsSync(file)) return by;
  for (const line of readGzipLines(file)) {
    const r = JSON.parse(line) as { step: number; problem: string; completion: string };
    by.set(r.step, [...(by.get(r.step) ?? []), r]);
  }
  return by;
}

/** The horizons a record evaluated (endpoints.csv's step, endpoints-<h>.csv), ascending. */
function horizons(dir: string): number[] {
  const files = fs.readdirSync(dir).filter((f) => /^endpoints(-\d+)?\.csv$/.test(f));
  return [...new Set(files.flatMap((f) => readCsv(path.join(dir, f)).map((r) => Number(r.step))))].sort(
    (a, b) => a - b,
  );
}

/** Which endpoint rows a record's endpoint files hold (every horizon together). */
function endpointNames(dir: string): Set<string> {
  const files = fs.readdirSync(dir).filter((f) => /^endpoints(-\d+)?\.csv$/.test(f));
  return new Set(files.flatMap((f) => readCsv(path.join(dir, f)).map((r) => String(r.endpoint))));
}

/** Whether a record's per-step metrics log the process metrics (process/trace_error). */
function logsProcessMetrics(dir: string): boolean {
  const file = path.join(dir, 'metrics.jsonl');
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"process/trace_error"');
}

export const RECORD_SPLIT_COLUMNS = [
  'campaign',
  'size',
  'method',
  'cell',
  'horizons',
  'records',
  'split_endpoints',
  'evaluation_traces',
  'training_rollouts',
  'rollout_steps',
  'process_metrics',
  'split',
];

export const ROLLOUT_SPLIT_COLUMNS = [
  'campaign',
  'size',
  'method',
  'cell',
  'step',
  'seeds',
  'right_answers',
  'measure',
  'mean',
  'ci_low',
  'ci_high',
];

export const PROXY_SPLIT_COLUMNS = [
  'campaign',
  'size',
  'cell',
  'horizon',
  'comparison',
  'seeds',
  'measure',
  'arm_mean',
  'rlvr_mean',
  'delta',
  'ci_low',
  'ci_high',
];

/**
 * A record's committed trace error (endpoints: right answers with a process score below 1) and its repeat share
 * (eval's style_redundant over the same in-distribution cells) at horizon h; null where it has neither (no right
 * answer, not evaluated at h, or in-distribution cells off the evaluation grid, as the sparse regime's are).
 */
export function proxyAt(dir: string, h: number): { flaw_rate: number; redundant_share: number } | null {
  const files = fs.readdirSync(dir).filter((f) => /^endpoints(-\d+)?\.csv$/.test(f));
  for (const f of files) {
    const te = readCsv(path.join(dir, f)).find((r) => Number(r.step) === h && r.endpoint === 'trace_error');
    if (!te || te.value === '') continue;
    const cells = new Set(String(te.cells).split(' '));
    const ev = readCsv(path.join(dir, f.replace('endpoints', 'eval'))).filter((r) =>
      cells.has(`${r.family}-${r.difficulty}`),
    );
    if (ev.length !== cells.size) return null; // cells off the evaluation grid (the sparse regime's): no styles
    return { flaw_rate: Number(te.value), redundant_share: mean(ev.map((r) => Number(r.style_redundant))) };
  }
  return null;
}

/** The tables (see the header) from the records under root. */
export function traceSplitTables(root: string): { records: Row[]; rollouts: Row[]; proxy: Row[] } {
  const all = findRecords(root);
  const key = (r: RecordInfo) => [r.campaign, r.size, r.method, r.cell].join('|');
  const groups = new Map<string, RecordInfo[]>();
  for (const r of all) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  const records: Row[] = [],
    rollouts: Row[] = [],
    proxy: Row[] = [];
  for (const rs of groups.values()) {
    const { campaign, size, method, cell } = rs[0];
    const hs = [...new Set(rs.flatMap((r) => horizons(r.dir)))].sort((a, b) => a - b);
    const split = rs.filter((r) => endpointNames(r.dir).has('repeat_rate')).length;
    const logged = rs.map((r) => ({ r, by: rolloutsByStep(r.dir) })).filter((x) => x.by.size > 0);
    const steps = [...new Set(logged.flatMap((x) => [...x.by.keys()]))].sort((a, b) => a - b);
    const stepsText = steps.length
      ? `${steps[0]}-${steps[steps.length - 1]} every ${steps.length > 1 ? steps[1] - steps[0] : 0}`
      : '';
    records.push({
      campaign,
      size,
      method,
      cell,
      horizons: hs.join(' '),
      records: rs.length,
      split_endpoints: split,
      evaluation_traces: 0,
      training_rollouts: logged.length,
      rollout_steps: stepsText,
      process_metrics: rs.filter((r) => logsProcessMetrics(r.dir)).length,
      split:
        split === rs.length
          ? 'endpoints'
          : logged.length
            ? 'training rollouts only (exploratory)'
            : 'none: aggregates only',
    });
    // every arm against RLVR of the same campaign, size and cell, paired by seed, at each horizon both evaluated
    const rlvr = groups.get([campaign, size, 'rlvr', cell].join('|'));
    if (rlvr && method !== 'rlvr')
      for (const h of hs) {
        const pairs = rs.flatMap((r) => {
          const b = rlvr.find((x) => x.seed === r.seed),
            pa = proxyAt(r.dir, h),
            pb = b ? proxyAt(b.dir, h) : null;
          return pa && pb ? [{ a: pa, b: pb }] : [];
        });
        if (pairs.length === 0) continue;
        for (const measure of ['flaw_rate', 'redundant_share'] as const) {
          const ci = meanInterval(pairs.map((p) => p.a[measure] - p.b[measure]));
          proxy.push({
            campaign,
            size,
            cell,
            horizon: h,
            comparison: `${method}_minus_rlvr`,
            seeds: pairs.length,
            measure,
            arm_mean: mean(pairs.map((p) => p.a[measure])),
            rlvr_mean: mean(pairs.map((p) => p.b[measure])),
            delta: ci.mean,
            ci_low: ci.ci_low ?? '',
            ci_high: ci.ci_high ?? '',
          });
        }
      }
    if (logged.length === 0) continue;
    // the cold start, and the last logged step before each horizon
    const read = [0, ...hs.filter((h) => h > 0).map((h) => Math.max(...steps.filter((s) => s < h)))];
    for (const step of [...new Set(read)]) {
      const per = logged.filter((x) => x.by.has(step)).map((x) => splitCounts(x.by.get(step)!));
      const withRight = per.filter((c) => c.right > 0);
      const measures: [string, (c: (typeof per)[number]) => number | null][] = [
        ['trace_error', (c) => c.wrong / c.right],
        ['repeat_rate', (c) => c.extra / c.right],
        ['flaw_rate', (c) => c.flawed / c.right],
        ['wrong_share_of_flawed', (c) => (c.flawed ? c.wrong / c.flawed : null)],
      ];
      for (const [measure, f] of measures) {
        const v = withRight.map(f).filter((x): x is number => x !== null),
          ci = meanInterval(v);
        rollouts.push({
          campaign,
          size,
          method,
          cell,
          step,
          seeds: v.length,
          right_answers: withRight.reduce((s, c) => s + c.right, 0),
          measure,
          mean: v.length ? ci.mean : '',
          ci_low: ci.ci_low ?? '',
          ci_high: ci.ci_high ?? '',
        });
      }
    }
  }
  return { records, rollouts, proxy };
}

if (process.argv[1]?.endsWith('trace-split.ts')) {
  runMain(async () => {
    const a = parseArgs(process.argv.slice(2), {
      root: { help: 'the campaign records', default: 'results/runs/sensitivity' },
      out: { help: 'output folder', default: 'results/sensitivity/confirm' },
    });
    const t = traceSplitTables(a.root);
    fs.mkdirSync(a.out, { recursive: true });
    writeCsv(path.join(a.out, 'trace_split_records.csv'), t.records, RECORD_SPLIT_COLUMNS);
    writeCsv(path.join(a.out, 'trace_split_rollouts.csv'), t.rollouts, ROLLOUT_SPLIT_COLUMNS);
    writeCsv(path.join(a.out, 'trace_split_proxy.csv'), t.proxy, PROXY_SPLIT_COLUMNS);
    const n = t.records.reduce((s, r) => s + Number(r.records), 0),
      split = t.records.reduce((s, r) => s + Number(r.split_endpoints), 0),
      logged = t.records.reduce((s, r) => s + Number(r.training_rollouts), 0);
    console.log(
      `${n} records: ${split} hold the split endpoints, 0 their evaluation's traces, ${logged} training rollouts ` +
        `-> ${a.out}/trace_split_records.csv, trace_split_rollouts.csv, trace_split_proxy.csv`,
    );
  });
}
