// `make rlvr` (aggregation step): RLVR runs -> results/rlvr/summary.csv (cold-start and final accuracy per family,
// mean and 95% CI over seeds) and results/rlvr/eval_curve.csv (accuracy per evaluation step).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv } from '../src/io/table.js';
import { meanCi } from './aggregate.js';
import { runMain } from '../src/io/args.js';
import { mean } from '../src/util/stats.js';

export function aggregateRlvr(runs: string, out: string): void {
  const dirs = fs
    .readdirSync(runs)
    .map((d) => path.join(runs, d))
    .filter((d) => fs.existsSync(path.join(d, 'done.json')));
  if (dirs.length === 0) throw new Error(`no finished RLVR runs under ${runs}`);
  const summary = dirs.flatMap((d) => readCsv(path.join(d, 'summary.csv')));
  writeCsv(
    path.join(out, 'summary.csv'),
    meanCi(summary, ['family'], ['coldstart_accuracy', 'final_accuracy']).map((r) => ({ ...r, seeds: r.n })),
  );
  const curve = dirs.flatMap((d) => {
    const seed = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')).seed;
    const rows = readCsv(path.join(d, 'eval.csv'));
    const fams = [...new Set(rows.map((r) => `${r.step}|${r.family}`))];
    return fams.map((k) => {
      const [step, family] = k.split('|'),
        rs = rows.filter((r) => `${r.step}|${r.family}` === k);
      return { step: Number(step), family, seed, accuracy: mean(rs.map((r) => Number(r.accuracy))) };
    });
  });
  writeCsv(path.join(out, 'eval_curve.csv'), meanCi(curve, ['step', 'family'], ['accuracy']));
  console.log(`RLVR tables -> ${out} (${dirs.length} seeds)`);
}

if (process.argv[1]?.endsWith('rlvr.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateRlvr(process.argv[2] ?? 'runs/rlvr', process.argv[3] ?? 'results/rlvr'));
}
