// The shared statistics of src/util/stats.ts by hand and against simple-statistics (a devDependency) as an independent
// reference: one pearson (null where a side is constant), the nearest-rank percentile, the sample standard deviation,
// the Student-t interval of a mean and its t table against scipy; and why the library does not replace them (it rounds
// otherwise, and the committed tables are recomputed byte for byte).
import { strict as assert } from 'node:assert';
import {
  mean as ssMean,
  meanSimple,
  median as ssMedian,
  quantileSorted,
  sampleCorrelation,
  sampleStandardDeviation,
} from 'simple-statistics';
import { mean, meanInterval, median, pearson, percentile, sampleSd, tQuantile95 } from '../src/util/stats.js';
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
    // rank ceil(p n / 100): p25 of 1..10 is the 3rd value, p75 the 8th, p95 of 1..20 the 19th
    assert.deepEqual(
      [25, 75, 50.1].map((p) => percentile(s, p)),
      [3, 8, 6],
    );
    assert.equal(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95,
      ),
      19,
    );
    // a value of the sample, never an interpolation: the median of 1, 3, 5, 9 by nearest rank is 3, not 4
    assert.equal(percentile([1, 3, 5, 9], 50), 3);
  });

  it('sampleSd: n - 1 in the denominator, by hand; the interval is t * sd / sqrt(n) around the mean', () => {
    const x = [2, 4, 4, 4, 5, 5, 7, 9]; // mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32
    assert.equal(sampleSd(x), Math.sqrt(32 / 7));
    assert.equal(sampleSd([1, 3]), Math.SQRT2);
    assert.ok(Number.isNaN(sampleSd([4])));
    const ci = meanInterval(x);
    assert.equal(ci.mean, 5);
    assert.equal(ci.ci_high, 5 + (2.365 * Math.sqrt(32 / 7)) / Math.sqrt(8));
    assert.equal(ci.ci_low, 5 - (2.365 * Math.sqrt(32 / 7)) / Math.sqrt(8));
  });

  it('median and the t table stay as committed numbers need them', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.deepEqual([1, 2, 4, 30].map(tQuantile95), [12.706, 4.303, 2.776, 2.042]);
  });

  it('the t table is scipy.stats.t.ppf(0.975, df) to 3 decimals; beyond df 30 it is within 1e-4 of scipy', () => {
    // reference: scipy 1.17.1, float(scipy.stats.t.ppf(0.975, df)) for df = 1..30
    const scipy = [
      12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934, 2.5705818356363146,
      2.4469118511449786, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274, 2.200985160091639,
      2.1788128296672284, 2.1603686564627913, 2.144786687917804, 2.131449545559776, 2.1199052992212546,
      2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864, 2.0796138447276795,
      2.0738730679040254, 2.0686576104190486, 2.0638985616280245, 2.0595385527532972, 2.0555294386428735,
      2.0518305164802846, 2.0484071417952454, 2.045229642132703, 2.0422724563012378,
    ];
    for (let df = 1; df <= 30; df++) {
      const ref = scipy[df - 1];
      assert.equal(tQuantile95(df), Number(ref.toFixed(3)), `df ${df}`);
      assert.ok(Math.abs(tQuantile95(df) - ref) <= 5e-4, `df ${df}`);
    }
    // the same source, df = 31, 40, 60, 100, 120, 1000 (the Cornish-Fisher branch)
    const beyond: [number, number][] = [
      [31, 2.039513446396408],
      [40, 2.021075390306273],
      [60, 2.0002978220142604],
      [100, 1.9839715185235518],
      [120, 1.9799304050824402],
      [1000, 1.9623390808264083],
    ];
    for (const [df, ref] of beyond) assert.ok(Math.abs(tQuantile95(df) - ref) < 1e-4, `df ${df}: ${tQuantile95(df)}`);
  });

  it('why simple-statistics does not replace them: its mean, median and quantile round otherwise', () => {
    // its mean sums with Neumaier compensation; ours adds left to right (as every committed table was computed)
    assert.equal(mean([0.1, 0.2, 0.3]), 0.20000000000000004);
    assert.equal(ssMean([0.1, 0.2, 0.3]), 0.19999999999999998);
    // its median of an even count is a + 0.5 (b - a); ours is (a + b) / 2
    assert.equal(median([0.1, 0.7]), 0.39999999999999997);
    assert.equal(ssMedian([0.1, 0.7]), 0.4);
    // its quantiles interpolate (type 7); the percentile here is the nearest rank
    assert.equal(quantileSorted([1, 3, 5, 9], 0.5), 4);
    assert.equal(percentile([1, 3, 5, 9], 50), 3);
    // only its uncompensated meanSimple is ours bit for bit
    const rng = makeRng(44);
    for (let t = 0; t < 500; t++) {
      const x = Array.from({ length: 1 + rng.int(50) }, () => rng.next() * 1000 - 300);
      assert.equal(meanSimple(x), mean(x));
    }
  });
});
