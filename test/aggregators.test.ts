// Rubicon's aggregators against hand-computed values, and the properties each is chosen for.
import { strict as assert } from 'node:assert';
import { aggregate, defaultAggregatorParams, interaction, saturation, shaping, veto, weightedSum, type Dimension } from '../src/rubrics/aggregators.js';
import { ConfigError } from '../src/io/validate.js';
import { makeRng } from '../src/util/random.js';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);
const dims: Dimension[] = [{ name: 'format', weight: 1, critical: true }, { name: 'steps', weight: 2 }, { name: 'verify', weight: 1 }];

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
    const two: Dimension[] = [{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }];
    const f = (s: number) => (1 - Math.exp(-3 * s)) / (1 - Math.exp(-3));
    close(saturation([0.5, 0.5], two), f(0.5));
    close(saturation([1, 0], two), 0.5);
    assert.ok(saturation([0.5, 0.5], two) > saturation([1, 0], two));
    close(saturation([1, 1], two), 1);
  });
  it('interaction: synergy and antagonism, normalised so all-ones scores 1', () => {
    const two: Dimension[] = [{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }];
    const syn = { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'b', gamma: 0.5 }] };
    close(interaction([1, 1], two, syn), 1);
    close(interaction([0.5, 0.5], two, syn), (0.5 + 0.125) / 1.5);
    const ant = { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'b', gamma: -1 }] };
    close(interaction([1, 1], two, ant), 0);
    assert.throws(() => interaction([1, 1], two, { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'zz', gamma: 1 }] }, true), /unknown dimension "zz"/);
    close(interaction([0.5, 0.5], two, { ...defaultAggregatorParams, interactions: [{ a: 'a', b: 'zz', gamma: 1 }] }), 0.5); // skipped: weighted sum
  });
  it('shaping stretches differences near the top', () => {
    close(shaping([1, 1, 1], dims), 1);
    close(shaping([0.5, 1, 0.5], dims), 0.75 ** 3);
    const top = shaping([1, 1, 0.8], dims) - shaping([1, 1, 0.6], dims), bottom = shaping([0.2, 0, 0], dims) - shaping([0, 0, 0], dims);
    assert.ok(top > 0.05 && bottom < 0.001);
  });
  it('every aggregator maps [0, 1] scores into [0, 1] and rejects bad input', () => {
    const rng = makeRng(4);
    for (let t = 0; t < 300; t++) {
      const s = dims.map(() => rng.next());
      for (const name of ['weighted_sum', 'veto', 'saturation', 'interaction', 'shaping'] as const) {
        const v = aggregate(name, s, dims, { ...defaultAggregatorParams, interactions: [{ a: 'steps', b: 'verify', gamma: rng.next() * 2 - 1 }] });
        assert.ok(v >= 0 && v <= 1 + 1e-12, `${name} gave ${v}`);
      }
    }
    assert.throws(() => weightedSum([1.2, 0, 0], dims), (e: Error) => e instanceof ConfigError && /format/.test(e.message));
    assert.throws(() => weightedSum([1, 0], dims), /2 scores for 3 dimensions/);
    assert.throws(() => aggregate('median' as never, [1, 1, 1], dims), /unknown aggregator/);
  });
});
