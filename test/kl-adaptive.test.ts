// The KL-matched control rows (results/rlcer/kl_match_rule.md): the KL-adaptive rate by hand, the rate it sets is
// the rate Adam steps at, both trainers adapt and log it and resume it, and the target is RLVR's committed KL.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initBackend, tf } from '../src/models/backend.js';
import { loadPolicy } from '../src/models/index.js';
import { adaptOptimizer, adaptRate, LR_FACTOR, MAX_LR, MIN_LR, rateOf } from '../src/rl/kl-adaptive.js';
import { defaultRlcerConfig, makeRlcerTrainer } from '../src/methods/trainers/rlcer.js';
import { defaultEvolmConfig, makeEvolmTrainer } from '../src/methods/trainers/evolm.js';
import { coldStartCheckpoint, methodSpec, rlvrKlTarget, TABLE2_ARCHIVE } from '../src/methods/tables/table2.js';
import { ConfigError } from '../src/util/validate.js';
import { makeRng } from '../src/util/random.js';

const close = (a: number, b: number, what = '') =>
  assert.ok(Math.abs(a - b) <= 1e-15 + 1e-12 * Math.abs(b), `${what} ${a} != ${b}`);

describe('the KL-adaptive rate (rl_games AdaptiveScheduler, skrl KLAdaptiveRL)', () => {
  it('divides by 1.5 above 2x the target, multiplies by 1.5 below half, keeps the rate in the band', () => {
    close(adaptRate(1e-4, 5e-4, 1e-4), 1e-4 / 1.5, 'above');
    close(adaptRate(1e-4, 4e-5, 1e-4), 1.5e-4, 'below');
    for (const kl of [5e-5, 1e-4, 2e-4]) assert.equal(adaptRate(1e-4, kl, 1e-4), 1e-4, `in the band (kl ${kl})`);
    close(adaptRate(1e-4, 2.0001e-4, 1e-4), 1e-4 / 1.5, 'just above');
    close(adaptRate(1e-4, 4.9999e-5, 1e-4), 1.5e-4, 'just below');
    assert.equal(LR_FACTOR, 1.5);
  });
  it('stops at its floor and ceiling, ignores a KL that is not finite, refuses a target that is not positive', () => {
    assert.equal(adaptRate(1.2e-6, 1, 1e-4), MIN_LR);
    assert.equal(adaptRate(MIN_LR, 1, 1e-4), MIN_LR);
    assert.equal(adaptRate(9e-3, 0, 1e-4), MAX_LR);
    assert.equal(adaptRate(3e-4, NaN, 1e-4), 3e-4);
    assert.throws(
      () => adaptRate(1e-4, 1e-4, 0),
      (e: Error) => e instanceof ConfigError && /klTarget/.test(e.message),
    );
  });
});

describe('the rate it sets is the rate Adam steps at', () => {
  before(async () => {
    await initBackend();
  });
  it("Adam's first step moves a weight by about the adapted rate", () => {
    const w = tf.variable(tf.tensor1d([0.5, -0.5]));
    const opt = tf.train.adam(1e-3);
    assert.equal(adaptOptimizer(opt, 1, 1e-4), 1e-3 / 1.5);
    assert.equal(rateOf(opt), 1e-3 / 1.5);
    opt.minimize(() => w.square().sum() as tf.Scalar);
    const moved = Array.from(w.dataSync()).map((x, i) => Math.abs(x - [0.5, -0.5][i]));
    for (const d of moved) assert.ok(Math.abs(d - 1e-3 / 1.5) < 1e-6, `moved ${d}, want ${1e-3 / 1.5}`);
    tf.dispose([w]);
    opt.dispose();
  });
});

