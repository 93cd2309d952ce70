// The shared statistics of src/util/stats.ts by hand and against simple-statistics as an independent reference:
// one pearson (null where a side is constant), the nearest-rank percentile, the Student-t interval of a mean.
import { strict as assert } from 'node:assert';
import { sampleCorrelation, sampleStandardDeviation } from 'simple-statistics';
import { mean, meanInterval, median, pearson, percentile, tQuantile95 } from '../src/util/stats.js';
import { pearson as validityPearson } from '../src/rubrics/validity.js';
import { makeRng } from '../src/util/random.js';

describe('shared statistics', () => {
  it('pearson: by hand, null for a constant or empty side, one function for every caller', () => {
    assert.ok(Math.abs(pearson([1, 1, 0, 0], [1, 0, 0, 0])! - 1 / Math.sqrt(3)) < 1e-15);
    assert.equal(pearson([1, 0, 1, 0], [0, 1, 0, 1]), -1);
    assert.equal(pearson([2, 2, 2], [0, 1, 2]), null);
    assert.equal(pearson([0, 1, 2], [5, 5, 5]), null);
    assert.equal(pearson([], []), null);
    assert.throws(() => pearson([1, 2], [1]), /^Error: pearson: lengths differ \(2 vs 1\)$/);
    assert.equal(validityPearson, pearson, "RLCER's validity test reads the shared pearson");
  });

  it("pearson and the interval's standard deviation agree with simple-statistics on random samples", () => {
    const rng = makeRng(43);
    for (let t = 0; t < 200; t++) {
      const n = 2 + rng.int(40),
        x = Array.from({ length: n }, () => rng.next()),
        y = x.map((v) => v + rng.next());
      assert.ok(Math.abs(pearson(x, y)! - sampleCorrelation(x, y)) < 1e-12);
      const { mean: m, ci_high } = meanInterval(x);
      assert.equal(m, mean(x));
      const half = (tQuantile95(n - 1) * sampleStandardDeviation(x)) / Math.sqrt(n);
      assert.ok(Math.abs(ci_high! - m - half) < 1e-12);
    }
  });

  it('percentile: the nearest rank of sorted values (p50, p90, p99 of 1..10), NaN for none', () => {
    const s = Array.from({ length: 10 }, (_, i) => i + 1);
    assert.deepEqual(
      [0, 10, 50, 90, 99, 100].map((p) => percentile(s, p)),
      [1, 1, 5, 9, 10, 10],
    );
    assert.equal(percentile([7], 50), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
  });

  it('median and the t table stay as committed numbers need them', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.deepEqual([1, 2, 4, 30].map(tQuantile95), [12.706, 4.303, 2.776, 2.042]);
  });
});
