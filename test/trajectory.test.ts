// analysis/trajectory.ts: the before/after summary of each arm's early training, by hand on made-up series.
import { strict as assert } from 'node:assert';
import { STEPS, summarise } from '../analysis/trajectory.js';

/** A run whose accuracy is `acc` at every step, value loss `v`, approx. KL `k`. */
const run = (acc: number, v = 0.5, k = 0.01) => ({
  accuracy: Array(STEPS).fill(acc),
  'reason/value_loss': Array(STEPS).fill(v),
  'reason/approx_kl': Array(STEPS).fill(k),
});

describe('the early trajectory against RLVR (analysis/trajectory.ts)', () => {
  it('pairs each arm with RLVR on the same seed, per window, and counts the seeds below it', () => {
    const rising = run(0);
    rising.accuracy = rising.accuracy.map((_, t) => (t < 10 ? 0.2 : 0.8)); // steps 1-10 at 0.2, then 0.8
    const series = new Map([
      [
        'rlvr',
        new Map([
          [1, run(0.5)],
          [2, run(0.6)],
        ]),
      ],
      [
        'pc',
        new Map([
          [1, rising],
          [2, run(0.7, 1.5)],
        ]),
      ],
    ]);
    const rows = summarise('clean', series, () => [1, 2]);
    const at = (m: string, w: string) => rows.find((r) => r.method === m && r.steps === w)!;
    // steps 1-10: pc 0.2 and 0.7 against 0.5 and 0.6: differences -0.3 and +0.1
    assert.equal(at('pc', '1-10').accuracy, 0.45);
    assert.equal(at('pc', '1-10').minus_rlvr, -0.1);
    assert.equal(at('pc', '1-10').seeds_below_rlvr, 1);
    // interval: mean -0.1, sd of (-0.3, 0.1) = 0.2 sqrt(2), t(0.975, 1) = 12.7062...: half-width 12.7062 * 0.2
    assert.ok(Math.abs(Number(at('pc', '1-10').ci_low) - (-0.1 - 12.7062047 * 0.2)) < 1e-5);
    // steps 11-30: 0.8 and 0.7 against 0.5 and 0.6: both above
    assert.equal(at('pc', '11-30').minus_rlvr, 0.2);
    assert.equal(at('pc', '11-30').seeds_below_rlvr, 0);
    assert.equal(at('pc', '1-60').value_loss, 1);
    assert.equal(at('rlvr', '1-10').minus_rlvr, '');
    assert.equal(at('rlvr', '1-10').accuracy, 0.55);
  });
});
