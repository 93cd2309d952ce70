// The pre-registered rule that picks PPO's all-equal-group default (analysis/equal-groups.ts), by hand.
import { strict as assert } from 'node:assert';
import { chooseDefault } from '../analysis/equal-groups.js';

describe("the equal-groups default's rule", () => {
  it('takes the smallest mean summed approx. KL', () => {
    assert.equal(chooseDefault({ keep: 0.06, zero: 0.01, resample: 0.02 }), 'zero');
    assert.equal(chooseDefault({ keep: 0.005, zero: 0.01, resample: 0.02 }), 'keep');
  });
  it('prefers zero (no extra rollouts) when resample is smaller by no more than 10%', () => {
    assert.equal(chooseDefault({ keep: 0.06, zero: 0.0105, resample: 0.01 }), 'zero');
    assert.equal(chooseDefault({ keep: 0.06, zero: 0.0111, resample: 0.01 }), 'resample');
  });
});
