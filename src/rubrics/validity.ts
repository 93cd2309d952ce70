// RLCER's validity test for a criterion on one prompt's rollouts: its satisfaction v (0/1 per rollout)
// must vary (std > 0) and correlate with correctness z: Pearson corr(v, z) > threshold (0.2 in the paper).

/** Pearson correlation; null when either side is constant (the correlation is undefined). */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length;
  if (n !== y.length) throw new Error(`pearson: lengths differ (${n} vs ${y.length})`);
  let mx = 0, my = 0;
  for (let i = 0; i < n; i++) { mx += x[i]; my += y[i]; }
  mx /= n; my /= n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) { const a = x[i] - mx, b = y[i] - my; sxy += a * b; sxx += a * a; syy += b * b; }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** Valid iff satisfaction varies and corr(v, z) > threshold (a constant z makes every criterion invalid). */
export function isValidCriterion(v: ArrayLike<number>, z: ArrayLike<number>, threshold = 0.2): boolean {
  const r = pearson(v, z);
  return r !== null && r > threshold;
}
