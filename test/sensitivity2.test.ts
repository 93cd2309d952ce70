// The clean instrument's pre-registration (analysis/sensitivity2.ts) on hand-made inputs: the spread it reads from the
// first campaign (the largest accuracy SD among the arms run, never trace error or another cell), the seeds per size,
// and the sweeps it writes (the pilot's verifier overrides for the arms that read one, the pilot's --steps dropped).
import { strict as assert } from 'node:assert';
import { campaign2Seeds, campaign2Sweeps, firstCampaignSd } from '../analysis/sensitivity2.js';
import { mde, seedsFor } from '../src/util/power.js';
import type { SweepConfig } from '../src/io/sweep.js';
import type { Row } from '../src/io/table.js';

const p = (size: string, horizon: number, endpoint: string, claim: string, sd: number | ''): Row => ({
  size,
  regime: 'baseline',
  horizon,
  endpoint,
  claim,
  sd,
});
const first: Row[] = [
  p('S', 300, 'in_distribution', 'process_oracle_minus_rlvr', 0.02),
  p('S', 300, 'chain_ood', 'rlcer_minus_rlvr', 0.05),
  p('S', 300, 'trace_error', 'rlcer_minus_rlvr', 0.3), // not an accuracy endpoint
  p('S', 300, 'chain_ood', 'rlcer_no_evolve_minus_rlvr', 0.4), // not run at 300
  p('S', 60, 'chain_ood', 'rlcer_minus_rlvr', 0.5), // another horizon
  { ...p('S', 300, 'chain_ood', 'rlcer_minus_rlvr', 0.6), regime: 'sparse' }, // another regime
  p('M', 60, 'in_distribution', 'rlcer_minus_rlvr', 0.01),
  p('M', 60, 'chain_ood', 'process_oracle_minus_rlvr', 0.012),
];

describe('the clean campaign pre-registration', () => {
  it('reads the largest accuracy SD of the arms run in the cell only', () => {
    assert.equal(firstCampaignSd(first, 'S', 300, ['process_oracle', 'rlcer']), 0.05);
    assert.equal(firstCampaignSd(first, 'M', 60, ['process_oracle', 'rlcer']), 0.012);
    assert.throws(() => firstCampaignSd(first, 'M', 300, ['rlcer']), /no first-campaign spread at M-300/);
  });

  it('sizes S from the larger of its horizons and keeps M at 8', () => {
    const pilot: Row[] = [{ size: 'S', cell: 'baseline', horizon: 60, sd_used: 0.01 }];
    const s = campaign2Seeds(pilot, first);
    // S-60 with SD 0.01 asks few seeds, S-300 with 0.05 asks the cap: S takes the most
    assert.equal(s.rows[0].rule, seedsFor(0.01, 0.03).seeds);
    assert.equal(s.rows[1].sd, 0.05);
    assert.equal(s.S, 20);
    assert.equal(s.M, 8);
    assert.equal(s.rows[2].mde, seedsFor(0.012, 0.03).mde);
    assert.ok(mde(0.05, 20) > 0.03);
    // a small spread everywhere still gives at least the floor of 8 seeds
    const small = campaign2Seeds(pilot, [
      p('S', 300, 'in_distribution', 'rlcer_minus_rlvr', 0.001),
      p('M', 60, 'in_distribution', 'rlcer_minus_rlvr', 0.001),
    ]);
    assert.equal(small.S, 8);
  });

  it("writes sweeps with the pilot's overrides for their own arms and no --steps", () => {
    const pilot = {
      name: 'x',
      root: 'runs/x',
      command: ['src/cli/table2-run.ts', '--profile', 'confirm', '--steps', '60', '--out', '{dir}'],
      methods: [],
      seeds: [],
      sizes: ['S'],
      overrides: { rlcer: { verifier: 'competent' }, fixed_teacher: { verifier: 'competent' } },
    } as unknown as SweepConfig;
    const sw = campaign2Sweeps(pilot, { rows: [], S: 20, M: 8 });
    const S = sw['sensitivity2-S-baseline.json'],
      M = sw['sensitivity2-M-baseline.json'];
    assert.deepEqual(S.command, ['src/cli/table2-run.ts', '--profile', 'confirm', '--out', '{dir}']);
    assert.deepEqual(
      S.seeds,
      Array.from({ length: 20 }, (_, i) => 20 + i),
    );
    assert.deepEqual(M.seeds, [20, 21, 22, 23, 24, 25, 26, 27]);
    assert.deepEqual(Object.keys(S.overrides ?? {}).sort(), ['fixed_teacher', 'rlcer']);
    assert.deepEqual(M.overrides, { rlcer: { verifier: 'competent' } });
    assert.equal(S.archive, 'results/runs/sensitivity2/S-baseline');
  });
});
