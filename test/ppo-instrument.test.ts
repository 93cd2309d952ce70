// The clean instrument's PPO pieces (docs/sensitivity.md): the separate critic's value loss touches no policy weight, all-equal
// groups under equalGroups 'zero' give no outcome gradient (by hand), the KL penalty reads a reference that changes
// the update (and klCoef > 0 without one is refused), the value warm-up moves the critic alone.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import { copyPolicy, createPolicy } from '../src/models/index.js';
import { modelConfig, type Policy } from '../src/models/policy.js';
import {
  checkPpoConfig,
  defaultPpoConfig,
  equalOutcomeRows,
  makeCritics,
  makeRoleOptimizers,
  ppoUpdate,
  roleAdvantages,
  whitenKeeping,
  type PpoConfig,
} from '../src/rl/ppo.js';
import { defaultGrpoConfig, grpoUpdate } from '../src/rl/grpo.js';
import type { Rollout } from '../src/rl/rollout.js';
import { makeRng } from '../src/util/random.js';
import { ConfigError } from '../src/util/validate.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../src/methods/trainers/rlvr.js';
import { checkRlcerConfig, defaultRlcerConfig } from '../src/methods/trainers/rlcer.js';

const close = (a: number, b: number, tol = 1e-9, what = '') =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} vs ${b}`);

/** A role's scores for roleAdvantages: rollouts of T tokens, constant values v, no KL. */
const role = (rows: { group: number; reward: number; outcome?: number }[], T: number, v: number) => ({
  rs: rows.map((r) => ({ ...r, completion: Array.from({ length: T }, () => 5) })),
  values: rows.map(() => Array.from({ length: T }, () => v)),
  logp: rows.map(() => Array.from({ length: T }, () => 0)),
  refLogp: null,
});

describe('all-equal groups (ppo.equalGroups)', () => {
  it('finds the groups whose outcomes all agree; a group with a row lacking an outcome is not one', () => {
    assert.deepEqual(
      equalOutcomeRows([
        { group: 0, outcome: -1 },
        { group: 0, outcome: -1 },
        { group: 1, outcome: -1 },
        { group: 1, outcome: 1 },
        { group: 2, outcome: 1 },
        { group: 2 },
      ]),
      [true, true, false, false, false, false],
    );
  });
  it("'zero': an all-failed group gets exactly 0; the mixed group is whitened with its own mean and std", () => {
    // group 0: outcomes -1, -1 (rewards -1, -1); group 1: rewards +1, -1; T = 1, V = 0.5.
    // keep: A = r - V = [-1.5, -1.5, 0.5, -1.5], whitened over all four (mean -1, std sqrt(3)/... ) -> nonzero at group 0.
    // zero: group 0's A = r - group mean = 0; group 1's raw A = [0.5, -1.5]: mean -0.5, population std 1 -> [1, -1].
    const rows = [
      { group: 0, reward: -1, outcome: -1 },
      { group: 0, reward: -1, outcome: -1 },
      { group: 1, reward: 1, outcome: 1 },
      { group: 1, reward: -1, outcome: -1 },
    ];
    const base = { gamma: 1, lambda: 1, klCoef: 0 };
    const [zero] = roleAdvantages([role(rows, 1, 0.5)], { ...base, equalGroups: 'zero' });
    const got = zero.adv.map((x) => x[0]);
    assert.equal(got[0], 0);
    assert.equal(got[1], 0);
    close(got[2], 1, 1e-6);
    close(got[3], -1, 1e-6);
    assert.equal(zero.equalShare, 0.5);
    // the returns that train the critic are unchanged: r (gamma = lambda = 1)
    assert.deepEqual(
      zero.ret.map((x) => x[0]),
      [-1, -1, 1, -1],
    );
    // keep (the first campaign's instrument): the failed group's rows get the whitened critic error, not 0
    const [keep] = roleAdvantages([role(rows, 1, 0.5)], { ...base, equalGroups: 'keep' });
    // raw [-1.5, -1.5, 0.5, -1.5]: mean -1, population std sqrt(0.75) -> group 0: -0.5 / 0.8660254 = -0.5773503
    close(keep.adv[0][0], -0.5 / Math.sqrt(0.75), 1e-6);
  });
  it("'zero': a rubric reward still ranks an all-equal group by its own signal", () => {
    // one all-failed group with CoT rewards 0.2 and 0.6 (reward = -1 + cot): A = r - mean = [-0.2, 0.2]; with no mixed
    // group the mean stays 0 and the std is the rows' root mean square, 0.2 -> [-1, 1]
    const [r] = roleAdvantages(
      [
        role(
          [
            { group: 0, reward: -0.8, outcome: -1 },
            { group: 0, reward: -0.4, outcome: -1 },
          ],
          1,
          0.3,
        ),
      ],
      { gamma: 1, lambda: 1, klCoef: 0, equalGroups: 'zero' },
    );
    close(r.adv[0][0], -1, 1e-6);
    close(r.adv[1][0], 1, 1e-6);
  });
  it('whitenKeeping: held rows are divided by the free rows std only; with no held row it is plain whitening', () => {
    const a = [Float64Array.from([1, 3]), Float64Array.from([4])];
    whitenKeeping(a, [false, true]);
    // free [1, 3]: mean 2, std 1 -> [-1, 1]; held [4] -> 4
    close(a[0][0], -1, 1e-7);
    close(a[0][1], 1, 1e-7);
    close(a[1][0], 4, 1e-7);
    const b = [Float64Array.from([1, 3]), Float64Array.from([5])];
    whitenKeeping(b, [false, false]);
    // mean 3, population std sqrt(8/3)
    close(b[1][0], 2 / Math.sqrt(8 / 3), 1e-7);
    const z = [Float64Array.from([0, 0])];
    whitenKeeping(z, [true]);
    assert.deepEqual(Array.from(z[0]), [0, 0]);
  });
  it('refuses an unknown mode in one line, and RLCER refuses resample', () => {
    assert.throws(
      () => checkPpoConfig({ ...defaultPpoConfig, equalGroups: 'drop' as never }),
      (e: Error) => e instanceof ConfigError && /ppo\.equalGroups must be one of keep, zero, resample/.test(e.message),
    );
    assert.throws(
      () => checkPpoConfig({ ...defaultPpoConfig, critic: 'shared', valueWarmup: 2 }),
      /valueWarmup needs ppo.critic "separate"/,
    );
    assert.throws(
      () => checkRlcerConfig({ ...defaultRlcerConfig, ppo: { ...defaultRlcerConfig.ppo, equalGroups: 'resample' } }),
      /equalGroups "resample" is RLVR-kind only/,
    );
  });
});

describe('PPO with a separate critic, a reference policy and a value warm-up', () => {
  let policy: Policy;
  before(async () => {
    await initBackend();
  });
  beforeEach(() => {
    policy = createPolicy(modelConfig('transformer', 'S', 3));
  });
  /** Rollouts of the reasoner role: two groups, mixed rewards. */
  const rollouts = (): Rollout[] =>
    [
      [3, 4, 5],
      [3, 4, 6],
      [3, 7, 5, 5],
      [3, 8],
    ].map((completion, i) => ({
      role: 'reason',
      group: i >> 1,
      prompt: [1, 2, 9],
      completion,
      reward: [1, -1, 1, 0.5][i],
      components: {},
    }));
  const weights = (p: Policy) => Object.fromEntries(Object.entries(p.weights).map(([k, v]) => [k, v.arraySync()]));
  /** The policy's weights after one PPO update from a copy of `policy` under `c`. */
  const updated = (c: PpoConfig, ref?: Policy, warmup = false) => {
    const p = copyPolicy(policy);
    const critics = makeCritics(p, c, copyPolicy);
    const before = warmup ? weights(critics.reason!.net) : null;
    const m = ppoUpdate(p, makeRoleOptimizers(c.lr), rollouts(), c, makeRng(3), ref, critics);
    return { w: weights(p), m, critic: critics.reason, before };
  };
  const c: PpoConfig = { ...defaultPpoConfig, epochs: 1, minibatches: 1 };

  it("separate: the value loss's size does not move a policy weight (shared: it does)", function () {
    this.timeout(60_000);
    const a = updated({ ...c, critic: 'separate', valueCoef: 0.5 }).w,
      b = updated({ ...c, critic: 'separate', valueCoef: 50 }).w;
    assert.deepEqual(a, b);
    const s = updated({ ...c, critic: 'shared', valueCoef: 0.5 }).w,
      t = updated({ ...c, critic: 'shared', valueCoef: 50 }).w;
    assert.notDeepEqual(s, t);
  });
  it("every PPO arm takes ppo's defaults (one place to switch the instrument)", () => {
    assert.equal(defaultRlvrConfig.ppo.critic, defaultPpoConfig.critic);
    assert.equal(defaultRlcerConfig.ppo.critic, defaultPpoConfig.critic);
    assert.equal(defaultRlcerConfig.ppo.equalGroups, defaultPpoConfig.equalGroups);
  });
  it('klCoef > 0: the reference changes the update and its KL is logged; without one it is refused', function () {
    this.timeout(60_000);
    const ref = createPolicy(modelConfig('transformer', 'S', 4)); // another initialisation: KL to it is not 0
    const k = { ...c, klCoef: 0.5 };
    const withRef = updated(k, ref);
    assert.notDeepEqual(withRef.w, updated(c).w);
    assert.ok(Math.abs(withRef.m['reason/kl_ref']) > 1e-6, `kl_ref ${withRef.m['reason/kl_ref']}`);
    assert.throws(() => updated(k), /ppo\.klCoef > 0 needs a reference policy/);
    const g = { ...defaultGrpoConfig, klCoef: 0.1 };
    assert.throws(
      () => grpoUpdate(copyPolicy(policy), tf.train.adam(1e-4), rollouts(), g, makeRng(1)),
      /grpo\.klCoef > 0 needs a reference policy/,
    );
  });
  it('an RLVR trainer with klCoef > 0 scores its cold start: the second step logs a KL to it', function () {
    this.timeout(120_000);
    const t = makeRlvrTrainer(copyPolicy(policy), {
      ...defaultRlvrConfig,
      prompts: 2,
      rollouts: 2,
      // 'keep': an untrained policy fails every group, which 'zero' would leave without an update to measure
      ppo: {
        ...defaultRlvrConfig.ppo,
        klCoef: 0.1,
        equalGroups: 'keep',
        lr: { reason: 1e-2, rubric: 1e-4, hint: 1e-4 },
      },
    });
    const rng = makeRng(2);
    assert.equal(t.step(rng)['reason/kl_ref'], 0); // the policy is its reference before the first update
    assert.notEqual(t.step(rng)['reason/kl_ref'], 0);
  });
  it('the value warm-up moves the critic before the first update and leaves the policy as without it', function () {
    this.timeout(60_000);
    const w = updated({ ...c, critic: 'separate', valueWarmup: 2 }, undefined, true);
    assert.ok('reason/warmup_value_loss' in w.m);
    // the policy's update reads the critic's values through the advantages, so it may differ; the warm-up itself
    // took two critic steps beyond the update's one
    assert.equal(w.critic!.opt.iterations, 3);
    assert.notDeepEqual(weights(w.critic!.net), w.before);
  });
});
