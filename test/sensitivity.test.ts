// The sensitivity analysis (analysis/sensitivity.ts) on hand-made records: paired differences and their MDE, the
// seeds rule, the campaign's verdicts (Holm within a family, `no effect larger than MDE`, `uninformative` where the
// positive control does not beat RLVR, `pending` short of the pre-registered seeds), the pooled reading.
import { strict as assert } from 'node:assert';
import {
  campaignSeeds,
  confirmClaims,
  confirmPooled,
  pairedDifferences,
  parityByArm,
  seedRule,
} from '../analysis/sensitivity.js';
import { mde, seedsFor, tTestP } from '../src/util/power.js';
import type { Row } from '../src/io/table.js';

const rec = (method: string, seed: number, value: number | '', o: Partial<Row> = {}): Row => ({
  size: 'S',
  cell: 'baseline',
  method,
  seed,
  horizon: 60,
  endpoint: 'in_distribution',
  value,
  n: 10,
  ...o,
});

describe('sensitivity pilot', () => {
  it('pairs by seed, skips seeds without a value, and gives the interval and MDE of the differences', () => {
    const records = [
      rec('rlvr', 0, 0.5),
      rec('rlvr', 1, 0.6),
      rec('rlvr', 2, 0.7),
      rec('process_oracle', 0, 0.55),
      rec('process_oracle', 1, 0.62),
      rec('process_oracle', 2, 0.78),
      rec('process_oracle', 3, 0.9),
    ];
    const [r] = pairedDifferences(records, 'process_oracle', 'rlvr');
    // differences 0.05, 0.02, 0.08: mean 0.05, sd 0.03
    assert.equal(r.seeds, 3);
    assert.ok(Math.abs(Number(r.delta) - 0.05) < 1e-12);
    assert.ok(Math.abs(Number(r.sd) - 0.03) < 1e-12);
    assert.ok(Math.abs(Number(r.mde) - mde(0.03, 3)) < 1e-12);
    assert.ok(Math.abs(Number(r.half_width) - (4.302652729749462 * 0.03) / Math.sqrt(3)) < 1e-12); // t_{0.975,2}
    const te = pairedDifferences(
      [rec('rlvr', 0, '', { endpoint: 'trace_error' }), rec('process_oracle', 0, 0.1, { endpoint: 'trace_error' })],
      'process_oracle',
      'rlvr',
    );
    assert.equal(te.length, 0, 'a trace error without right answers pairs with nothing');
  });
  it('sizes seeds from the larger accuracy SD only (means never read), capped at 20', () => {
    const paired: Row[] = [
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'in_distribution', sd: 0.02, seeds: 3 },
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'chain_ood', sd: 0.03, seeds: 3 },
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'trace_error', sd: 0.05, seeds: 3 },
      { size: 'S', cell: 'regime=sparse', horizon: 60, endpoint: 'in_distribution', sd: 0.2, seeds: 3 },
      { size: 'S', cell: 'regime=sparse', horizon: 60, endpoint: 'chain_ood', sd: 0.01, seeds: 3 },
    ];
    const [base, sparse] = seedRule(paired);
    assert.equal(base.sd_used, 0.03);
    assert.equal(base.seeds, seedsFor(0.03, 0.03).seeds);
    assert.ok(Math.abs(Number(base.mde_trace_error) - mde(0.05, Number(base.seeds))) < 1e-12);
    assert.equal(sparse.seeds, 20);
    assert.equal(sparse.target_met, 'no');
    // several arms against RLVR in one cell: the arm whose difference spreads most on each endpoint
    const [many] = seedRule([
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'in_distribution', a: 'x', sd: 0.01, seeds: 6 },
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'in_distribution', a: 'y', sd: 0.025, seeds: 5 },
      { size: 'S', cell: 'baseline', horizon: 60, endpoint: 'chain_ood', a: 'x', sd: 0.02, seeds: 6 },
    ]);
    assert.equal(many.sd_used, 0.025);
    assert.equal(many.pilot_seeds, 5);
    assert.equal(many.sd_chain_ood, 0.02);
    assert.deepEqual(campaignSeeds([base, sparse], [{ size: 'M', seeds_rule: 3 }]), {
      S: { baseline: Math.max(8, Number(base.seeds)), sparse: 20 },
      M: 8,
    });
  });
});

