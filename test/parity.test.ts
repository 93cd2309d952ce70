// Update parity: in a multi-role PPO update the reasoner's step is RLVR's step. With one Adam per role
// ('separate_adam') and the rubricator's loss multiplied by 0, one update over both roles' rollouts leaves the
// weights bit for bit where RLVR's update on the reasoner's rollouts alone leaves them (same seed, same batch,
// one and two epochs); with the rubricator's loss on, they differ (the test can fail).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend, tf } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig, type Policy } from '../src/models/policy.js';
import { defaultPpoConfig, makeCritics, makeRoleOptimizers, ppoUpdate, type PpoConfig } from '../src/rl/ppo.js';
import type { Rollout } from '../src/rl/rollout.js';
import { makeRng } from '../src/util/random.js';
import { calibrationTable, generatorCalibrationTable } from '../src/methods/tables/rate-calibration.js';
import { defaultEvolmConfig, makeEvolmTrainer } from '../src/methods/trainers/evolm.js';
import { coldStartCheckpoint } from '../src/methods/tables/table2.js';
import { loadPolicy } from '../src/models/index.js';
import { grpoUpdate } from '../src/rl/grpo.js';
import type { Rng } from '../src/util/random.js';
import { defaultRlcerConfig } from '../src/methods/trainers/rlcer.js';
import { V } from '../src/world/vocab.js';

const rollouts = (role: 'reason' | 'rubric', n: number, seed: number): Rollout[] => {
  const rng = makeRng(seed),
    tok = () => 3 + rng.int(V - 3);
  return Array.from({ length: n }, (_, i) => ({
    role,
    group: i >> 2,
    prompt: Array.from({ length: 6 + rng.int(5) }, tok),
    completion: Array.from({ length: 4 + rng.int(9) }, tok),
    reward: rng.int(2) ? 1 : -1,
    components: {},
  }));
};
const weights = (p: Policy) =>
  Object.fromEntries(Object.entries(p.weights).map(([k, v]) => [k, Array.from(v.dataSync())]));

function update(rs: Rollout[], c: PpoConfig): Record<string, number[]> {
  const policy = createPolicy(modelConfig('transformer', 'S', 0));
  const critics = makeCritics(policy, c, (p) => createPolicy(p.config)); // one per role under the default 'separate'
  ppoUpdate(policy, makeRoleOptimizers(c.lr), rs, c, makeRng(7), undefined, critics);
  const w = weights(policy);
  tf.dispose([
    ...Object.values(policy.weights),
    ...Object.values(critics).flatMap((k) => Object.values(k!.net.weights)),
  ]);
  return w;
}

describe('update parity: the reasoner of a multi-role update steps as RLVR does', () => {
  before(async () => {
    await initBackend();
  });
  const reason = rollouts('reason', 8, 1),
    rubric = rollouts('rubric', 8, 2);
  for (const epochs of [1, 2]) {
    it(`separate Adam per role, rubricator loss x 0: the same weights as RLVR's update (${epochs} epoch(s))`, function () {
      this.timeout(180_000); // a critic per role: twice the passes of the shared critic
      const c: PpoConfig = { ...defaultPpoConfig, epochs, minibatches: 2, roleMixing: 'separate_adam' };
      const rlvr = update(reason, c);
      const both = update([...reason, ...rubric], { ...c, roleLossScale: { rubric: 0 } });
      for (const k of Object.keys(rlvr)) assert.deepEqual(both[k], rlvr[k], `weight ${k} differs from RLVR's update`);
      const start = weights(createPolicy(modelConfig('transformer', 'S', 0)));
      assert.ok(
        Object.keys(start).some((k) => start[k].some((x, i) => x !== rlvr[k][i])),
        'the update moved no weight',
      );
    });
  }
  it('with the rubricator loss on, the weights differ (the comparison can fail)', function () {
    this.timeout(180_000);
    const c: PpoConfig = { ...defaultPpoConfig, epochs: 1, minibatches: 2, roleMixing: 'separate_adam' };
    const rlvr = update(reason, c),
      both = update([...reason, ...rubric], c);
    assert.ok(Object.keys(rlvr).some((k) => both[k].some((x, i) => x !== rlvr[k][i])));
  });
});

