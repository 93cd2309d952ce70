// EvoLM's spread under the exact judge, from the committed records alone (cheap: reads metrics.jsonl, curve.csv,
// final.csv and eval.csv of each finished seed; trains nothing). Per seed of one EvoLM row (default
// evolm_oracle_judge at S, Table 2's full profile) and per alternation block (the K policy steps, then the K
// generator steps that follow them), plus two spans: `early` (the blocks before the first collapsing seed's onset)
// and `all`:
//   - the policy's accuracy on its own training rollouts and on the fixed probe set;
//   - the judge's scores of the policy's rollouts (mean J, the share of groups whose J are all equal, and the
//     Pearson correlation over the span's steps of the step's mean J with its accuracy: does J track correctness);
//   - the rubrics that scored the policy (format rate, criteria per parsed rubric, the share of concrete criteria,
//     i.e. with arguments, and a criterion's mean length in characters);
//   - the generator's steps (its reward, the judge's separation J(a+) - J(a-) on its label-free pairs, the pair
//     accuracy, its format rate, its summed approx. KL);
//   - the policy's drift (summed approx. KL per update, clip fraction, gradient norm, response length in tokens).
// A seed has `collapsed` when its final average accuracy (final.csv) is below its average at step 0 (curve.csv);
// its onset is the first block from which every block's training accuracy stays below the first block's. The split
// compares, per span and measure, the collapsed seeds with the others: their means, whether every collapsed seed
// lies on one side of every other seed, and the chance of such a separation under a random labelling of the seeds.
// The records hold no rubric text, entropy, terminated share or per-step malformed share (the full profile's runs
// are archived without rollouts or rubric logs); the malformed share is read from the final evaluation only.
//   tsx analysis/evolm-spread.ts [--root DIR] [--method NAME] [--out DIR]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { readMetrics } from '../src/io/run.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { mean, pearson } from '../src/util/stats.js';

type Line = Record<string, unknown>;

const num = (l: Line, k: string) => (typeof l[k] === 'number' ? (l[k] as number) : Number.NaN);
const finiteMean = (xs: number[]) => {
  const f = xs.filter(Number.isFinite);
  return f.length ? mean(f) : Number.NaN;
};
const avg = (ls: Line[], k: string) => finiteMean(ls.map((l) => num(l, k)));
const sum = (ls: Line[], k: string) => ls.reduce((a, l) => a + (Number.isFinite(num(l, k)) ? num(l, k) : 0), 0);
/** The measures of a span: name -> (policy lines, generator lines) -> value (NaN when it has none). */
export const MEASURES: Record<string, (p: Line[], g: Line[]) => number> = {
  accuracy: (p) => avg(p, 'accuracy'),
  probe_accuracy: (p) => avg(p, 'probe_accuracy'),
  judge_score: (p) => avg(p, 'judge_score'),
  judge_accuracy_corr: (p) =>
    pearson(
      p.map((l) => num(l, 'judge_score')),
      p.map((l) => num(l, 'accuracy')),
    ) ?? Number.NaN,
  zero_std_share: (p) => avg(p, 'policy/frac_reward_zero_std'),
  format_rate: (p) => avg(p, 'format_rate'),
  criteria_per_rubric: (p) => avg(p, 'criteria_per_rubric'),
  concrete_share: (p) => avg(p, 'concrete_share'),
  criterion_length: (p) => avg(p, 'mean_length'),
  generator_reward: (_, g) => avg(g, 'generator_reward'),
  separation: (_, g) => avg(g, 'margin'),
  pair_accuracy: (_, g) => avg(g, 'pair_accuracy'),
  generator_format_rate: (_, g) => avg(g, 'format_rate'),
  generator_kl_sum: (_, g) => (g.length ? sum(g, 'generator/approx_kl') : Number.NaN),
  policy_kl_sum: (p) => sum(p, 'policy/approx_kl'),
  clipfrac: (p) => avg(p, 'policy/clipfrac'),
  grad_norm: (p) => avg(p, 'policy/grad_norm'),
  response_length: (p) => avg(p, 'response_length'),
};

