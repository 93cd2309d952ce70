// RLCER's formulas against hand-computed values, its config errors, and one end-to-end training step.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend, tf } from '../src/models/backend.js';
import { copyPolicy, createPolicy, loadPolicy } from '../src/models/index.js';
import { modelConfig } from '../src/models/policy.js';
import {
  cotRewards,
  criterionValidity,
  normalisedScore,
  poolItems,
  randomValidity,
  rubricatorReward,
} from '../src/rubrics/rewards.js';
import { judgePairs, pairwiseAccuracy } from '../src/rl/rubric-quality.js';
import { defaultPpoConfig, makeCritics, makeRoleOptimizers, ppoUpdate } from '../src/rl/ppo.js';
import { defaultGrpoConfig, grpoUpdate } from '../src/rl/grpo.js';
import {
  defaultRlcerConfig,
  groupRewards,
  makeRlcerTrainer,
  type RewardSettings,
  type RlcerConfig,
} from '../src/methods/trainers/rlcer.js';
import { sftStep, sampleExample, defaultColdStartData } from '../src/methods/trainers/coldstart.js';
import { criterionText, parseCriterion } from '../src/rubrics/criteria.js';
import type { Parsed, RubricItem } from '../src/rubrics/rubric.js';
import { makeRng } from '../src/util/random.js';
import { ConfigError } from '../src/util/validate.js';
import { coldStartCheckpoint } from '../src/methods/tables/table2.js';
import { decode } from '../src/world/vocab.js';
import { promptTokens } from '../src/world/trace.js';
import { sampleProblem } from '../src/world/problems.js';

