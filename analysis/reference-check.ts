// The main job's check against a reference kept per processor (docs/testing.md, "The main job against its reference").
// TensorFlow's CPU kernels round differently on processors that differ in vendor, family, model or vector extensions
// (src/util/machine.ts), so a reference is made on, and matched byte for byte on, its own processor only:
//   results/references/<profile>/<processor key>/processor.json   who made it, under which generation
//   results/references/<profile>/<processor key>/tables/...       every table of the profile (CSV)
//   results/references/<profile>/<processor key>/runs/...   each run's per-step metrics and its config
// A reference is fresh when its generation is the newest of the profile's references; `adopt` (make quick-reference)
// starts a new generation when the adopting processor's tables moved, which marks every other processor's stale.
// On a processor without a fresh reference of its own the check is a tolerance check against a fresh one: the tables'
// structure exact, and each run's first MATCHED_STEPS steps equal (every count and share exact, every other number
// within FLOAT_TOLERANCE): across processors the sampled tokens part only after several steps, so an engine that does
// not learn, learns at another rate or computes wrong numbers fails it there.
//   tsx analysis/reference-check.ts check --profile quick --tables runs/results/quick --runs runs/table2/quick
//   tsx analysis/reference-check.ts adopt --profile quick --tables runs/results/quick --runs runs/table2/quick
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { ConfigError } from '../src/util/validate.js';
import { parseCsv } from '../src/io/csv.js';
import { thisProcessor, type Processor } from '../src/util/machine.js';
import { compareResults } from './compare-results.js';

/** Steps at the start of every run that must match on any processor (the earliest parting seen was step 5). */
export const MATCHED_STEPS = 3;
/** Relative tolerance on a non-count metric within the matched steps (denominators floored at 1e-3). */
export const FLOAT_TOLERANCE = 1e-3;

export interface ReferenceInfo extends Processor {
  profile: string;
  generation: number;
  kernels: number;
  /** the runs' code version(s) and the day the first started (their config.json) */
  code: string;
  made: string;
}

type Metrics = Record<string, unknown>[];

/** Where a profile's references live. */
export const referencesRoot = (profile: string, root = 'results/references') => path.join(root, profile);

/** Every reference of a profile with its info, the fresh ones (newest generation) marked. */
export function listReferences(
  profile: string,
  root = 'results/references',
): { dir: string; info: ReferenceInfo; fresh: boolean }[] {
  const base = referencesRoot(profile, root);
  if (!fs.existsSync(base)) return [];
  const refs = fs
    .readdirSync(base)
    .filter((k) => fs.existsSync(path.join(base, k, 'processor.json')))
    .sort()
    .map((k) => ({
      dir: path.join(base, k),
      info: JSON.parse(fs.readFileSync(path.join(base, k, 'processor.json'), 'utf8')) as ReferenceInfo,
    }));
  const newest = Math.max(...refs.map((r) => r.info.generation));
  return refs.map((r) => ({ ...r, fresh: r.info.generation === newest }));
}

