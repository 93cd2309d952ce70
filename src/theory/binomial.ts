// Exact binomial distribution for small K: the expectations in CO-RL's binary reduction are finite sums.
import { requireOddK, requireProbability, requireInteger } from '../util/validate.js';

/** C(n, k) as a float, multiplicative form (exact for the n <= 60 used here). */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  k = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/** P(C = c) for c = 0..K, C ~ Bin(K, p). Math.pow(0, 0) = 1 makes p in {0, 1} exact. */
export function binomialPmf(K: number, p: number): number[] {
  requireInteger('K', K, 0);
  requireProbability('p', p);
  const pmf: number[] = [];
  for (let c = 0; c <= K; c++) pmf.push(choose(K, c) * Math.pow(p, c) * Math.pow(1 - p, K - c));
  return pmf;
}

/** E[f(C)] for C ~ Bin(K, p). */
export function binomialExpect(K: number, p: number, f: (c: number) => number): number {
  const pmf = binomialPmf(K, p);
  let s = 0;
  for (let c = 0; c <= K; c++) if (pmf[c] !== 0) s += pmf[c] * f(c);
  return s;
}

/** V_K(p) = P(Bin(K, p) > K/2): the probability that a K-sample majority vote is correct (K odd). */
export function majorityCorrectProb(K: number, p: number): number {
  requireOddK('K', K);
  return binomialExpect(K, p, (c) => (c > K / 2 ? 1 : 0));
}

/** Binomial coefficients C(K, c), c = 0..K, cached per K (hot path of the ODE integrations). */
const coefficientCache = new Map<number, Float64Array>();
export function binomialCoefficients(K: number): Float64Array {
  let c = coefficientCache.get(K);
  if (!c) {
    c = Float64Array.from({ length: K + 1 }, (_, i) => choose(K, i));
    coefficientCache.set(K, c);
  }
  return c;
}

export interface VoteMoments {
  /** phi_K(p) = 2 P(C > K/2) - 1 */
  phi: number;
  /** E[sqrt(C(K-C))/K] */
  meanStd: number;
  /** E[sign(C - K/2) sqrt(C(K-C))/K] */
  signedMeanStd: number;
}

/** Per-K constants of voteMoments: C(K,c), sign(c - K/2) and sqrt(c(K-c))/K. */
const momentTables = new Map<
  number,
  { coef: Float64Array; sign: Float64Array; std: Float64Array; qPow: Float64Array }
>();

/** The three expectations the dynamics need, in one unchecked pass over c (callers validate K and p). */
export function voteMoments(K: number, p: number): VoteMoments {
  let t = momentTables.get(K);
  if (!t) {
    const c = Array.from({ length: K + 1 }, (_, i) => i);
    t = {
      coef: binomialCoefficients(K),
      sign: Float64Array.from(c, (i) => Math.sign(i - K / 2)),
      std: Float64Array.from(c, (i) => Math.sqrt(i * (K - i)) / K),
      qPow: new Float64Array(K + 1),
    };
    momentTables.set(K, t);
  }
  const { coef, sign, std, qPow } = t;
  qPow[0] = 1;
  for (let c = 1; c <= K; c++) qPow[c] = qPow[c - 1] * (1 - p);
  let phi = 0,
    meanStd = 0,
    signedMeanStd = 0,
    pPow = 1;
  for (let c = 0; c <= K; c++) {
    const pr = coef[c] * pPow * qPow[K - c];
    phi += sign[c] * pr;
    meanStd += pr * std[c];
    signedMeanStd += pr * sign[c] * std[c];
    pPow *= p;
  }
  return { phi, meanStd, signedMeanStd };
}
