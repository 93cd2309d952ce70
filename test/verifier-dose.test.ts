// The verifier dose-response pilot's analysis (analysis/verifier-dose.ts): the runs of the arm that reads no verifier
// pair with every level, a knob method's baseline is its default level, and each level's verifier accuracy (the
// figure's x-axis) by hand.
import { strict as assert } from 'node:assert';
import { doseCells, levelAccuracy } from '../analysis/verifier-dose.js';
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
});
