// The power of the claims' paired comparisons (src/util/power.ts): the noncentral t against scipy's values and
// closed forms, the MDE, half-width and seeds by hand, the sign test, Holm and the random-effects mean by hand; then
// every power file's writer on a small fixture of per-seed values (the power row from the same paired differences as
// the claim's interval), and the committed power files against the claims tables beside them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  gaussLegendre,
  halfWidth,
  holm,
  mde,
  noncentralTSf,
  pairedPower,
  pooledCells,
  POOLED_COLUMNS,
  POWER_COLUMNS,
  powerCells,
  powerOf,
  randomEffects,
  sampleSd,
  seedsFor,
  signTest,
  tTestP,
} from '../src/util/power.js';
import { tQuantile95 } from '../src/util/stats.js';
import { CLAIM_POWER_COLUMNS, claimPowerRows, claimRows, scoresBySeed } from '../analysis/aggregate.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';

/** a within `rel` (relative) of b (the reference values are scipy's and mpmath's, to double precision) */
const near = (a: unknown, b: number, rel = 1e-12) =>
  assert.ok(Math.abs(Number(a) - b) <= rel * Math.abs(b), `${a} is not within ${rel} of ${b}`);
const close = (a: unknown, b: number, tol = 1e-12) => assert.ok(Math.abs(Number(a) - b) <= tol, `${a} != ${b}`);

describe('power: the noncentral t against scipy 1.17 (scipy.stats.nct, scipy.stats.t)', () => {
  it('central tails in closed form: Cauchy at df 1, df 2, a two-sided p-value', () => {
    close(noncentralTSf(1, 1, 0), 0.25, 1e-15); // P(T > 1 | df 1) = 1/2 - atan(1)/pi
    close(noncentralTSf(2, 2, 0), 0.5 - 2 / (2 * Math.sqrt(6)), 1e-15); // 1/2 - t / (2 sqrt(t^2 + 2))
    close(noncentralTSf(0, 5, 0), 0.5, 1e-15);
    // noncentral at c = 0: P(Z + ncp > 0) = Phi(ncp) whatever df (the denominator is positive)
    close(noncentralTSf(0, 4, 1), 0.8413447460685429, 1e-15); // scipy norm.cdf(1)
    close(noncentralTSf(0, 2, -2), 0.022750131948179195, 1e-16); // scipy norm.sf(2)
    // one-sided noncentral tails at the exact quantiles: mpmath 1.3 (30 digits, quad of the same integral), which
    // scipy 1.17.1's nct.sf matches to 1e-15 but at the far tail (7.16878901761e-7 there)
    near(noncentralTSf(2.7764451051977934, 4, 2), 0.33581093036380755, 1e-14);
    near(noncentralTSf(4.302652729749462, 2, 3), 0.3873893502006682, 1e-14);
    near(noncentralTSf(2.0930240544083087, 19, 3), 0.81206466341414, 1e-14);
    near(noncentralTSf(12.706204736174694, 1, 5), 0.3051600993786995, 1e-14);
    near(noncentralTSf(2.0930240544083087, 19, -3), 7.168789017529195e-7, 1e-13);
    near(noncentralTSf(2.364624251592784, 7, 0.5), 0.06374186817072272, 1e-14);
    // the two-sided p-value is stats.ts's exact one (2 scipy t.sf(2.5, 7) = 0.04099221858575289)
    near(tTestP(2.5, 7), 0.04099221858575289, 1e-15);
    near(tTestP(-2.5, 7), 0.04099221858575289, 1e-15);
  });
  it('Gauss-Legendre: n nodes integrate polynomials of degree 2n - 1 exactly on [-1, 1]', () => {
    const { x, w } = gaussLegendre(5);
    // the 5-point rule's nodes in closed form: 0, +-sqrt(5 -+ 2 sqrt(10/7)) / 3
    close(x[2], 0, 1e-16);
    close(x[3], Math.sqrt(5 - 2 * Math.sqrt(10 / 7)) / 3, 1e-15);
    close(x[4], Math.sqrt(5 + 2 * Math.sqrt(10 / 7)) / 3, 1e-15);
    close(w[2], 128 / 225, 1e-15);
    for (let k = 0; k <= 9; k++) {
      const q = Array.from(x).reduce((s, xi, i) => s + w[i] * xi ** k, 0);
      close(q, k % 2 ? 0 : 2 / (k + 1), 1e-15);
    }
    const big = gaussLegendre(256);
    close(
      big.w.reduce((a, b) => a + b, 0),
      2,
      1e-13,
    );
    close(
      Array.from(big.x).reduce((s, xi, i) => s + big.w[i] * Math.cos(xi), 0),
      2 * Math.sin(1),
      1e-13,
    );
  });
  it("two-sided power at noncentrality 2, df 4; the paired power and MDE at the brief's cases", () => {
    const c = tQuantile95(4);
    // scipy 1.17.1: nct.sf(t.ppf(0.975, 4), 4, 2) + nct.sf(t.ppf(0.975, 4), 4, -2), the same for the paired power;
    // each MDE is brentq(power - 0.8) over scipy's nct.sf (xtol 1e-16)
    near(noncentralTSf(c, 4, 2) + noncentralTSf(c, 4, -2), 0.3359651039111674, 1e-14);
    near(pairedPower(0.03, 0.023, 3), 0.25926461291180997, 1e-14);
    near(pairedPower(0.03, 0.02, 3), 0.3163818615591507, 1e-14);
    near(mde(0.023, 3), 0.07507300164309014);
    near(mde(0.023, 8), 0.026588797593878867);
    near(mde(0.023, 12), 0.020439048101750196);
    near(mde(0.05, 2), 0.5774944217941181);
    near(mde(0.02, 5), 0.03363993931911108);
    near(mde(0.03, 20), 0.01981324963869078);
    // the MDE is the effect whose power is 0.8, and it scales with sd
    near(pairedPower(mde(0.023, 3), 0.023, 3), 0.8, 1e-14);
    near(mde(0.046, 3), 2 * mde(0.023, 3), 1e-14);
    assert.throws(() => mde(0.02, 1), /n >= 2/);
    assert.throws(() => pairedPower(0.03, 0, 3), /sd > 0/);
  });
  it('half-width by hand, and the fewest seeds for a target MDE', () => {
    close(halfWidth(0.023, 3), (4.302652729749462 * 0.023) / Math.sqrt(3), 1e-16); // scipy t.ppf(0.975, 2)
    close(halfWidth(0.1, 2), (12.706204736174694 * 0.1) / Math.sqrt(2), 1e-15);
    // mde(0.023, 7) = 0.029269 <= 0.03 < mde(0.023, 6) = 0.032995 (scipy, as above)
    const s = seedsFor(0.023, 0.03);
    assert.deepEqual([s.seeds, s.met], [7, true]);
    near(s.mde, mde(0.023, 7), 1e-12);
    assert.ok(mde(0.023, 6) > 0.03);
    const capped = seedsFor(1, 0.03, 5);
    assert.deepEqual([capped.seeds, capped.met], [5, false]);
  });
});

