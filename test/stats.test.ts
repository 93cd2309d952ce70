// The shared statistics of src/util/stats.ts by hand and against simple-statistics (a devDependency) as an independent
// reference: one pearson (null where a side is constant), the nearest-rank percentile, the sample standard deviation,
// the Student-t interval of a mean; the exact distribution functions (t quantiles, p-values, normal tails and
// quantiles, the incomplete beta, ln Gamma) against closed forms and reference values from scipy 1.17.1 and mpmath
// 1.3.0 (50 digits); and why the library does not replace them (it rounds otherwise, and the committed tables are
// recomputed byte for byte).
import { strict as assert } from 'node:assert';
import {
  mean as ssMean,
  meanSimple,
  median as ssMedian,
  quantileSorted,
  sampleCorrelation,
  sampleStandardDeviation,
} from 'simple-statistics';
import {
  betaIncReg,
  logBeta,
  logGamma,
  mean,
  meanInterval,
  median,
  normalPdf,
  normalQuantile,
  normalSf,
  pearson,
  percentile,
  sampleSd,
  tPdf,
  tQuantile,
  tQuantile95,
  tSf,
  tTestP,
  Z95,
} from '../src/util/stats.js';
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
    // t_{0.975,7} = 2.364624251592785 (mpmath; scipy 2.364624251592784)
    assert.equal(ci.ci_high, 5 + (tQuantile95(7) * Math.sqrt(32 / 7)) / Math.sqrt(8));
    assert.ok(Math.abs(ci.ci_high! - (5 + (2.364624251592785 * Math.sqrt(32 / 7)) / Math.sqrt(8))) < 1e-15);
    assert.ok(Math.abs(ci.ci_low! - (5 - (2.364624251592785 * Math.sqrt(32 / 7)) / Math.sqrt(8))) < 1e-15);
  });

  it('median: the middle value, or the mean of the two middle values', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it('t_{0.975, df} is exact: within 2e-15 (relative) of mpmath and 4e-15 of scipy for df 1..30 and beyond', () => {
    // reference: scipy 1.17.1, float(scipy.stats.t.ppf(0.975, df)) for df = 1..30
    const scipy = [
      12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934, 2.5705818356363146,
      2.4469118511449786, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274, 2.200985160091639,
      2.1788128296672284, 2.1603686564627913, 2.144786687917804, 2.131449545559776, 2.1199052992212546,
      2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864, 2.0796138447276795,
      2.0738730679040254, 2.0686576104190486, 2.0638985616280245, 2.0595385527532972, 2.0555294386428735,
      2.0518305164802846, 2.0484071417952454, 2.045229642132703, 2.0422724563012378,
    ];
    // reference: mpmath 1.3.0 at 50 digits, the t with betainc(df/2, 1/2, 0, df/(df+t^2)) = 2 (1 - 0.975) by
    // bisection (0.975 as the double it is), rounded to the nearest double; scipy's values are within 4e-15 of it
    const mpmath = [
      12.706204736174694, 4.302652729749462, 3.1824463052837086, 2.7764451051977934, 2.5705818356363146,
      2.4469118511449692, 2.364624251592785, 2.3060041352041662, 2.262157162798205, 2.2281388519862744,
      2.2009851600916392, 2.1788128296672284, 2.160368656462792, 2.1447866879178035, 2.131449545559775,
      2.119905299221254, 2.1098155778333165, 2.1009220402410382, 2.093024054408309, 2.0859634472658644,
      2.07961384472768, 2.073873067904026, 2.068657610419048, 2.0638985616280254, 2.0595385527532972,
      2.0555294386428726, 2.051830516480285, 2.0484071417952445, 2.045229642132704, 2.0422724563012378,
    ];
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
    for (let df = 1; df <= 30; df++) {
      assert.ok(rel(tQuantile95(df), mpmath[df - 1]) <= 2e-15, `df ${df}: ${tQuantile95(df)} vs ${mpmath[df - 1]}`);
      assert.ok(rel(tQuantile95(df), scipy[df - 1]) <= 4e-15, `df ${df}: ${tQuantile95(df)} vs ${scipy[df - 1]}`);
      assert.equal(tQuantile95(df), tQuantile(0.975, df));
    }
    // the same sources beyond df 30: mpmath, then scipy
    const beyond: [number, number, number][] = [
      [31, 2.039513446396408, 2.039513446396408],
      [40, 2.021075390306273, 2.021075390306273],
      [60, 2.00029782201426, 2.0002978220142604],
      [100, 1.9839715185235518, 1.9839715185235518],
      [120, 1.9799304050824404, 1.9799304050824402],
      [1000, 1.962339080826408, 1.9623390808264083],
    ];
    for (const [df, mp, sp] of beyond) {
      assert.ok(rel(tQuantile95(df), mp) <= 2e-15, `df ${df}: ${tQuantile95(df)} vs ${mp}`);
      assert.ok(rel(tQuantile95(df), sp) <= 2e-15, `df ${df}: ${tQuantile95(df)} vs ${sp}`);
    }
    for (const bad of [0, 1.5, NaN, -3]) assert.throws(() => tQuantile95(bad), /degrees of freedom/);
  });

  it('t quantiles at any p and df: closed forms at df 1 and 2, symmetry, mpmath elsewhere', () => {
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
    for (const p of [0.6, 0.9, 0.975, 0.999, 0.3, 0.01]) {
      // df 1 (Cauchy): tan(pi (p - 1/2)) = cot(pi (1 - p)), the form that keeps its digits near p = 1;
      // df 2: (2p - 1) / sqrt(2 p (1 - p))
      assert.ok(rel(tQuantile(p, 1), 1 / Math.tan(Math.PI * (1 - p))) <= 4e-15, `df 1, p ${p}`);
      assert.ok(rel(tQuantile(p, 2), (2 * p - 1) / Math.sqrt(2 * p * (1 - p))) <= 4e-15, `df 2, p ${p}`);
    }
    // symmetry, where 1 - p is exact
    for (const p of [0.75, 0.875, 0.9990234375]) assert.equal(tQuantile(1 - p, 5), -tQuantile(p, 5));
    assert.equal(tQuantile(0.5, 3), 0);
    // mpmath 1.3.0 (50 digits; scipy 1.17.1 t.ppf in brackets where it differs)
    const cases: [number, number, number][] = [
      [0.9, 5, 1.4758840488244813], // [1.4758840488244815]
      [0.995, 2, 9.92484320091829], // [9.924843200918287]
      [0.9999999, 7, 19.93390224944619],
      [0.5001, 3, 0.00027206990911047337], // [0.00027206990911051864]: near the median scipy loses digits
      [0.975, 2.5, 3.5746548420036817], // a fractional df
    ];
    for (const [p, df, ref] of cases)
      assert.ok(rel(tQuantile(p, df), ref) <= 3e-15, `t(${p}, ${df}) = ${tQuantile(p, df)}`);
    assert.throws(() => tQuantile(1, 3), /0 < p < 1/);
    assert.throws(() => tQuantile(0.9, 0), /degrees of freedom/);
  });

  it('two-sided p-values and tails: closed forms at df 1 and 2, mpmath to 3e-15 down to p = 1e-39', () => {
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
    for (const t of [0.1, 1, 3, 30, 1e4]) {
      // df 1: P(|T| > t) = 1 - 2 atan(t) / pi = 2 atan(1 / t) / pi; df 2: 1 - t / sqrt(t^2 + 2)
      assert.ok(rel(tTestP(t, 1), (2 * Math.atan(1 / t)) / Math.PI) <= 3e-15, `df 1, t ${t}`);
      assert.ok(rel(tTestP(t, 2), 1 - t / Math.sqrt(t * t + 2)) <= 1e-13 * t * t, `df 2, t ${t}`);
      assert.equal(tTestP(-t, 4), tTestP(t, 4));
      assert.ok(Math.abs(tSf(t, 4) + tSf(-t, 4) - 1) <= 1e-15);
    }
    assert.equal(tTestP(0, 3), 1);
    assert.equal(tSf(0, 3), 0.5);
    assert.equal(tTestP(Number.POSITIVE_INFINITY, 3), 0);
    // mpmath 1.3.0, betainc(df/2, 1/2, 0, df/(df+t^2)) at 50 digits (scipy 1.17.1's 2 t.sf in brackets)
    const cases: [number, number, number][] = [
      [2.5, 7, 0.040992218585752895], // [0.04099221858575289]
      [0.1, 3, 0.9266523488008058], // [0.9266523488008059]
      [1, 19, 0.32987680092112504], // [0.329876800921125]
      [2.093, 19, 0.05000237894282798],
      [10, 19, 5.263026162335901e-9], // [5.263026162335899e-9]
      [50, 19, 1.244027957806489e-21], // [1.2440279578064896e-21]
      [3, 1, 0.20483276469913345],
      [3, 2, 0.09546596626670913],
      [100, 30, 1.984611796727025e-39], // [1.984611796727031e-39]
      [4, 1000, 6.800991920878158e-5], // [6.800991920878163e-5]
    ];
    for (const [t, df, ref] of cases) {
      const tol = df >= 1000 ? 1e-14 : 3e-15;
      assert.ok(rel(tTestP(t, df), ref) <= tol, `p(${t}, ${df}) = ${tTestP(t, df)} vs ${ref}`);
      assert.ok(rel(tSf(t, df), ref / 2) <= tol);
    }
    // the density integrates the tail: (sf(t - h) - sf(t + h)) / 2h is the density at t to O(h^2)
    const h = 1e-4;
    assert.ok(rel((tSf(1.3 - h, 6) - tSf(1.3 + h, 6)) / (2 * h), tPdf(1.3, 6)) < 1e-7);
    assert.ok(rel(tPdf(0, 1), 1 / Math.PI) <= 2e-16);
  });

  it('the normal: tails against mpmath (erfc / 2) to 5e-15 out to 1e-300, quantiles to 3e-15, z_0.975', () => {
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
    // mpmath 1.3.0: erfc(x / sqrt 2) / 2 at 50 digits (scipy 1.17.1's norm.sf loses up to 1e-13 in the far tail)
    const tails: [number, number][] = [
      [0.5, 0.3085375387259869],
      [1, 0.15865525393145705],
      [1.5, 0.06680720126885807],
      [1.96, 0.024997895148220435],
      [2.5, 0.006209665325776135],
      [3, 0.0013498980316300946],
      [5, 2.866515718791939e-7],
      [8, 6.220960574271784e-16],
      [20, 2.7536241186062337e-89],
      [37, 5.725571222524577e-300],
    ];
    for (const [x, ref] of tails) {
      assert.ok(rel(normalSf(x), ref) <= 5e-15, `sf(${x}) = ${normalSf(x)} vs ${ref}`);
      assert.ok(Math.abs(normalSf(-x) - (1 - ref)) <= 2e-16, `sf(-${x})`);
    }
    assert.equal(normalSf(0), 0.5);
    assert.ok(Math.abs(normalPdf(0) - 0.3989422804014327) <= 1e-17); // 1 / sqrt(2 pi)
    assert.ok(Math.abs(normalPdf(-1.5) - 0.12951759566589174) <= 1e-17); // scipy norm.pdf(1.5)
    // mpmath: sqrt(2) erfinv(2p - 1); scipy's norm.ppf agrees within 2e-16 but at 0.975 (1.959963984540054)
    const quantiles: [number, number][] = [
      [0.5001, 0.00025066283008800747],
      [0.6, 0.2533471031357997],
      [0.9, 1.2815515655446006],
      [0.975, 1.9599639845400538],
      [0.995, 2.5758293035489004],
      [0.999, 3.090232306167813],
      [1e-10, -6.361340902404057],
    ];
    for (const [p, ref] of quantiles) assert.ok(rel(normalQuantile(p), ref) <= 3e-15, `z(${p}) = ${normalQuantile(p)}`);
    assert.equal(normalQuantile(0.5), 0);
    assert.equal(Z95, normalQuantile(0.975));
    assert.ok(Math.abs(Z95 - 1.959963984540054) <= 1e-15);
  });

  it('ln Gamma, ln B and the regularized incomplete beta: exact values, identities, scipy and mpmath', () => {
    const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
    // integers and half-integers: ln (n - 1)!, ln(sqrt(pi) (1/2)(3/2)...)
    assert.equal(logGamma(1), 0);
    assert.equal(logGamma(2), 0);
    assert.ok(Math.abs(logGamma(10) - Math.log(362880)) <= 2e-15);
    assert.ok(Math.abs(logGamma(0.5) - Math.log(Math.PI) / 2) <= 2e-16);
    assert.ok(Math.abs(logGamma(3.5) - Math.log((15 / 8) * Math.sqrt(Math.PI))) <= 4e-16);
    // elsewhere Stirling (mpmath loggamma: 3.7 -> 1.4280723266653850, 50 -> 144.56574394634488, 1000 -> 5905.2204232091808)
    assert.ok(Math.abs(logGamma(3.7) - 1.428072326665385) <= 4e-15);
    assert.ok(rel(logGamma(50), 144.56574394634487) <= 2e-16);
    assert.ok(rel(logGamma(1000), 5905.220423209181) <= 2e-16);
    assert.throws(() => logGamma(0), /x > 0/);
    // ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b); B(1/2, 1/2) = pi, B(a, 1) = 1 / a
    assert.ok(Math.abs(logBeta(0.5, 0.5) - Math.log(Math.PI)) <= 4e-16);
    assert.ok(Math.abs(logBeta(40, 1) + Math.log(40)) <= 1e-15);
    assert.ok(Math.abs(logBeta(500, 0.5) - (logGamma(500) + logGamma(0.5) - logGamma(500.5))) <= 1e-12);
    // I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b, I_1/2(a, a) = 1/2
    const i1 = betaIncReg(0.3, 4, 1),
      i2 = betaIncReg(0.2, 1, 3);
    assert.ok(rel(i1.lower, 0.3 ** 4) <= 2e-15);
    assert.ok(rel(i2.upper, 0.8 ** 3) <= 2e-15);
    assert.ok(Math.abs(betaIncReg(0.5, 10, 10).lower - 0.5) <= 1e-15);
    assert.deepEqual(betaIncReg(0, 2, 3), { lower: 0, upper: 1 });
    assert.deepEqual(betaIncReg(1, 2, 3), { lower: 1, upper: 0 });
    // mpmath betainc (regularized), scipy.special.betainc in brackets where it differs
    const cases: [number, number, number, number][] = [
      [0.3, 2, 3, 0.3483], // [0.34829999999999994]
      [0.9, 0.5, 0.5, 0.7951672353008665],
      [0.01, 5, 0.5, 2.4712578086395448e-11], // [2.4712578086395438e-11]
      [0.999, 50, 2.5, 0.9998314459482234],
    ];
    for (const [x, a, b, ref] of cases) assert.ok(rel(betaIncReg(x, a, b).lower, ref) <= 3e-15, `I(${x}; ${a}, ${b})`);
    // B(700, 700) is below 1e-290: the powers go through logarithms, where an exponent of about 640 costs digits
    // (mpmath; scipy 2.0392050999464722e-14 and 8.827870080338192e-5)
    assert.ok(rel(betaIncReg(0.4, 700, 700).lower, 2.0392050999464652e-14) <= 3e-14);
    assert.ok(rel(betaIncReg(0.45, 700, 700).lower, 8.827870080338315e-5) <= 3e-14);
    assert.throws(() => betaIncReg(0.5, 0, 1), /a, b > 0/);
    assert.throws(() => betaIncReg(1.5, 1, 1), /0 <= x <= 1/);
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
