// Compare a freshly produced results folder with the committed reference, byte for byte.
//   tsx analysis/compare-results.ts <produced> <reference> [--ignore prefix1,prefix2]   (paths other targets write)
//   tsx analysis/compare-results.ts <produced> <reference> --only file1,file2   (just these files, every one strict)
// Tables (CSV) must be identical: one line per table that differs (with its first differing row), exit 1. Other files
// (figures) are listed when they differ but do not fail the comparison (fonts and browser versions change them).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runMain } from '../src/io/args.js';
import { ConfigError } from '../src/util/validate.js';

/** Every file under dir, as paths relative to it, sorted. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export interface Comparison {
  same: string[];
  differ: { file: string; detail: string }[];
  missing: string[];
  extra: string[];
}

/** Compare every file of `reference` with the same path under `produced`. */
export function compareResults(
  produced: string,
  reference: string,
  ignore: string[] = [],
  only?: string[],
): Comparison {
  for (const d of [produced, reference])
    if (!fs.existsSync(d)) throw new ConfigError(`results folder ${d} does not exist`);
  const kept = (f: string) => !ignore.some((i) => f.startsWith(i)) && (!only || only.includes(f));
  const have = new Set(files(produced).filter(kept)),
    want = only ?? files(reference).filter(kept);
  const c: Comparison = { same: [], differ: [], missing: [], extra: [...have].filter((f) => !want.includes(f)) };
  for (const f of want) {
    const inReference = fs.existsSync(path.join(reference, f));
    if (only && !have.has(f) && !inReference) continue; // a listed table neither side has (no runs of its rows)
    if (!have.has(f) || !inReference) {
      c.missing.push(f);
      continue;
    }
    const a = fs.readFileSync(path.join(produced, f)),
      b = fs.readFileSync(path.join(reference, f));
    if (a.equals(b)) {
      c.same.push(f);
      continue;
    }
    let detail = 'bytes differ';
    if (f.endsWith('.csv')) {
      const la = a.toString('utf8').split('\n'),
        lb = b.toString('utf8').split('\n');
      const i = la.findIndex((l, k) => l !== lb[k]);
      detail = `row ${i}: "${(la[i] ?? '(none)').slice(0, 100)}" vs committed "${(lb[i] ?? '(none)').slice(0, 100)}"`;
    }
    c.differ.push({ file: f, detail });
  }
  return c;
}

if (process.argv[1]?.endsWith('compare-results.ts')) {
  runMain(async () => {
    const [produced, reference, flag, list] = process.argv.slice(2);
    if (!produced || !reference || (flag !== undefined && flag !== '--ignore' && flag !== '--only')) {
      throw new ConfigError(
        'usage: tsx analysis/compare-results.ts <produced> <reference> [--ignore prefix1,prefix2 | --only f1,f2]',
      );
    }
    const names = (list ?? '').split(',').filter(Boolean);
    const c = compareResults(
      produced,
      reference,
      flag === '--ignore' ? names : [],
      flag === '--only' ? names : undefined,
    );
    // with --only every listed file is a table: it must exist on both sides and be identical
    const tables = (xs: string[]) => xs.filter((f) => f.endsWith('.csv') || flag === '--only');
    const badTables = c.differ.filter((d) => tables([d.file]).length);
    for (const d of c.differ)
      console.log(`${tables([d.file]).length ? 'DIFFERS' : 'differs (figure)'}: ${d.file}: ${d.detail}`);
    for (const f of c.missing)
      console.log(`${tables([f]).length ? 'MISSING' : 'missing (figure)'}: ${f} (in ${reference}, not produced)`);
    const ok = badTables.length === 0 && tables(c.missing).length === 0;
    console.log(
      `${ok ? 'matches' : 'does NOT match'} the committed reference ${reference}: ${tables(c.same).length} tables ` +
        `identical, ${badTables.length} differ, ${tables(c.missing).length} missing; figures: ${c.same.length - tables(c.same).length} ` +
        `identical, ${c.differ.length - badTables.length} differ`,
    );
    if (!ok) {
      if (flag !== '--only')
        console.log(`(if the change is intended: make quick-reference copies ${produced} over ${reference})`);
      process.exit(1);
    }
  });
}
