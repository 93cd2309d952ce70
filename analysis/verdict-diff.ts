// Which verdicts a regeneration of the committed tables moved: every CSV under results/ (and the sweeps) that differs
// from a git revision is read on both sides, row by row; a cell whose text is not a number (a verdict, `detects_0_03`,
// `criterion_met`, a note) must be unchanged, and the numeric cells are summarised by their largest change. Written
// for wave 4's exact statistics (t quantiles and p-values to double precision): the numbers move in their last
// digits, and this says whether any verdict did.
//
// Usage: tsx analysis/verdict-diff.ts [revision (default HEAD)] [folder ...(default results)]
// Prints one line per changed table and, for every moved text cell, its row, column, before and after; the last line
// is `verdicts moved: N` (exit 1 when N > 0).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { runMain } from '../src/io/args.js';
import { parseCsv } from '../src/io/csv.js';

const isNumber = (v: string) => v !== '' && !Number.isNaN(Number(v));

export interface TableDiff {
  file: string;
  /** why the rows cannot be compared cell by cell ('' when they can) */
  shape: string;
  numericChanged: number;
  maxAbsolute: number;
  maxRelative: number;
  /** text cells that changed: a moved verdict, label or note */
  moved: { row: number; column: string; before: string; after: string }[];
}

/** Compare two versions of one table (CSV text): same header and rows expected; text cells must agree. */
export function diffTable(file: string, beforeText: string, afterText: string): TableDiff {
  const d: TableDiff = { file, shape: '', numericChanged: 0, maxAbsolute: 0, maxRelative: 0, moved: [] };
  const [hb = [], ...before] = parseCsv(beforeText),
    [ha = [], ...after] = parseCsv(afterText);
  if (before.length !== after.length || hb.join(',') !== ha.join(',')) {
    d.shape = `rows ${before.length} -> ${after.length}, header ${hb.join(',') === ha.join(',') ? 'same' : 'differs'}`;
    return d;
  }
  before.forEach((b, i) => {
    hb.forEach((column, j) => {
      const x = b[j] ?? '',
        y = after[i][j] ?? '';
      if (x === y) return;
      if (isNumber(x) && isNumber(y)) {
        d.numericChanged++;
        const abs = Math.abs(Number(y) - Number(x));
        d.maxAbsolute = Math.max(d.maxAbsolute, abs);
        d.maxRelative = Math.max(d.maxRelative, abs / Math.max(Math.abs(Number(x)), 1e-300));
      } else d.moved.push({ row: i + 1, column, before: x, after: y });
    });
  });
  return d;
}

/** The CSVs under `folders` that differ between `revision` and the working tree (tracked files only). */
function changedTables(revision: string, folders: string[]): string[] {
  const out = execFileSync('git', ['diff', '--name-only', revision, '--', ...folders], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return out.split('\n').filter((f) => f.endsWith('.csv'));
}

function main(): void {
  const [revision = 'HEAD', ...rest] = process.argv.slice(2);
  const folders = rest.length ? rest : ['results'];
  let moved = 0;
  for (const file of changedTables(revision, folders)) {
    const show = (rev: string) =>
      execFileSync('git', ['show', `${rev}:${file}`], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 1 << 30,
      });
    let before: string;
    try {
      before = show(revision);
    } catch {
      console.log(`${file}: new (not in ${revision})`);
      continue;
    }
    const d = diffTable(file, before, fs.readFileSync(file, 'utf8'));
    if (d.shape) {
      console.log(`${file}: not comparable cell by cell (${d.shape})`);
      moved++;
      continue;
    }
    console.log(
      `${file}: ${d.numericChanged} numeric cells changed (largest change ${d.maxAbsolute.toExponential(1)}, ` +
        `relative ${d.maxRelative.toExponential(1)}), ` +
        `${d.moved.length} text cells moved`,
    );
    for (const m of d.moved) console.log(`  row ${m.row}, ${m.column}: ${m.before} -> ${m.after}`);
    moved += d.moved.length;
  }
  console.log(`verdicts moved: ${moved}`);
  if (moved > 0) process.exitCode = 1;
}

if (process.argv[1]?.endsWith('verdict-diff.ts')) runMain(async () => main());