describe('power: the sign test, Holm and the random-effects mean by hand', () => {
  it('sign test: 0 of 13 positive is 2 / 2^13; 1 of 10 is 2 (1 + 10) / 2^10; a tie caps at 1', () => {
    close(signTest(0, 13), 2 / 2 ** 13, 1e-15);
    close(signTest(13, 0), 2 / 2 ** 13, 1e-15);
    close(signTest(1, 9), (2 * 11) / 1024, 1e-14);
    close(signTest(3, 2), 1); // 2 (1 + 5 + 10) / 32 = 1
    close(signTest(0, 0), 1);
  });
  it('Holm: (m - rank) p, running maximum, capped at 1, in the given order', () => {
    // sorted 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> running max 0.06
    const h = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((x, i) => close(h[i], x));
    assert.deepEqual(holm([0.5, 0.6]), [1, 1]);
    assert.deepEqual(holm([]), []);
  });
  it('DerSimonian-Laird: no heterogeneity, then tau^2 > 0 with unequal standard errors', () => {
    // est (0, 1), se (1, 1): w = (1, 1), fixed 0.5, Q = 0.25 + 0.25 = 0.5 < k - 1 = 1 -> tau^2 = 0; se = sqrt(1/2)
    const a = randomEffects([0, 1], [1, 1]);
    close(a.tau2, 0);
    close(a.mean, 0.5);
    close(a.se, Math.sqrt(0.5));
    close(a.ci_low, 0.5 - 1.959963984540054 * Math.sqrt(0.5), 1e-15); // scipy norm.ppf(0.975)
    close(a.ci_high, 0.5 + 1.959963984540054 * Math.sqrt(0.5), 1e-15);
    // est (0, 3), se (1, 0.5): w = (1, 4), fixed = 12 / 5 = 2.4, Q = 1 (2.4)^2 + 4 (0.6)^2 = 5.76 + 1.44 = 7.2,
    // C = 5 - 17 / 5 = 1.6, tau^2 = (7.2 - 1) / 1.6 = 3.875; weights 1 / 4.875 and 1 / 4.125, so the mean is
    // (3 / 4.125) / (1 / 4.875 + 1 / 4.125) = 3 x 4.875 / 9 = 1.625 and se = sqrt(4.875 x 4.125 / 9)
    const b = randomEffects([0, 3], [1, 0.5]);
    close(b.tau2, 3.875);
    close(b.mean, 1.625);
    close(b.se, Math.sqrt((4.875 * 4.125) / 9));
    assert.equal(b.cells, 2);
    // three equal-se cells (0, 2, 4): Q = 8, C = 3 - 1 = 2, tau^2 = (8 - 2) / 2 = 3, mean 2, se = sqrt(4 / 3)
    const c = randomEffects([0, 2, 4], [1, 1, 1]);
    close(c.tau2, 3);
    close(c.mean, 2);
    close(c.se, Math.sqrt(4 / 3));
    assert.throws(() => randomEffects([1], [0]), /standard errors > 0/);
  });
});