/** Every metrics.jsonl under `dir`, keyed by its run's relative folder. */
export function readRunMetrics(dir: string): Record<string, Metrics> {
  const out: Record<string, Metrics> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'metrics.jsonl')
        out[path.relative(dir, d)] = fs
          .readFileSync(p, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** A count or a share of a batch: a whole multiple of 1/4096 (accuracy, lengths, terminated share, styles). */
const isCount = (v: number) => Math.abs(v * 4096 - Math.round(v * 4096)) < 1e-6;

/**
 * The first difference between a run's per-step metrics and the reference's within the first `steps` steps: a key
 * missing on one side, a count or share that differs at all, a number off by more than `tol` relative (timings,
 * `*_ms`, ignored). null when they match.
 */
export function firstDifference(
  got: Metrics,
  want: Metrics,
  steps = MATCHED_STEPS,
  tol = FLOAT_TOLERANCE,
): { step: number; key: string; got: unknown; want: unknown } | null {
  const n = Math.min(steps, want.length);
  for (let s = 0; s < Math.min(n, got.length); s++) {
    const g = got[s],
      w = want[s];
    const keys = [...new Set([...Object.keys(g), ...Object.keys(w)])].filter((k) => !k.endsWith('_ms')).sort();
    for (const k of keys) {
      const a = g[k],
        b = w[k];
      if (typeof a === 'number' && typeof b === 'number') {
        const ok = isCount(b) && isCount(a) ? a === b : Math.abs(a - b) <= tol * Math.max(Math.abs(b), 1e-3);
        if (!ok) return { step: s, key: k, got: a, want: b };
      } else if (JSON.stringify(a) !== JSON.stringify(b)) return { step: s, key: k, got: a, want: b };
    }
  }
  if (got.length < n) return { step: got.length, key: '(steps)', got: got.length, want: want.length };
  return null;
}

/** Cells that are numbers (they may move across processors); everything else is structure. */
const numeric = (x: string) => x === '' || Number.isFinite(Number(x)) || /^[+-]?\d/.test(x);

/**
 * The tables' structure: the same files, and in each the same header, the same number of rows and the same text in
 * every cell the reference holds as text, apart from the columns a number decides (VERDICT_COLUMNS, `detects*`).
 */
export const VERDICT_COLUMNS = ['verdict', 'note'];
const decidedByNumbers = (h: string) => VERDICT_COLUMNS.includes(h) || h.startsWith('detects');
export function structureDifferences(produced: string, reference: string): string[] {
  const problems: string[] = [];
  const tables = (d: string) =>
    fs.existsSync(d)
      ? fs
          .readdirSync(d, { recursive: true })
          .map(String)
          .filter((f) => f.endsWith('.csv'))
          .sort()
      : [];
  const want = tables(reference),
    have = new Set(tables(produced));
  for (const f of want) {
    if (!have.has(f)) {
      problems.push(`${f}: not produced`);
      continue;
    }
    const a = parseCsv(fs.readFileSync(path.join(produced, f), 'utf8')),
      b = parseCsv(fs.readFileSync(path.join(reference, f), 'utf8'));
    const line = (r: string[] | undefined) => (r ?? []).join(',').slice(0, 80);
    if (line(a[0]) !== line(b[0])) problems.push(`${f}: header "${line(a[0])}" vs "${line(b[0])}"`);
    else if (a.length !== b.length) problems.push(`${f}: ${a.length - 1} rows vs ${b.length - 1}`);
    else {
      const free = new Set(b[0].flatMap((h, i) => (decidedByNumbers(h) ? [i] : [])));
      const row = b.findIndex(
        (y, i) => a[i].length !== y.length || y.some((cell, j) => !free.has(j) && !numeric(cell) && cell !== a[i][j]),
      );
      if (row >= 0) problems.push(`${f}: row ${row} "${line(a[row])}" vs "${line(b[row])}"`);
    }
  }
  for (const f of have) if (!want.includes(f)) problems.push(`${f}: not in the reference`);
  return problems;
}

/** The tolerance check of produced tables and runs against one reference; the problems found (none: it passes). */
export function toleranceCheck(tablesDir: string, runsDir: string, reference: string): string[] {
  const problems = structureDifferences(tablesDir, path.join(reference, 'tables'));
  const got = readRunMetrics(runsDir),
    want = readRunMetrics(path.join(reference, 'runs'));
  if (Object.keys(want).length === 0) problems.push('the reference holds no run metrics');
  for (const [run, w] of Object.entries(want)) {
    if (!got[run]) {
      problems.push(`${run}: no metrics.jsonl produced`);
      continue;
    }
    const d = firstDifference(got[run], w);
    if (d)
      problems.push(`${run}: step ${d.step} ${d.key} = ${JSON.stringify(d.got)}, reference ${JSON.stringify(d.want)}`);
  }
  return problems;
}

/** The kernel generation and code version the runs under `dir` ran on (their config.json; one of each). */
export function runsProvenance(dir: string): { kernels: number; code: string; made: string } {
  const gens = new Set<number>(),
    codes = new Set<string>(),
    days = new Set<string>();
  for (const run of Object.keys(readRunMetrics(dir))) {
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, run, 'config.json'), 'utf8'));
    gens.add(Number(cfg.engine?.kernels ?? 1));
    codes.add(String(cfg.codeVersion ?? 'unknown'));
    days.add(String(cfg.startedAt ?? '').slice(0, 10));
  }
  if (gens.size !== 1) throw new ConfigError(`the runs under ${dir} ran on kernel generations ${[...gens].join(', ')}`);
  return { kernels: [...gens][0], code: [...codes].join(' '), made: [...days].sort()[0] ?? '' };
}

/** Write a reference: every CSV of `tablesDir` into tables/, every run's metrics.jsonl and config.json into runs/. */
function writeReference(dir: string, tablesDir: string, runsDir: string, info: ReferenceInfo) {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const f of fs.readdirSync(tablesDir, { recursive: true }).map(String))
    if (f.endsWith('.csv')) {
      fs.mkdirSync(path.dirname(path.join(dir, 'tables', f)), { recursive: true });
      fs.copyFileSync(path.join(tablesDir, f), path.join(dir, 'tables', f));
    }
  for (const run of Object.keys(readRunMetrics(runsDir))) {
    fs.mkdirSync(path.join(dir, 'runs', run), { recursive: true });
    for (const f of ['metrics.jsonl', 'config.json'])
      fs.copyFileSync(path.join(runsDir, run, f), path.join(dir, 'runs', run, f));
  }
  fs.writeFileSync(path.join(dir, 'processor.json'), `${JSON.stringify(info, null, 1)}\n`);
}

