// Rubicon's aggregators against hand-computed values, and the properties each is chosen for.
import { strict as assert } from 'node:assert';
import {
  aggregate,
  checkInteractions,
  defaultAggregatorParams,
  interaction,
  saturation,
  shaping,
  veto,
  weightedSum,
  type Dimension,
} from '../src/rubrics/aggregators.js';
import { ConfigError } from '../src/util/validate.js';
import { makeRng } from '../src/util/random.js';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);
const dims: Dimension[] = [
  { name: 'format', weight: 1, critical: true },
  { name: 'steps', weight: 2 },
  { name: 'verify', weight: 1 },
];

describe('Rubicon aggregators (hand-computed)', () => {
  it('weighted sum normalises the weights', () => close(weightedSum([1, 0.5, 0], dims), (1 + 1 + 0) / 4));
  it('the default interaction pairs change the reward of the quality family (not a weighted sum in disguise)', () => {
    const q: Dimension[] = ['format', 'steps', 'carries', 'digits', 'consistency'].map((name) => ({ name, weight: 1 }));
    const s = [1, 1, 0.5, 0, 1];
    assert.ok(Math.abs(interaction(s, q) - weightedSum(s, q)) > 0.01);
  });
  it('veto zeroes the reward when a critical dimension fails, else it is the weighted sum', () => {
    assert.equal(veto([0.4, 1, 1], dims), 0);
    close(veto([0.5, 1, 1], dims), (0.5 + 2 + 1) / 4);
  });
  it('saturation: f(s) = (1 - e^-3s) / (1 - e^-3) favours balanced profiles', () => {
    const two: Dimension[] = [
      { name: 'a', weight: 1 },
      { name: 'b', weight: 1 },
    ];
    const f = (s: number) => (1 - Math.exp(-3 * s)) / (1 - Math.exp(-3));
    close(saturation([0.5, 0.5], two), f(0.5));
    close(saturation([1, 0], two), 0.5);
    assert.ok(saturation([0.5, 0.5], two) > saturation([1, 0], two));
    close(saturation([1, 1], two), 1);
  });
  it('interaction: synergy, normalised so all-ones scores 1', () => {
    const two: Dimension[] = [
      { name: 'a', weight: 1 },
      { name: 'b', weight: 1 },
    ];
    const syn = { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'b', gamma: 0.5 }] };
    close(interaction([1, 1], two, syn), 1);
    close(interaction([0.5, 0.5], two, syn), (0.5 + 0.125) / 1.5);
    assert.throws(
      () =>
        interaction([1, 1], two, { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'zz', gamma: 1 }] }, true),
      /unknown dimension "zz"/,
    );
    close(
      interaction([0.5, 0.5], two, { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'zz', gamma: 1 }] }),
      0.5,
    ); // skipped: weighted sum
  });
  it('shaping stretches differences near the top', () => {
    close(shaping([1, 1, 1], dims), 1);
    close(shaping([0.5, 1, 0.5], dims), 0.75 ** 3);
    const top = shaping([1, 1, 0.8], dims) - shaping([1, 1, 0.6], dims),
      bottom = shaping([0.2, 0, 0], dims) - shaping([0, 0, 0], dims);
    assert.ok(top > 0.05 && bottom < 0.001);
  });
  it('every aggregator maps [0, 1] scores into [0, 1] and rejects bad input', () => {
    const rng = makeRng(4);
    for (let t = 0; t < 300; t++) {
      const s = dims.map(() => rng.next());
      for (const name of ['weighted_sum', 'veto', 'saturation', 'interaction', 'shaping'] as const) {
        const v = aggregate(name, s, dims, {
          ...defaultAggregatorParams,
          interactions: [{ a: 'steps', b: 'verify', gamma: rng.next() * 2 }],
        });
        assert.ok(v >= 0 && v <= 1 + 1e-12, `${name} gave ${v}`);
      }
    }
    assert.throws(
      () => weightedSum([1.2, 0, 0], dims),
      (e: Error) => e instanceof ConfigError && /format/.test(e.message),
    );
    assert.throws(() => weightedSum([1, 0], dims), /2 scores for 3 dimensions/);
    assert.throws(() => aggregate('median' as never, [1, 1, 1], dims), /unknown aggregator/);
  });
});

