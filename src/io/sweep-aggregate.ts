// A sweep's aggregation: from the run records, whichever executor ran them (per cell means and intervals, paired
// claims with verdicts, their power, and the claims pooled across cells).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from './table.js';
import { meanInterval } from '../util/stats.js';
import { POOLED_COLUMNS, pooledCells, POWER_COLUMNS, powerCells } from '../util/power.js';
import { BASELINE, cellOf, completeSweep, isFinished, type Knob, type RunSpec, type SweepFile } from './sweep.js';

// ---- aggregation: from the run records, whichever executor ran them ----

export const TABLE_COLUMNS = ['knob', 'level', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds'];
/** A claim's endpoint is the column it compares (docs/sensitivity.md: every claims table names its endpoint). */
export const CLAIM_COLUMNS = ['knob', 'level', 'claim', 'endpoint', 'delta', 'ci_low', 'ci_high', 'seeds', 'verdict'];
/** Columns of power.csv: each claim row's key and verdict, then the power of its paired comparison. */
export const POWER_COLUMNS_SWEEP = ['knob', 'level', 'claim', 'endpoint', 'verdict', ...POWER_COLUMNS];
/** Columns of pooled.csv: one row per comparison pooled across its distinct cells (`pooledCells`). */
export const POOLED_COLUMNS_SWEEP = ['claim', ...POOLED_COLUMNS];

/** The knob of a sweep without knobs (methods x seeds): its one level is the baseline. */
export const NO_KNOB: Knob = { name: 'none', default: BASELINE, levels: [] };

/** A finished run's final.csv as column -> value (null when the run has no record). */
export function readFinal(s: RunSpec): Map<string, number> | null {
  const dir = isFinished(s) && !fs.existsSync(path.join(s.dir, 'done.json')) ? s.archive! : s.dir;
  const f = path.join(dir, 'final.csv');
  if (!fs.existsSync(path.join(dir, 'done.json')) || !fs.existsSync(f)) return null;
  return new Map(readCsv(f).map((r) => [String(r.column), Number(r.value)]));
}

/** `helps` when the interval lies above 0, `hurts` below 0, else `unclear` (also with fewer than minSeeds seeds). */
export function verdictOf(ci_low: number | null, ci_high: number | null, seeds: number, minSeeds: number): string {
  if (ci_low === null || ci_high === null || seeds < minSeeds) return 'unclear';
  return ci_low > 0 ? 'helps' : ci_high < 0 ? 'hurts' : 'unclear';
}

const num = (x: number | null) => (x === null ? '' : x);

/**
 * The tidy table (mean and 95% interval over seeds per knob, level, method and column; the baseline's runs under
 * every knob's default level; a sweep without knobs: knob "none", level "baseline") and the claims (each comparison's
 * paired difference per knob and level). With more
 * than one size the rows carry a size column after the level. `power` gives each claim row the power of its
 * comparison from the same per-seed differences (src/util/power.ts: MDE, power at a difference of 0.03); `pooled`
 * each comparison (per size) across its distinct cells: a random-effects mean and a sign test. A cell is distinct
 * by the runs it compares: the baseline, repeated under every knob's default level, counts once, and so does a
 * level that reaches neither method.
 */
export function aggregateSweep(
  file: SweepFile,
  specs: RunSpec[],
  read: (s: RunSpec) => Map<string, number> | null = readFinal,
): { table: Row[]; claims: Row[]; power: Row[]; pooled: Row[] } {
  const c = completeSweep(file);
  const byKey = new Map<string, RunSpec>(specs.map((s) => [`${s.size}|${s.method}|${s.cell}|${s.seed}`, s]));
  const finals = new Map<RunSpec, Map<string, number> | null>();
  const final = (s: RunSpec | undefined) => {
    if (!s) return null;
    if (!finals.has(s)) finals.set(s, read(s));
    return finals.get(s)!;
  };
  const sized = c.sizes.length > 1,
    table: Row[] = [],
    claims: Row[] = [],
    power: Row[] = [];
  // per size and comparison: the per-seed differences of each distinct cell (keyed by the two cells it compares)
  const cells = new Map<string, { size: string; claim: string; diffs: Map<string, number[]> }>();
  for (const knob of c.knobs?.length ? c.knobs : [NO_KNOB])
    for (const level of [knob.default, ...knob.levels.map((l) => l.level)])
      for (const size of c.sizes) {
        const head = { knob: knob.name, level, ...(sized ? { size } : {}) };
        const values = (method: string, column: string) =>
          new Map(
            c.seeds
              .map(
                (seed) =>
                  [
                    seed,
                    final(byKey.get(`${size}|${method}|${cellOf(knob, level, method)}|${seed}`))?.get(column),
                  ] as const,
              )
              .filter((e): e is readonly [number, number] => e[1] !== undefined && Number.isFinite(e[1])),
          );
        for (const method of c.methods) {
          const columns = [
            ...new Set(
              c.seeds.flatMap((seed) => [
                ...(final(byKey.get(`${size}|${method}|${cellOf(knob, level, method)}|${seed}`))?.keys() ?? []),
              ]),
            ),
          ];
          for (const column of columns) {
            const v = meanInterval([...values(method, column).values()]);
            table.push({
              ...head,
              method,
              column,
              mean: v.mean,
              ci_low: num(v.ci_low),
              ci_high: num(v.ci_high),
              seeds: v.n,
            });
          }
        }
        for (const cmp of c.comparisons ?? []) {
          const A = values(cmp.a, cmp.column),
            B = values(cmp.b, cmp.column);
          const diffs = [...A.keys()].filter((s) => B.has(s)).map((s) => A.get(s)! - B.get(s)!);
          const d = meanInterval(diffs),
            verdict = verdictOf(d.ci_low, d.ci_high, d.n, c.minSeeds ?? 2);
          claims.push({
            ...head,
            claim: cmp.claim,
            endpoint: cmp.column,
            delta: d.n ? d.mean : '',
            ci_low: num(d.ci_low),
            ci_high: num(d.ci_high),
            seeds: d.n,
            verdict,
          });
          power.push({ ...head, claim: cmp.claim, endpoint: cmp.column, verdict, ...powerCells(diffs) });
          const key = `${size}|${cmp.claim}`;
          if (!cells.has(key)) cells.set(key, { size, claim: cmp.claim, diffs: new Map() });
          const cell = `${cellOf(knob, level, cmp.a)}|${cellOf(knob, level, cmp.b)}`,
            seen = cells.get(key)!.diffs;
          if (!seen.has(cell)) seen.set(cell, diffs);
        }
      }
  const pooled = [...cells.values()].map((p) => ({
    ...(sized ? { size: p.size } : {}),
    claim: p.claim,
    ...pooledCells([...p.diffs.values()]),
  }));
  return { table, claims, power, pooled };
}
