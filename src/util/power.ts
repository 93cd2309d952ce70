// Statistical power of the paired comparisons every claims table makes (docs/sensitivity.md): for a claim resting on
// n per-seed paired differences with standard deviation sd, the 95% interval's half-width, the minimum detectable
// effect (MDE: the true difference a two-sided paired t-test at alpha 0.05 detects with 80% power, from the exact
// noncentral t distribution), the power at a given effect, the seeds a target MDE needs; and the readings that pool
// cells (a DerSimonian-Laird random-effects mean, an exact sign test) and Holm's step-down adjustment.
import { logGamma, mean, normalSf, sampleSd, tQuantile95, tTestP, Z95 } from './stats.js';

/** The exact distribution functions of stats.ts, re-exported for the power analysis' callers (one implementation). */
export { logGamma, normalSf, tTestP };

/** Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre polynomial from Tricomi's start). */
export function gaussLegendre(n: number): { x: Float64Array; w: Float64Array } {
  const x = new Float64Array(n),
    w = new Float64Array(n);
  // P_n(z) and its derivative by the three-term recurrence
  const legendre = (z: number) => {
    let p1 = 1,
      p2 = 0;
    for (let j = 0; j < n; j++) {
      const p3 = p2;
      p2 = p1;
      p1 = ((2 * j + 1) * z * p2 - j * p3) / (j + 1);
    }
    return { p: p1, dp: (n * (z * p1 - p2)) / (z * z - 1) };
  };
  for (let i = 0; i < (n + 1) >> 1; i++) {
    let z = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    for (let it = 0; it < 100; it++) {
      const { p, dp } = legendre(z),
        step = p / dp;
      z -= step;
      if (Math.abs(step) <= 1e-16) break;
    }
    const { dp } = legendre(z);
    x[i] = -z;
    x[n - 1 - i] = z;
    w[i] = w[n - 1 - i] = 2 / ((1 - z * z) * dp * dp);
  }
  return { x, w };
}

/** The noncentral t's quadrature: 256 Gauss-Legendre nodes (relative error ~1e-15 against mpmath where tested). */
const NCT_NODES = gaussLegendre(256);

/**
 * P(T > c) for T noncentral t with `df` degrees of freedom and noncentrality `ncp`: T = (Z + ncp) / sqrt(V / df),
 * V chi-square(df), so P(T > c) = E[P(Z > c sqrt(V / df) - ncp)]. Integrated over u = sqrt(V) on [0, sqrt(df) + 12]
 * (the mass beyond is below e^-72), whose density 2 u^(df-1) exp(-u^2 / 2) / (2^(df/2) Gamma(df/2)) makes the
 * integrand analytic for every integer df >= 1, by Gauss-Legendre (NCT_NODES) with the exact normal tail.
 */
export function noncentralTSf(c: number, df: number, ncp = 0): number {
  if (!(df >= 1)) throw new Error(`degrees of freedom must be >= 1 (got ${df})`);
  const logNorm = Math.log(2) - (df / 2) * Math.log(2) - logGamma(df / 2);
  const half = (Math.sqrt(df) + 12) / 2,
    { x, w } = NCT_NODES;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const u = (x[i] + 1) * half;
    s += w[i] * Math.exp(logNorm + (df - 1) * Math.log(u) - (u * u) / 2) * normalSf((c * u) / Math.sqrt(df) - ncp);
  }
  return Math.min(1, Math.max(0, s * half));
}

/**
 * Power of the two-sided paired t-test at alpha 0.05 with n pairs whose differences have standard deviation sd, when
 * the true mean difference is `effect`: P(|T| > t_{0.975, n-1}) with T noncentral t(n - 1, effect sqrt(n) / sd).
 */
export function pairedPower(effect: number, sd: number, n: number): number {
  if (n < 2 || !(sd > 0)) throw new Error(`power needs n >= 2 and sd > 0 (got n ${n}, sd ${sd})`);
  const df = n - 1,
    c = tQuantile95(df),
    ncp = (effect * Math.sqrt(n)) / sd;
  return noncentralTSf(c, df, ncp) + noncentralTSf(c, df, -ncp);
}