describe('sensitivity campaign update parity per arm', () => {
  it("summarises the reasoner's KL ratio per arm: median, range, runs in the band; RLVR and other roles left out", () => {
    const row = (method: string, seed: number, ratio: number | '', role = 'reasoner', updates = 60) => ({
      regime: 'baseline',
      size: 'S',
      method,
      seed,
      role,
      updates,
      ratio_to_rlvr: ratio,
      within_band: ratio === '' || role !== 'reasoner' ? '' : ratio >= 0.5 && ratio <= 2 ? 'yes' : 'no',
    });
    const out = parityByArm([
      row('rlvr', 0, 1),
      row('rlcer', 0, 1.5, 'reasoner', 300),
      row('rlcer', 1, 2.5, 'reasoner', 300),
      row('rlcer', 2, 1.1, 'reasoner', 60),
      row('rlcer', 3, 0.9),
      row('rlcer', 0, 8, 'rubricator'),
      row('fixed_teacher', 0, ''),
    ]);
    assert.equal(out.length, 1);
    assert.deepEqual(out[0], {
      regime: 'baseline',
      size: 'S',
      method: 'rlcer',
      runs: 4,
      updates: '60-300',
      ratio_median: 1.3,
      ratio_min: 0.9,
      ratio_max: 2.5,
      runs_within_band: '3/4',
    });
  });
});