/** One alternation block: a maximal run of policy lines (phase 0) and the generator lines (phase 1) that follow. */
export interface Block {
  policy: Line[];
  generator: Line[];
}

/** The blocks of a run's metrics lines, in order. */
export function blocksOf(lines: Line[]): Block[] {
  const out: Block[] = [];
  for (const l of lines) {
    const isPolicy = num(l, 'phase') === 0;
    const cur = out.at(-1);
    if (isPolicy && (!cur || cur.generator.length)) out.push({ policy: [l], generator: [] });
    else if (isPolicy) cur!.policy.push(l);
    else if (cur) cur.generator.push(l);
    else out.push({ policy: [], generator: [l] });
  }
  return out;
}

/** The first block (0-based) from which every block's accuracy is below the first block's; null if none. */
export function onsetBlock(accuracy: number[]): number | null {
  let onset: number | null = null;
  for (let b = accuracy.length - 1; b >= 1 && accuracy[b] < accuracy[0]; b--) onset = b;
  return onset;
}

/** The chance that a random labelling of n seeds, k of them collapsed, puts every collapsed seed on one side. */
export function chanceOfSeparation(held: number, collapsed: number): number {
  if (!held || !collapsed) return Number.NaN;
  let c = 1; // C(held + collapsed, collapsed)
  for (let i = 1; i <= collapsed; i++) c = (c * (held + i)) / i;
  return Math.min(1, 2 / c); // the collapsed seeds are the lowest or the highest k of the n values
}

/** Whether every value of `a` lies on one side of every value of `b` (ties separate nothing). */
export function separates(a: number[], b: number[]): boolean {
  if (!a.length || !b.length) return false;
  return Math.max(...a) < Math.min(...b) || Math.min(...a) > Math.max(...b);
}

const round = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : '');

/** A finished seed's record, read. */
export interface SeedRecord {
  seed: number;
  blocks: Block[];
  startAverage: number;
  finalAverage: number;
  finalMalformed: number;
}

function readSeed(dir: string, seed: number): SeedRecord {
  const curve = readCsv(path.join(dir, 'curve.csv')).filter((r) => Number(r.step) === 0);
  const final = readCsv(path.join(dir, 'final.csv')).find((r) => r.column === 'average');
  const ev = readCsv(path.join(dir, 'eval.csv'));
  const weight = (r: Row) => Number(r.problems) * Number(r.samples);
  const w = ev.reduce((a, r) => a + weight(r), 0);
  return {
    seed,
    blocks: blocksOf(readMetrics(dir)),
    startAverage: mean(curve.map((r) => Number(r.accuracy))),
    finalAverage: Number(final?.value ?? Number.NaN),
    finalMalformed: w ? ev.reduce((a, r) => a + weight(r) * Number(r.style_malformed), 0) / w : Number.NaN,
  };
}

