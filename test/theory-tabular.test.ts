// Finite-sample GRPO on tabular agents, and the error-overlap statistics.
import { strict as assert } from 'node:assert';
import {
  agentFromProbs,
  binaryAgent,
  correctProbs,
  majorityVote,
  trainTabular,
  type StepStats,
} from '../src/theory/tabular.js';
import { groupAdvantages } from '../src/rl/advantages.js';
const pop = (eps: number) => ({ std: 'population' as const, eps, singleton: 'zero' as const });
import { correlatedPair, errorOverlap, sampleOnce } from '../src/theory/overlap.js';
import { defaultTheoryConfig, stochasticVsOde } from '../src/theory/experiments.js';
import { makeRng, type Rng } from '../src/util/random.js';

const close = (a: number, b: number, tol = 1e-12, what = '') =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} vs ${b}`);
const logit = (p: number) => Math.log(p / (1 - p));

/** An Rng whose categorical draws follow a script (then repeat its last value). */
function scripted(draws: number[]): Rng {
  let i = 0;
  const r = makeRng(0);
  return { ...r, categorical: () => draws[Math.min(i++, draws.length - 1)] };
}

describe('GRPO advantages', () => {
  it('are (r - mean)/std with the population std', () => {
    assert.deepEqual(Array.from(groupAdvantages([1, 0, 0, 1], pop(0))), [1, -1, -1, 1]);
    const a = groupAdvantages([1, 0, 0], pop(0)); // mean 1/3, std sqrt(2)/3
    close(a[0], 2 / 3 / (Math.SQRT2 / 3));
    close(a[1], -1 / 3 / (Math.SQRT2 / 3));
  });
  it('are zero for a group of identical rewards and for a group of one', () => {
    assert.deepEqual(Array.from(groupAdvantages([1, 1, 1], pop(1e-6))), [0, 0, 0]);
    assert.deepEqual(Array.from(groupAdvantages([0, 0], pop(1e-6))), [0, 0]);
    assert.deepEqual(Array.from(groupAdvantages([1], pop(1e-6))), [0]);
  });
});

describe('majority vote', () => {
  it('picks the plurality; ties go to the answer seen first', () => {
    assert.equal(majorityVote([1, 0, 0], 2), 0);
    assert.equal(majorityVote([2, 1, 1, 2], 3), 2);
    assert.equal(majorityVote([3, 1, 2], 4), 3);
  });
});

describe('tabular GRPO step', () => {
  it('moves the binary log-odds by 2 lr (2Z-1) sqrt(C(K-C))/K, as the ODE reduction says', () => {
    // K = 3, own samples [0, 0, 1] (C = 2), self-reward label = 0 (correct, Z = 1)
    const agent = binaryAgent([0.6]);
    trainTabular([agent], 'self_reward', { K: 3, lr: 0.1, steps: 1, advantageEps: 0 }, scripted([0, 0, 1, 0]));
    const l1 = logit(correctProbs(agent)[0]);
    close(l1 - logit(0.6), (2 * 0.1 * Math.sqrt(2)) / 3, 1e-12);
  });
  it("co-training rewards each agent against the peer's vote", () => {
    // A samples [1,1,0] (votes wrong), B samples [0,0,0] (votes correct). A is rewarded toward B's label 0.
    const A = binaryAgent([0.5]),
      B = binaryAgent([0.5]);
    trainTabular([A, B], 'co_training', { K: 3, lr: 0.1, steps: 1, advantageEps: 0 }, scripted([1, 1, 0, 0, 0, 0, 0]));
    close(logit(correctProbs(A)[0]), (2 * 0.1 * Math.sqrt(2)) / 3, 1e-12, 'A moved up');
    // B's group is all correct against A's wrong label: identical rewards, no update
    close(logit(correctProbs(B)[0]), 0, 1e-15, 'B unchanged');
  });
  it('logs accuracy, pseudo-label accuracy, agreement and reward std per step', () => {
    const stats: StepStats[] = [];
    trainTabular(
      [binaryAgent([0.7, 0.7]), binaryAgent([0.6, 0.6])],
      'co_training',
      { K: 5, lr: 0.05, steps: 3, advantageEps: 1e-6 },
      makeRng(1),
      (s) => stats.push(s),
    );
    assert.equal(stats.length, 4);
    close(stats[0].accuracy[0], 0.7, 1e-12);
    for (const s of stats)
      for (const v of [...s.pseudoLabelAccuracy, s.agreement, ...s.rewardStd]) assert.ok(v >= 0 && v <= 1);
  });
  it('rejects bad configs by name', () => {
    const a = binaryAgent([0.5]);
    assert.throws(
      () => trainTabular([a], 'self_reward', { K: 4, lr: 0.1, steps: 1, advantageEps: 0 }, makeRng(0)),
      /K must be an odd integer/,
    );
    assert.throws(
      () => trainTabular([a], 'self_reward', { K: 3, lr: -1, steps: 1, advantageEps: 0 }, makeRng(0)),
      /lr must be > 0/,
    );
    assert.throws(
      () => trainTabular([a], 'co_training', { K: 3, lr: 1, steps: 1, advantageEps: 0 }, makeRng(0)),
      /at least 2 agents/,
    );
    assert.throws(() => binaryAgent([1.2]), /p\[0\]/);
    assert.throws(() => agentFromProbs([[1]]), /answers per problem/);
  });
});

describe('finite-sample co-training against the ODE', () => {
  const c = {
    ...defaultTheoryConfig,
    stochastic: { ...defaultTheoryConfig.stochastic, replicates: 60, offsets: [-0.3, 0, 0.3], pathOffsets: [0.3] },
  };
  const { basin, paths } = stochasticVsOde(c, 0, makeRng(7));
  it('agrees with the ODE away from the separatrix', () => {
    const at = (o: number) => basin.find((r) => r.offset === o)!;
    assert.equal(at(-0.3).stochastic_share_correct, 0);
    assert.equal(at(0.3).stochastic_share_correct, 1);
    const last = paths[paths.length - 1];
    close(Number(last.stochastic_accuracy), Number(last.ode_accuracy), 0.03, 'final accuracy on the path');
  });
  it('is noisy on the separatrix: replicates split between the sinks', () => {
    const s = Number(basin.find((r) => r.offset === 0)!.stochastic_share_correct);
    assert.ok(s > 0.15 && s < 0.85, `share ${s}`);
  });
});

describe('error overlap (CO-RL Tables 5-7 statistics)', () => {
  it('matches a hand-computed 2x2 table', () => {
    // A correct on 0,1,2; B correct on 0,1,5. Both wrong on 3 (same answer 1) and 4 (answers 1 vs 2).
    const o = errorOverlap([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 2, 0]);
    close(o.kappa, 1 / 3);
    close(o.complementarity, 2 / 6);
    close(o.wrongAgreement, 1 / 6);
    close(o.oracle, 4 / 6);
  });
  it('gives kappa 1 for identical answers and ~0 for independent agents', () => {
    close(errorOverlap([0, 1, 0, 2], [0, 1, 0, 2]).kappa, 1);
    const rng = makeRng(3);
    const [a, b] = correlatedPair(
      { problems: 4000, answers: 4, rho: 0, baseLogit: 0, skillScale: 2, wrongScale: 1 },
      rng,
    );
    assert.ok(Math.abs(errorOverlap(sampleOnce(a, rng), sampleOnce(b, rng)).kappa) < 0.06);
  });
  it('grows with the latent correlation rho', () => {
    const k = (rho: number) => {
      const rng = makeRng(11);
      const [a, b] = correlatedPair(
        { problems: 3000, answers: 4, rho, baseLogit: 0, skillScale: 3, wrongScale: 1 },
        rng,
      );
      return errorOverlap(sampleOnce(a, rng), sampleOnce(b, rng)).kappa;
    };
    assert.ok(k(0) < k(0.5) && k(0.5) < k(1), `${k(0)} ${k(0.5)} ${k(1)}`);
  });
  it('rejects mismatched inputs and bad pair specs', () => {
    assert.throws(() => errorOverlap([0, 1], [0]), /equal length/);
    assert.throws(
      () =>
        correlatedPair({ problems: 10, answers: 4, rho: 1.5, baseLogit: 0, skillScale: 1, wrongScale: 1 }, makeRng(0)),
      /rho/,
    );
  });
});

describe('seeded random numbers', () => {
  it('are reproducible per seed and differ across seeds', () => {
    const a = makeRng(5),
      b = makeRng(5),
      c = makeRng(6);
    const xs = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(
      xs,
      Array.from({ length: 5 }, () => b.next()),
    );
    assert.notDeepEqual(
      xs,
      Array.from({ length: 5 }, () => c.next()),
    );
  });
  it('draw categorical frequencies close to the weights', () => {
    const r = makeRng(9),
      n = 20000,
      counts = [0, 0, 0];
    for (let i = 0; i < n; i++) counts[r.categorical([0.2, 0.5, 0.3])]++;
    [0.2, 0.5, 0.3].forEach((w, i) => close(counts[i] / n, w, 0.015));
  });
});