describe('sensitivity campaign verdicts', () => {
  // 8 seeds; RLVR 0.5 + small noise; the positive control +0.1 (helps); rlcer +0.001 (null); fixed teacher -0.1
  const noise = [0.01, -0.01, 0.02, -0.02, 0.005, -0.005, 0.015, -0.015];
  const arm = (m: string, shift: number, o: Partial<Row> = {}) =>
    noise.map((e, s) => rec(m, s, 0.5 + shift + (m === 'rlvr' ? 0 : e * 0.5), o));
  it('helps / hurts by Holm-adjusted p, a null inside +-MDE, and uninformative only where the control fails', () => {
    const records = [
      ...arm('rlvr', 0),
      ...arm('process_oracle', 0.1),
      ...arm('rlcer', 0.001),
      ...arm('fixed_teacher', -0.1),
    ];
    const claims = confirmClaims(records, () => 8);
    const v = (c: string) => claims.find((r) => r.claim === c)!;
    assert.equal(v('process_oracle_minus_rlvr').verdict, 'helps');
    assert.equal(v('fixed_teacher_minus_rlvr').verdict, 'hurts');
    assert.equal(v('rlcer_minus_rlvr').verdict, 'no effect larger than MDE');
    assert.equal(v('rlcer_minus_rlvr').positive_control, 'beats RLVR');
    // Holm: the smallest p times 3 (three comparisons in the family)
    const ps = claims.map((c) => Number(c.p)),
      min = Math.min(...ps);
    assert.ok(Math.abs(Number(claims[ps.indexOf(min)].p_holm) - Math.min(1, 3 * min)) < 1e-12);
    const d = noise.map((e) => e * 0.5 + 0.001),
      m = d.reduce((a, b) => a + b) / 8;
    const sd = Math.sqrt(d.reduce((a, x) => a + (x - m) ** 2, 0) / 7);
    assert.ok(Math.abs(Number(v('rlcer_minus_rlvr').p) - tTestP(m / (sd / Math.sqrt(8)), 7)) < 1e-12);
    // the same with a positive control that does nothing: the rubric arm's null is uninformative, its hurt stays
    const flat = confirmClaims(
      [...arm('rlvr', 0), ...arm('process_oracle', 0.001), ...arm('rlcer', 0.001), ...arm('fixed_teacher', -0.1)],
      () => 8,
    );
    assert.equal(flat.find((r) => r.claim === 'rlcer_minus_rlvr')!.verdict, 'uninformative');
    assert.equal(flat.find((r) => r.claim === 'fixed_teacher_minus_rlvr')!.verdict, 'hurts');
    assert.equal(flat.find((r) => r.claim === 'rlcer_minus_rlvr')!.positive_control, 'does not beat RLVR');
  });
  it('tests the Holm-adjusted p, not the raw one; a null must lie inside +-MDE on both sides', () => {
    // rlcer +0.007: raw p about 0.03, fourth of five in its family, so Holm doubles it past 0.05
    const claims = confirmClaims(
      [
        ...arm('rlvr', 0),
        ...arm('process_oracle', 0.1),
        ...arm('fixed_teacher', -0.1),
        ...arm('rlcer', 0.007),
        ...arm('rlcer_no_evolve', 0),
      ],
      () => 8,
    );
    const r = claims.find((c) => c.claim === 'rlcer_minus_rlvr')!;
    assert.ok(Number(r.p) < 0.05 && Number(r.p_holm) >= 0.05, `p ${r.p}, Holm ${r.p_holm}`);
    assert.equal(r.verdict, 'inconclusive');
    // -0.006: not significant, its interval reaches below -MDE: inconclusive, not a null
    const low = confirmClaims(
      [...arm('rlvr', 0), ...arm('process_oracle', 0.1), ...arm('rlcer', -0.006)],
      () => 8,
    ).find((c) => c.claim === 'rlcer_minus_rlvr')!;
    assert.ok(
      Number(low.p_holm) >= 0.05 && Number(low.ci_low) < -Number(low.mde) && Number(low.ci_high) < Number(low.mde),
    );
    assert.equal(low.verdict, 'inconclusive');
  });
  it('reads an exact zero on every seed (no spread, MDE 0) as a null, not as inconclusive (amendment 2)', () => {
    const floor = (m: string) => noise.map((_, s) => rec(m, s, 0));
    const claims = confirmClaims([...floor('rlvr'), ...arm('process_oracle', 0.1), ...floor('rlcer')], () => 8);
    const r = claims.find((c) => c.claim === 'rlcer_minus_rlvr')!;
    assert.deepEqual([r.delta, r.ci_low, r.ci_high, r.mde, r.p], [0, 0, 0, 0, 1]);
    assert.equal(r.verdict, 'no effect larger than MDE');
    // the same floor where the positive control does not lift: uninformative, as any null there
    const flat = confirmClaims([...floor('rlvr'), ...floor('process_oracle'), ...floor('rlcer')], () => 8);
    assert.equal(flat.find((c) => c.claim === 'rlcer_minus_rlvr')!.verdict, 'uninformative');
    // a constant non-zero difference is exact too: detected (p 0)
    const shifted = noise.map((_, s) => rec('rlcer', s, 0.01));
    const up = confirmClaims([...floor('rlvr'), ...arm('process_oracle', 0.1), ...shifted], () => 8);
    assert.equal(up.find((c) => c.claim === 'rlcer_minus_rlvr')!.verdict, 'helps');
  });
  it('reads trace error with the sign flipped, and leaves comparisons short of their seeds pending', () => {
    const te = { endpoint: 'trace_error' };
    const runs = [...arm('rlvr', 0), ...arm('process_oracle', 0.1)]; // the runs' in-distribution records: all finished
    const claims = confirmClaims([...runs, ...arm('rlvr', 0, te), ...arm('process_oracle', -0.1, te)], () => 8).filter(
      (c) => c.endpoint === 'trace_error',
    );
    assert.equal(claims[0].verdict, 'helps');
    assert.equal(claims[0].expected_sign, -1);
    const short = confirmClaims([...arm('rlvr', 0), ...arm('process_oracle', 0.1).slice(0, 5)], () => 8);
    assert.equal(short[0].verdict, 'pending');
    assert.equal(short[0].p, '');
  });
  it('reads a family only when every arm in it is finished; a trace error with under two valued seeds is not testable', () => {
    // the rubric arm finished, the positive control not: its null waits (pending), it is not "no effect"
    const partial = confirmClaims(
      [...arm('rlvr', 0), ...arm('rlcer', 0.001), ...arm('process_oracle', 0.001).slice(0, 5)],
      () => 8,
    );
    assert.deepEqual(
      partial.map((c) => c.verdict),
      ['pending', 'pending'],
    );
    assert.equal(partial.find((c) => c.a === 'rlcer')!.positive_control, 'pending');
    // trace error: RLVR has right answers in one seed only
    const te = (m: string, o: number[]) =>
      noise.map((_, s) => rec(m, s, o.includes(s) ? 0.5 : '', { endpoint: 'trace_error' }));
    const claims = confirmClaims(
      [
        ...arm('rlvr', 0),
        ...arm('process_oracle', 0.1),
        ...te('rlvr', [3]),
        ...te('process_oracle', [0, 1, 2, 3, 4, 5, 6, 7]),
      ],
      () => 8,
    ).filter((c) => c.endpoint === 'trace_error');
    assert.equal(claims[0].verdict, 'not testable');
    assert.equal(claims[0].seeds, 1);
  });
  it('waits for a pre-registered arm that has no finished run yet (its family would otherwise be read without it)', () => {
    const done = [...arm('rlvr', 0), ...arm('process_oracle', 0.1), ...arm('rlcer', 0.001)];
    const preregistered = () => ['process_oracle', 'rlcer', 'fixed_teacher'];
    const waiting = confirmClaims(done, () => 8, preregistered);
    assert.deepEqual(
      waiting.map((c) => c.verdict),
      ['pending', 'pending'],
    );
    // with the arm's runs in, the family is read, and adjusted over all three comparisons
    const read = confirmClaims([...done, ...arm('fixed_teacher', -0.1)], () => 8, preregistered);
    assert.equal(read.find((c) => c.a === 'process_oracle')!.verdict, 'helps');
    assert.equal(read.length, 3);
  });
  it("leaves the sparse regime's trace error untested by construction (amendment 1), never uninformative", () => {
    const sp = { cell: 'regime=sparse' },
      te = { cell: 'regime=sparse', endpoint: 'trace_error' };
    const claims = confirmClaims(
      [
        ...arm('rlvr', 0, sp),
        ...arm('process_oracle', 0.001, sp),
        ...arm('rlcer', 0.001, sp),
        ...arm('rlvr', 0, te),
        ...arm('process_oracle', -0.1, te),
        ...arm('rlcer', 0.001, te),
      ],
      () => 8,
    ).filter((c) => c.endpoint === 'trace_error');
    assert.ok(claims.length === 2 && claims.every((c) => String(c.verdict).startsWith('not testable')));
  });
  it('pools a claim across the regimes of its size, one horizon at a time', () => {
    const cells = ['baseline', 'regime=sparse'];
    const records = cells.flatMap((cell) => [...arm('rlvr', 0, { cell }), ...arm('process_oracle', 0.1, { cell })]);
    const pooled = confirmPooled(
      records,
      confirmClaims(records, () => 8),
    );
    assert.equal(pooled.length, 1);
    assert.equal(pooled[0].horizon, 60);
    assert.equal(pooled[0].cells, 2);
    assert.equal(pooled[0].positive, 2);
    assert.ok(Math.abs(Number(pooled[0].mean) - 0.1) < 1e-9);
  });
});

