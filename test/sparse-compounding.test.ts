// Amendment 2's compounding check (analysis/sparse-compounding.ts) by hand: the product of the known-step
// probabilities over a cell's passes, and the fewest steps at which a known-step probability passes at most 0.05.
import { strict as assert } from 'node:assert';
import { knownProduct, stepsForSparse } from '../analysis/sparse-compounding.js';

describe('sparse regime: compounding', () => {
  it('multiplies each pass over its own columns', () => {
    // chain-6: pass 1 has 6 columns, pass 2 has 7; column k's probability is read once per pass that has it
    const k = [0.9, 0.8, 0.5, 1, 1, 1, 0.5];
    assert.ok(Math.abs(knownProduct(k, [6, 7]) - 0.36 * 0.36 * 0.5) < 1e-12);
    assert.ok(Math.abs(knownProduct(k, [2]) - 0.72) < 1e-12);
  });
  it('finds the fewest steps with q^n <= 0.05', () => {
    assert.equal(stepsForSparse(0.8), 14); // 0.8^13 = 0.055, 0.8^14 = 0.044
    assert.equal(stepsForSparse(0.9), 29); // 0.9^28 = 0.052, 0.9^29 = 0.047
    assert.equal(stepsForSparse(0.05), 1);
    assert.equal(stepsForSparse(1), Number.POSITIVE_INFINITY);
  });
});
