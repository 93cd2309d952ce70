// Peer test vectors: GRPO group advantages (TRL's formula), GAE (CleanRL's loop), PPO's clipped surrogate and
// clipped value loss (CleanRL), and the k3 KL estimator, computed by an independent numpy script on fixed random
// inputs (test/fixtures/peer_vectors.py, output committed beside it); the workbench's functions match to 1e-6.
// Conventions: our group std is Bessel-corrected like TRL's (torch.std's default); TRL adds 1e-4 to it, ours
// takes eps as a parameter (default 1e-6), set to TRL's here.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { gae, groupAdvantages } from '../src/rl/advantages.js';
import { clippedSurrogate, clippedValueLoss, klK3 } from '../src/rl/losses.js';
import { initBackend, tf } from '../src/models/backend.js';

const peer = JSON.parse(fs.readFileSync('test/fixtures/peer_vectors.json', 'utf8'));
const near = (got: ArrayLike<number>, want: number[], what: string, tol = 1e-6) => {
  assert.equal(got.length, want.length, what);
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= tol, `${what}[${i}]: ${got[i]} vs ${w} (peer)`));
};

describe('peer test vectors (independent numpy implementations of TRL / CleanRL formulas)', () => {
  before(async () => {
    await initBackend();
  });
  it('GRPO group advantages match TRL: (r - mean) / (std_Bessel + 1e-4) per group', () => {
    const { G, eps, rewards, advantages } = peer.grpo;
    const ours: number[] = [];
    for (let g = 0; g < rewards.length / G; g++) {
      ours.push(...groupAdvantages(rewards.slice(g * G, (g + 1) * G), { std: 'sample', eps, singleton: 'zero' }));
    }
    near(ours, advantages, 'GRPO advantage');
  });
  it("GAE matches CleanRL's loop (advantages and returns)", () => {
    const { gamma, lambda, rewards, values, advantages, returns } = peer.gae;
    const r = gae(rewards, values, gamma, lambda);
    near(r.advantages, advantages, 'GAE advantage');
    near(r.returns, returns, 'GAE return');
  });
  it('PPO clipped surrogate, clipped value loss and k3 match (float32 tensors: 1e-6 absolute)', () => {
    const p = peer.ppo,
      t = (x: number[]) => tf.tensor2d(x, [1, x.length]),
      mask = tf.ones([1, p.logp.length]);
    const s = clippedSurrogate(t(p.logp), t(p.old_logp), t(p.advantages), mask, p.clip);
    near([s.loss.dataSync()[0]], [p.pg_loss], 'pg loss');
    const v = clippedValueLoss(t(p.values), t(p.old_values), t(p.returns), mask, p.clip);
    near([v.dataSync()[0]], [p.value_loss], 'value loss');
    near(klK3(t(p.logp), t(p.ref_logp)).dataSync(), p.k3, 'k3');
  });
});
