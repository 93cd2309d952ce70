// The early training trajectory of every arm against RLVR's, before and after the clean instrument: "before" reads
// the first campaign's records (results/runs/sensitivity/S-baseline: critic shared, equalGroups keep, 300-step runs
// whose first 60 steps are read), "after" the clean instrument's pilot (results/runs/sensitivity2/pilot: critic
// separate, equalGroups zero, 60 steps). From each run's metrics.jsonl: the training accuracy
// of each step's rollouts, the role's value loss and its approx. KL per update. Per instrument, arm and window of
// steps: the means over the seeds the arm and RLVR hold under both instruments, the paired difference to RLVR on the
// same seed with its 95% t-interval, and the seeds where the arm's accuracy is below RLVR's. Descriptive: it decides
// nothing (docs/sensitivity.md).
//   tsx analysis/trajectory.ts [--before DIR] [--after DIR] [--out DIR]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { readMetrics } from '../src/io/run.js';
import { writeCsv, type Row } from '../src/io/table.js';
import { mean, meanInterval } from '../src/util/stats.js';

/** Steps read from every run (0-based, as metrics.jsonl numbers them) and the windows summarised. */
export const STEPS = 60;
export const WINDOWS: [number, number][] = [
  [1, 10],
  [11, 30],
  [31, 60],
  [1, 60],
];
const SERIES = ['accuracy', 'reason/value_loss', 'reason/approx_kl'] as const;

/** Per seed, the first STEPS steps of one arm's series under `root` (<root>/S/<arm>/baseline/seed-<n>). */
export function armSeries(root: string, arm: string): Map<number, Record<string, number[]>> {
  const out = new Map<number, Record<string, number[]>>();
  const dir = path.join(root, 'S', arm, 'baseline');
  if (!fs.existsSync(dir)) return out;
  for (const s of fs.readdirSync(dir)) {
    const m = /^seed-(\d+)$/.exec(s);
    if (!m || !fs.existsSync(path.join(dir, s, 'done.json'))) continue;
    const lines = readMetrics(path.join(dir, s)).slice(0, STEPS);
    if (lines.length < STEPS) continue;
    out.set(Number(m[1]), Object.fromEntries(SERIES.map((k) => [k, lines.map((l) => Number(l[k]))])));
  }
  return out;
}

const window = (xs: number[], [a, b]: [number, number]) => mean(xs.slice(a - 1, b));
const round = (x: number | null) => (x === null || !Number.isFinite(x) ? '' : Number(x.toPrecision(6)));

/**
 * The summary rows of one instrument: per arm and window, over the arm's `seedsOf`, the means of accuracy, value loss
 * and approx. KL, the paired difference of accuracy to RLVR with its interval, and the seeds below RLVR.
 */
export function summarise(
  instrument: string,
  series: Map<string, Map<number, Record<string, number[]>>>,
  seedsOf: (arm: string) => number[],
): Row[] {
  const rlvr = series.get('rlvr')!;
  const rows: Row[] = [];
  for (const [arm, bySeed] of series)
    for (const w of WINDOWS) {
      const seeds = seedsOf(arm);
      if (seeds.length === 0) continue;
      const acc = seeds.map((s) => window(bySeed.get(s)!.accuracy, w));
      const d = seeds.map((s, i) => acc[i] - window(rlvr.get(s)!.accuracy, w));
      const ci = meanInterval(d);
      rows.push({
        instrument,
        method: arm,
        steps: `${w[0]}-${w[1]}`,
        seeds: seeds.length,
        accuracy: round(mean(acc)),
        minus_rlvr: arm === 'rlvr' ? '' : round(ci.mean),
        ci_low: arm === 'rlvr' ? '' : round(ci.ci_low),
        ci_high: arm === 'rlvr' ? '' : round(ci.ci_high),
        seeds_below_rlvr: arm === 'rlvr' ? '' : d.filter((x) => x < 0).length,
        value_loss: round(mean(seeds.map((s) => window(bySeed.get(s)!['reason/value_loss'], w)))),
        approx_kl: round(mean(seeds.map((s) => window(bySeed.get(s)!['reason/approx_kl'], w)))),
      });
    }
  return rows;
}

runMain(async () => {
  if (process.argv[1] && !/trajectory\.ts$/.test(process.argv[1])) return; // imported, not run
  const a = parseArgs(process.argv.slice(2), {
    before: { help: "the first campaign's records", default: 'results/runs/sensitivity/S-baseline' },
    after: { help: "the clean instrument's pilot records", default: 'results/runs/sensitivity2/pilot' },
    out: { help: 'output directory', default: 'results/sensitivity2' },
  });
  const arms = fs.readdirSync(path.join(a.after, 'S')).sort();
  if (!arms.includes('rlvr')) throw new Error(`${a.after} has no RLVR runs to compare with`);
  const read = (root: string) => new Map(arms.map((m) => [m, armSeries(root, m)]));
  const before = read(a.before),
    after = read(a.after);
  // per arm, the seeds it and RLVR hold under both instruments: its before/after rows are paired on the same seeds
  const seedsOf = (arm: string) =>
    [...after.get(arm)!.keys()]
      .filter((s) => [before, after].every((m) => m.get(arm)!.has(s) && m.get('rlvr')!.has(s)))
      .sort((x, y) => x - y);
  if (arms.every((m) => seedsOf(m).length < 2)) throw new Error('no arm has 2 seeds finished under both instruments');
  const steps: Row[] = [];
  for (const [instrument, series] of [
    ['first', before],
    ['clean', after],
  ] as const)
    for (const [arm, bySeed] of series) {
      const seeds = seedsOf(arm);
      if (seeds.length === 0) continue;
      for (let t = 0; t < STEPS; t++)
        steps.push({
          instrument,
          method: arm,
          step: t + 1,
          seeds: seeds.length,
          ...Object.fromEntries(
            SERIES.map((k) => [k.replace('reason/', ''), round(mean(seeds.map((s) => bySeed.get(s)![k][t])))]),
          ),
        });
    }
  fs.mkdirSync(a.out, { recursive: true });
  writeCsv(path.join(a.out, 'trajectory.csv'), steps);
  writeCsv(path.join(a.out, 'trajectory_summary.csv'), [
    ...summarise('first', before, seedsOf),
    ...summarise('clean', after, seedsOf),
  ]);
  const seen = arms.map((m) => `${m} ${seedsOf(m).length}`).join(', ');
  console.log(`trajectories (seeds per arm: ${seen}) -> ${a.out}/trajectory*.csv`);
});
