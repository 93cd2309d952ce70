// The verifier dose-response pilot's analysis (analysis/verifier-dose.ts): the runs of the arm that reads no verifier
// pair with every level, a knob method's baseline is its default level, and each level's verifier accuracy (the
// figure's x-axis) by hand.
import { strict as assert } from 'node:assert';
import { doseCells, doseLevel300, doseSeeds, doseSweeps, levelAccuracy } from '../analysis/verifier-dose.js';
import type { SweepFile } from '../src/io/sweep.js';
import { pairedDifferences } from '../analysis/sensitivity.js';
import type { Row } from '../src/io/table.js';

const rec = (method: string, cell: string, seed: number, value: number): Row => ({
  size: 'S',
  cell,
  method,
  seed,
  horizon: 60,
  endpoint: 'in_distribution',
  value,
  n: 1,
});

describe('the verifier dose pilot', () => {
  it('pairs RLVR with every level and names the default level', () => {
    const records = doseCells(
      [
        rec('rlvr', 'baseline', 0, 0.5),
        rec('rlvr', 'baseline', 1, 0.6),
        rec('rlcer', 'baseline', 0, 0.4),
        rec('rlcer', 'baseline', 1, 0.7),
        rec('rlcer', 'verifier=oracle', 0, 0.9),
        rec('rlcer', 'verifier=oracle', 1, 0.8),
      ],
      'learned',
      ['oracle'],
    );
    assert.equal(records.filter((r) => r.method === 'rlvr').length, 4);
    const d = pairedDifferences(records, 'rlcer', 'rlvr', ['in_distribution']);
    const at = (cell: string) => d.find((r) => r.cell === cell)!;
    assert.ok(Math.abs(Number(at('verifier=learned').delta) - 0) < 1e-12); // (-0.1 + 0.1) / 2
    assert.ok(Math.abs(Number(at('verifier=oracle').delta) - 0.3) < 1e-12); // (0.4 + 0.2) / 2
    assert.equal(d.length, 2);
  });

  it("gives each level's accuracy: weighted held-out accuracy, the noisy exact verifier's set one, 1", () => {
    const heldOut: Row[] = [
      { set: 'coldstart', criterion: 'A', examples: 100, learned_accuracy: 0.5, competent_accuracy: 1 },
      { set: 'coldstart', criterion: 'B', examples: 300, learned_accuracy: 0.9, competent_accuracy: 0.9 },
      { set: 'rlvr', criterion: 'A', examples: 1000, learned_accuracy: 0, competent_accuracy: 0 },
    ];
    assert.ok(Math.abs(levelAccuracy('learned', heldOut) - 0.8) < 1e-12); // (50 + 270) / 400
    assert.ok(Math.abs(levelAccuracy('competent', heldOut) - 0.925) < 1e-12); // (100 + 270) / 400
    assert.equal(levelAccuracy('oracle@0.8', heldOut), 0.8);
    assert.equal(levelAccuracy('oracle', heldOut), 1);
    assert.throws(() => levelAccuracy('huge', heldOut), /no held-out accuracy/);
  });

  it('sizes every arm by the level that asks most, the cap where a level could not spread', () => {
    assert.equal(doseSeeds([{ seeds: 9 }, { seeds: 12 }]), 12);
    assert.equal(doseSeeds([{ seeds: 3 }]), 8); // the floor
    assert.equal(doseSeeds([{ seeds: 9 }, { seeds: '' }]), 20);
  });

  it("adds 300 steps at the level farthest from the learned verifier's difference", () => {
    const row = (cell: string, delta: number, endpoint = 'in_distribution', horizon = 60): Row => ({
      a: 'rlcer',
      b: 'rlvr',
      cell: `verifier=${cell}`,
      endpoint,
      horizon,
      delta,
    });
    const paired = [
      row('learned', -0.05),
      row('competent', 0.01), // 0.06 away
      row('oracle', -0.12), // 0.07 away: the farthest
      row('oracle@0.8', 0.5, 'chain_ood'), // another endpoint: not read
      row('oracle@0.8', 0.5, 'in_distribution', 300), // another horizon: not read
    ];
    assert.equal(doseLevel300(paired, 'rlcer', 'rlvr', 'learned'), 'oracle');
    assert.throws(() => doseLevel300(paired, 'evolm', 'judge_teacher', 'learned'), /no evolm - judge_teacher/);
  });

  it('writes a 60-step sweep of every level and a 300-step sweep of each claim at its level', () => {
    const pilot = {
      name: 'p',
      command: ['src/cli/table2-run.ts', '--steps', '60', '--out', '{dir}'],
      methods: ['rlvr', 'rlcer', 'judge_teacher', 'evolm'],
      seeds: [0, 1, 2],
      knobs: [
        {
          name: 'verifier',
          default: 'learned',
          levels: [
            { level: 'competent', overrides: { verifier: 'competent' } },
            { level: 'oracle', overrides: { verifier: 'oracle' } },
          ],
        },
      ],
    } as unknown as SweepFile;
    const sw = doseSweeps(pilot, 3, { rlcer_minus_rlvr: 'competent', evolm_minus_judge_teacher: 'oracle' });
    const s60 = sw['verifier-dose-S.json'],
      s300 = sw['verifier-dose-S300.json'];
    assert.deepEqual(s60.seeds, [40, 41, 42]);
    assert.equal(s60.knobs?.length, 1);
    assert.deepEqual(s300.command, ['src/cli/table2-run.ts', '--steps', '300', '--out', '{dir}']);
    assert.deepEqual(s300.overrides, {
      rlcer: { verifier: 'competent' },
      evolm: { verifier: 'oracle' },
      judge_teacher: { verifier: 'oracle' },
    });
    assert.deepEqual(s300.knobs, []);
    assert.equal(s300.archive, 'results/runs/verifier-dose/S300');
  });
});
