// Formulas of the binary theory against values computed by hand (K = 3 has closed forms).
import { strict as assert } from 'node:assert';
import { binomialPmf, choose, majorityCorrectProb, voteMoments } from '../src/theory/binomial.js';
import {
  coTrainingRate,
  eigenvalues2x2,
  F,
  phi,
  phiSlopeAtHalf,
  q,
  saddleEigenvaluesClosedForm,
  saddleEigenvaluesNumeric,
  selfRewardRate,
} from '../src/theory/dynamics.js';

const close = (a: number, b: number, tol = 1e-12, what = '') =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} vs ${b} (tol ${tol})`);

describe('binomial expectations', () => {
  it('pmf of Bin(3, 1/2) is 1/8, 3/8, 3/8, 1/8 and sums to 1 for any p', () => {
    binomialPmf(3, 0.5).forEach((v, i) => close(v, [1, 3, 3, 1][i] / 8));
    for (const p of [0, 0.13, 0.5, 0.77, 1])
      close(
        binomialPmf(11, p).reduce((a, b) => a + b, 0),
        1,
        1e-12,
      );
  });
  it('choose matches Pascal values', () => {
    assert.equal(choose(10, 3), 120);
    assert.equal(choose(4, 2), 6);
    assert.equal(choose(5, 7), 0);
  });
  it('majority-vote probability of K = 3 is 3p^2 - 2p^3', () => {
    for (const p of [0.1, 0.5, 0.7]) close(majorityCorrectProb(3, p), 3 * p * p - 2 * p ** 3, 1e-14);
  });
  it('voteMoments agrees with phi and q', () => {
    for (const K of [1, 3, 9])
      for (const p of [0.05, 0.4, 0.5, 0.93]) {
        const m = voteMoments(K, p);
        close(m.phi, phi(p, K), 1e-13);
        close(p * (1 - p) * m.meanStd, q(p, { K, eta: 1 }), 1e-14);
      }
  });
});

describe('dynamics, K = 3 by hand', () => {
  // For K = 3: E[sign(C-3/2) sqrt(C(3-C))/3] = sqrt2 p(1-p)(2p-1), E[sqrt(C(3-C))/3] = sqrt2 p(1-p)
  const prm = { K: 3, eta: 1 };
  it('self-reward rate = sqrt2 p^2 (1-p)^2 (2p-1); at p = 0.7 it is 0.0249467', () => {
    for (const p of [0.2, 0.5, 0.7])
      close(selfRewardRate(p, prm), Math.SQRT2 * p * p * (1 - p) ** 2 * (2 * p - 1), 1e-15);
    close(selfRewardRate(0.7, prm), 0.02494673, 1e-8);
    close(selfRewardRate(0.7, { K: 3, eta: 2.5 }), 2.5 * 0.02494673, 1e-7);
  });
  it('q_3(p) = sqrt2 p^2 (1-p)^2 and phi_3(0.7) = 0.568', () => {
    close(q(0.7, prm), Math.SQRT2 * 0.49 * 0.09, 1e-15);
    close(phi(0.7, 3), 0.568, 1e-14);
  });
  it('co-training rate is (q(pA) phi(pB), q(pB) phi(pA))', () => {
    const [a, b] = coTrainingRate([0.7, 0.4], prm);
    close(a, q(0.7, prm) * phi(0.4, 3));
    close(b, q(0.4, prm) * phi(0.7, 3));
    assert.ok(a < 0 && b > 0, 'below-1/2 partner pulls A down, above-1/2 partner pushes B up');
  });
  it("phi'_K(1/2) = 2K C(K-1,(K-1)/2) 2^-(K-1): 3 for K = 3, 15/4 for K = 5", () => {
    close(phiSlopeAtHalf(3), 3);
    close(phiSlopeAtHalf(5), 3.75);
    close(phiSlopeAtHalf(1), 2); // phi_1(p) = 2p - 1
  });
  it('saddle eigenvalue of K = 3 is q_3(1/2) * 3 = 3 sqrt2 / 16', () => {
    close(saddleEigenvaluesClosedForm(prm)[0], (3 * Math.SQRT2) / 16, 1e-15);
  });
});

describe('saddle at (1/2, 1/2)', () => {
  it("numeric Jacobian eigenvalues equal +-q_K(1/2) phi'_K(1/2) for odd K up to 21", () => {
    for (let K = 1; K <= 21; K += 2) {
      const [n1, n2] = saddleEigenvaluesNumeric({ K, eta: 1 }),
        [c1, c2] = saddleEigenvaluesClosedForm({ K, eta: 1 });
      close(n1, c1, 1e-8, `K=${K} unstable`);
      close(n2, c2, 1e-8, `K=${K} stable`);
      if (K > 1) assert.ok(n1 > 0 && n2 < 0, 'a saddle has one positive and one negative eigenvalue');
    }
  });
  it('eigenvalues2x2 of a known matrix', () => {
    const [a, b] = eigenvalues2x2([
      [2, 1],
      [1, 2],
    ]);
    close(a, 3);
    close(b, 1);
    assert.throws(
      () =>
        eigenvalues2x2([
          [0, -1],
          [1, 0],
        ]),
      /complex/,
    );
  });
});

describe('F_K, the conserved quantity', () => {
  const prm = { K: 5, eta: 1 };
  it('is 0 at 1/2, even about 1/2, increasing away from it', () => {
    close(F(0.5, prm), 0);
    for (const x of [0.1, 0.25, 0.4]) close(F(0.5 + x, prm), F(0.5 - x, prm), 1e-9, `x=${x}`);
    assert.ok(F(0.8, prm) > F(0.7, prm) && F(0.7, prm) > 0);
  });
  it('has derivative phi_K / q_K (central difference)', () => {
    for (const p of [0.2, 0.6, 0.85]) {
      const h = 1e-5,
        d = (F(p + h, prm) - F(p - h, prm)) / (2 * h);
      close(d, phi(p, 5) / q(p, prm), 1e-5 * Math.abs(d), `p=${p}`);
    }
  });
});