describe('power of one claim (powerOf, powerCells, pooledCells)', () => {
  it('three differences: delta, sd, half-width, MDE, power at 0.03, detects', () => {
    const p = powerOf([0.01, 0.03, 0.05]); // mean 0.03, sd 0.02
    close(p.delta, 0.03);
    close(p.sd!, 0.02);
    close(p.half_width!, (4.302652729749462 * 0.02) / Math.sqrt(3), 1e-16);
    close(p.mde!, mde(0.02, 3));
    close(p.power_at_0_03!, pairedPower(0.03, 0.02, 3));
    assert.equal(p.detects_0_03, 'no'); // mde(0.02, 3) is about 0.065
    // eight seeds with sd 0.023: mde 0.0266 <= 0.03
    const eight = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => 0.02 + (i % 2 ? 1 : -1) * 0.023 * Math.sqrt(7 / 8));
    close(sampleSd(eight), 0.023, 1e-12);
    assert.equal(powerOf(eight).detects_0_03, 'yes');
  });
  it('below two seeds or with no spread: the power columns empty, and the note says why', () => {
    assert.deepEqual(powerOf([0.1]), {
      seeds: 1,
      delta: 0.1,
      sd: null,
      half_width: null,
      mde: null,
      power_at_0_03: null,
      detects_0_03: '',
    });
    assert.deepEqual(powerOf([0.5, 0.5, 0.5]), {
      seeds: 3,
      delta: 0.5,
      sd: 0,
      half_width: 0,
      mde: null,
      power_at_0_03: null,
      detects_0_03: '',
    });
    assert.deepEqual(Object.keys(powerCells([0.1, 0.2])), POWER_COLUMNS);
    assert.deepEqual(powerCells([]), {
      seeds: 0,
      delta: '',
      sd: '',
      half_width: '',
      mde: '',
      power_at_0_03: '',
      detects_0_03: '',
      note: 'no seed with both sides measured: nothing to test',
    });
    assert.equal(powerCells([0.1]).note, 'one paired seed: no spread, so no interval and no power');
    assert.equal(
      powerCells([0.5, 0.5]).note,
      'the per-seed differences are all equal: no spread, so no t-test and no power',
    );
    assert.equal(powerCells([0.5, 0.6]).note, '');
  });
  it("pooled: cells' means and standard errors into the random-effects mean; the sign test over the cells", () => {
    // cell means 0.02, -0.01, -0.04 (each sd 0.01, se 0.01 / sqrt 2); the one-seed cell is left out
    const cells = [[0.01, 0.03], [-0.02, 0], [-0.05, -0.03], [0.2]];
    const r = pooledCells(cells),
      se = 0.02 / Math.sqrt(2) / Math.sqrt(2);
    assert.deepEqual(Object.keys(r), POOLED_COLUMNS);
    const want = randomEffects([0.02, -0.01, -0.04], [se, se, se]);
    assert.deepEqual([r.cells, r.positive, r.negative], [3, 1, 2]);
    close(r.sign_p, 1);
    close(r.mean, want.mean);
    close(r.ci_low, want.ci_low);
    close(r.tau2, want.tau2);
    close(want.mean, -0.01); // equal weights: the plain mean of the cells
    assert.equal(r.note, '1 cell(s) left out: fewer than two seeds or no spread');
    assert.equal(pooledCells([[0.1]]).cells, 0);
  });
});

