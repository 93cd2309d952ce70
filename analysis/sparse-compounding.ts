// Do the cold start's errors compound step by step? From amendment 2's table (results/sensitivity2/
// sparse-criterion-forced.csv): per budget and cell, the per-sample pass beside the product of the known-step
// probabilities over the cell's true steps (each column once per pass that has it): what the pass would be if each
// step went right with its teacher-forced probability, independently of the others. And the fewest steps at which a
// cell whose steps are all known at that budget's worst column would pass at most 0.05.
// Usage: tsx analysis/sparse-compounding.ts [--out results/sensitivity2]
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { passWidths, checkFamily } from '../src/world/problems.js';
import { SPARSE2_MAX_PASS } from '../src/rl/sparse-criterion.js';

/** The product of the known-step probabilities over a cell's true steps (pass i has columns 0..width_i - 1). */
export function knownProduct(known: number[], widths: number[]): number {
  return widths.reduce((p, w) => known.slice(0, w).reduce((a, q) => a * q, p), 1);
}

/** The fewest steps n with q^n <= maxPass (q the worst column's known-step probability). */
export const stepsForSparse = (q: number, maxPass = SPARSE2_MAX_PASS) =>
  q >= 1 ? Number.POSITIVE_INFINITY : q <= 0 ? 1 : Math.ceil(Math.log(maxPass) / Math.log(q));

export function compounding(rows: Row[]): Row[] {
  return rows.map((r) => {
    const [family, digits] = String(r.cell).split('-');
    const widths = passWidths(checkFamily(family), Number(digits));
    const known = Array.from({ length: Math.max(...widths) }, (_, k) => Number(r[`known_c${k}`]));
    const q = Number(r.known_min);
    return {
      budget: r.budget,
      cell: r.cell,
      steps: widths.reduce((a, w) => a + w, 0),
      pass: r.pass,
      known_product: knownProduct(known, widths),
      known_min: q,
      steps_for_sparse_at_known_min: stepsForSparse(q),
    };
  });
}

runMain(async () => {
  if (process.argv[1] && !/sparse-compounding\.ts$/.test(process.argv[1])) return; // imported, not run
  const a = parseArgs(process.argv.slice(2), { out: { help: 'output directory', default: 'results/sensitivity2' } });
  const rows = compounding(readCsv('results/sensitivity2/sparse-criterion-forced.csv'));
  writeCsv(path.join(a.out, 'compounding.csv'), rows);
  console.log(`compounding -> ${a.out}/compounding.csv (${rows.length} rows)`);
});