describe('Rubicon aggregators after the fair comparisons (docs/rubicon-fairness.md)', () => {
  const names = (ns: string[]): Dimension[] => ns.map((name) => ({ name, weight: 1 }));
  const constraints = names(['format', 'length', 'verification']),
    quality = names(['format', 'steps', 'carries', 'digits', 'consistency']);
  it('graded soft scores make saturation differ from the weighted sum; 0/1 verdicts do not', () => {
    const two = names(['steps', 'digits']);
    // probabilities 0.5 and 0.9: weighted sum 0.7; saturation (f(0.5) + f(0.9)) / 2 = (0.817574 + 0.981669) / 2
    close(weightedSum([0.5, 0.9], two), 0.7);
    assert.ok(Math.abs(saturation([0.5, 0.9], two) - 0.8996216901485494) < 1e-12);
    // the same responses judged as verdicts (P > 1/2: 0 and 1) score 0.5 under both
    close(weightedSum([0, 1], two), 0.5);
    close(saturation([0, 1], two), 0.5);
  });
  it('interaction: all-ones scores exactly 1 for every family under the defaults and random synergies', () => {
    assert.equal(interaction([1, 1, 1], constraints), 1);
    assert.equal(interaction([1, 1, 1, 1, 1], quality), 1);
    const rng = makeRng(7);
    for (let t = 0; t < 200; t++) {
      const ds = names(['a', 'b', 'c', 'd', 'e', 'f', 'g'].slice(0, 2 + rng.int(6))).map((d) => ({
        ...d,
        weight: rng.next() * 3 + 0.01,
      }));
      const params = {
        ...defaultAggregatorParams,
        interactions: [
          { a: 'a', b: 'b', gamma: rng.next() * 2 },
          { a: 'b', b: ds[ds.length - 1].name, gamma: rng.next() },
        ],
      };
      assert.equal(
        interaction(
          ds.map(() => 1),
          ds,
          params,
        ),
        1,
      );
    }
  });
  it('interaction: verifying within the budget scores more than not verifying (hand-computed)', () => {
    // defaults: gamma(length, verification) = +0.5; [1, 1, 1] -> 1, [1, 1, 0] -> (2/3) / 1.5 = 4/9
    close(interaction([1, 1, 0], constraints), 4 / 9);
    // [1, 1, 0.5]: (2.5/3 + 0.5 * 1 * 0.5) / 1.5 = 13/18
    close(interaction([1, 1, 0.5], constraints), 13 / 18);
  });
  it('interaction: no term penalises a required dimension (raising any score never lowers the reward)', () => {
    const rng = makeRng(8);
    for (let t = 0; t < 300; t++) {
      const s = quality.map(() => rng.next()),
        k = rng.int(s.length),
        up = [...s];
      up[k] = Math.min(1, s[k] + rng.next() * 0.5);
      assert.ok(
        interaction(up, quality) >= interaction(s, quality) - 1e-15,
        `raising ${quality[k].name} lowered the reward`,
      );
      const c = constraints.map(() => rng.next()),
        j = rng.int(3),
        cu = [...c];
      cu[j] = Math.min(1, c[j] + rng.next() * 0.5);
      assert.ok(interaction(cu, constraints) >= interaction(c, constraints) - 1e-15);
    }
  });
  it('interaction rejects an antagonistic term on a required dimension with a one-line ConfigError', () => {
    const old = { ...defaultAggregatorParams, interactions: [{ a: 'length', b: 'verification', gamma: -0.5 }] };
    const err = (e: unknown) =>
      e instanceof ConfigError &&
      !e.message.includes('\n') &&
      /gamma\(length, verification\) = -0.5 < 0/.test(e.message);
    assert.throws(() => interaction([1, 1, 1], constraints, old), err);
    assert.throws(() => checkInteractions(constraints, old), err);
    // a pair the vector does not have is skipped; a pair of weightless, non-critical dimensions may be antagonistic
    assert.deepEqual(checkInteractions(quality, old), []);
    const free: Dimension[] = [
      { name: 'length', weight: 0 },
      { name: 'verification', weight: 0 },
      { name: 'format', weight: 1 },
    ];
    assert.equal(checkInteractions(free, old).length, 1);
    // weight 0 but critical (the veto's defence gate) is required
    assert.throws(
      () =>
        checkInteractions(
          [
            { name: 'length', weight: 0 },
            { name: 'verification', weight: 0, critical: true },
            { name: 'format', weight: 1 },
          ],
          old,
        ),
      err,
    );
  });
  it('interaction: gamma must be a number, and gamma 0 on a required dimension is allowed', () => {
    const nan = { ...defaultAggregatorParams, interactions: [{ a: 'length', b: 'verification', gamma: NaN }] };
    assert.throws(
      () => checkInteractions(constraints, nan),
      (e: Error) =>
        e instanceof ConfigError && e.message === 'interaction gamma(length, verification) must be a number (got NaN)',
    );
    const zero = { ...defaultAggregatorParams, interactions: [{ a: 'length', b: 'verification', gamma: 0 }] };
    assert.deepEqual(
      checkInteractions(constraints, zero).map((t) => [t.i, t.j, t.gamma]),
      [[1, 2, 0]],
    );
  });
  it('the default parameters, by value', () => {
    assert.deepEqual(defaultAggregatorParams, {
      vetoThreshold: 0.5,
      saturationAlpha: 3,
      shapingPower: 3,
      interactions: [
        { a: 'steps', b: 'digits', gamma: 0.5 },
        { a: 'length', b: 'verification', gamma: 0.5 },
      ],
    });
    assert.throws(
      () => aggregate('median' as never, [1, 1, 1], dims),
      (e: Error) =>
        e.message === 'unknown aggregator "median" (known: weighted_sum, veto, saturation, interaction, shaping)',
    );
  });
});