/** Half-width of the two-sided 95% Student-t interval of a mean difference over n pairs. */
export const halfWidth = (sd: number, n: number) => (tQuantile95(n - 1) * sd) / Math.sqrt(n);

/** The minimum detectable effect at `power` (default 0.8): the effect whose pairedPower is `power` (bisection). */
export function mde(sd: number, n: number, power = 0.8): number {
  if (n < 2 || !(sd > 0)) throw new Error(`an MDE needs n >= 2 and sd > 0 (got n ${n}, sd ${sd})`);
  let lo = 0,
    hi = sd;
  while (pairedPower(hi, sd, n) < power) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const m = (lo + hi) / 2;
    if (pairedPower(m, sd, n) < power) lo = m;
    else hi = m;
  }
  return (lo + hi) / 2;
}

/** The fewest seeds (>= 2) whose MDE at sd is at most `target`, capped at `cap` (then `cap`, and `met` false). */
export function seedsFor(sd: number, target: number, cap = 20): { seeds: number; mde: number; met: boolean } {
  for (let n = 2; n <= cap; n++) {
    const m = mde(sd, n);
    if (m <= target) return { seeds: n, mde: m, met: true };
  }
  return { seeds: cap, mde: mde(sd, cap), met: false };
}

/** Sample standard deviation (n - 1): the one in stats.ts, re-exported for the power analysis' callers. */
export { sampleSd };

export interface PowerRow {
  seeds: number;
  delta: number;
  sd: number | null;
  half_width: number | null;
  mde: number | null;
  /** probability that the 95% interval excludes 0 when the true difference is +0.03 */
  power_at_0_03: number | null;
  /** the comparison could detect +0.03 with 80% power (mde <= 0.03) */
  detects_0_03: 'yes' | 'no' | '';
}

/** Power of one claim from its per-seed paired differences (null columns below two seeds or with no spread). */
export function powerOf(diffs: readonly number[], effect = 0.03): PowerRow {
  const n = diffs.length,
    delta = mean(diffs);
  if (n < 2) return { seeds: n, delta, sd: null, half_width: null, mde: null, power_at_0_03: null, detects_0_03: '' };
  const sd = sampleSd(diffs);
  if (!(sd > 0)) return { seeds: n, delta, sd, half_width: 0, mde: null, power_at_0_03: null, detects_0_03: '' };
  const m = mde(sd, n);
  return {
    seeds: n,
    delta,
    sd,
    half_width: halfWidth(sd, n),
    mde: m,
    power_at_0_03: pairedPower(effect, sd, n),
    detects_0_03: m <= effect ? 'yes' : 'no',
  };
}

/**
 * DerSimonian-Laird random-effects mean of per-cell estimates with standard errors: weights 1 / (se^2 + tau^2),
 * tau^2 the method-of-moments between-cell variance; the 95% interval is normal (mean +- z_{0.975} se, exact).
 */
export function randomEffects(
  est: readonly number[],
  se: readonly number[],
): { mean: number; se: number; ci_low: number; ci_high: number; tau2: number; cells: number } {
  const k = est.length;
  if (k === 0 || se.length !== k || se.some((s) => !(s > 0)))
    throw new Error('random effects need cells with standard errors > 0');
  const w = se.map((s) => 1 / s ** 2),
    sw = w.reduce((a, b) => a + b, 0);
  const fixed = est.reduce((a, e, i) => a + w[i] * e, 0) / sw;
  const q = est.reduce((a, e, i) => a + w[i] * (e - fixed) ** 2, 0);
  const c = sw - w.reduce((a, b) => a + b * b, 0) / sw;
  const tau2 = k > 1 && c > 0 ? Math.max(0, (q - (k - 1)) / c) : 0;
  const wr = se.map((s) => 1 / (s ** 2 + tau2)),
    swr = wr.reduce((a, b) => a + b, 0);
  const m = est.reduce((a, e, i) => a + wr[i] * e, 0) / swr,
    s = Math.sqrt(1 / swr);
  return { mean: m, se: s, ci_low: m - Z95 * s, ci_high: m + Z95 * s, tau2, cells: k };
}