/** A finished run directory with its final.csv and whatever else `files` holds. */
function runDir(dir: string, finals: Row[], files: Record<string, string> = {}): void {
  fs.mkdirSync(dir, { recursive: true });
  writeCsv(path.join(dir, 'final.csv'), finals);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  fs.writeFileSync(path.join(dir, 'done.json'), '{}');
}
const tmp = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `wb-power-${tag}-`));

/** The row of a power file expected from per-seed differences: the claim's key, its verdict, powerCells. */
function expectRow(row: Row, diffs: number[], verdict: string): void {
  const want = powerCells(diffs);
  assert.equal(row.verdict, verdict);
  for (const k of POWER_COLUMNS) {
    if (typeof want[k] === 'number') close(row[k], want[k] as number, 1e-12);
    else assert.equal(row[k], want[k], k);
  }
}

describe('the power files: one row per claim, from the per-seed differences behind its interval', () => {
  it('claimPowerRows: paired by seed (an unpaired seed left out), a within-run claim, one seed, no seed', () => {
    const s = scoresBySeed([
      ...[0.5, 0.6, 0.7, 0.9].map((value, seed) => ({ run: 'S|a', seed, measure: 'm', value })),
      ...[0.45, 0.58, 0.61].map((value, seed) => ({ run: 'S|b', seed, measure: 'm', value })),
      { run: 'S|a', seed: 0, measure: 'late', value: 0.3 },
      { run: 'S|a', seed: 1, measure: 'late', value: 0.4 },
      { run: 'S|a', seed: 0, measure: 'early', value: 0.1 },
      { run: 'S|a', seed: 1, measure: 'early', value: 0.3 },
      { run: 'S|c', seed: 5, measure: 'm', value: 0.2 },
    ]);
    const claims = [
      { claim: 'a beats b', a: 'S|a', b: 'S|b', measure: 'm', sign: 1 as const },
      { claim: 'late over early', a: 'S|a', b: 'S|a', measure: 'late', measureB: 'early', sign: 1 as const },
      { claim: 'one seed', a: 'S|c', b: 'S|c', measure: 'm', sign: -1 as const },
      { claim: 'none', a: 'S|a', b: 'S|c', measure: 'm', sign: 1 as const },
    ];
    const rows = claimPowerRows(s, claims, 'quick'),
      claimed = claimRows(s, claims, 'quick');
    assert.deepEqual(Object.keys(rows[0]), CLAIM_POWER_COLUMNS);
    assert.deepEqual(
      rows.map((r) => [r.profile, r.claim, r.run, r.against, r.measure, r.expected_sign]),
      claimed.map((r) => [r.profile, r.claim, r.run, r.against, r.measure, r.expected_sign]),
    );
    expectRow(rows[0], [0.05, 0.02, 0.09], 'inconclusive'); // seed 3 of a has no partner in b
    close(rows[0].delta, claimed[0].delta as number);
    close(rows[0].half_width, ((claimed[0].ci_high as number) - (claimed[0].ci_low as number)) / 2);
    expectRow(rows[1], [0.2, 0.1], 'inconclusive');
    assert.equal(rows[1].measure, 'late - early');
    expectRow(rows[2], [0], 'inconclusive');
    assert.equal(rows[2].note, 'one paired seed: no spread, so no interval and no power');
    expectRow(rows[3], [], 'inconclusive');
  });

  it('Table 2 (analysis/table2.ts): table2_power.csv beside table2_claims.csv', async () => {
    const { aggregateTable2 } = await import('../analysis/table2.js');
    const root = tmp('t2'),
      out = path.join(root, 'out');
    const values: Record<string, number[]> = { rlvr: [0.5, 0.7, 0.6], rlcer: [0.62, 0.66, 0.7] };
    for (const [method, vs] of Object.entries(values))
      vs.forEach((value, seed) =>
        runDir(
          path.join(root, 'quick', 'S', method, `seed-${seed}`),
          [{ method, size: 'S', seed, column: 'average', value }],
          { 'metrics.jsonl': JSON.stringify({ step: 0, probe_accuracy: value }) + '\n' },
        ),
      );
    aggregateTable2('quick', root, out, null);
    const power = readCsv(path.join(out, 'table2_power.csv')),
      claims = readCsv(path.join(out, 'table2_claims.csv'));
    assert.equal(power.length, claims.length);
    const row = power.find((r) => r.claim === 'RLCER beats RLVR (average accuracy)')!;
    assert.deepEqual([row.run, row.against, row.measure], ['S|rlcer', 'S|rlvr', 'average']);
    expectRow(row, [0.62 - 0.5, 0.66 - 0.7, 0.7 - 0.6], 'inconclusive');
    assert.equal(
      power.find((r) => r.claim === 'RLCER beats RLCER without evolving (average accuracy)')!.note,
      'no seed with both sides measured: nothing to test',
    );
  });

  it('CO-RL (analysis/table1.ts): power.csv beside claims.csv', async () => {
    const { aggregateTable1 } = await import('../analysis/table1.js');
    const root = tmp('corl'),
      out = path.join(root, 'out');
    const run = (method: string, agents: string[], seed: number, value: number) =>
      runDir(
        path.join(root, 'table8', method, agents.join('+'), `seed-${seed}`),
        agents.map((agent) => ({ method, agent, seed, column: 'average', value })),
        { 'config.json': JSON.stringify({ method, agents, seed }) },
      );
    [0.3, 0.35, 0.5].forEach((v, seed) => run('ttrl', ['gru-M'], seed, v));
    [0.5, 0.6, 0.65].forEach((v, seed) => run('corl_diff_family', ['transformer-M', 'gru-M'], seed, v));
    aggregateTable1('table8', root, out, 'results/coldstart/report.csv', null);
    const power = readCsv(path.join(out, 'power.csv'));
    assert.equal(power.length, readCsv(path.join(out, 'claims.csv')).length);
    const row = power.find((r) => r.run === 'gru-M|corl_diff_family' && r.against === 'gru-M|ttrl')!;
    expectRow(row, [0.2, 0.25, 0.15], 'reproduced');
  });

  it('Rubicon (analysis/rubicon.ts): power.csv beside claims.csv', async () => {
    const { aggregateRubicon, powerTable } = await import('../analysis/rubicon.js');
    const root = tmp('rub'),
      out = path.join(root, 'out');
    const run = (rel: string, aggregator: string, schedule: string, seed: number, quality: number) =>
      runDir(
        path.join(root, 'quick', rel, `seed-${seed}`),
        [{ tasks: 'standard', aggregator, defence: 'no', schedule, seed, column: 'quality/steps', value: quality }],
        {
          'config.json': JSON.stringify({
            rubicon: { aggregator, schedule, filterQuantiles: null, defence: 'auto', tasks: 'standard' },
          }),
        },
      );
    [0.4, 0.5, 0.45].forEach((q, seed) => run('base', 'none', 'base', seed, q));
    [0.6, 0.62, 0.5].forEach((q, seed) => run('qo', 'weighted_sum', 'quality_only', seed, q));
    aggregateRubicon('quick', root, out, null);
    const power = readCsv(path.join(out, 'power.csv'));
    assert.equal(power.length, readCsv(path.join(out, 'claims.csv')).length);
    const row = power.find((r) => r.claim === 'seesaw: quality-only training raises the quality dimensions')!;
    expectRow(row, [0.2, 0.12, 0.05], 'inconclusive');
    assert.equal(power.find((r) => String(r.claim).startsWith('the veto blocks'))!.seeds, 0);
    assert.equal(powerTable([], 'quick').length, power.length);
  });

  it('the regime map (src/io/sweep-aggregate.ts): power per cell; pooled over distinct cells, the baseline once', async () => {
    const { expandSweep } = await import('../src/io/sweep.js');
    const { aggregateSweep } = await import('../src/io/sweep-aggregate.js');
    const c = { ...JSON.parse(fs.readFileSync('test/fixtures/sweep-fake.json', 'utf8')), root: '/r' };
    const specs = expandSweep(c);
    // b - a per seed: 0.1 + noise(seed) at the baseline, + 0.2 where x = 0.2 reaches b, - 0.05 at horizon = 5
    const noise = [0, 0.02, -0.01];
    const read = (s: { method: string; seed: number; cell: string }) =>
      new Map([
        [
          'average',
          0.5 +
            (s.method === 'b'
              ? 0.1 + noise[s.seed] + (s.cell === 'x=0.2' ? 0.2 : 0) - (s.cell === 'horizon=5' ? 0.15 : 0)
              : 0),
        ],
      ]);
    const { claims, power, pooled } = aggregateSweep(c, specs, read);
    assert.equal(power.length, claims.length);
    assert.deepEqual(
      power.map((r) => [r.knob, r.level, r.claim]),
      claims.map((r) => [r.knob, r.level, r.claim]),
    );
    const base = noise.map((n) => 0.1 + n);
    expectRow(power[0], base, claims[0].verdict as string);
    expectRow(
      power[1],
      base.map((d) => d + 0.2),
      claims[1].verdict as string,
    );
    expectRow(
      power[3],
      base.map((d) => d - 0.15),
      claims[3].verdict as string,
    );
    // four rows, three distinct cells: (baseline, baseline) under x = 0 and horizon = 0 counts once
    assert.equal(pooled.length, 1);
    const want = pooledCells([base, base.map((d) => d + 0.2), base.map((d) => d - 0.15)]);
    assert.equal(pooled[0].claim, 'b_minus_a');
    for (const k of POOLED_COLUMNS) {
      if (typeof want[k] === 'number') close(pooled[0][k], want[k] as number, 1e-12);
      else assert.equal(pooled[0][k], want[k]);
    }
    assert.deepEqual([pooled[0].cells, pooled[0].positive, pooled[0].negative], [3, 2, 1]);
  });

  it('the long horizon (analysis/long.ts): long_power.csv from the committed records, as committed', async function () {
    this.timeout(60_000);
    const { aggregateLong } = await import('../analysis/long.js');
    const out = tmp('long');
    aggregateLong(path.join(out, 'no-runs'), out);
    assert.equal(
      fs.readFileSync(path.join(out, 'rlcer', 'long_power.csv'), 'utf8'),
      fs.readFileSync('results/rlcer/long_power.csv', 'utf8'),
    );
  });
});

