// The registry of Table 2 kinds (src/methods/tables/table2-kinds.ts): each row's config, record and flags.
import { strict as assert } from 'node:assert';
import { METHODS } from '../src/methods/tables/table2.js';
import { KINDS, table2Row } from '../src/methods/tables/table2-kinds.js';

const row = (id: string, over: Record<string, unknown> = {}, klTarget: number | null = null) =>
  table2Row({ spec: METHODS[id], user: over, steps: 7, klTarget, scalarRmCheckpoint: 'rm.json' });

describe('Table 2 kinds registry', () => {
  it('records the config under its kind, with the steps, the spec and the user overrides', () => {
    assert.deepEqual(Object.keys(row('rlvr').record), ['rlvr']);
    assert.deepEqual(Object.keys(row('scalar_rm').record), ['rlvr', 'scalarRm']);
    assert.equal(row('scalar_rm').record.scalarRm, 'rm.json');
    const r = row('rlcer_no_evolve', { temperature: 0.5 }).record.rlcer as Record<string, unknown>;
    assert.equal(r.steps, 7);
    assert.equal(r.evolve, false);
    assert.equal(r.temperature, 0.5);
    assert.equal((row('sft', { temperature: 0.5 }).record.rlvr as Record<string, unknown>).temperature, 1);
  });

  it("measures the cold start in the user's world (a sweep's regime), and takes nothing else of theirs", () => {
    const cells = [
      { family: 'add', digits: 6 },
      { family: 'chain', digits: 5 },
    ];
    const sft = row('sft', { world: { trainCells: cells }, temperature: 0.5 });
    assert.deepEqual(sft.world.trainCells, cells);
    assert.deepEqual((sft.record.rlvr as { world: { trainCells: unknown } }).world.trainCells, cells);
    assert.equal((sft.record.rlvr as Record<string, unknown>).temperature, 1);
    assert.deepEqual(row('sft').world, row('rlvr').world);
    assert.deepEqual(row('rlvr', { world: { trainCells: cells } }).world.trainCells, cells);
  });

  it("puts a KL-matched row's target under its kind's key; only the cold start takes no steps", () => {
    assert.equal((row('rlcer_kl_matched', {}, 0.02).record.rlcer as Record<string, unknown>).reasonKlTarget, 0.02);
    assert.equal((row('evolm_kl_matched', {}, 0.03).record.evolm as Record<string, unknown>).policyKlTarget, 0.03);
    assert.deepEqual(
      Object.entries(KINDS)
        .filter(([, k]) => !k.trains)
        .map(([n]) => n),
      ['sft'],
    );
    assert.equal(row('evolm').horizons, false);
    assert.equal(row('rlvr').horizons, true);
    assert.equal(row('evolm_two_model').needsGenerator, true);
  });
});