describe('sensitivity campaign figures', () => {
  it('an endpoint figure: a marker per arm and panel, RLVR and the positive control as bands, null without rows', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { writeCsv } = await import('../src/io/table.js');
    const { confirmEndpointFigure } = await import('../analysis/sensitivity-figures.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-confirm-fig-'));
    const file = path.join(dir, 'table.csv');
    const row = (regime: string, method: string, mean: number, endpoint = 'in_distribution') => ({
      size: 'S',
      regime,
      horizon: 60,
      method,
      endpoint,
      mean,
      ci_low: mean - 0.01,
      ci_high: mean + 0.01,
      seeds: 8,
    });
    writeCsv(file, [
      row('baseline', 'rlvr', 0.5),
      row('baseline', 'process_oracle', 0.6),
      row('baseline', 'rlcer', 0.55),
      row('sparse', 'rlvr', 0.2),
      row('sparse', 'rlcer', 0.25),
      row('sparse', 'rlcer', 0.9, 'chain_ood'),
    ]);
    const f = confirmEndpointFigure('in_distribution', file);
    assert.ok(f);
    assert.equal(f.data.length, 5, 'one marker per arm and panel');
    const shapes = f.layout.shapes as { x0: number; x1: number; xref: string }[];
    assert.deepEqual(
      shapes.map((s) => [s.xref, s.x0.toFixed(2), s.x1.toFixed(2)]),
      [
        ['x', '0.49', '0.51'],
        ['x', '0.59', '0.61'],
        ['x2', '0.19', '0.21'],
      ],
      'RLVR and the positive control in the baseline panel, RLVR alone in the sparse one',
    );
    assert.equal(confirmEndpointFigure('trace_error', file), null);
    assert.equal(confirmEndpointFigure('in_distribution', path.join(dir, 'none.csv')), null);
    fs.rmSync(dir, { recursive: true });
  });
});
