// Aggregation of per-seed run tables into tidy result tables: mean and 95% confidence interval over seeds
// (Student t, two-sided). danfojs does the grouping; the interval is computed here.
import * as dfd from 'danfojs-node';
import type { Row } from '../src/io/table.js';

export { tQuantile95 } from '../src/util/stats.js';
import { mean, tQuantile95 } from '../src/util/stats.js';
import { TRAIN_FAMILIES } from '../src/world/families.js';
import { POWER_COLUMNS, powerCells } from '../src/util/power.js';

/**
 * Group rows by `by` and summarise each of `values` as <v>_mean, <v>_ci95 (half-width; empty for a single
 * seed, where no interval exists) and a shared n (rows per group).
 */
export function meanCi(rows: Row[], by: string[], values: string[]): Row[] {
  if (rows.length === 0) return [];
  for (const c of [...by, ...values]) if (!(c in rows[0])) throw new Error(`meanCi: no column "${c}" in the rows`);
  const spec = Object.fromEntries(values.map((v) => [v, ['mean', 'std', 'count']]));
  const g = new dfd.DataFrame(rows.map((r) => Object.fromEntries([...by, ...values].map((c) => [c, r[c]]))))
    .groupby(by)
    .agg(spec);
  const out = dfd.toJSON(g) as Record<string, number | string>[];
  return out.map((r) => {
    const row: Row = {};
    for (const b of by) row[b] = r[b];
    const n = Number(r[`${values[0]}_count`]);
    for (const v of values) {
      row[`${v}_mean`] = Number(r[`${v}_mean`]);
      row[`${v}_ci95`] = n > 1 ? (tQuantile95(n - 1) * Number(r[`${v}_std`])) / Math.sqrt(n) : '';
    }
    row.n = n;
    return row;
  });
}

/** The 95% interval around a mean from meanCi's half-width (empty bounds when there is none: one seed). */
export function interval(mean: number, ci95: unknown): { ci_low: number | ''; ci_high: number | '' } {
  return ci95 === '' ? { ci_low: '', ci_high: '' } : { ci_low: mean - Number(ci95), ci_high: mean + Number(ci95) };
}

/** Columns of a claims table (`claimRows`). */
export const CLAIM_COLUMNS = [
  'profile',
  'claim',
  'run',
  'against',
  'measure',
  'endpoint',
  'expected_sign',
  'delta',
  'ci_low',
  'ci_high',
  'seeds',
  'verdict',
];

/** Summary scores of one run at one seed, by measure. */
export type Scores = Record<string, number>;

/** Rows (run key, seed, measure, value) -> scores keyed run, then seed, then measure (claimRows' input). */
export function scoresBySeed(
  rows: { run: string; seed: unknown; measure: string; value: number }[],
): Map<string, Map<string, Scores>> {
  const out = new Map<string, Map<string, Scores>>();
  for (const r of rows) {
    if (!out.has(r.run)) out.set(r.run, new Map());
    const m = out.get(r.run)!,
      seed = String(r.seed);
    m.set(seed, { ...m.get(seed), [r.measure]: r.value });
  }
  return out;
}

/**
 * Run a's measure minus run b's `measureB` (by default the same) at each seed both have, in the order of a's seeds:
 * the per-seed paired differences every claim's interval (`pairedDifference`) and power (`claimPowerRows`) rest on.
 */
export function pairedDiffs(
  scores: Map<string, Map<string, Scores>>,
  a: string,
  b: string,
  measure: string,
  measureB = measure,
): number[] {
  const A = scores.get(a),
    B = scores.get(b);
  if (!A || !B) return [];
  return [...A.keys()]
    .filter((s) => B.has(s))
    .map((s) => A.get(s)![measure] - B.get(s)![measureB])
    .filter((d) => Number.isFinite(d));
}

/** Mean and 95% CI over seeds of run a's measure minus run b's `measureB` (by default the same), paired by seed. */
export function pairedDifference(
  scores: Map<string, Map<string, Scores>>,
  a: string,
  b: string,
  measure: string,
  measureB = measure,
) {
  const d = pairedDiffs(scores, a, b, measure, measureB).map((delta) => ({ k: 'd', delta }));
  if (!d.length) return null;
  const r = meanCi(d, ['k'], ['delta'])[0],
    m = Number(r.delta_mean);
  return { delta: m, ...interval(m, r.delta_ci95), seeds: Number(r.n) };
}

/**
 * A paper's claim read as run `a` minus run `b` on `measure` (paired by seed), expected to have sign `sign`;
 * `measureB` compares two measures instead (`a`'s measure minus `b`'s measureB, a and b possibly the same run).
 */
export interface Claim {
  claim: string;
  a: string;
  b: string;
  measure: string;
  measureB?: string;
  sign: 1 | -1;
  /** the sizes and profiles the claim is tested at (default all): rows run at one size or profile only */
  sizes?: string[];
  profiles?: string[];
  /** the endpoint the claim reads (docs/sensitivity.md): default its measure */
  endpoint?: string;
}