describe('Rubicon aggregators: input checks and aggregate() by name (hand-computed)', () => {
  const two: Dimension[] = [
    { name: 'a', weight: 1 },
    { name: 'b', weight: 1 },
  ];
  const weightsErr = /dimension weights must be non-negative with a positive total/;
  it('rejects a negative score', () => {
    assert.throws(
      () => weightedSum([-0.1, 0, 0], dims),
      (e: Error) => e instanceof ConfigError && /format must be in \[0, 1\] \(got -0.1\)/.test(e.message),
    );
  });
  it('rejects a negative weight even when the total is positive, and a zero total', () => {
    // weights 2 and -1: total 1 > 0, but -1 < 0
    assert.throws(
      () =>
        weightedSum(
          [0.5, 0.5],
          [
            { name: 'a', weight: 2 },
            { name: 'b', weight: -1 },
          ],
        ),
      weightsErr,
    );
    // weights 0 and 0: no negative weight, but the total is 0
    assert.throws(
      () =>
        weightedSum(
          [0.5, 0.5],
          [
            { name: 'a', weight: 0 },
            { name: 'b', weight: 0 },
          ],
        ),
      weightsErr,
    );
  });
  it('accepts a zero weight beside a positive one', () => {
    // weights 1 and 0 normalise to 1 and 0: 1 * 0.5 + 0 * 1 = 0.5
    close(
      weightedSum(
        [0.5, 1],
        [
          { name: 'a', weight: 1 },
          { name: 'b', weight: 0 },
        ],
      ),
      0.5,
    );
  });
  it('saturation rejects alpha <= 0', () => {
    assert.throws(
      () => saturation([0.5, 0.5], two, { ...defaultAggregatorParams, saturationAlpha: 0 }),
      (e: Error) => e instanceof ConfigError && e.message === 'saturationAlpha must be > 0 (got 0)',
    );
    assert.throws(
      () => saturation([0.5, 0.5], two, { ...defaultAggregatorParams, saturationAlpha: -1 }),
      /saturationAlpha must be > 0/,
    );
  });
  it('interaction skips a pair whose first name is unknown, and keeps a pair whose second dimension is the first', () => {
    // unknown first name: skipped, so the weighted sum (0.5 + 0.5) / 2 = 0.5
    const unknownFirst = { ...defaultAggregatorParams, interactions: [{ a: 'zz', b: 'a', gamma: 1 }] };
    assert.deepEqual(checkInteractions(two, unknownFirst), []);
    close(interaction([0.5, 0.5], two, unknownFirst), 0.5);
    // pair (b, a): j = 0; (0.5 + 0.5 * 0.5 * 0.5) / (1 + 0.5) = 0.625 / 1.5 = 5/12
    const second0 = { ...defaultAggregatorParams, interactions: [{ a: 'b', b: 'a', gamma: 0.5 }] };
    assert.deepEqual(
      checkInteractions(two, second0).map((t) => [t.i, t.j]),
      [[1, 0]],
    );
    close(interaction([0.5, 0.5], two, second0), 5 / 12);
  });
  it('shaping rejects a power below 1 and is the weighted sum at p = 1', () => {
    assert.throws(
      () => shaping([1, 1, 1], dims, { ...defaultAggregatorParams, shapingPower: 0.5 }),
      (e: Error) => e instanceof ConfigError && e.message === 'shapingPower must be >= 1 (got 0.5)',
    );
    // p = 1: (0.5 + 2 * 1 + 0.5) / 4 = 0.75
    close(shaping([0.5, 1, 0.5], dims, { ...defaultAggregatorParams, shapingPower: 1 }), 0.75);
  });
  it('aggregate() by name gives each aggregator its own value', () => {
    // dims weights 1, 2, 1 (format critical); scores [0.4, 0.5, 0.5]; one synergy gamma(steps, verify) = 1
    const p = { ...defaultAggregatorParams, interactions: [{ a: 'steps', b: 'verify', gamma: 1 }] };
    const s = [0.4, 0.5, 0.5];
    const f = (x: number) => (1 - Math.exp(-3 * x)) / (1 - Math.exp(-3));
    // weighted sum: (0.4 + 2 * 0.5 + 0.5) / 4 = 0.475
    close(aggregate('weighted_sum', s, dims, p), 0.475);
    // veto: format (critical) 0.4 < 0.5 fails
    assert.equal(aggregate('veto', s, dims, p), 0);
    // saturation: (f(0.4) + 3 f(0.5)) / 4 = (0.735417 + 3 * 0.817574) / 4 = 0.797035
    close(aggregate('saturation', s, dims, p), (f(0.4) + 3 * f(0.5)) / 4);
    assert.ok(Math.abs(aggregate('saturation', s, dims, p) - 0.797035) < 1e-6);
    // interaction: (0.475 + 1 * 0.5 * 0.5) / (1 + 1) = 0.3625
    close(aggregate('interaction', s, dims, p), 0.3625);
    // shaping: 0.475^3 = 0.107171875
    close(aggregate('shaping', s, dims, p), 0.107171875);
  });
});
