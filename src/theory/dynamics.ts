// CO-RL's binary-answer reduction (docs/theory.md, The binary theory): answers collapse to {correct, wrong},
// p = P(correct), K odd samples per step, GRPO with group-normalised advantages, clipping and KL ignored.
import { binomialExpect, choose, majorityCorrectProb, voteMoments } from './binomial.js';
import { requireFinite, requireNonNegative, requireOddK, requireProbability } from '../util/validate.js';

export interface TheoryParams {
  /** samples per prompt and step (odd, so a majority vote never ties) */
  K: number;
  /** update rate eta of the log-odds dynamics */
  eta: number;
}

export function checkParams({ K, eta }: TheoryParams): void {
  requireOddK('K', K);
  requireNonNegative('eta', eta);
}

/** Group std of binary rewards with C of K correct: s_K(C) = sqrt(C(K-C))/K. */
const groupStd = (K: number) => (c: number) => Math.sqrt(c * (K - c)) / K;

/** Self-rewarding (eq. 7): dp/dt = eta p(1-p) E_C[sign(C - K/2) sqrt(C(K-C))/K]. */
export function selfRewardRate(p: number, prm: TheoryParams): number {
  checkParams(prm);
  requireProbability('p', p);
  const s = groupStd(prm.K);
  return prm.eta * p * (1 - p) * binomialExpect(prm.K, p, (c) => Math.sign(c - prm.K / 2) * s(c));
}

/** phi_K(p) = 2 P(Bin(K,p) > K/2) - 1: the expected sign of a peer's majority-vote label. */
export function phi(p: number, K: number): number {
  return 2 * majorityCorrectProb(K, p) - 1;
}

/** q_K(p) = eta p(1-p) E_C[sqrt(C(K-C))/K] >= 0: the learning speed under a fixed label. */
export function q(p: number, prm: TheoryParams): number {
  checkParams(prm);
  requireProbability('p', p);
  return prm.eta * p * (1 - p) * binomialExpect(prm.K, p, groupStd(prm.K));
}

/** Co-training (eq. 9): dpA/dt = q(pA) phi(pB), dpB/dt = q(pB) phi(pA). */
export function coTrainingRate([pA, pB]: readonly number[], prm: TheoryParams): [number, number] {
  requireProbability('pA', pA);
  requireProbability('pB', pB);
  return [q(pA, prm) * phi(pB, prm.K), q(pB, prm) * phi(pA, prm.K)];
}

/** phi'_K(1/2) = 2K C(K-1, (K-1)/2) 2^-(K-1) (derivative of the majority-vote probability at 1/2). */
export function phiSlopeAtHalf(K: number): number {
  requireOddK('K', K);
  return 2 * K * choose(K - 1, (K - 1) / 2) * Math.pow(2, -(K - 1));
}

/** Closed-form eigenvalues of the co-training Jacobian at the saddle (1/2, 1/2): +-q_K(1/2) phi'_K(1/2). */
export function saddleEigenvaluesClosedForm(prm: TheoryParams): [number, number] {
  const lam = q(0.5, prm) * phiSlopeAtHalf(prm.K);
  return [lam, -lam];
}

/** Central-difference Jacobian of a 2-D vector field at x. */
export function numericJacobian(f: (x: number[]) => number[], x: number[], h = 1e-6): number[][] {
  const J = [
    [0, 0],
    [0, 0],
  ];
  for (let j = 0; j < 2; j++) {
    const xp = [...x],
      xm = [...x];
    xp[j] += h;
    xm[j] -= h;
    const fp = f(xp),
      fm = f(xm);
    for (let i = 0; i < 2; i++) J[i][j] = (fp[i] - fm[i]) / (2 * h);
  }
  return J;
}

/** Eigenvalues of a real 2x2 matrix, sorted descending; throws on a complex pair (not expected here). */
export function eigenvalues2x2(J: number[][]): [number, number] {
  const tr = J[0][0] + J[1][1];
  const det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const disc = (tr * tr) / 4 - det;
  if (disc < 0) throw new Error(`complex eigenvalues (discriminant ${disc})`);
  const r = Math.sqrt(disc);
  return [tr / 2 + r, tr / 2 - r];
}

/** Numerically computed eigenvalues of the co-training field at (1/2, 1/2). */
export function saddleEigenvaluesNumeric(prm: TheoryParams): [number, number] {
  return eigenvalues2x2(numericJacobian((x) => coTrainingRate(x, prm), [0.5, 0.5]));
}

// 16-point Gauss-Legendre nodes and weights on [-1, 1], used for F_K.
const GL_X = [
  0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438, 0.755404408355003, 0.8656312023878318,
  0.9445750230732326, 0.9894009349916499,
];
const GL_W = [
  0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767, 0.1246289712555339,
  0.0951585116824928, 0.0622535239386479, 0.0271524594117541,
];

/**
 * F_K(p) = integral from 1/2 to p of phi_K(u)/q_K(u) du. F_K(pA) - F_K(pB) is conserved by eq. (9).
 * The integrand is a polynomial ratio, smooth on (0,1); composite Gauss-Legendre on `panels` pieces
 * is accurate to ~1e-10 away from the endpoints, where F diverges (q ~ (1-p)^2).
 */
export function F(p: number, prm: TheoryParams, panels = 16): number {
  requireProbability('p', p);
  if (p === 0 || p === 1) return Infinity;
  checkParams(prm);
  if (prm.eta === 0) throw new Error('F_K is undefined for eta = 0 (q_K vanishes)');
  const g = (u: number) => {
    const m = voteMoments(prm.K, u);
    return m.phi / (prm.eta * u * (1 - u) * m.meanStd);
  };
  const a = 0.5,
    h = (p - a) / panels;
  let s = 0;
  for (let i = 0; i < panels; i++) {
    const mid = a + (i + 0.5) * h,
      half = h / 2;
    for (let j = 0; j < GL_X.length; j++) s += GL_W[j] * half * (g(mid + half * GL_X[j]) + g(mid - half * GL_X[j]));
  }
  return requireFinite('F_K(p)', s);
}