describe("the trainers hold the shared role's step to a target", function () {
  this.timeout(120000);
  before(async function () {
    await initBackend();
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
  });
  it("RLCER: the reasoner's rate falls under a tiny target, rises under a huge one, resumes from state", async () => {
    const c = { ...defaultRlcerConfig, prompts: 3, rollouts: 4, verifier: 'oracle' as const };
    const lr = c.ppo.lr.reason;
    const run = async (target: number) => {
      const policy = loadPolicy(coldStartCheckpoint('S')),
        trainer = makeRlcerTrainer(policy, { ...c, reasonKlTarget: target });
      const rng = makeRng(6), // a seed whose first update's approx. KL is positive (the estimator can be negative)
        m1 = trainer.step(rng),
        m2 = trainer.step(rng);
      const state = await trainer.state!();
      const again = makeRlcerTrainer(loadPolicy(coldStartCheckpoint('S')), { ...c, reasonKlTarget: target });
      await again.restore!(state);
      const m3 = again.step(rng);
      return { m1, m2, m3, state };
    };
    const low = await run(1e-12);
    assert.ok(low.m1['reason/approx_kl'] > 2e-12, `the first update's KL ${low.m1['reason/approx_kl']}`);
    close(low.m1['reason/lr'], lr);
    close(low.m1['reason/next_lr'], lr / 1.5);
    close(low.m2['reason/lr'], lr / 1.5);
    close(low.m2['reason/next_lr'], adaptRate(lr / 1.5, low.m2['reason/approx_kl'], 1e-12));
    close(low.state.reasonLr as number, low.m2['reason/next_lr']);
    close(low.m3['reason/lr'], low.m2['reason/next_lr'], 'the resumed rate');
    const high = await run(1);
    close(high.m1['reason/next_lr'], lr * 1.5);
    close(high.m2['reason/lr'], lr * 1.5);
    const plain = makeRlcerTrainer(loadPolicy(coldStartCheckpoint('S')), c).step(makeRng(5));
    assert.equal(plain['reason/lr'], undefined, 'no target: no adaptive rate');
    assert.throws(
      () => makeRlcerTrainer(loadPolicy(coldStartCheckpoint('S')), { ...c, reasonKlTarget: -1 }),
      /reasonKlTarget/,
    );
  });
  it("EvoLM: the policy's rate adapts on policy steps only, and resumes from state", async () => {
    const c = { ...defaultEvolmConfig, verifier: 'oracle' as const, prompts: 4, steps: 10, policyKlTarget: 1e-12 };
    const trainer = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), c),
      rng = makeRng(3);
    assert.equal(trainer.phaseOf(0), 'policy');
    assert.equal(trainer.phaseOf(1), 'generator');
    const m0 = trainer.step(0, rng),
      m1 = trainer.step(1, rng),
      m2 = trainer.step(2, rng);
    // the estimator is the k1 mean, which can fall below the tiny target: the next rate follows the logged KL
    assert.ok(m0['policy/approx_kl'] > 2e-12, `the first update's KL ${m0['policy/approx_kl']}`);
    close(m0['policy/lr'], c.policyLr);
    close(m0['policy/next_lr'], c.policyLr / 1.5);
    assert.equal(m1['policy/lr'], undefined, "a generator step does not touch the policy's rate");
    close(m2['policy/lr'], c.policyLr / 1.5);
    close(m2['policy/next_lr'], adaptRate(c.policyLr / 1.5, m2['policy/approx_kl'], 1e-12));
    const state = await trainer.state!();
    close(state.policyLr as number, m2['policy/next_lr']);
    const again = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), c);
    await again.restore!(state);
    again.step(3, rng);
    close(again.step(4, rng)['policy/lr'], m2['policy/next_lr'], 'the resumed rate');
    assert.throws(
      () => makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), { ...c, policyKlTarget: 0 }),
      /policyKlTarget/,
    );
  });
});

describe("the KL-matched rows' target is RLVR's committed update size", () => {
  it("reads RLVR's mean approx. KL per update from the committed full-profile record (update_parity.csv)", function () {
    const dir = path.join(TABLE2_ARCHIVE, 'full', 'S', 'rlvr', 'seed-0');
    if (!fs.existsSync(path.join(dir, 'done.json'))) this.skip();
    const t = rlvrKlTarget('full', 'S', 0, ['no-such-root', TABLE2_ARCHIVE]);
    close(t.target, 0.00029202613479358176, 'the S seed-0 target');
    assert.equal(t.from, dir);
  });
  it('averages the finite KLs of the first root that has the run, and names a missing run', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'klt-')),
      dir = path.join(root, 'quick', 'S', 'rlvr', 'seed-1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'metrics.jsonl'),
      [1e-4, 3e-4, null, 5e-4].map((kl, i) => JSON.stringify({ step: i, 'reason/approx_kl': kl })).join('\n') + '\n',
    );
    assert.throws(
      () => rlvrKlTarget('quick', 'S', 1, [root]),
      (e: Error) => e instanceof ConfigError && /run the rlvr row first/.test(e.message),
    );
    fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    close(rlvrKlTarget('quick', 'S', 1, [root]).target, 3e-4);
    fs.rmSync(root, { recursive: true });
  });
  it('the rows are the rlcer and evolm rows with a target and nothing else', () => {
    const [r, e, r0, e0] = ['rlcer_kl_matched', 'evolm_kl_matched', 'rlcer', 'evolm'].map(methodSpec);
    assert.ok(r.kind === 'rlcer' && r0.kind === 'rlcer' && e.kind === 'evolm' && e0.kind === 'evolm');
    assert.equal(r.klMatch, 'rlvr');
    assert.deepEqual(r.rlcer, r0.rlcer ?? {});
    assert.equal(e.klMatch, 'rlvr');
    assert.equal(e.evolm?.schedule ?? 'alternate', e0.evolm?.schedule ?? 'alternate');
  });
});
