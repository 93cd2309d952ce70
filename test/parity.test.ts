// Update parity: in a multi-role PPO update the reasoner's step is RLVR's step. With one Adam per role
// ('separate_adam') and the rubricator's loss multiplied by 0, one update over both roles' rollouts leaves the
// weights bit for bit where RLVR's update on the reasoner's rollouts alone leaves them (same seed, same batch,
// one and two epochs); with the rubricator's loss on, they differ (the test can fail).
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig, type Policy } from '../src/models/policy.js';
import { defaultPpoConfig, makeRoleOptimizers, ppoUpdate, type PpoConfig } from '../src/rl/ppo.js';
import type { Rollout } from '../src/rl/rollout.js';
import { makeRng } from '../src/util/random.js';
import { V } from '../src/world/vocab.js';

const rollouts = (role: 'reason' | 'rubric', n: number, seed: number): Rollout[] => {
  const rng = makeRng(seed), tok = () => 3 + rng.int(V - 3);
  return Array.from({ length: n }, (_, i) => ({
    role, group: i >> 2, prompt: Array.from({ length: 6 + rng.int(5) }, tok), completion: Array.from({ length: 4 + rng.int(9) }, tok),
    reward: rng.int(2) ? 1 : -1, components: {},
  }));
};
const weights = (p: Policy) => Object.fromEntries(Object.entries(p.weights).map(([k, v]) => [k, Array.from(v.dataSync())]));

function update(rs: Rollout[], c: PpoConfig): Record<string, number[]> {
  const policy = createPolicy(modelConfig('transformer', 'S', 0));
  ppoUpdate(policy, makeRoleOptimizers(c.lr), rs, c, makeRng(7));
  const w = weights(policy);
  tf.dispose(Object.values(policy.weights));
  return w;
}

describe('update parity: the reasoner of a multi-role update steps as RLVR does', () => {
  before(async () => { await initBackend(); });
  const reason = rollouts('reason', 8, 1), rubric = rollouts('rubric', 8, 2);
  for (const epochs of [1, 2]) {
    it(`separate Adam per role, rubricator loss x 0: the same weights as RLVR's update (${epochs} epoch(s))`, () => {
      const c: PpoConfig = { ...defaultPpoConfig, epochs, minibatches: 2, roleMixing: 'separate_adam' };
      const rlvr = update(reason, c);
      const both = update([...reason, ...rubric], { ...c, roleLossScale: { rubric: 0 } });
      for (const k of Object.keys(rlvr)) assert.deepEqual(both[k], rlvr[k], `weight ${k} differs from RLVR's update`);
      const start = weights(createPolicy(modelConfig('transformer', 'S', 0)));
      assert.ok(Object.keys(start).some((k) => start[k].some((x, i) => x !== rlvr[k][i])), 'the update moved no weight');
    });
  }
  it('with the rubricator loss on, the weights differ (the comparison can fail)', () => {
    const c: PpoConfig = { ...defaultPpoConfig, epochs: 1, minibatches: 2, roleMixing: 'separate_adam' };
    const rlvr = update(reason, c), both = update([...reason, ...rubric], c);
    assert.ok(Object.keys(rlvr).some((k) => both[k].some((x, i) => x !== rlvr[k][i])));
  });
});
