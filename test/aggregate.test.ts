// analysis/aggregate.ts against hand-computed values: t quantiles, mean and 95% CI over seeds, paired differences
// by seed and the claims table built from them.
import { strict as assert } from 'node:assert';
import {
  CLAIM_COLUMNS,
  claimRows,
  interval,
  meanCi,
  pairedDifference,
  scoresBySeed,
  tQuantile95,
  verdict,
  withEndpoints,
  withInDistribution,
} from '../analysis/aggregate.js';

const close = (a: unknown, b: number, tol = 1e-9, what = '') =>
  assert.ok(typeof a === 'number' && Math.abs(a - b) <= tol, `${what} ${String(a)} != ${b}`);

describe('aggregation over seeds (hand-computed)', () => {
  it('t quantiles: exact at df 1, 2, 30, 31 and 100 (scipy 1.17.1 t.ppf(0.975, df)), errors below 1', () => {
    // the exact quantiles (test/stats.test.ts checks them against scipy and mpmath for df 1..30 and beyond)
    close(tQuantile95(1), 12.706204736174694, 1e-13, 't(1)');
    close(tQuantile95(2), 4.302652729749462, 1e-14, 't(2)');
    close(tQuantile95(30), 2.0422724563012378, 1e-14, 't(30)');
    close(tQuantile95(31), 2.0395134463964077, 1e-14, 't(31)');
    close(tQuantile95(100), 1.9839715185235518, 1e-14, 't(100)');
    for (const bad of [0, 1.5, NaN, -3]) assert.throws(() => tQuantile95(bad), /degrees of freedom/);
  });
  it('mean and half-width t_{n-1} s / sqrt(n) per group; n from the rows; no interval for one row', () => {
    // group a: v = [1, 2, 3] (mean 2, s = 1): t / sqrt(3) = 2.4841377, t = t_{0.975,2} = 4.302652729749462;
    // w = [10, 10, 40] (mean 20, s = sqrt(300)): t sqrt(300) / sqrt(3) = 10 t. Group b: one row, v = 5, w = 7: none.
    const rows = [
      { g: 'a', v: 1, w: 10 },
      { g: 'b', v: 5, w: 7 },
      { g: 'a', v: 2, w: 10 },
      { g: 'a', v: 3, w: 40 },
    ];
    const out = meanCi(rows, ['g'], ['v', 'w']);
    const a = out.find((r) => r.g === 'a')!,
      b = out.find((r) => r.g === 'b')!;
    assert.equal(out.length, 2);
    close(a.v_mean, 2);
    close(a.v_ci95, 4.302652729749462 / Math.sqrt(3), 1e-14, 'a v ci');
    close(a.w_mean, 20);
    close(a.w_ci95, 43.02652729749462, 1e-12, 'a w ci');
    assert.equal(a.n, 3);
    close(b.v_mean, 5);
    close(b.w_mean, 7);
    assert.equal(b.v_ci95, '');
    assert.equal(b.w_ci95, '');
    assert.equal(b.n, 1);
    assert.deepEqual(Object.keys(a).sort(), ['g', 'n', 'v_ci95', 'v_mean', 'w_ci95', 'w_mean']);
    assert.deepEqual(meanCi([], ['g'], ['v']), []);
    assert.throws(() => meanCi(rows, ['g'], ['x']), /no column "x"/);
    assert.throws(() => meanCi(rows, ['h'], ['v']), /no column "h"/);
  });
  it('an interval is mean -+ half-width, empty without one', () => {
    assert.deepEqual(interval(2, 0.5), { ci_low: 1.5, ci_high: 2.5 });
    assert.deepEqual(interval(2, '0.25'), { ci_low: 1.75, ci_high: 2.25 });
    assert.deepEqual(interval(2, ''), { ci_low: '', ci_high: '' });
  });
  // run a: seeds 0..2 and 4 (m = 3, 5, 10, NaN; n = 1 at seed 0); run b: seeds 0..4 (m = 1, 2, 4, 100, 0)
  const records = [
    ...[3, 5, 10].map((value, seed) => ({ run: 'a', seed, measure: 'm', value })),
    { run: 'a', seed: 4, measure: 'm', value: NaN },
    { run: 'a', seed: '0', measure: 'n', value: 1 },
    ...[1, 2, 4, 100, 0].map((value, seed) => ({ run: 'b', seed, measure: 'm', value })),
  ];
  it('scores by run, then seed (as a string), then measure', () => {
    const s = scoresBySeed(records);
    assert.deepEqual([...s.keys()], ['a', 'b']);
    assert.deepEqual(Object.fromEntries(s.get('a')!), { 0: { m: 3, n: 1 }, 1: { m: 5 }, 2: { m: 10 }, 4: { m: NaN } });
    assert.deepEqual([...s.get('b')!.keys()], ['0', '1', '2', '3', '4']);
  });
  it('paired difference over the seeds both runs have, non-finite differences left out', () => {
    // d = a - b at seeds 0, 1, 2 = [2, 3, 6] (seed 3: a lacks it; seed 4: NaN): mean 11/3, s = sqrt(13/3),
    // half-width t_{0.975,2} s / sqrt(3) = 4.302652729749462 x 1.2018504 = 5.1711450 -> [-1.5044783, 8.8378117]
    const s = scoresBySeed(records);
    const d = pairedDifference(s, 'a', 'b', 'm')!;
    close(d.delta, 11 / 3, 1e-12, 'delta');
    close(d.ci_low, 11 / 3 - 4.302652729749462 * Math.sqrt(13 / 9), 1e-12, 'low');
    close(d.ci_high, 11 / 3 + 4.302652729749462 * Math.sqrt(13 / 9), 1e-12, 'high');
    assert.equal(d.seeds, 3);
    // b - a is the mirror image
    close(pairedDifference(s, 'b', 'a', 'm')!.delta, -11 / 3, 1e-12);
    // two measures of one run: m - n exists at seed 0 only (3 - 1 = 2): one seed, no interval
    assert.deepEqual(pairedDifference(s, 'a', 'a', 'm', 'n'), { delta: 2, ci_low: '', ci_high: '', seeds: 1 });
    assert.equal(pairedDifference(s, 'a', 'missing', 'm'), null);
    assert.equal(pairedDifference(s, 'missing', 'a', 'm'), null);
    assert.equal(pairedDifference(s, 'a', 'b', 'nothing'), null);
  });
  it('claim rows: the difference, its interval, the seeds, the sign and the verdict', () => {
    const s = scoresBySeed([
      ...[0, 1, 2].map((seed) => ({ run: 'x', seed, measure: 'acc', value: [0.5, 0.6, 0.7][seed] })),
      ...[0, 1, 2].map((seed) => ({ run: 'y', seed, measure: 'acc', value: [0.4, 0.4, 0.6][seed] })),
      ...[0, 1, 2].map((seed) => ({ run: 'x', seed, measure: 'base', value: 0.5 })),
    ]);
    // x - y = [0.1, 0.2, 0.1]: mean 0.4/3, s = sqrt(1/300), half-width 4.3027 s / sqrt(3) = 0.14342 -> low -0.0101
    const [r1, r2, r3] = claimRows(
      s,
      [
        { claim: 'x beats y', a: 'x', b: 'y', measure: 'acc', sign: 1 },
        { claim: 'x rises', a: 'x', b: 'x', measure: 'acc', measureB: 'base', sign: -1 },
        { claim: 'absent', a: 'x', b: 'z', measure: 'acc', sign: 1 },
      ],
      'quick',
    );
    assert.deepEqual(
      { ...r1, delta: 0, ci_low: 0, ci_high: 0 },
      {
        profile: 'quick',
        claim: 'x beats y',
        run: 'x',
        against: 'y',
        measure: 'acc',
        endpoint: 'acc',
        expected_sign: '+',
        delta: 0,
        ci_low: 0,
        ci_high: 0,
        seeds: 3,
        verdict: 'inconclusive',
      },
    );
    close(r1.delta, 0.4 / 3, 1e-12, 'delta');
    const h = (4.302652729749462 * Math.sqrt(1 / 300)) / Math.sqrt(3);
    close(r1.ci_low, 0.4 / 3 - h, 1e-9, 'low');
    close(r1.ci_high, 0.4 / 3 + h, 1e-9, 'high');
    // acc - base = [0, 0.1, 0.2]: mean 0.1, s = 0.1, half-width 0.24841 -> inconclusive; the label names both measures
    assert.equal(r2.measure, 'acc - base');
    assert.equal(r2.expected_sign, '-');
    close(r2.delta, 0.1, 1e-12);
    assert.equal(r2.verdict, 'inconclusive');
    assert.deepEqual(r3, {
      profile: 'quick',
      claim: 'absent',
      run: 'x',
      against: 'z',
      measure: 'acc',
      endpoint: 'acc',
      expected_sign: '+',
      delta: '',
      ci_low: '',
      ci_high: '',
      seeds: 0,
      verdict: 'inconclusive',
    });
    // a clear difference gets its verdict: y - x on acc is below 0 everywhere only with a tighter spread
    const t = scoresBySeed(
      [0, 1, 2].flatMap((seed) => [
        { run: 'p', seed, measure: 'm', value: 1 + seed / 100 },
        { run: 'q', seed, measure: 'm', value: 0 },
      ]),
    );
    const [up, down] = claimRows(
      t,
      [
        { claim: 'up', a: 'p', b: 'q', measure: 'm', sign: 1 },
        { claim: 'down', a: 'p', b: 'q', measure: 'm', sign: -1 },
      ],
      'full',
    );
    assert.equal(up.verdict, 'reproduced');
    assert.equal(down.verdict, 'contradicted');
    assert.equal(up.measure, 'm');
    assert.equal(verdict({ ci_low: -0.3, ci_high: -0.1 }, 1), 'contradicted', 'below 0 against a claimed +');
  });
  it('an average-accuracy claim is read on each accuracy endpoint too; in-distribution is the mean of add, sub, chain', () => {
    const claims = withEndpoints([
      { claim: 'x beats y (average accuracy)', a: 'x', b: 'y', measure: 'average', sign: 1 },
      { claim: 'x ranks better (rubric quality)', a: 'x', b: 'y', measure: 'rubric_quality', sign: 1 },
    ]);
    assert.deepEqual(
      claims.map((c) => [c.claim, c.measure, c.endpoint]),
      [
        ['x beats y (average accuracy)', 'average', undefined],
        ['x beats y (in-distribution accuracy)', 'in_distribution', 'in_distribution'],
        ['x beats y (held-out composition, chain_ood)', 'chain_ood', 'chain_ood'],
        ['x ranks better (rubric quality)', 'rubric_quality', undefined],
      ],
    );
    const rows = withInDistribution([
      { run: 'x', seed: 0, measure: 'add', value: 0.3 },
      { run: 'x', seed: 0, measure: 'sub', value: 0.6 },
      { run: 'x', seed: 0, measure: 'chain', value: 0.9 },
      { run: 'y', seed: 0, measure: 'add', value: 0.3 },
    ]);
    assert.deepEqual(rows.slice(4), [
      { run: 'x', seed: '0', measure: 'in_distribution', value: (0.3 + 0.6 + 0.9) / 3 },
    ]);
    const [r] = claimRows(
      scoresBySeed(
        withInDistribution(
          [0, 1].flatMap((seed) =>
            ['add', 'sub', 'chain'].flatMap((f) => [
              { run: 'x', seed, measure: f, value: 0.5 + seed / 10 },
              { run: 'y', seed, measure: f, value: 0.4 },
            ]),
          ),
        ),
      ),
      [claims[1]],
      'full',
    );
    assert.equal(r.endpoint, 'in_distribution');
    assert.ok(Math.abs(Number(r.delta) - 0.15) < 1e-12);
  });
  it('verdicts at an interval ending or starting exactly at 0 are inconclusive', () => {
    // [0, 0.5] does not lie above 0 (a claimed +) nor below it; [-0.5, 0] likewise, for either sign
    assert.equal(verdict({ ci_low: 0, ci_high: 0.5 }, 1), 'inconclusive');
    assert.equal(verdict({ ci_low: 0, ci_high: 0.5 }, -1), 'inconclusive');
    assert.equal(verdict({ ci_low: -0.5, ci_high: 0 }, 1), 'inconclusive');
    assert.equal(verdict({ ci_low: -0.5, ci_high: 0 }, -1), 'inconclusive');
    // just off 0 they decide
    assert.equal(verdict({ ci_low: 0.01, ci_high: 0.5 }, 1), 'reproduced');
    assert.equal(verdict({ ci_low: 0.01, ci_high: 0.5 }, -1), 'contradicted');
  });
  it('claim rows label a measureB equal to the measure by the measure alone; the table has the claim columns', () => {
    const s = scoresBySeed(
      [0, 1].flatMap((seed) => [
        { run: 'x', seed, measure: 'acc', value: 0.5 },
        { run: 'y', seed, measure: 'acc', value: 0.25 },
      ]),
    );
    const [r] = claimRows(
      s,
      [{ claim: 'same measure', a: 'x', b: 'y', measure: 'acc', measureB: 'acc', sign: 1 }],
      'quick',
    );
    // x - y = [0.25, 0.25]: mean 0.25, s = 0, half-width 0 -> [0.25, 0.25], above 0
    assert.equal(r.measure, 'acc');
    assert.equal(r.delta, 0.25);
    assert.equal(r.ci_low, 0.25);
    assert.equal(r.verdict, 'reproduced');
    assert.deepEqual(CLAIM_COLUMNS, [
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
    ]);
    assert.deepEqual(Object.keys(r), CLAIM_COLUMNS);
  });
});