describe('the pre-registered rubricator-rate rule', () => {
  // RLVR's mean approx. KL 1e-4; candidates' KL and format rates by hand: 0.5x passes (KL 1.2x, format flat),
  // 1x passes at exactly 1.5x and a format drop of exactly 0.02, 2x fails on KL (1.6x), 5x fails on format
  // (drop 0.05), 10x fails on both: the largest passing candidate is 1x.
  const steps = (kl: number, first: number, last: number) =>
    Array.from({ length: 30 }, (_, i) => ({
      'reason/approx_kl': kl,
      format_rate: i < 10 ? first : i >= 20 ? last : 0.5,
    }));
  const runs = [
    { id: 'rlvr', metrics: Array.from({ length: 30 }, (_, i) => ({ 'reason/approx_kl': i % 2 ? 0.5e-4 : 1.5e-4 })) },
    { id: '0.5', metrics: steps(1.2e-4, 0.8, 0.8) },
    { id: '1', metrics: steps(1.5e-4, 0.8, 0.78) },
    { id: '2', metrics: steps(1.6e-4, 0.8, 0.9) },
    { id: '5', metrics: steps(1e-4, 0.8, 0.75) },
    { id: '10', metrics: steps(9e-4, 0.8, 0.2) },
  ];
  it('passes candidates by KL ratio <= 1.5 and format drop <= 0.02, and picks the largest passing', () => {
    const { rows, chosen } = calibrationTable(runs);
    assert.deepEqual(
      rows.map((r) => r.passes),
      ['yes', 'yes', 'no', 'no', 'no'],
    );
    assert.ok(Math.abs(rows[1].kl_ratio - 1.5) < 1e-9);
    assert.deepEqual(chosen, { multiplier: 1, rubric_lr: 1e-4, anyPassed: true });
  });
  it('falls back to the smallest candidate when none passes, and names a missing run', () => {
    const none = runs.map((r) => (r.id === 'rlvr' ? r : { ...r, metrics: steps(1, 0.8, 0.1) }));
    assert.deepEqual(calibrationTable(none).chosen, { multiplier: 0.5, rubric_lr: 0.5e-4, anyPassed: false });
    assert.throws(() => calibrationTable(runs.filter((r) => r.id !== '2')), /multiplier 2 is missing/);
    assert.throws(() => calibrationTable(runs.filter((r) => r.id !== 'rlvr')), /RLVR reference run is missing/);
  });
});

describe('EvoLM generator rate calibration (results/evolm/generator_rate_rule.md)', () => {
  // 30 policy steps (phase 0) alternating in threes with 30 generator steps (phase 1); the format rate of policy
  // steps (the writer's rubrics there) must not count: it falls in every run below
  const run = (kl: number, fmtFirst: number, fmtLast: number) =>
    Array.from({ length: 60 }, (_, i) => {
      const phase = Math.floor(i / 3) % 2,
        k = Math.floor(i / 6) * 3 + (i % 3); // k: index within the phase
      return phase === 0
        ? { step: i, phase, 'policy/approx_kl': kl, format_rate: 1 - k / 30 }
        : { step: i, phase, format_rate: k < 10 ? fmtFirst : k >= 20 ? fmtLast : 0.5 };
    });
  const runs = [
    { id: 'evolm-ref', metrics: run(2 ** -12, 0.8, 0.8) },
    { id: 'evolm-0.5', metrics: run(2 ** -12, 0.8, 0.9) },
    { id: 'evolm-1', metrics: run(3 * 2 ** -13, 0.8, 0.79) }, // KL ratio exactly 1.5, format drop 0.01: passes
    { id: 'evolm-2', metrics: run(2 ** -12, 0.8, 0.77) }, // format drop 0.03: fails
    { id: 'evolm-5', metrics: run(3.1 * 2 ** -13, 0.8, 0.9) }, // KL ratio 1.55: fails
    { id: 'evolm-10', metrics: run(9e-4, 0.8, 0.2) },
  ];
  it("reads the policy's KL against the two-model reference and the generator steps' format rate", () => {
    const { rows, chosen } = generatorCalibrationTable(runs);
    assert.deepEqual(
      rows.map((r) => r.passes),
      ['yes', 'yes', 'no', 'no', 'no'],
    );
    assert.equal(rows[1].kl_ratio, 1.5);
    assert.ok(Math.abs(rows[1].format_first - 0.8) < 1e-12 && Math.abs(rows[1].format_last - 0.79) < 1e-12);
    assert.deepEqual(chosen, { multiplier: 1, generator_lr: 1e-4, anyPassed: true });
  });
  it('falls back to the smallest candidate when none passes, and names a missing run', () => {
    const none = runs.map((r) => (r.id === 'evolm-ref' ? r : { ...r, metrics: run(1, 0.8, 0.1) }));
    assert.deepEqual(generatorCalibrationTable(none).chosen, {
      multiplier: 0.5,
      generator_lr: 0.5e-4,
      anyPassed: false,
    });
    assert.throws(() => generatorCalibrationTable(runs.filter((r) => r.id !== 'evolm-2')), /multiplier 2 is missing/);
    assert.throws(
      () => generatorCalibrationTable(runs.filter((r) => r.id !== 'evolm-ref')),
      /reference run is missing/,
    );
  });
});

describe('the fair defaults (docs/rlcer.md, Method; docs/evolm.md, Controls) are the defaults', () => {
  it("RLCER: one Adam per role, the rubricator at the reasoner's rate, sign-aware validity", () => {
    assert.equal(defaultRlcerConfig.ppo.roleMixing, 'separate_adam');
    const choice = JSON.parse(fs.readFileSync('results/rlcer/rate_choice.json', 'utf8'));
    assert.equal(defaultRlcerConfig.ppo.lr.rubric, defaultRlcerConfig.ppo.lr.reason * choice.multiplier);
    assert.equal(defaultRlcerConfig.validityReading, 'sign_aware');
  });
  it("EvoLM: the generator at the multiple of the policy's rate the pre-registered rule chose", () => {
    const choice = JSON.parse(fs.readFileSync('results/evolm/generator_rate_choice.json', 'utf8'));
    assert.equal(choice.multiplier, 0.5);
    assert.equal(defaultEvolmConfig.generatorLr, defaultEvolmConfig.policyLr * choice.multiplier);
    assert.equal(choice.generator_lr, defaultEvolmConfig.generatorLr);
  });
});

