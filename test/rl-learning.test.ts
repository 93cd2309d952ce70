// PPO and GRPO learn on a toy task: reward +1 when the first completion token is "7", -1 otherwise.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import { copyPolicy, createPolicy } from '../src/models/index.js';
import { modelConfig, sample, type Policy } from '../src/models/policy.js';
import { defaultPpoConfig, makeCritics, makeRoleOptimizers, ppoUpdate } from '../src/rl/ppo.js';
import { defaultGrpoConfig, grpoAdvantages, grpoUpdate } from '../src/rl/grpo.js';
import type { Rollout } from '../src/rl/rollout.js';
import { makeRng } from '../src/util/random.js';
import { encode, tokenId } from '../src/world/vocab.js';

const prompt = encode(['<reason>', 'Q', '1', '+', '2', '=']);
const SEVEN = tokenId('7');

function rollouts(policy: Policy, groups: number, n: number, seed: number): Rollout[] {
  const prompts = Array.from({ length: groups * n }, () => prompt);
  return sample(policy, prompts, { maxNew: 2, temperature: 1, topP: 1 }, makeRng(seed)).map((completion, i) => {
    const reward = completion[0] === SEVEN ? 1 : -1;
    return {
      role: 'reason' as const,
      group: Math.floor(i / n),
      prompt,
      completion,
      reward,
      components: { outcome: reward },
    };
  });
}

function probSeven(policy: Policy): number {
  return tf.tidy(() => {
    const { logits } = policy.prefill({
      tokens: tf.tensor2d([prompt], undefined, 'int32'),
      positions: tf.tensor2d([prompt.map((_, i) => i)], undefined, 'int32'),
      valid: tf.ones([1, prompt.length]),
      pad: [0],
      lengths: [prompt.length],
      T: prompt.length,
    } as never);
    return tf.softmax(logits).dataSync()[SEVEN];
  });
}

describe('RL engine learns a toy task', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('PPO raises the probability of the rewarded token', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 11));
    const p0 = probSeven(policy);
    const opts = makeRoleOptimizers({ reason: 3e-3, rubric: 3e-3, hint: 3e-3 });
    // the default instrument: a separate critic, fitted from the policy's value head as it goes (16 updates)
    const c = { ...defaultPpoConfig, minibatches: 1 },
      critics = makeCritics(policy, c, copyPolicy);
    for (let s = 0; s < 16; s++) ppoUpdate(policy, opts, rollouts(policy, 4, 16, s), c, makeRng(s), undefined, critics);
    const p1 = probSeven(policy);
    assert.ok(p1 > Math.max(0.5, 5 * p0), `P(7) went from ${p0} to ${p1}`);
  });
  it('GRPO raises it too, and a batch of all-equal rewards leaves the policy unchanged', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 12));
    const opt = tf.train.adam(3e-3);
    const p0 = probSeven(policy);
    for (let s = 0; s < 12; s++)
      grpoUpdate(policy, opt, rollouts(policy, 4, 16, 100 + s), { ...defaultGrpoConfig, minibatches: 1 }, makeRng(s));
    const p1 = probSeven(policy);
    assert.ok(p1 > Math.max(0.3, 10 * p0), `P(7) went from ${p0} to ${p1}`);
    const flat = rollouts(policy, 2, 4, 999).map((r) => ({ ...r, reward: -1 }));
    assert.deepEqual(grpoAdvantages(flat, defaultGrpoConfig.norm), new Array(8).fill(0));
    const before = Object.values(policy.weights).map((w) => Array.from(w.dataSync()));
    grpoUpdate(policy, tf.train.sgd(0.1), flat, defaultGrpoConfig, makeRng(1));
    Object.values(policy.weights).forEach((w, i) => assert.deepEqual(Array.from(w.dataSync()), before[i]));
  });
});