/** The accuracy endpoints a claim on `average` is also read on: in distribution (add, sub, chain) and chain_ood. */
export const ACCURACY_ENDPOINTS: { measure: string; text: string }[] = [
  { measure: 'in_distribution', text: 'in-distribution accuracy' },
  { measure: 'chain_ood', text: 'held-out composition, chain_ood' },
];

/**
 * Every claim on average accuracy, then the same claim on each accuracy endpoint (its text's "average accuracy" named
 * for the endpoint), so that the held-out family no longer hides inside the average (docs/sensitivity.md).
 */
export function withEndpoints(claims: Claim[]): Claim[] {
  return claims.flatMap((c) =>
    c.measure !== 'average' || c.measureB
      ? [c]
      : [
          c,
          ...ACCURACY_ENDPOINTS.map((e) => ({
            ...c,
            claim: c.claim.replace('average accuracy', e.text),
            measure: e.measure,
            endpoint: e.measure,
          })),
        ],
  );
}

/**
 * Score rows (run, seed, measure, value) with, per (run, seed) that has add, sub and chain, an `in_distribution` row:
 * their mean (the training families at the grid's difficulties, docs/sensitivity.md).
 */
export function withInDistribution<T extends { run: string; seed: unknown; measure: string; value: number }>(
  rows: T[],
): { run: string; seed: unknown; measure: string; value: number }[] {
  const by = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const k = `${r.run}\u0000${String(r.seed)}`;
    by.set(k, { ...by.get(k), [r.measure]: r.value });
  }
  const extra = [...by].flatMap(([k, m]) => {
    const [run, seed] = k.split('\u0000'),
      fam = TRAIN_FAMILIES.map((f) => m[f]);
    return fam.every((v) => Number.isFinite(v)) && !('in_distribution' in m)
      ? [{ run, seed, measure: 'in_distribution', value: mean(fam) }]
      : [];
  });
  return [...rows, ...extra];
}

/**
 * `reproduced` when the 95% interval of the difference lies on the claimed side of 0, `contradicted` when it lies
 * on the other side, else `inconclusive` (also with one seed, where no interval exists).
 */
export function verdict(d: { ci_low: number | ''; ci_high: number | '' } | null, sign: 1 | -1): string {
  if (!d || d.ci_low === '' || d.ci_high === '') return 'inconclusive';
  if (sign > 0 ? d.ci_low > 0 : d.ci_high < 0) return 'reproduced';
  if (sign > 0 ? d.ci_high < 0 : d.ci_low > 0) return 'contradicted';
  return 'inconclusive';
}

/** A claim's measure as its tables name it ("a - b" when it compares two measures). */
const measureOf = (c: Claim) => (c.measureB && c.measureB !== c.measure ? `${c.measure} - ${c.measureB}` : c.measure);

/** One row per claim: the paired difference, its interval, the seeds it rests on and the verdict. */
export function claimRows(scores: Map<string, Map<string, Scores>>, claims: Claim[], profile: string): Row[] {
  return claims.map((c) => {
    const d = pairedDifference(scores, c.a, c.b, c.measure, c.measureB);
    return {
      profile,
      claim: c.claim,
      run: c.a,
      against: c.b,
      measure: measureOf(c),
      endpoint: c.endpoint ?? measureOf(c),
      expected_sign: c.sign > 0 ? '+' : '-',
      delta: d?.delta ?? '',
      ci_low: d?.ci_low ?? '',
      ci_high: d?.ci_high ?? '',
      seeds: d?.seeds ?? 0,
      verdict: verdict(d, c.sign),
    };
  });
}

/** Columns of a power file beside a claims table (`claimPowerRows`): the claim's key, its verdict, its power. */
export const CLAIM_POWER_COLUMNS = [
  'profile',
  'claim',
  'run',
  'against',
  'measure',
  'endpoint',
  'expected_sign',
  'verdict',
  ...POWER_COLUMNS,
];

/**
 * One row per claim (as `claimRows`): the power of the paired comparison behind its verdict, from the same per-seed
 * differences (`pairedDiffs`): seeds, mean difference, sd, the 95% interval's half-width, the minimum detectable
 * effect at 80% power, the power at a true difference of 0.03 (either sign: the test is two-sided) and whether
 * the comparison could detect it (src/util/power.ts); empty, with a note, where there are fewer than two seeds.
 */
export function claimPowerRows(scores: Map<string, Map<string, Scores>>, claims: Claim[], profile: string): Row[] {
  return claims.map((c) => {
    const d = pairedDifference(scores, c.a, c.b, c.measure, c.measureB);
    return {
      profile,
      claim: c.claim,
      run: c.a,
      against: c.b,
      measure: measureOf(c),
      endpoint: c.endpoint ?? measureOf(c),
      expected_sign: c.sign > 0 ? '+' : '-',
      verdict: verdict(d, c.sign),
      ...powerCells(pairedDiffs(scores, c.a, c.b, c.measure, c.measureB)),
    };
  });
}