/**
 * Adopt produced tables and runs as this processor's reference. The generation stays the newest when this processor's
 * tables did not move (or, for a processor new to the profile, when they pass the tolerance check against a fresh
 * reference); otherwise a new generation starts and every other processor's reference turns stale.
 */
export function adoptReference(
  profile: string,
  tablesDir: string,
  runsDir: string,
  p: Processor = thisProcessor(),
  root = 'results/references',
): { generation: number; stale: string[] } {
  const refs = listReferences(profile, root);
  const newest = refs.length ? Math.max(...refs.map((r) => r.info.generation)) : 1;
  // a reference recorded before processor keys existed (isa 'unrecorded') gives way to one of its vendor and name
  for (const r of refs)
    if (r.info.isa === 'unrecorded' && r.info.vendor === p.vendor && r.info.name === p.name)
      fs.rmSync(r.dir, { recursive: true, force: true });
  const own = refs.find((r) => r.info.key === p.key);
  let same: boolean;
  if (own) {
    const c = compareResults(tablesDir, path.join(own.dir, 'tables'), [], undefined);
    same = own.fresh && c.differ.length === 0 && c.missing.length === 0;
  } else {
    const other = refs.find((r) => r.fresh);
    same = !other || toleranceCheck(tablesDir, runsDir, other.dir).length === 0;
  }
  const generation = same ? newest : newest + 1;
  writeReference(path.join(referencesRoot(profile, root), p.key), tablesDir, runsDir, {
    ...p,
    profile,
    generation,
    ...runsProvenance(runsDir),
  });
  return { generation, stale: same ? [] : refs.filter((r) => r.info.key !== p.key).map((r) => r.info.key) };
}

/** The main job's verdict: byte for byte against this processor's fresh reference, else the tolerance check. */
export function checkAgainstReferences(
  profile: string,
  tablesDir: string,
  runsDir: string,
  p: Processor = thisProcessor(),
  root = 'results/references',
): { ok: boolean; lines: string[] } {
  const refs = listReferences(profile, root);
  const own = refs.find((r) => r.info.key === p.key && r.fresh);
  if (own) {
    const c = compareResults(tablesDir, path.join(own.dir, 'tables'), [], undefined);
    const lines = [...c.differ.map((d) => `DIFFERS: ${d.file}: ${d.detail}`), ...c.missing.map((f) => `MISSING: ${f}`)];
    const ok = c.differ.length === 0 && c.missing.length === 0;
    lines.push(
      `${ok ? 'matches' : 'does NOT match'} this processor's reference (${p.key}, generation ` +
        `${own.info.generation}) byte for byte: ${c.same.length} tables identical, ${c.differ.length} differ, ` +
        `${c.missing.length} missing`,
    );
    return { ok, lines };
  }
  const other = refs.find((r) => r.fresh);
  if (!other)
    return { ok: false, lines: [`no fresh reference of profile ${profile} under ${referencesRoot(profile, root)}`] };
  const problems = toleranceCheck(tablesDir, runsDir, other.dir);
  const why = refs.some((r) => r.info.key === p.key)
    ? `this processor's reference (${p.key}) is stale (made before generation ${other.info.generation})`
    : `no reference was made on this processor (${p.key})`;
  return {
    ok: problems.length === 0,
    lines: [
      ...problems.map((x) => `DIFFERS: ${x}`),
      `${problems.length === 0 ? 'passes' : 'FAILS'} the tolerance check against ${other.info.key}'s reference ` +
        `(${why}): tables' structure exact, every run's first ${MATCHED_STEPS} steps equal (counts exact, other ` +
        `numbers within ${FLOAT_TOLERANCE} relative); ${problems.length} problems`,
    ],
  };
}

if (process.argv[1]?.endsWith('reference-check.ts')) {
  runMain(async () => {
    const [verb, ...rest] = process.argv.slice(2);
    const a = parseArgs(rest, {
      profile: { help: 'the profile (quick)', default: 'quick' },
      tables: { help: 'the produced tables (runs/results/<profile>)' },
      runs: { help: 'the produced run directories (runs/table2/<profile>)' },
    });
    const tables = a.tables ?? `runs/results/${a.profile}`,
      runs = a.runs ?? `runs/table2/${a.profile}`;
    if (verb === 'adopt') {
      const r = adoptReference(a.profile, tables, runs);
      console.log(
        `adopted as ${thisProcessor().key}'s ${a.profile} reference, generation ${r.generation}` +
          (r.stale.length ? `; stale now: ${r.stale.join(', ')}` : ''),
      );
    } else if (verb === 'check') {
      const r = checkAgainstReferences(a.profile, tables, runs);
      for (const l of r.lines) console.log(l);
      if (!r.ok) process.exit(1);
    } else
      throw new ConfigError(
        'usage: tsx analysis/reference-check.ts check|adopt [--profile quick] [--tables D] [--runs D]',
      );
  });
}
