// The theory's claims checked on integrated trajectories: conservation, invariance, basins, worked example.
import { strict as assert } from 'node:assert';
import { F } from '../src/theory/dynamics.js';
import { geometricTimes, solveOde } from '../src/theory/ode.js';
import { coTrainingPath, finalState, selfRewardPath } from '../src/theory/trajectories.js';
import { basinGrid, defaultTheoryConfig, phaseInvariant, workedExample } from '../src/theory/experiments.js';
import { coTrainingRate } from '../src/theory/dynamics.js';

describe('ODE integrator', () => {
  it('solves the logistic equation within its stated error bound', () => {
    const times = [0, 0.5, 1, 2, 5, 10];
    const sol = solveOde((_t, [y]) => [y * (1 - y)], [0.1], times, { tol: 1e-6 });
    let worst = 0;
    sol.states.forEach(([y], i) => {
      worst = Math.max(worst, Math.abs(y - 1 / (1 + 9 * Math.exp(-times[i]))));
    });
    assert.ok(worst <= sol.errorBound, `true error ${worst} exceeds stated bound ${sol.errorBound}`);
    assert.ok(sol.errorBound < 1e-6, `bound ${sol.errorBound} is loose`);
  });
  it('reports a larger bound for a looser tolerance', () => {
    const f = (_t: number, [y]: number[]) => [Math.cos(3 * y)];
    const a = solveOde(f, [0], [0, 3], { tol: 1e-4 }),
      b = solveOde(f, [0], [0, 3], { tol: 1e-9 });
    assert.ok(a.errorBound > b.errorBound);
  });
  it('rejects bad input by name', () => {
    assert.throws(() => solveOde(() => [0], [NaN], [0, 1]), /y0\[0\]/);
    assert.throws(() => solveOde(() => [0], [0], [0, 2, 1]), /non-decreasing/);
    assert.throws(() => solveOde(() => [0], [0], [0, 1], { tol: -1 }), /tol must be > 0/);
  });
});

describe('self-rewarding (Prop. 2)', () => {
  it('goes to 1 exactly when p > 1/2, to 0 when p < 1/2, and 1/2 stays put', () => {
    for (const K of [3, 5, 9])
      for (const p of [0.05, 0.3, 0.45, 0.49, 0.51, 0.55, 0.7, 0.95]) {
        const end = finalState(selfRewardPath(p, { K, eta: 1 }, [0, 1e6]))[0];
        assert.ok(p > 0.5 ? end > 0.999 : end < 0.001, `K=${K} p0=${p} ended at ${end}`);
      }
    assert.equal(finalState(selfRewardPath(0.5, { K: 5, eta: 1 }, [0, 1e3]))[0], 0.5);
  });
});

describe('co-training (Theorem 1)', () => {
  const prm = { K: 5, eta: 1 };
  it('conserves F_K(pA) - F_K(pB) along trajectories', () => {
    for (const s of [
      [0.6, 0.45],
      [0.35, 0.55],
      [0.8, 0.3],
    ] as [number, number][]) {
      const path = coTrainingPath(s, prm, [0, 5, 10, 20, 40]);
      const c0 = F(s[0], prm) - F(s[1], prm);
      for (const [a, b] of path.states) assert.ok(Math.abs(F(a, prm) - F(b, prm) - c0) < 1e-6, `drift at ${a},${b}`);
    }
  });
  it('keeps the separatrix pA + pB = 1 invariant and flows along it to the saddle', () => {
    const path = coTrainingPath([0.3, 0.7], prm, [0, 10, 20, 30, 40]);
    for (const [a, b] of path.states) assert.ok(Math.abs(a + b - 1) < 1e-6, `left the line: ${a} + ${b}`);
    const [a] = finalState(path);
    assert.ok(Math.abs(a - 0.5) < Math.abs(0.3 - 0.5) / 10, `did not approach (1/2,1/2): ${a}`);
  });
  it('on a grid of starts ends at (1,1) exactly when pA + pB > 1 (outside a band), and self-rewarding per agent', () => {
    const c = { ...defaultTheoryConfig, Ks: [3, 7], gridStarts: 9 };
    const rows = basinGrid(c).filter((r) => !r.near_separatrix);
    assert.ok(rows.length > 100);
    for (const r of rows) {
      for (const ag of ['A', 'B']) {
        const fin = Number(r[`final_p${ag}`]),
          pred = Number(r[`predicted_p${ag}`]);
        assert.ok(
          Math.abs(fin - pred) < 1e-3,
          `${r.method} K=${r.K} start (${r.pA0},${r.pB0}) agent ${ag}: ${fin} vs ${pred}`,
        );
      }
    }
  });
  it('worked example: 0.5 under self-rewarding, 1.0 under co-training, for several K', () => {
    const rows = workedExample({ ...defaultTheoryConfig, Ks: [3, 5, 7, 11] });
    assert.equal(rows.length, 8);
    for (const r of rows) {
      const want = r.method === 'self_reward' ? 0.5 : 1;
      assert.ok(Math.abs(Number(r.final_accuracy) - want) < 1e-3, `K=${r.K} ${r.method}: ${r.final_accuracy}`);
    }
  });
  it('trajectories are slow near sinks (1 - p ~ 1/t), so the horizon matters', () => {
    const p = selfRewardPath(0.9, prm, geometricTimes(1e4, 5));
    const gaps = p.states.slice(2).map(([v]) => 1 - v);
    for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i] < gaps[i - 1]);
    assert.ok(gaps[gaps.length - 1] > 1e-6, 'at t = 1e4 the state is still measurably short of 1');
  });
});

describe("the phase portrait's level sets (phaseInvariant)", () => {
  const c = { ...defaultTheoryConfig, portraitK: 5 },
    prm = { K: 5, eta: c.eta };
  const rows = phaseInvariant(c, 9);
  const at = (pA: number, pB: number) =>
    Number(rows.find((r) => Math.abs(Number(r.pA) - pA) < 1e-12 && Math.abs(Number(r.pB) - pB) < 1e-12)!.F_diff);
  it('is F_K(pA) - F_K(pB) on the grid: zero on the diagonal, antisymmetric', () => {
    assert.equal(rows.length, 81);
    const g = [...new Set(rows.map((r) => Number(r.pA)))];
    assert.deepEqual([g[0], g[g.length - 1]], [0.025, 0.975]);
    for (const p of g) assert.equal(at(p, p), 0);
    for (const a of g) for (const b of g) assert.ok(Math.abs(at(a, b) + at(b, a)) < 1e-12);
    assert.ok(Math.abs(at(g[6], g[1]) - (F(g[6], prm) - F(g[1], prm))) < 1e-12);
    assert.ok(at(g[7], g[4]) > 0, 'F_K grows away from 1/2 (F_K(1/2) = 0)');
  });
  it('is constant along the flow: its gradient is orthogonal to the vector field', () => {
    // dF/dt = F'(pA) dpA/dt - F'(pB) dpB/dt = 0, by central differences of F at an interior point
    const [pA, pB] = [0.62, 0.31],
      h = 1e-5;
    const dF = (p: number) => (F(p + h, prm) - F(p - h, prm)) / (2 * h);
    const [vA, vB] = coTrainingRate([pA, pB], prm);
    assert.ok(Math.abs(dF(pA) * vA - dF(pB) * vB) < 1e-6 * Math.hypot(vA, vB));
  });
});