describe('a separate critic per role (ppo.critic "separate")', () => {
  before(async () => {
    await initBackend();
  });
  const reason = rollouts('reason', 8, 1);
  it('the policy steps on the surrogate alone; the critic alone learns the values', () => {
    const c: PpoConfig = { ...defaultPpoConfig, critic: 'separate' };
    const policy = createPolicy(modelConfig('transformer', 'S', 0)),
      start = weights(policy);
    const critics = makeCritics(policy, c, (p) => createPolicy(p.config));
    const m = ppoUpdate(policy, makeRoleOptimizers(c.lr), reason, c, makeRng(7), undefined, critics);
    const after = weights(policy),
      critic = weights(critics.reason!.net);
    // the same policy step as the shared critic with no value loss (the critic starts as the policy's copy, so the
    // old values and advantages are the same)
    const noValue = update(reason, { ...defaultPpoConfig, critic: 'shared', valueCoef: 0 });
    for (const k of Object.keys(after)) assert.deepEqual(after[k], noValue[k], `policy weight ${k}`);
    assert.deepEqual(after.value_head, start.value_head, "the policy's value head moved");
    assert.notDeepEqual(critic.value_head, start.value_head, "the critic's value head did not move");
    assert.ok(m['reason/critic_grad_norm'] > 0 && Number.isFinite(m['reason/value_loss']));
    tf.dispose([
      ...Object.values(policy.weights),
      ...Object.values(critics).flatMap((k) => Object.values(k!.net.weights)),
    ]);
  });
  it('refuses a role without a critic, and a bad setting', () => {
    const c: PpoConfig = { ...defaultPpoConfig, critic: 'separate' };
    const policy = createPolicy(modelConfig('transformer', 'S', 0));
    assert.throws(
      () => ppoUpdate(policy, makeRoleOptimizers(c.lr), reason, c, makeRng(7)),
      /role reason has no critic/,
    );
    assert.throws(
      () => ppoUpdate(policy, makeRoleOptimizers(c.lr), reason, { ...c, critic: 'both' as never }, makeRng(7)),
      /ppo.critic must be "shared" or "separate"/,
    );
    tf.dispose(Object.values(policy.weights));
  });
});

describe('update parity: an EvoLM policy step is one GRPO update of the policy with its own Adam', () => {
  before(async function () {
    await initBackend();
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip(); // the cold start writes rubrics that parse
  });
  /** a seeded stream that counts its draws, so a replay can stop where the update began */
  const counting = (seed: number) => {
    const base = makeRng(seed);
    const r = {
      draws: 0,
      next: () => {
        r.draws++;
        return base.next();
      },
      int: (n: number) => Math.floor(r.next() * n),
      normal: () => base.normal(),
      categorical: (w: ArrayLike<number>, offset = 0, length = w.length - offset) => {
        let total = 0;
        for (let i = 0; i < length; i++) total += w[offset + i];
        let u = r.next() * total;
        for (let i = 0; i < length - 1; i++) {
          u -= w[offset + i];
          if (u < 0) return i;
        }
        return length - 1;
      },
    };
    return r as Rng & { draws: number };
  };
  it("the weights move exactly as grpoUpdate at the policy's rate on the step's own batch (RLVR's GRPO step)", () => {
    const c = { ...defaultEvolmConfig, verifier: 'oracle' as const, prompts: 4, steps: 10, generatorLr: 5e-3 };
    const policy = loadPolicy(coldStartCheckpoint('S')),
      start = weights(policy);
    const trainer = makeEvolmTrainer(policy, c);
    assert.equal(trainer.phaseOf(0), 'policy');
    const rng = counting(11);
    trainer.step(0, rng);
    const batch = trainer.lastRollouts();
    assert.ok(
      new Set(batch.map((r) => r.reward)).size > 1,
      'the judge gave one score to every answer: nothing to test',
    );
    // the update's draws are its minibatch shuffles, the step's last draws: (rows - 1) per epoch and shuffle
    const updateDraws = c.grpo.epochs * (batch.length - 1);
    const replay = counting(11);
    for (let i = 0; i < rng.draws - updateDraws; i++) replay.next();
    const copy = loadPolicy(coldStartCheckpoint('S'));
    grpoUpdate(copy, tf.train.adam(c.policyLr), batch, c.grpo, replay);
    assert.equal(replay.draws, rng.draws);
    const got = weights(policy),
      want = weights(copy);
    for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `weight ${k} differs from the GRPO update's`);
    assert.ok(
      Object.keys(start).some((k) => start[k].some((x, i) => x !== got[k][i])),
      'the step moved no weight',
    );
    tf.dispose([...Object.values(policy.weights), ...Object.values(copy.weights)]);
  });
});