/** Exact two-sided sign test: of `positive` + `negative` nonzero signs, p = P(as extreme under p = 1/2). */
export function signTest(positive: number, negative: number): number {
  const n = positive + negative,
    k = Math.min(positive, negative);
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logGamma(n + 1) - logGamma(i + 1) - logGamma(n - i + 1) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/** Holm's step-down adjusted p-values (same order as given; monotone, capped at 1). */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length,
    order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}

// ---- the power files beside the claims tables (results/*power.csv) ----

/** The columns a power file gives each claim row after its key columns: PowerRow's, then why any are empty. */
export const POWER_COLUMNS = ['seeds', 'delta', 'sd', 'half_width', 'mde', 'power_at_0_03', 'detects_0_03', 'note'];

/** Why a claim's power columns are empty ('' when they are not). */
export function powerNote(p: PowerRow): string {
  if (p.seeds === 0) return 'no seed with both sides measured: nothing to test';
  if (p.seeds === 1) return 'one paired seed: no spread, so no interval and no power';
  if (p.mde === null) return 'the per-seed differences are all equal: no spread, so no t-test and no power';
  return '';
}

/** `powerOf` as table cells (POWER_COLUMNS): '' for a missing value (delta too, with no seed) and the note. */
export function powerCells(diffs: readonly number[], effect = 0.03): Record<string, number | string> {
  const p = powerOf(diffs, effect),
    v = (x: number | null) => x ?? '';
  return {
    seeds: p.seeds,
    delta: p.seeds ? p.delta : '',
    sd: v(p.sd),
    half_width: v(p.half_width),
    mde: v(p.mde),
    power_at_0_03: v(p.power_at_0_03),
    detects_0_03: p.detects_0_03,
    note: powerNote(p),
  };
}

/** The columns of a pooled reading across cells (`pooledCells`). */
export const POOLED_COLUMNS = [
  'cells',
  'positive',
  'negative',
  'sign_p',
  'mean',
  'se',
  'ci_low',
  'ci_high',
  'tau2',
  'note',
];

/**
 * One comparison pooled across cells, each cell given by its per-seed paired differences: the DerSimonian-Laird
 * random-effects mean of the cells' mean differences (standard error sd / sqrt(n) each) with its 95% interval, and
 * the exact sign test over the cells' mean differences (positive, negative; a zero counts as neither). Only cells
 * with two seeds or more and some spread count (the note says how many were left out).
 */
export function pooledCells(cells: readonly (readonly number[])[]): Record<string, number | string> {
  const kept = cells.filter((d) => d.length >= 2 && sampleSd(d) > 0),
    left = cells.length - kept.length;
  const note = left ? `${left} cell(s) left out: fewer than two seeds or no spread` : '';
  if (kept.length === 0) {
    return {
      cells: 0,
      positive: '',
      negative: '',
      sign_p: '',
      mean: '',
      se: '',
      ci_low: '',
      ci_high: '',
      tau2: '',
      note: note || 'no cells',
    };
  }
  const est = kept.map((d) => mean(d)),
    se = kept.map((d) => sampleSd(d) / Math.sqrt(d.length));
  const positive = est.filter((e) => e > 0).length,
    negative = est.filter((e) => e < 0).length;
  const r = randomEffects(est, se);
  return {
    cells: kept.length,
    positive,
    negative,
    sign_p: signTest(positive, negative),
    mean: r.mean,
    se: r.se,
    ci_low: r.ci_low,
    ci_high: r.ci_high,
    tau2: r.tau2,
    note,
  };
}
