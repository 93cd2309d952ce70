// RL engine formulas against hand-computed values, and a gradient check of the PPO loss.
import { strict as assert } from 'node:assert';
import { defaultGroupNorm, gae, groupAdvantages, whiten } from '../src/rl/advantages.js';
import { grpoAdvantages } from '../src/rl/grpo.js';
import type { Rollout } from '../src/rl/rollout.js';
import { clippedSurrogate, clippedValueLoss, klK3, tokenMean } from '../src/rl/losses.js';
import { initBackend, tf } from '../src/models/backend.js';
import { roleAdvantages } from '../src/rl/ppo.js';
import {
  accuracyColumns,
  cellRow,
  classifyStyle,
  familyAccuracy,
  majCorrect,
  majorityAnswer,
  passAtK,
  scoreProblem,
} from '../src/rl/evaluate.js';
import { outcomeReward } from '../src/rl/trainer.js';
import { solve } from '../src/world/problems.js';
import { isCorrect, parseTrace } from '../src/world/trace.js';
import { clipByGlobalNorm, optimizerState, restoreOptimizer, type OptimizerState } from '../src/rl/optim.js';

const close = (a: number, b: number, tol = 1e-9, what = '') =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} vs ${b}`);
const val = (t: tf.Tensor) => t.dataSync()[0];

describe('GRPO group advantages (decided edge cases)', () => {
  it('use the Bessel std + eps by default', () => {
    const a = groupAdvantages([1, -1, -1, 1]); // mean 0, sample std sqrt(4/3)
    close(a[0], 1 / (Math.sqrt(4 / 3) + 1e-6), 1e-12);
    close(a[1], -1 / (Math.sqrt(4 / 3) + 1e-6), 1e-12);
  });
  it('give zeros when all rewards are equal, and a group of one gets 0 (or its raw reward if asked)', () => {
    assert.deepEqual(Array.from(groupAdvantages([1, 1, 1])), [0, 0, 0]);
    assert.deepEqual(Array.from(groupAdvantages([-1, -1])), [0, 0]);
    assert.deepEqual(Array.from(groupAdvantages([0.7])), [0]);
    assert.deepEqual(Array.from(groupAdvantages([0.7], { std: 'sample', eps: 1e-6, singleton: 'raw' })), [0.7]);
  });
  it("Dr. GRPO ('none') only subtracts the mean", () => {
    assert.deepEqual(Array.from(groupAdvantages([3, 1], { std: 'none', eps: 1e-6, singleton: 'zero' })), [1, -1]);
  });
  it('reject an empty group', () => assert.throws(() => groupAdvantages([]), /at least one/));
  it("Dr. GRPO ('none') does not divide by the std, and the default norm is Bessel, eps 1e-6, singleton 'zero'", () => {
    // [4, 0]: mean 2 -> [2, -2] (the population std, 2, would give [1, -1]); [3, 0, 0]: mean 1 -> [2, -1, -1]
    assert.deepEqual(Array.from(groupAdvantages([4, 0], { std: 'none', eps: 1e-6, singleton: 'zero' })), [2, -2]);
    assert.deepEqual(
      Array.from(groupAdvantages([3, 0, 0], { std: 'none', eps: 1e-6, singleton: 'zero' })),
      [2, -1, -1],
    );
    // the default is what a run's config records
    assert.deepEqual(defaultGroupNorm, { std: 'sample', eps: 1e-6, singleton: 'zero' });
  });
});

describe('GAE', () => {
  it('matches a hand computation (gamma 0.9, lambda 0.5)', () => {
    // rewards [0, 0, 1], values [0.5, 0.4, 0.8]
    // delta2 = 1 - 0.8 = 0.2; delta1 = 0 + 0.9*0.8 - 0.4 = 0.32; delta0 = 0 + 0.9*0.4 - 0.5 = -0.14
    // A2 = 0.2; A1 = 0.32 + 0.45*0.2 = 0.41; A0 = -0.14 + 0.45*0.41 = 0.0445
    const { advantages, returns } = gae([0, 0, 1], [0.5, 0.4, 0.8], 0.9, 0.5);
    [0.0445, 0.41, 0.2].forEach((v, i) => close(advantages[i], v, 1e-12, `A${i}`));
    [0.5445, 0.81, 1.0].forEach((v, i) => close(returns[i], v, 1e-12, `R${i}`));
  });
  it('with gamma = lambda = 1 and a final reward, A_t = R - V_t', () => {
    const { advantages } = gae([0, 0, 0, 2], [0.1, 0.2, 0.3, 0.4], 1, 1);
    [1.9, 1.8, 1.7, 1.6].forEach((v, i) => close(advantages[i], v, 1e-12));
  });
  it('whitening gives mean 0 and std 1 across all responses', () => {
    const xs = [Float64Array.from([1, 2]), Float64Array.from([3, 4, 5])];
    whiten(xs);
    const all = xs.flatMap((x) => Array.from(x));
    close(
      all.reduce((a, b) => a + b, 0),
      0,
      1e-12,
    );
    close(Math.sqrt(all.reduce((a, b) => a + b * b, 0) / all.length), 1, 1e-6);
  });
});

describe('PPO advantages per role (golden, hand-computed)', () => {
  // Two roles in one batch, advantages whitened within each role: mean 0 and std 1 per role, not over the batch.
  it('whitens each role to mean 0 and std 1 on its own tokens', () => {
    // gamma = lambda = 1, reward on the last token: A_t = reward - V_t, returns = reward (unwhitened).
    // reason: 1-token completions, rewards [1, 2, 3], V = 0.5 -> A = [0.5, 1.5, 2.5]: mean 1.5, population std
    //   sqrt(2/3) -> whitened [-sqrt(3/2), 0, sqrt(3/2)] = [-1.2247, 0, 1.2247]
    // rubric: 2-token completions, rewards [10, 10, 40], V = 0 -> A = [10, 10], [10, 10], [40, 40]: mean 20,
    //   std sqrt((4 * 100 + 2 * 400) / 6) = 10 sqrt(2) -> whitened -1/sqrt(2) (x4) and sqrt(2) (x2)
    // (whitened over the whole batch instead: reason tokens -0.92, -0.85, -0.78; not whitened: the raw A.)
    const role = (rewards: number[], T: number, v: number) => ({
      rs: rewards.map((reward) => ({ reward, completion: Array.from({ length: T }, () => 5) })),
      values: rewards.map(() => Array.from({ length: T }, () => v)),
      logp: rewards.map(() => Array.from({ length: T }, () => 0)),
      refLogp: null,
    });
    const c = { gamma: 1, lambda: 1, klCoef: 0 };
    const [reason, rubric] = roleAdvantages([role([1, 2, 3], 1, 0.5), role([10, 10, 40], 2, 0)], c);
    const h = Math.sqrt(3 / 2),
      r2 = Math.SQRT2;
    const expectAdv = (got: Float64Array[], want: number[][], name: string) =>
      want.forEach((a, i) => a.forEach((x, t) => close(got[i][t], x, 1e-6, `${name} A[${i}][${t}]`)));
    expectAdv(reason.adv, [[-h], [0], [h]], 'reason');
    expectAdv(
      rubric.adv,
      [
        [-1 / r2, -1 / r2],
        [-1 / r2, -1 / r2],
        [r2, r2],
      ],
      'rubric',
    );
    for (const [name, r] of [
      ['reason', reason],
      ['rubric', rubric],
    ] as const) {
      const all = r.adv.flatMap((x) => Array.from(x));
      const m = all.reduce((a, b) => a + b, 0) / all.length;
      close(m, 0, 1e-9, `${name} mean`);
      close(Math.sqrt(all.reduce((a, b) => a + (b - m) ** 2, 0) / all.length), 1, 1e-6, `${name} std`);
    }
    assert.deepEqual(
      reason.ret.map((x) => Array.from(x)),
      [[1], [2], [3]],
    );
    assert.deepEqual(
      rubric.ret.map((x) => Array.from(x)),
      [
        [10, 10],
        [10, 10],
        [40, 40],
      ],
    );
    assert.equal(reason.kl, 0);
  });
  it('subtracts the k1 KL penalty klCoef (logp - ref) from every token and reports the mean KL per rollout', () => {
    // klCoef 0.1, gamma = lambda = 1, V = 0 (so A = returns before whitening):
    // rollout 0, reward 1: k = logp - ref = [-1 + 1.5, -2 + 1] = [0.5, -1] -> rewards [-0.05, 1 + 0.1] = [-0.05, 1.1],
    //   returns (sums from t on) [1.05, 1.1]; rollout 1, reward 0: k = [0.2] -> rewards [-0.02], returns [-0.02].
    // kl = (0.5/2 - 1/2 + 0.2/1) / 2 rollouts = -0.025. Whitened A: mean 0.71, population std sqrt(0.8006/3):
    //   [0.34, 0.39, -0.73] / 0.51659139 = [0.658160, 0.754949, -1.413109].
    const [r] = roleAdvantages(
      [
        {
          rs: [
            { reward: 1, completion: [5, 5] },
            { reward: 0, completion: [5] },
          ],
          values: [[0, 0], [0]],
          logp: [[-1, -2], [-0.2]],
          refLogp: [[-1.5, -1], [-0.4]],
        },
      ],
      { gamma: 1, lambda: 1, klCoef: 0.1 },
    );
    r.ret.forEach((x, i) =>
      Array.from(x).forEach((v, t) => close(v, [[1.05, 1.1], [-0.02]][i][t], 1e-12, `ret[${i}][${t}]`)),
    );
    close(r.kl, -0.025, 1e-12, 'kl');
    [[0.658160392, 0.754948685], [-1.413109077]].forEach((a, i) =>
      a.forEach((x, t) => close(r.adv[i][t], x, 1e-8, `A[${i}][${t}]`)),
    );
  });
});

describe('GRPO advantages by group id (hand-computed)', () => {
  it('normalise each group on its own, whatever the order of the rollouts', () => {
    // groups 0 (rollouts 0, 2, 4: rewards 1, 0, 2: mean 1, sample std 1), 1 (rollouts 1, 3: 5, 5: all equal) and
    // 7 (rollout 5 alone): A = [0, 0, -1/(1 + 1e-6), 0, 1/(1 + 1e-6), 0]
    const rs = [
      [0, 1],
      [1, 5],
      [0, 0],
      [1, 5],
      [0, 2],
      [7, 3],
    ].map(([group, reward]) => ({ group, reward })) as Rollout[];
    const a = grpoAdvantages(rs, defaultGroupNorm),
      u = 1 / (1 + 1e-6);
    [0, 0, -u, 0, u, 0].forEach((x, i) => close(a[i], x, 1e-12, `A[${i}]`));
    // the raw-singleton reading keeps the lone rollout's reward; the population std is sqrt(2/3)
    close(grpoAdvantages(rs, { ...defaultGroupNorm, singleton: 'raw' })[5], 3, 1e-12);
    close(grpoAdvantages(rs, { ...defaultGroupNorm, std: 'population' })[4], 1 / (Math.sqrt(2 / 3) + 1e-6), 1e-12);
  });
});

describe('PPO losses', () => {
  before(async () => {
    await initBackend();
  });
  it('clipped surrogate by hand', () => {
    // ratios e^0.5 = 1.6487 (A=+1: clipped to 1.2), e^-0.5 = 0.6065 (A=+1: unclipped 0.6065), e^0.1 (A=-2: min(-2.2103, -2.2103))
    const logp = tf.tensor2d([[0.5, -0.5, 0.1, 0]]),
      old = tf.zeros([1, 4]),
      adv = tf.tensor2d([[1, 1, -2, 5]]),
      mask = tf.tensor2d([[1, 1, 1, 0]]);
    const { loss, clipfrac } = clippedSurrogate(logp, old, adv, mask, 0.2);
    const want = -(1.2 + Math.exp(-0.5) + -2 * Math.exp(0.1)) / 3;
    close(val(loss), want, 1e-5);
    close(val(clipfrac), 2 / 3, 1e-6); // |ratio-1| > 0.2 for the first two tokens
  });
  it('clipped value loss by hand', () => {
    // v=1.0, vOld=0.5, R=2: unclipped (1-2)^2=1, clipped vOld+0.2=0.7 -> (0.7-2)^2=1.69; max/2 = 0.845
    const l = clippedValueLoss(tf.tensor2d([[1]]), tf.tensor2d([[0.5]]), tf.tensor2d([[2]]), tf.tensor2d([[1]]), 0.2);
    close(val(l), 0.845, 1e-6);
  });
  it('k3 KL is 0 at equality and exp(d) - d - 1 otherwise', () => {
    close(val(klK3(tf.scalar(-1), tf.scalar(-1))), 0, 1e-7);
    close(val(klK3(tf.scalar(-1), tf.scalar(-0.5))), Math.exp(0.5) - 0.5 - 1, 1e-6);
  });
  it('token mean ignores masked tokens', () => {
    close(val(tokenMean(tf.tensor2d([[1, 2, 100]]), tf.tensor2d([[1, 1, 0]]))), 1.5, 1e-7);
  });
  it('gradient of the surrogate matches central differences', () => {
    const adv = tf.tensor2d([[1.5, -0.7, 0.3]]),
      old = tf.tensor2d([[-1.0, -0.8, -1.2]]),
      mask = tf.ones([1, 3]);
    const f = (lp: tf.Tensor) => clippedSurrogate(lp, old, adv, mask, 0.2).loss;
    const x = [-0.95, -0.85, -1.1];
    const g = tf
      .grad(f)(tf.tensor2d([x]))
      .dataSync();
    for (let i = 0; i < 3; i++) {
      const h = 1e-3,
        up = x.slice(),
        dn = x.slice();
      up[i] += h;
      dn[i] -= h;
      const fd = (val(f(tf.tensor2d([up]))) - val(f(tf.tensor2d([dn])))) / (2 * h);
      close(g[i], fd, 2e-3, `d/dlogp[${i}]`);
    }
  });
});

describe('evaluation metrics', () => {
  it('unbiased pass@k by hand', () => {
    close(passAtK(4, 1, 1), 0.25, 1e-12);
    close(passAtK(4, 1, 2), 1 - 3 / 6, 1e-12);
    close(passAtK(16, 0, 8), 0, 1e-12);
    close(passAtK(16, 9, 8), 1, 1e-12);
    assert.throws(() => passAtK(4, 1, 5), /needs at least 5/);
    // boundary n - c = k: 1 - C(2, 2) / C(4, 2) = 1 - 1/6 = 5/6 (not 1: every k-subset but one has a correct sample)
    close(passAtK(4, 2, 2), 5 / 6, 1e-12);
    close(passAtK(3, 0, 3), 0, 1e-12); // n - c = k = n: 1 - C(3, 3) / C(3, 3) = 0
  });
  it('maj@k with missing answers', () => {
    assert.equal(majCorrect(['12', '13', '12', null], '12'), true);
    assert.equal(majCorrect([null, null], '12'), false);
    assert.equal(majCorrect(['13', '12'], '12'), false, 'ties go to the first answer');
  });
});

describe('evaluation on hand-made traces and tables (golden)', () => {
  // 347 + 589 = 0936; columns 7+9 = 16, 4+8+1 = 13, 3+5+1 = 9. One trace of each style, answers in brackets.
  const p = solve('add', [347, 589]);
  const T = (s: string) => parseTrace(s.split(' '));
  const sys = T('C0 7 9 0 1 6 C1 4 8 1 1 3 C2 3 5 1 0 9 A 0 9 3 6 <eos>'); // [0936] systematic
  const sloppy = T('C0 7 9 0 0 6 C1 4 8 0 0 2 C2 3 5 0 0 8 A 0 8 2 6 <eos>'); // [0826] carries dropped
  const short = T('A 0 8 2 6 <eos>'); // [0826] shortcut
  const verified = T('C0 7 9 0 1 6 C1 4 8 1 1 4 C2 3 5 1 0 9 V 6 3 9 R C1 3 A 0 9 3 6 <eos>'); // [0936] revised
  const repeated = T('C0 7 9 0 1 6 C1 4 8 1 1 3 C1 4 8 1 1 3 C2 3 5 1 0 9 A 0 9 3 6 <eos>'); // [0936] redundant
  const unended = T('A 0 9 3 6'); // the right digits without <eos>: no answer, malformed

  // Outcome reward +1 / -1 from each trace's correctness; an unterminated right answer is wrong.
  it('outcome reward: +1 correct, -1 wrong or malformed', () => {
    const reward = (t: typeof sys) => outcomeReward({ correct: isCorrect(p, t) });
    assert.deepEqual([sys, verified, repeated, sloppy, short, unended].map(reward), [1, 1, 1, -1, -1, -1]);
  });
  // The style read from each trace's content.
  it('classifyStyle names the six styles', () => {
    assert.deepEqual(
      [sys, sloppy, short, verified, repeated, unended].map((t) => classifyStyle(t, p)),
      ['systematic', 'sloppy', 'shortcut', 'verified', 'redundant', 'malformed'],
    );
  });
  // maj@k: plurality of the given answers, a tie to the answer seen first, no answer never votes.
  it('maj@k: plurality, ties to the first-seen answer, null answers skipped', () => {
    assert.equal(majorityAnswer(['0936', '0826', '0826', '0936']), '0936', '2-2 tie, 0936 seen first');
    assert.equal(majorityAnswer(['0826', '0936', '0936', '0826']), '0826', '2-2 tie, 0826 seen first');
    assert.equal(majorityAnswer(['0826', '0936', null, '0826']), '0826');
    assert.equal(majorityAnswer([null, null]), null);
  });
  // One cell's row from hand-made samples: avg@n, pass@n, maj@n and style shares.
  it('a cell row: avg@4 = 5/12, pass@4 = 1, maj@4 = 1/3 and the style shares', () => {
    // problem 1: [0936, 0826, 0826, 0936]  2 correct, 2-2 tie -> 0936 (first seen) -> maj correct
    // problem 2: [0826, 0936, none, 0826]  1 correct, 0826 wins 2-1                -> maj wrong
    // problem 3: [0826, 0936, 0936, 0826]  2 correct, 2-2 tie -> 0826 (first seen) -> maj wrong
    const samples = [
      [sys, sloppy, short, verified],
      [short, sys, unended, sloppy],
      [short, sys, repeated, sloppy],
    ];
    const res = samples.map((ts) => scoreProblem(p, ts));
    assert.deepEqual(
      res.map((r) => [r.correct, r.samples, r.maj]),
      [
        [2, 4, true],
        [1, 4, false],
        [2, 4, false],
      ],
    );
    const row = cellRow('add', 3, res, 4);
    // avg@4 = (2 + 1 + 2) / 12; pass@4 = 1 for every problem with a correct sample; maj@4 = 1 of 3
    close(Number(row.accuracy), 5 / 12, 1e-12, 'avg@4');
    assert.equal(row.pass_at_4, 1);
    close(Number(row.maj_at_4), 1 / 3, 1e-12, 'maj@4');
    // 12 samples: systematic, sloppy, shortcut 3 each; verified, malformed, redundant 1 each
    const shares = { systematic: 3, sloppy: 3, shortcut: 3, verified: 1, malformed: 1, redundant: 1 };
    for (const [s, k] of Object.entries(shares)) close(Number(row[`style_${s}`]), k / 12, 1e-12, `style_${s}`);
    assert.deepEqual([row.family, row.difficulty, row.problems, row.samples], ['add', 3, 3, 4]);
  });
  // Family accuracy = mean over the family's cells; average = mean over families (not over cells).
  it('family accuracy and the average over families', () => {
    const cells = [
      ['add', 2, 0.5],
      ['add', 3, 0.25],
      ['sub', 2, 1],
      ['chain', 3, 0],
      ['chain', 4, 0.5],
      ['chain', 5, 0.1],
      ['chain_ood', 3, 0.3],
    ];
    const table = cells.map(([family, difficulty, accuracy]) => ({ family, difficulty, accuracy }));
    // add (0.5 + 0.25) / 2 = 0.375; sub 1; chain (0 + 0.5 + 0.1) / 3 = 0.2; chain_ood 0.3
    const want = { add: 0.375, sub: 1, chain: 0.2, chain_ood: 0.3 };
    const fam = familyAccuracy(table);
    assert.deepEqual(Object.keys(fam), Object.keys(want));
    for (const [f, v] of Object.entries(want)) close(fam[f], v, 1e-12, f);
    // average (0.375 + 1 + 0.2 + 0.3) / 4 = 0.46875 (the mean over the 7 cells would be 2.65 / 7 = 0.379)
    const cols = accuracyColumns(table);
    assert.deepEqual(
      cols.map((c) => c.column),
      ['add', 'sub', 'chain', 'chain_ood', 'average'],
    );
    [...Object.values(want), 0.46875].forEach((v, i) => close(cols[i].value, v, 1e-12, cols[i].column));
  });
});

describe('optimizer state (exact resume)', () => {
  // the targets are made after the picker chose the backend (a tensor made while mocha loads the files lands on
  // tfjs's cpu backend, which prints a hint to install tfjs-node)
  let target: tf.Tensor[] = [];
  before(async () => {
    await initBackend();
    target = [
      tf.tensor([
        [1, -2, 3],
        [0.5, 0, -1],
      ]),
      tf.tensor([2, -1, 0, 4]),
    ];
  });
  // four Adam steps straight through against two steps, a save, and two steps in fresh variables and a fresh Adam
  const stepN = (vars: tf.Variable[], opt: tf.Optimizer, n: number) => {
    for (let i = 0; i < n; i++)
      opt.minimize(
        () =>
          tf.addN(
            vars.map((v, j) =>
              v
                .sub(target[j])
                .square()
                .mul(j + 1)
                .sum(),
            ),
          ) as tf.Scalar,
        false,
        vars,
      );
  };
  const fresh = (from?: tf.Variable[]) =>
    (from ?? [tf.zeros([2, 3]), tf.zeros([4])]).map((t) => tf.variable(t.clone()));
  const values = (vars: tf.Variable[]) => vars.flatMap((v) => Array.from(v.dataSync()));

  it('restores Adam so that a resumed run equals an uninterrupted one bit for bit', async () => {
    const straight = fresh(),
      optA = tf.train.adam(0.1, 0.9, 0.98);
    stepN(straight, optA, 4);
    const first = fresh(),
      optB = tf.train.adam(0.1, 0.9, 0.98);
    stepN(first, optB, 2);
    const state = JSON.parse(JSON.stringify(await optimizerState(optB))) as OptimizerState;
    assert.equal(state.iterations, 2);
    assert.equal(state.slots.length, 4); // first and second moment per variable
    const resumed = fresh(first),
      optC = tf.train.adam(0.1, 0.9, 0.98);
    await restoreOptimizer(optC, state, resumed);
    stepN(resumed, optC, 2);
    assert.deepEqual(values(resumed), values(straight));
    // without the state the moments restart and the weights differ: the check above can fail
    const restarted = fresh(first),
      optD = tf.train.adam(0.1, 0.9, 0.98);
    stepN(restarted, optD, 2);
    assert.notDeepEqual(values(restarted), values(straight));
  });

  it('refuses a state that does not fit the variables or the optimizer', async () => {
    const vars = fresh(),
      opt = tf.train.adam(0.1);
    stepN(vars, opt, 1);
    const state = await optimizerState(opt);
    await assert.rejects(
      restoreOptimizer(tf.train.adam(0.1), state, [tf.variable(tf.zeros([3, 2])), tf.variable(tf.zeros([4]))]),
      /no variable left for slot 0 of shape \[2,3\]/,
    );
    await assert.rejects(
      restoreOptimizer(tf.train.adam(0.1), state, [tf.variable(tf.zeros([4])), fresh()[0]]),
      /no variable left for slot 1 of shape \[4\]/,
    );
    // a variable without a gradient (no moments) in between is allowed
    await restoreOptimizer(tf.train.adam(0.1), state, [fresh()[0], tf.variable(tf.zeros([7])), fresh()[1]]);
    await assert.rejects(restoreOptimizer(tf.train.sgd(0.1), state, fresh()), /state is for Adam/);
  });
});

describe('clipping gradients to a global norm', () => {
  before(async () => {
    await initBackend();
  });
  it('returns the norm over every gradient and scales them all to maxNorm when above it (hand-computed)', () => {
    // |(3, 4, 0)| = 5: at maxNorm 1 each entry is scaled by 1/5
    const grads: Record<string, tf.Tensor> = { a: tf.tensor1d([3]), b: tf.tensor1d([4, 0]) };
    assert.equal(clipByGlobalNorm(grads, 1), 5);
    assert.deepEqual(Array.from(grads.a.dataSync()), [Math.fround(0.6)]);
    assert.deepEqual(Array.from(grads.b.dataSync()), [Math.fround(0.8), 0]);
    const under: Record<string, tf.Tensor> = { a: tf.tensor1d([3]), b: tf.tensor1d([4, 0]) },
      a = under.a;
    assert.equal(clipByGlobalNorm(under, 10), 5);
    assert.equal(under.a, a, 'below maxNorm the gradients are left as they are');
    assert.throws(() => clipByGlobalNorm({ a: tf.tensor1d([NaN]) }, 1), /non-finite gradient norm/);
    tf.dispose([...Object.values(grads), ...Object.values(under)]);
  });
});
