// EvoLM's generator reward and schedule against hand-computed values, its config errors, and one step of each phase.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend } from '../src/models/backend.js';
import { createPolicy, loadPolicy } from '../src/models/index.js';
import { modelConfig } from '../src/models/policy.js';
import { defaultEvolmConfig, generatorReward, makeEvolmTrainer, phaseOf } from '../src/methods/evolm.js';
import { coldStartCheckpoint } from '../src/methods/table2.js';
import { ConfigError } from '../src/io/validate.js';
import { makeRng } from '../src/util/random.js';

describe('EvoLM (hand-computed)', () => {
  it('generator reward: 0.7 margin + 0.3 format; nothing for an unparsed rubric', () => {
    assert.ok(Math.abs(generatorReward(true, 0.9, 0.4) - (0.7 * 0.5 + 0.3)) < 1e-12);
    assert.ok(Math.abs(generatorReward(true, 0.2, 0.6) - (0.7 * -0.4 + 0.3)) < 1e-12);
    assert.equal(generatorReward(false, 1, 0), 0);
  });
  it('alternates K policy and K generator steps; sequential trains the generator first', () => {
    const alt = { steps: 20, schedule: 'alternate' as const, alternation: 0, alternationFraction: 0.1 };
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((s) => phaseOf(s, alt)), ['policy', 'policy', 'generator', 'generator', 'policy', 'policy']);
    assert.equal(phaseOf(5, { ...alt, alternation: 5 }), 'generator');
    const seq = { steps: 3, schedule: 'sequential' as const, alternation: 0, alternationFraction: 0.1 };
    assert.deepEqual([0, 2, 3, 5].map((s) => phaseOf(s, seq)), ['generator', 'generator', 'policy', 'policy']);
  });
});

describe('EvoLM training', function () {
  this.timeout(120000);
  before(async () => { await initBackend(); });
  it('names bad options', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 1));
    assert.throws(() => makeEvolmTrainer(policy, { ...defaultEvolmConfig, schedule: 'both' as never }), (e: Error) => e instanceof ConfigError && /schedule/.test(e.message));
    assert.throws(() => makeEvolmTrainer(policy, { ...defaultEvolmConfig, pairSources: { temporal: 0, perturbation: 0, rubric_conditioned: 0 } }), /positive total/);
    assert.throws(() => makeEvolmTrainer(policy, defaultEvolmConfig), /verifier "learned" needs/);
  });
  it('one policy step and one generator step (every pair source) from the cold start', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const policy = loadPolicy(coldStartCheckpoint('S'));
    const t = makeEvolmTrainer(policy, { ...defaultEvolmConfig, steps: 2, alternation: 1, prompts: 3, rollouts: 2, verifier: 'oracle' });
    const m0 = t.step(0, makeRng(1)), m1 = t.step(1, makeRng(2));
    assert.equal(m0.phase, 0); assert.equal(m1.phase, 1);
    for (const k of ['accuracy', 'judge_score', 'format_rate', 'policy/pg_loss']) assert.ok(Number.isFinite(m0[k]), `${k} = ${m0[k]}`);
    for (const k of ['generator_reward', 'margin', 'pair_accuracy', 'generator/pg_loss']) assert.ok(Number.isFinite(m1[k]), `${k} = ${m1[k]}`);
    assert.ok(m0.judge_score >= 0 && m0.judge_score <= 1);
    for (const src of ['temporal', 'perturbation', 'rubric_conditioned'] as const) {
      const only = { temporal: 0, perturbation: 0, rubric_conditioned: 0, [src]: 1 };
      const m = makeEvolmTrainer(policy, { ...defaultEvolmConfig, steps: 1, alternation: 1, prompts: 2, rollouts: 2, verifier: 'oracle', pairSources: only }).step(1, makeRng(3));
      assert.equal(m[`pairs/${src}`], 1);
      assert.ok(Number.isFinite(m.generator_reward));
    }
  });
});