/** The per-seed rows (one per block, then `early` and `all`) and the split of collapsed against held seeds. */
export function summarise(method: string, seeds: SeedRecord[]): { rows: Row[]; split: Row[] } {
  const info = seeds.map((s) => {
    const acc = s.blocks.map((b) => MEASURES.accuracy(b.policy, b.generator));
    const collapsed = s.finalAverage < s.startAverage;
    return { s, collapsed, onset: collapsed ? onsetBlock(acc) : null };
  });
  const onsets = info.map((i) => i.onset).filter((o): o is number => o !== null);
  const early = onsets.length ? Math.min(...onsets) : null;
  const nBlocks = Math.min(...seeds.map((s) => s.blocks.length));
  const spans: { window: string; from: number; to: number }[] = [
    ...Array.from({ length: nBlocks }, (_, b) => ({ window: String(b + 1), from: b, to: b + 1 })),
    ...(early !== null && early > 0 ? [{ window: 'early', from: 0, to: early }] : []),
    { window: 'all', from: 0, to: nBlocks },
  ];
  const stepsOf = (bs: Block[]) => {
    const ps = bs.flatMap((b) => b.policy.map((l) => num(l, 'policy_step')));
    return ps.length ? `${Math.min(...ps)}-${Math.max(...ps)}` : '';
  };
  const rows: Row[] = [];
  const values = new Map<string, Map<string, { collapsed: boolean; v: number }[]>>();
  for (const span of spans)
    for (const { s, collapsed, onset } of info) {
      const bs = s.blocks.slice(span.from, span.to);
      const p = bs.flatMap((b) => b.policy),
        g = bs.flatMap((b) => b.generator);
      const m = Object.fromEntries(Object.entries(MEASURES).map(([k, f]) => [k, f(p, g)]));
      rows.push({
        method,
        seed: s.seed,
        outcome: collapsed ? 'collapsed' : 'held',
        start_average: round(s.startAverage),
        final_average: round(s.finalAverage),
        onset_policy_step: onset === null ? '' : stepsOf([s.blocks[onset]]).split('-')[0],
        final_malformed: round(s.finalMalformed),
        window: span.window,
        policy_steps: stepsOf(bs),
        ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)])),
      });
      const byMeasure = values.get(span.window) ?? new Map();
      values.set(span.window, byMeasure);
      for (const [k, v] of Object.entries(m)) byMeasure.set(k, [...(byMeasure.get(k) ?? []), { collapsed, v }]);
    }
  const split: Row[] = [];
  for (const span of spans)
    for (const [measure, vs] of values.get(span.window)!) {
      const c = vs.filter((x) => x.collapsed && Number.isFinite(x.v)).map((x) => x.v),
        h = vs.filter((x) => !x.collapsed && Number.isFinite(x.v)).map((x) => x.v);
      split.push({
        method,
        window: span.window,
        measure,
        held_seeds: h.length,
        collapsed_seeds: c.length,
        held_mean: h.length ? round(mean(h)) : '',
        collapsed_mean: c.length ? round(mean(c)) : '',
        collapsed_minus_held: h.length && c.length ? round(mean(c) - mean(h)) : '',
        separates: separates(c, h) ? 'yes' : 'no',
        chance: round(chanceOfSeparation(h.length, c.length)),
      });
    }
  return { rows, split };
}

/** The per-seed rows and the split of a row's finished seeds under `root` (seed-<n> folders with done.json). */
export function spreadOf(root: string, method: string): { rows: Row[]; split: Row[] } {
  const seeds = fs
    .readdirSync(root)
    .map((d) => /^seed-(\d+)$/.exec(d))
    .filter((m): m is RegExpExecArray => m !== null && fs.existsSync(path.join(root, m[0], 'done.json')))
    .map((m) => readSeed(path.join(root, m[0]), Number(m[1])))
    .sort((x, y) => x.seed - y.seed);
  if (seeds.length < 2) throw new Error(`fewer than 2 finished seeds under ${root}`);
  return summarise(method, seeds);
}

runMain(async () => {
  if (process.argv[1] && !/evolm-spread\.ts$/.test(process.argv[1])) return; // imported, not run
  const a = parseArgs(process.argv.slice(2), {
    root: { help: "the row's records (seed-<n> folders)", default: 'results/runs/table2/full/S/evolm_oracle_judge' },
    method: { help: 'the row named in the tables', default: 'evolm_oracle_judge' },
    out: { help: 'output directory (oracle_spread.csv, oracle_spread_split.csv)', default: 'results/evolm' },
  });
  const { rows, split } = spreadOf(a.root, a.method);
  fs.mkdirSync(a.out, { recursive: true });
  writeCsv(path.join(a.out, 'oracle_spread.csv'), rows);
  writeCsv(path.join(a.out, 'oracle_spread_split.csv'), split);
  const outcome = rows.filter((r) => r.window === 'all').map((r) => `seed ${r.seed} ${r.outcome}`);
  console.log(`${outcome.length} seeds (${outcome.join(', ')}) -> ${a.out}/oracle_spread*.csv`);
});