describe('the committed power files agree with the claims tables beside them', () => {
  const pairs: [string, string, string[]][] = [
    ['results/table2_claims.csv', 'results/table2_power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/quick/table2_claims.csv', 'results/quick/table2_power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/corl/claims.csv', 'results/corl/power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/corl/table8/claims.csv', 'results/corl/table8/power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/rubicon/claims.csv', 'results/rubicon/power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/rlcer/long_claims.csv', 'results/rlcer/long_power.csv', ['claim', 'run', 'against', 'measure']],
    ['results/regimes/claims.csv', 'results/regimes/power.csv', ['knob', 'level', 'claim']],
  ];
  for (const [claimsFile, powerFile, key] of pairs) {
    it(`${powerFile}: same rows, seeds, delta and verdict; half-width = the interval's`, () => {
      const claims = readCsv(claimsFile),
        power = readCsv(powerFile);
      assert.deepEqual(
        power.map((r) => key.map((k) => r[k])),
        claims.map((r) => key.map((k) => r[k])),
      );
      claims.forEach((c, i) => {
        const p = power[i];
        assert.deepEqual([p.seeds, p.verdict], [c.seeds, c.verdict]);
        if (c.delta !== '') close(p.delta, c.delta as number, 1e-12);
        if (c.ci_low !== '') close(p.half_width, ((c.ci_high as number) - (c.ci_low as number)) / 2, 1e-12);
        else assert.equal(p.half_width, '');
        if (p.mde !== '') assert.equal(p.detects_0_03, Number(p.mde) <= 0.03 ? 'yes' : 'no');
      });
    });
  }
});