const close = (a: number, b: number, tol = 1e-12, what = '') =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} != ${b}`);

describe('RLCER rewards (hand-computed)', () => {
  it('validity: corr > threshold and varying satisfaction', () => {
    const z = [1, 1, 1, 0, 0, 0];
    // corr([1,1,0,1,0,0], z) = 0.5 / 1.5 = 1/3
    const v = [
      [1, 1, 1, 0, 0, 0],
      [1, 1, 0, 1, 0, 0],
      [0, 1, 0, 1, 1, 0],
      [1, 1, 1, 1, 1, 1],
      [0, 0, 0, 1, 1, 1],
    ];
    const r = criterionValidity(v, z, 0.2);
    close(r.corr[0]!, 1);
    close(r.corr[1]!, 1 / 3);
    close(r.corr[2]!, -1 / 3);
    assert.equal(r.corr[3], null);
    close(r.corr[4]!, -1);
    assert.deepEqual(r.valid, [true, true, false, false, false]);
    assert.deepEqual(criterionValidity(v, z, 0.4).valid, [true, false, false, false, false]);
  });
  it('validity when correctness is constant: none valid, or every varying criterion', () => {
    const v = [
        [1, 0, 1, 0],
        [1, 1, 1, 1],
      ],
      z = [1, 1, 1, 1];
    assert.deepEqual(criterionValidity(v, z, 0.2, 'none_valid').valid, [false, false]);
    assert.deepEqual(criterionValidity(v, z, 0.2, 'discriminative').valid, [true, false]);
  });
  it('min-max normalised score: (raw - min) / (max - min)', () => {
    close(normalisedScore([2, -1, 3], [true, true, false]), (1 + 1) / 6);
    close(normalisedScore([2, -1, 3], [false, true, false]), 0);
    close(normalisedScore([2, -1, 3], [true, false, true]), 1);
    assert.equal(normalisedScore([], []), 0);
  });
  it('CoT reward normalised over the rubric or over the group', () => {
    const sat = [
      [true, false],
      [true, true],
      [false, true],
    ];
    assert.deepEqual(
      cotRewards([2, -1], sat, 'rubric').map((x) => +x.toFixed(12)),
      [1, +(2 / 3).toFixed(12), 0],
    );
    assert.deepEqual(cotRewards([1], [[true], [true]], 'rubric'), [1, 1]);
    assert.deepEqual(cotRewards([1], [[true], [true]], 'group'), [0, 0]);
    assert.deepEqual(
      cotRewards(
        [1, 2],
        [
          [true, false],
          [false, true],
          [false, false],
        ],
        'group',
      ),
      [0.5, 1, 0],
    );
    assert.deepEqual(cotRewards([], [[], []]), [0, 0]);
  });
  it('rubricator reward: K_valid / K + format; format only without evolution', () => {
    assert.deepEqual(rubricatorReward(true, 4, 1, true), { evolving: 0.25, format: 1 });
    assert.deepEqual(rubricatorReward(true, 4, 1, false), { evolving: 0, format: 1 });
    assert.deepEqual(rubricatorReward(false, 0, 0, true), { evolving: 0, format: 0 });
  });
  it('random validity keeps as many criteria as the filter did', () => {
    const rng = makeRng(3);
    for (let t = 0; t < 200; t++) {
      const valid = Array.from({ length: 1 + rng.int(8) }, () => rng.next() < 0.4);
      const r = randomValidity(valid, rng);
      assert.equal(r.filter(Boolean).length, valid.filter(Boolean).length);
    }
  });
  it('pooling keeps one copy of each criterion, the first points', () => {
    const it = (name: 'STEPS' | 'CARRY', points: number): RubricItem => ({
      category: name === 'STEPS' ? 'decomposition' : 'clarity',
      criterion: { name, args: [] },
      points,
    });
    const pooled = poolItems([[it('STEPS', 2)], [it('STEPS', 3), it('CARRY', 1)]], (i) => criterionText(i.criterion));
    assert.deepEqual(
      pooled.map((i) => [i.criterion.name, i.points]),
      [
        ['STEPS', 2],
        ['CARRY', 1],
      ],
    );
  });
  it('pairwise accuracy counts ties as one half', () => {
    close(pairwiseAccuracy([1, 0.5, 0, 0.7], [0, 0.5, 1, 0.2]), (1 + 0.5 + 0 + 1) / 4);
    assert.ok(Number.isNaN(pairwiseAccuracy([], [])), 'no pairs: no accuracy');
    // a loss scores 0 and a tie 1/2, each on its own (above, one of each: swapping them would not show)
    assert.equal(pairwiseAccuracy([0], [1]), 0);
    assert.equal(pairwiseAccuracy([0.5], [0.5]), 0.5);
  });
  it('edge cases of the normalised score and the default CoT normalisation (over the rubric)', () => {
    assert.equal(normalisedScore([0, 0], [true, false]), 0, 'all points 0: 0, not 0/0');
    // default 'rubric': [2/3, 0]; 'group' would give [1, 0]
    assert.deepEqual(
      cotRewards(
        [2, 1],
        [
          [true, false],
          [false, false],
        ],
      ),
      [2 / 3, 0],
    );
  });
  it('validity with signs: a null correlation stays null, sign 0 reads as positive, the threshold is strict', () => {
    // satisfaction constant: pearson is null, and a penalty's sign must not turn it into -0
    assert.deepEqual(criterionValidity([[1, 1, 1, 1]], [1, 0, 1, 0], 0.2, 'none_valid', [-1]).corr, [null]);
    // v = z: corr 1; a criterion with 0 points (sign 0) is not negated, so it stays 1 > 0.2 and valid
    const zero = criterionValidity([[1, 1, 0, 0]], [1, 1, 0, 0], 0.2, 'none_valid', [0]);
    assert.deepEqual(zero.corr, [1]);
    assert.deepEqual(zero.valid, [true]);
    // corr exactly 1 (1 / sqrt(1 * 1)) with threshold 1: not > 1
    assert.deepEqual(criterionValidity([[1, 0, 1, 0]], [1, 0, 1, 0], 1).valid, [false]);
  });
  it('random validity shuffles by Fisher-Yates with rng.int(i + 1) for i = n - 1 down to 1', () => {
    // a scripted rng: int(4) -> 0, int(3) -> 1, int(2) -> 0
    const calls: number[] = [],
      draws = [0, 1, 0];
    const rng = {
      int: (n: number) => {
        calls.push(n);
        return draws.shift()!;
      },
    } as unknown as ReturnType<typeof makeRng>;
    // idx [0,1,2,3]; i=3, j=0: [3,1,2,0]; i=2, j=1: [3,2,1,0]; i=1, j=0: [2,3,1,0]; the filter kept 2: keep {2, 3}
    assert.deepEqual(randomValidity([true, true, false, false], rng), [false, false, true, true]);
    assert.deepEqual(calls, [4, 3, 2]);
  });
  it('group CoT normalisation subtracts the lowest raw score; the rubricator reward of an empty rubric is 0', () => {
    // raw [1, 2, 3]: lo 1, hi 3 -> [(1-1)/2, (2-1)/2, (3-1)/2] = [0, 0.5, 1]
    assert.deepEqual(
      cotRewards(
        [1, 2],
        [
          [true, false],
          [false, true],
          [true, true],
        ],
        'group',
      ),
      [0, 0.5, 1],
    );
    // parsed, evolving, but 0 items proposed: 0, not 0 / 0
    assert.deepEqual(rubricatorReward(true, 0, 0, true), { evolving: 0, format: 1 });
  });
  it("judge scores of preference pairs: J per response under its pair's rubric, 0 for both when unparsed", () => {
    // pair 0: rubric STEPS +3, CARRY -1 (J = (raw + 1) / 4); pair 1: unparsed; pair 2: VERIFY +2 (J = raw / 2).
    // The judge is asked item by item, chosen before rejected: STEPS c, r, CARRY c, r (pair 0), VERIFY c, r (pair 2).
    // answers: STEPS c yes, r no; CARRY c no, r yes -> J = (3 + 1) / 4 = 1 and (-1 + 1) / 4 = 0;
    //          VERIFY c no, r yes -> J = 0 and 1. Pairwise accuracy (1 + 1/2 (tie 0, 0) + 0) / 3 = 1/2.
    const item = (name: 'STEPS' | 'CARRY' | 'VERIFY', points: number): RubricItem => ({
      category: 'clarity',
      criterion: { name, args: [] },
      points,
    });
    const rubrics: Parsed[] = [
      { ok: true, rubric: { domain: 'add', items: [item('STEPS', 3), item('CARRY', -1)] } },
      { ok: false, reason: 'bad json' },
      { ok: true, rubric: { domain: 'add', items: [item('VERIFY', 2)] } },
    ];
    const probs = [0, 1, 2].map((k) => sampleProblem('add', 2, makeRng(k)));
    const pairs = probs.map((p, k) => ({ p, chosen: [`c${k}`], rejected: [`r${k}`] }));
    const asked: string[] = [];
    const answers = [true, false, false, true, false, true];
    const s = judgePairs(pairs, rubrics, (xs) => {
      xs.forEach((x) => asked.push(`${x.c.name} ${x.completion.join('')} ${probs.indexOf(x.p)}`));
      return answers.slice(0, xs.length);
    });
    assert.deepEqual(asked, ['STEPS c0 0', 'STEPS r0 0', 'CARRY c0 0', 'CARRY r0 0', 'VERIFY c2 2', 'VERIFY r2 2']);
    assert.deepEqual(s, { chosen: [1, 0, 0], rejected: [0, 0, 1] });
    close(pairwiseAccuracy(s.chosen, s.rejected), 0.5);
  });
});

describe('RLCER reward assembly of one step (golden, hand-computed)', () => {
  // One prompt, N = 4 rollouts, correctness z = [1, 1, 0, 0]. The satisfaction matrix (criterion x rollout), each
  // criterion's Pearson corr(v, z) by hand, and its verdict under today's literal reading (valid iff v varies and
  // corr(v, z) > 0.2, whatever the sign of the points):
  //   criterion  points  v          corr(v, z)                                  literal verdict (sign-aware)
  //   STEPS        +3    [1,1,0,0]  1                                           valid
  //   CARRY        +2    [1,0,1,0]  0                                           invalid (0 <= 0.2)
  //   REPEAT       -2    [0,0,1,1]  -1                                          invalid (sign-aware: valid)
  //   SHORT        -1    [1,1,1,0]  sxy 0.5 / sqrt(sxx 0.75 * syy 1) = 1/sqrt3  valid   (sign-aware: invalid)
  //   VERIFY       +1    [1,1,1,1]  null (constant satisfaction)                invalid
  const correct = [true, true, false, false];
  const sat = new Map(
    Object.entries({
      STEPS: [1, 1, 0, 0],
      CARRY: [1, 0, 1, 0],
      REPEAT: [0, 0, 1, 1],
      SHORT: [1, 1, 1, 0],
      VERIFY: [1, 1, 1, 1],
    }).map(([k, v]) => [k, v.map(Boolean)]),
  );
  const item = (text: string, points: number): RubricItem => ({
    category: 'clarity',
    criterion: parseCriterion(text)!,
    points,
  });
  const set = (...items: RubricItem[]): Parsed => ({ ok: true, rubric: { domain: 'arith/add', items } });
  // one set per rollout (the default 'each_pooled'): set 1 repeats STEPS with other points, set 2 did not parse
  const sets: Parsed[] = [
    set(item('STEPS', 3), item('CARRY', 2), item('REPEAT', -2), item('SHORT', -1), item('VERIFY', 1)),
    set(item('STEPS', 1), item('REPEAT', -2)),
    { ok: false, reason: 'hand-made parse failure' },
    set(item('VERIFY', 1)),
  ];
  const settings: RewardSettings = {
    validity: 'correlation',
    validityReading: 'literal',
    threshold: 0.2,
    constantCorrectness: 'none_valid',
    evolve: true,
    cotNorm: 'rubric',
    rubricatorSees: 'each_pooled',
    outcomeWeight: 1,
    cotWeight: 1,
  };
  const closeAll = (a: number[], b: number[], what: string) => {
    assert.equal(a.length, b.length, what);
    a.forEach((x, i) => close(x, b[i], 1e-12, `${what}[${i}]:`));
  };

  // Validity per criterion against the true correctness, negative-point criteria read literally (corr > threshold).
  it('literal validity reading: corr(v, z) > 0.2 for every criterion, negative points included', () => {
    const r = groupRewards(sets, sat, correct, settings, makeRng(0));
    const [s0, s1, s2, s3] = r.sets;
    closeAll(s0.corr.slice(0, 4) as number[], [1, 0, -1, 1 / Math.sqrt(3)], 'corr of set 0');
    assert.equal(s0.corr[4], null);
    assert.deepEqual(s0.valid, [true, false, false, true, false], 'STEPS, CARRY, REPEAT, SHORT, VERIFY');
    assert.deepEqual(s1.valid, [true, false]);
    assert.deepEqual(s2.items, []);
    assert.deepEqual(s3.valid, [false]);
  });
  // The sign-aware reading: a criterion with negative points is tested as corr(-v, z), so a flaw that goes with wrong
  // answers (REPEAT) is a valid penalty and one that goes with right answers (SHORT) is not.
  it('sign-aware validity reading: corr(sign(points) v, z) > 0.2, and the rewards that follow', () => {
    const r = groupRewards(sets, sat, correct, { ...settings, validityReading: 'sign_aware' }, makeRng(0));
    const [s0, s1, , s3] = r.sets;
    closeAll(s0.corr.slice(0, 4) as number[], [1, 0, 1, -1 / Math.sqrt(3)], 'signed corr of set 0');
    assert.deepEqual(s0.valid, [true, false, true, false, false], 'STEPS, CARRY, REPEAT, SHORT, VERIFY');
    assert.deepEqual(s1.valid, [true, true]);
    assert.deepEqual(s3.valid, [false]);
    // rubricator: 2/5 + 1, 2/2 + 1, unparsed 0, 0/1 + 1
    assert.deepEqual(
      r.sets.map((s) => s.rubricator.evolving),
      [0.4, 1, 0, 0],
    );
    // pool: STEPS +3, REPEAT -2 (set 0's points); min -2, max 3, range 5: rollouts 0-1 satisfy STEPS only -> 1,
    // rollouts 2-3 show REPEAT only -> 0
    closeAll(r.cot, [1, 1, 0, 0], 'CoT reward');
    closeAll(r.reward, [2, 2, -1, -1], 'reasoner reward');
  });
  // Rubricator reward per set: K_valid / K + format.
  it('rubricator reward: 2/5 + 1, 1/2 + 1, 0 + 0 (unparsed), 0/1 + 1', () => {
    const r = groupRewards(sets, sat, correct, settings, makeRng(0));
    assert.deepEqual(
      r.sets.map((s) => s.rubricator),
      [
        { evolving: 0.4, format: 1 },
        { evolving: 0.5, format: 1 },
        { evolving: 0, format: 0 },
        { evolving: 0, format: 1 },
      ],
    );
    const noEvolve = groupRewards(sets, sat, correct, { ...settings, evolve: false }, makeRng(0));
    assert.deepEqual(
      noEvolve.sets.map((s) => s.rubricator.evolving),
      [0, 0, 0, 0],
    );
  });
  // CoT reward over the pooled valid criteria, and the reasoner's reward outcome + CoT.
  it('CoT reward over the pooled valid criteria and reasoner reward = outcome + CoT', () => {
    // pool: STEPS +3 (set 0's points win over set 1's +1), SHORT -1; min -1, max 3, range 4
    //   rollout 0: STEPS, SHORT -> raw 3 - 1 = 2 -> (2 + 1) / 4 = 0.75;  rollout 1: the same, 0.75
    //   rollout 2: SHORT only  -> raw -1     -> 0;                       rollout 3: neither -> raw 0 -> 1/4 = 0.25
    const r = groupRewards(sets, sat, correct, settings, makeRng(0));
    closeAll(r.cot, [0.75, 0.75, 0, 0.25], 'CoT reward');
    assert.deepEqual(r.outcome, [1, 1, -1, -1]);
    closeAll(r.reward, [1.75, 1.75, -1, -0.75], 'reasoner reward');
    // rubric-only training (outcome weight 0) and a CoT weight of 2
    closeAll(
      groupRewards(sets, sat, correct, { ...settings, outcomeWeight: 0, cotWeight: 2 }, makeRng(0)).reward,
      [1.5, 1.5, 0, 0.5],
      'rubric-only reasoner reward',
    );
  });
  // The random-rubrics control: the filter's count kept, the criteria drawn from rng (scripted here).
  it('validity "random": as many criteria as the filter kept, chosen by the shuffle, and the rewards that follow', () => {
    // one set STEPS +3, CARRY +2, VERIFY +1: the filter keeps STEPS only (corr 1, 0, null: see the table above)
    const calls: number[] = [],
      draws = [1, 0];
    const rng = {
      int: (n: number) => {
        calls.push(n);
        return draws.shift()!;
      },
    } as unknown as ReturnType<typeof makeRng>;
    const r = groupRewards(
      [set(item('STEPS', 3), item('CARRY', 2), item('VERIFY', 1))],
      sat,
      correct,
      { ...settings, validity: 'random' },
      rng,
    );
    // shuffle of idx [0,1,2]: i=2, int(3) -> 1: [0,2,1]; i=1, int(2) -> 0: [2,0,1]; keep the first 1: VERIFY
    assert.deepEqual(calls, [3, 2]);
    assert.deepEqual(r.sets[0].valid, [false, false, true]);
    assert.equal(r.sets[0].corr[0], 1);
    assert.deepEqual(r.sets[0].rubricator, { evolving: 1 / 3, format: 1 });
    // CoT over VERIFY +1 (satisfied by every rollout): range 0..1, raw 1 -> 1; reward = outcome [1,1,-1,-1] + 1
    closeAll(r.cot, [1, 1, 1, 1], 'CoT reward');
    closeAll(r.reward, [2, 2, 0, 0], 'reasoner reward');
  });
  // EvoLM's reading: each rollout scored by the valid criteria of its own set only.
  it("each_own: rollout i scored by set i's valid criteria", () => {
    // rollout 0: set 0's pool as above -> 0.75; rollout 1: set 1's STEPS +1 (range 0..1), satisfied -> 1;
    // rollout 2: set 2 unparsed, no criteria -> 0; rollout 3: set 3's only criterion is invalid -> 0
    const r = groupRewards(sets, sat, correct, { ...settings, rubricatorSees: 'each_own' }, makeRng(0));
    closeAll(r.cot, [0.75, 1, 0, 0], 'CoT reward');
    closeAll(r.reward, [1.75, 2, -1, -1], 'reasoner reward');
  });
});

describe('RLCER configuration and training step', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('names a bad option', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 1));
    assert.throws(
      () => makeRlcerTrainer(policy, { ...defaultRlcerConfig, rubricSource: 'oracle' } as unknown as RlcerConfig),
      (e: Error) => e instanceof ConfigError && /rubricSource/.test(e.message),
    );
    assert.throws(() => makeRlcerTrainer(policy, { ...defaultRlcerConfig, rollouts: 1 }), /rollouts/);
    assert.throws(() => makeRlcerTrainer(policy, defaultRlcerConfig), /verifier "learned" needs/);
    assert.throws(
      () => makeRlcerTrainer(policy, { ...defaultRlcerConfig, verifier: 'oracle', rubricSource: 'fixed_untrained' }),
      /frozen cold-start/,
    );
  });
  it('the rubricator prompt carries the CoT after the question', () => {
    const p = sampleProblem('add', 2, makeRng(1));
    const t = promptTokens(p, 'rubric', ['C0', '1', '2', '0', '0', '3', 'A', '0', '3', '<eos>']);
    assert.equal(t[0], '<rubric>');
    assert.deepEqual(t.slice(t.indexOf('=') + 1), ['C0', '1', '2', '0', '0', '3', 'A', '0', '3']);
  });
  it('one step from the cold start logs every reward component, reasoner reward = outcome + CoT', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const policy = loadPolicy(coldStartCheckpoint('S'));
    const trainer = makeRlcerTrainer(policy, { ...defaultRlcerConfig, prompts: 3, rollouts: 4, verifier: 'oracle' });
    const m = trainer.step(makeRng(5));
    for (const k of [
      'accuracy',
      'reward/outcome',
      'reward/cot',
      'reward/rubricator',
      'format_rate',
      'reason/entropy',
      'rubric/pg_loss',
    ])
      assert.ok(Number.isFinite(m[k]), `${k} = ${m[k]}`);
    close(m['reward/reasoner'], m['reward/outcome'] + m['reward/cot'], 1e-9);
    assert.ok(m.format_rate > 0.3, `the cold-start rubricator should mostly parse (format rate ${m.format_rate})`);
    assert.ok(trainer.lastRubrics().length > 0);
    for (const w of Object.values(policy.weights)) assert.ok(tf.tidy(() => tf.all(tf.isFinite(w)).dataSync()[0]) === 1);
  });
});

describe('PPO over two roles on shared weights', function () {
  this.timeout(60000);
  before(async () => {
    await initBackend();
  });
  // Adam's first step moves every parameter with a gradient by about its learning rate
  const maxMove = (roleMixing: 'weighted_sum' | 'separate_adam') => {
    const policy = createPolicy(modelConfig('transformer', 'S', 4));
    const before = Object.fromEntries(Object.entries(policy.weights).map(([k, v]) => [k, v.clone()]));
    const rng = makeRng(2),
      prompt = [2, 15, 6, 17, 7, 18];
    const rs = Array.from({ length: 8 }, (_, i) => ({
      role: (i < 4 ? 'reason' : 'rubric') as 'reason' | 'rubric',
      group: 0,
      prompt,
      completion: [5 + (i % 3), 1],
      reward: i % 2 ? 1 : -1,
      components: {},
    }));
    // the paper's rates (rubricator 10x), set explicitly: the defaults are the calibrated 1x
    const lr = { reason: 1e-4, rubric: 1e-3, hint: 1e-4 };
    const c = { ...defaultPpoConfig, lr, epochs: 1, minibatches: 1, roleMixing };
    ppoUpdate(policy, makeRoleOptimizers(lr), rs, c, rng, undefined, makeCritics(policy, c, copyPolicy));
    const d = Math.max(
      ...Object.keys(before).map((k) => tf.tidy(() => policy.weights[k].sub(before[k]).abs().max().dataSync()[0])),
    );
    tf.dispose(Object.values(before));
    return d;
  };
  it('length buckets give the same update as one padded minibatch', () => {
    const rng = makeRng(9),
      prompt = [2, 15, 6, 17, 7, 18];
    const rs = Array.from({ length: 12 }, (_, i) => ({
      role: (i % 3 ? 'reason' : 'rubric') as 'reason' | 'rubric',
      group: 0,
      prompt: prompt.slice(0, 3 + (i % 4)),
      completion: Array.from({ length: 2 + ((i * 7) % 11) }, (_, t) => 5 + ((i + t) % 9)),
      reward: (i % 5) - 2,
      components: {},
    }));
    const run = (lengthBuckets: number) => {
      const policy = createPolicy(modelConfig('transformer', 'S', 8));
      const sgd = { reason: tf.train.sgd(0.05), rubric: tf.train.sgd(0.05), hint: tf.train.sgd(0.05) };
      const c = { ...defaultPpoConfig, epochs: 1, minibatches: 1, lengthBuckets };
      const m = ppoUpdate(policy, sgd, rs, c, makeRng(3), undefined, makeCritics(policy, c, copyPolicy));
      return { policy, m };
    };
    void rng;
    const a = run(1),
      b = run(3);
    assert.ok(Math.abs(a.m['reason/pg_loss'] - b.m['reason/pg_loss']) < 1e-5);
    for (const name of Object.keys(a.policy.weights)) {
      const d = tf.tidy(() => a.policy.weights[name].sub(b.policy.weights[name]).abs().max().dataSync()[0]);
      assert.ok(d < 1e-5, `${name} differs by ${d}`);
    }
  });
  it('GRPO length buckets give the same update as one padded minibatch', () => {
    const prompt = [2, 15, 6, 17, 7, 18];
    const rs = Array.from({ length: 12 }, (_, i) => ({
      role: 'reason' as const,
      group: i % 3,
      prompt: prompt.slice(0, 3 + (i % 4)),
      completion: Array.from({ length: 2 + ((i * 7) % 11) }, (_, t) => 5 + ((i + t) % 9)),
      reward: (i % 5) - 2,
      components: {},
    }));
    const run = (lengthBuckets: number) => {
      const policy = createPolicy(modelConfig('transformer', 'S', 8));
      grpoUpdate(
        policy,
        tf.train.sgd(0.05),
        rs,
        { ...defaultGrpoConfig, epochs: 1, minibatches: 1, lengthBuckets },
        makeRng(3),
      );
      return policy;
    };
    const a = run(1),
      b = run(3);
    for (const name of Object.keys(a.weights)) {
      const d = tf.tidy(() => a.weights[name].sub(b.weights[name]).abs().max().dataSync()[0]);
      assert.ok(d < 1e-5, `${name} differs by ${d}`);
    }
  });
  it('weighted_sum takes one Adam step at the reasoner rate; separate_adam adds the rubricator step at 10x', () => {
    const ws = maxMove('weighted_sum'),
      sa = maxMove('separate_adam');
    assert.ok(ws <= 1.05e-4, `weighted_sum moved a weight by ${ws}`);
    assert.ok(sa > 9e-4 && sa <= 1.11e-3, `separate_adam moved a weight by ${sa}`);
  });
});

describe('SFT in length buckets', function () {
  this.timeout(60000);
  before(async () => {
    await initBackend();
  });
  it('gives the same loss and update as one padded batch', () => {
    const rng = makeRng(7),
      batch = Array.from({ length: 16 }, () => sampleExample(defaultColdStartData, rng));
    assert.ok(batch.some((e) => e.kind === 'rubric') || decode(batch[0].prompt).length > 0);
    const a = createPolicy(modelConfig('transformer', 'S', 2)),
      b = createPolicy(modelConfig('transformer', 'S', 2));
    const la = sftStep(a, tf.train.sgd(0.1), batch, 1e9, 1),
      lb = sftStep(b, tf.train.sgd(0.1), batch, 1e9, 4);
    close(la.loss, lb.loss, 1e-4);
    for (const name of Object.keys(a.weights)) {
      const d = tf.tidy(() => a.weights[name].sub(b.weights[name]).abs().max().dataSync()[0]);
      assert.ok(d < 1e-4, `${name} differs by ${d}`);
    }
  });
});

describe('cold-start data: rubric examples written from the question alone', () => {
  it('share 0 leaves the committed data stream as it was; share 1 puts no CoT in any rubric prompt', async () => {
    const { createHash } = await import('node:crypto');
    const { encode } = await import('../src/world/vocab.js');
    const { checkColdStartData } = await import('../src/methods/trainers/coldstart.js');
    const stream = (share: number) => {
      const rng = makeRng(7);
      return Array.from({ length: 200 }, () =>
        sampleExample({ ...defaultColdStartData, rubricQuestionShare: share }, rng),
      );
    };
    // the hash of the stream before the option existed (the committed cold starts were trained on it)
    assert.equal(
      createHash('sha256')
        .update(JSON.stringify(stream(0)))
        .digest('hex')
        .slice(0, 16),
      '1e8427b4e5024c63',
    );
    const rubric = (xs: ReturnType<typeof stream>) => xs.filter((x) => x.kind === 'rubric');
    assert.equal(rubric(stream(0)).length, 26);
    // every rubric prompt holds a CoT (its answer token 'A') at share 0, none at share 1
    assert.ok(rubric(stream(1)).length > 10);
    const rng = makeRng(7);
    for (let i = 0; i < 200; i++) {
      const x = sampleExample({ ...defaultColdStartData, rubricQuestionShare: 1 }, rng);
      if (x.kind !== 'rubric') continue;
      assert.ok(!x.prompt.includes(encode(['C0'])[0]) && !x.prompt.includes(encode(['A'])[0]), 'a CoT in the prompt');
    }
    assert.ok(rubric(stream(0)).every((x) => x.prompt.includes(encode(['A'])[0])));
    assert.throws(
      () => checkColdStartData({ ...defaultColdStartData, rubricQuestionShare: 1.5 }),
      /rubricQuestionShare/,
    );
  });
});
