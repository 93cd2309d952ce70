// Memory stays flat over a run: after warm-up steps, the number of live tensors does not grow with more steps
// (a leaked tensor per step would grow it by one per step), for RLVR, RLCER (both roles) and EvoLM (both phases),
// and the process's resident memory grows by less than a bound over the same steps.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend, tf } from '../src/models/backend.js';
import { loadPolicy } from '../src/models/index.js';
import { loadVerifier } from '../src/models/verifier.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../src/methods/trainers/rlvr.js';
import { defaultRlcerConfig, makeRlcerTrainer } from '../src/methods/trainers/rlcer.js';
import { defaultEvolmConfig, makeEvolmTrainer } from '../src/methods/trainers/evolm.js';
import { coldStartCheckpoint, VERIFIER_CHECKPOINT } from '../src/methods/tables/table2.js';
import { makeRng } from '../src/util/random.js';

/** Live tensors and RSS (MB) after `warm` steps, and after `more` further steps. */
function growth(step: (i: number) => void, warm: number, more: number) {
  for (let i = 0; i < warm; i++) step(i);
  const t0 = tf.memory().numTensors,
    r0 = process.memoryUsage().rss / 2 ** 20;
  for (let i = warm; i < warm + more; i++) step(i);
  return { tensors: tf.memory().numTensors - t0, rssMb: process.memoryUsage().rss / 2 ** 20 - r0 };
}

describe('memory stays flat over training steps', function () {
  this.timeout(300000);
  before(async function () {
    await initBackend();
    if (!fs.existsSync(coldStartCheckpoint('S')) || !fs.existsSync(VERIFIER_CHECKPOINT)) this.skip();
  });
  const small = { prompts: 3, rollouts: 4 };
  it('RLVR: no tensor leaks per step', () => {
    const t = makeRlvrTrainer(loadPolicy(coldStartCheckpoint('S')), { ...defaultRlvrConfig, ...small });
    const g = growth((i) => t.step(makeRng(100 + i)), 2, 4);
    assert.equal(g.tensors, 0, `${g.tensors} tensors more after 4 further RLVR steps`);
    assert.ok(g.rssMb < 200, `RSS grew by ${g.rssMb.toFixed(0)} MB over 4 RLVR steps`);
  });
  it('RLCER (reasoner and rubricator updates): no tensor leaks per step', () => {
    const policy = loadPolicy(coldStartCheckpoint('S'));
    const t = makeRlcerTrainer(
      policy,
      { ...defaultRlcerConfig, ...small },
      { verifier: loadVerifier(VERIFIER_CHECKPOINT) },
    );
    const g = growth((i) => t.step(makeRng(200 + i)), 2, 3);
    assert.equal(g.tensors, 0, `${g.tensors} tensors more after 3 further RLCER steps`);
  });
  it('EvoLM (policy and generator phases): no tensor leaks per step', () => {
    const c = { ...defaultEvolmConfig, ...small, steps: 4, alternation: 1, verifier: 'oracle' as const };
    const t = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), c);
    const g = growth((i) => t.step(i, makeRng(300 + i)), 2, 4);
    assert.equal(g.tensors, 0, `${g.tensors} tensors more after 4 further EvoLM steps (both phases)`);
  });
});
