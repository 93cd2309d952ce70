// EvoLM's generator reward and schedule against hand-computed values, its config errors, and one step of each phase;
// what the generator reads, the temporal gap's scaling, the judge-only controls and the two-model control.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend } from '../src/models/backend.js';
import { createPolicy, loadPolicy } from '../src/models/index.js';
import { modelConfig } from '../src/models/policy.js';
import {
  defaultEvolmConfig,
  generatorReward,
  makeEvolmTrainer,
  needsGeneratorPolicy,
  PAIR_SOURCES,
  pairMembers,
  phaseOf,
  sampleLayout,
  temporalGapSteps,
  type EvolmConfig,
} from '../src/methods/trainers/evolm.js';
import type { Policy } from '../src/models/policy.js';
import { oracleJudge } from '../src/models/verifier.js';
import { referenceRubric } from '../src/rubrics/rubric.js';
import { normalisedScore } from '../src/rubrics/rewards.js';
import { decode } from '../src/world/vocab.js';
import { coldStartCheckpoint } from '../src/methods/tables/table2.js';
import { ConfigError } from '../src/util/validate.js';
import { makeRng } from '../src/util/random.js';

describe('EvoLM (hand-computed)', () => {
  it('a second policy writes rubrics for the separate generator or the frozen cold start only', () => {
    const needs = (rubricSource: EvolmConfig['rubricSource'], generatorWeights: EvolmConfig['generatorWeights']) =>
      needsGeneratorPolicy({ rubricSource, generatorWeights });
    assert.equal(needs('generator', 'shared'), false); // the policy itself writes
    assert.equal(needs('generator', 'separate'), true); // the generator's own weights
    assert.equal(needs('frozen_coldstart', 'shared'), true); // the frozen cold-start copy
    assert.equal(needs('teacher', 'shared'), false); // the teacher's reference rubric, no policy
  });
  it('generator reward: 0.7 margin + 0.3 format; nothing for an unparsed rubric', () => {
    assert.ok(Math.abs(generatorReward(true, 0.9, 0.4) - (0.7 * 0.5 + 0.3)) < 1e-12);
    assert.ok(Math.abs(generatorReward(true, 0.2, 0.6) - (0.7 * -0.4 + 0.3)) < 1e-12);
    assert.equal(generatorReward(false, 1, 0), 0);
  });
  it('alternates K policy and K generator steps; sequential trains the generator first', () => {
    const alt = { steps: 20, schedule: 'alternate' as const, alternation: 0, alternationFraction: 0.1 };
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((s) => phaseOf(s, alt)),
      ['policy', 'policy', 'generator', 'generator', 'policy', 'policy'],
    );
    assert.equal(phaseOf(5, { ...alt, alternation: 5 }), 'generator');
    const seq = { steps: 3, schedule: 'sequential' as const, alternation: 0, alternationFraction: 0.1 };
    assert.deepEqual(
      [0, 2, 3, 5].map((s) => phaseOf(s, seq)),
      ['generator', 'generator', 'policy', 'policy'],
    );
  });
  it('the generator reads an answer outside the scored group and outside every pair', () => {
    // policy step: 3 prompts x (4 scored + 1 read), prompt g's samples at 5g .. 5g + 4
    assert.deepEqual(sampleLayout(3, 4), {
      scored: [
        [0, 1, 2, 3],
        [5, 6, 7, 8],
        [10, 11, 12, 13],
      ],
      read: [4, 9, 14],
    });
    // where nothing reads an answer (teacher rubrics, rubrics from the question alone) no extra one is drawn
    assert.deepEqual(sampleLayout(2, 3, false), {
      scored: [
        [0, 1, 2],
        [3, 4, 5],
      ],
      read: [],
    });
    for (const [P, n] of [
      [3, 4],
      [16, 8],
      [2, 1],
      [5, 1],
    ]) {
      const { scored, read } = sampleLayout(P, n),
        all = scored.flat();
      assert.equal(new Set([...all, ...read]).size, P * (n + 1), 'every sample has one use');
      read.forEach((r) => assert.ok(!all.includes(r), `read ${r} is scored`));
      if (n !== 1) continue;
      // generator step: no prompt's pair, of any source, holds an answer the generator reads
      const plain = scored.map((x) => x[0]);
      for (const src of PAIR_SOURCES) {
        for (let g = 0; g < P; g++) {
          const { pos, neg } = pairMembers(src, g, plain);
          for (const r of read) assert.ok(pos !== r && neg !== r, `${src} pair of prompt ${g} holds read answer ${r}`);
        }
      }
    }
    // the pairs themselves are unchanged: perturbation's negative is the next prompt's plain answer
    assert.deepEqual(pairMembers('perturbation', 2, [0, 2, 4]), { pos: 4, neg: 0 });
    assert.deepEqual(pairMembers('temporal', 1, [0, 2, 4]), { pos: 2, neg: 'past' });
    assert.deepEqual(pairMembers('rubric_conditioned', 1, [0, 2, 4]), { pos: 'hinted', neg: 2 });
  });
  it('the temporal gap scales with the run: [20, 100] at 1,500 policy steps, [1, 4] at 60', () => {
    const c = { temporalGapFraction: defaultEvolmConfig.temporalGapFraction, temporalGap: null };
    assert.deepEqual(temporalGapSteps({ ...c, steps: 1500 }), [20, 100]); // 1500 / 75, 1500 / 15
    assert.deepEqual(temporalGapSteps({ ...c, steps: 60 }), [1, 4]); // 60 / 75 = 0.8 -> 1, 60 / 15 = 4
    assert.deepEqual(temporalGapSteps({ ...c, steps: 100 }), [1, 7]); // 1.33 -> 1, 6.67 -> 7
    assert.deepEqual(temporalGapSteps({ ...c, steps: 10 }), [1, 1]); // lo at least 1, hi at least lo
    // the absolute gap, whatever the run's length
    assert.deepEqual(temporalGapSteps({ ...c, temporalGap: [20, 100], steps: 60 }), [20, 100]);
  });
  it('judge-only rows have no generator phase', () => {
    const alt = { steps: 20, schedule: 'alternate' as const, alternation: 0, alternationFraction: 0.1 };
    assert.deepEqual(
      [0, 2, 3].map((s) => phaseOf(s, { ...alt, rubricSource: 'teacher' })),
      ['policy', 'policy', 'policy'],
    );
    assert.equal(phaseOf(0, { ...alt, schedule: 'sequential', rubricSource: 'frozen_coldstart' }), 'policy');
  });
});

describe('EvoLM training', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('names bad options', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 1));
    assert.throws(
      () => makeEvolmTrainer(policy, { ...defaultEvolmConfig, schedule: 'both' as never }),
      (e: Error) => e instanceof ConfigError && /schedule/.test(e.message),
    );
    assert.throws(
      () =>
        makeEvolmTrainer(policy, {
          ...defaultEvolmConfig,
          pairSources: { temporal: 0, perturbation: 0, rubric_conditioned: 0 },
        }),
      /positive total/,
    );
    assert.throws(() => makeEvolmTrainer(policy, defaultEvolmConfig), /verifier "learned" needs/);
    const oracle = { ...defaultEvolmConfig, verifier: 'oracle' as const };
    assert.throws(
      () => makeEvolmTrainer(policy, { ...oracle, generatorWeights: 'separate' }),
      /needs the generator policy/,
    );
    assert.throws(
      () => makeEvolmTrainer(policy, { ...oracle, rubricSource: 'frozen_coldstart' }),
      /needs the generator policy/,
    );
    assert.throws(() => makeEvolmTrainer(policy, oracle, undefined, policy), /generator policy is for/);
    assert.throws(
      () => makeEvolmTrainer(policy, { ...oracle, rubricSource: 'teacher', generatorWeights: 'separate' }),
      /needs rubricSource "generator"/,
    );
    assert.throws(
      () => makeEvolmTrainer(policy, { ...oracle, temporalGapFraction: [0.5, 0.1] }),
      /temporalGapFraction/,
    );
  });
  it('one policy step and one generator step (every pair source) from the cold start', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const policy = loadPolicy(coldStartCheckpoint('S'));
    const t = makeEvolmTrainer(policy, {
      ...defaultEvolmConfig,
      steps: 2,
      alternation: 1,
      prompts: 3,
      rollouts: 2,
      verifier: 'oracle',
    });
    const m0 = t.step(0, makeRng(1)),
      m1 = t.step(1, makeRng(2));
    assert.equal(m0.phase, 0);
    assert.equal(m1.phase, 1);
    for (const k of ['accuracy', 'judge_score', 'format_rate', 'policy/pg_loss'])
      assert.ok(Number.isFinite(m0[k]), `${k} = ${m0[k]}`);
    for (const k of ['generator_reward', 'margin', 'pair_accuracy', 'generator/pg_loss'])
      assert.ok(Number.isFinite(m1[k]), `${k} = ${m1[k]}`);
    assert.ok(m0.judge_score >= 0 && m0.judge_score <= 1);
    for (const src of ['temporal', 'perturbation', 'rubric_conditioned'] as const) {
      const only = { temporal: 0, perturbation: 0, rubric_conditioned: 0, [src]: 1 };
      const m = makeEvolmTrainer(policy, {
        ...defaultEvolmConfig,
        steps: 1,
        alternation: 1,
        prompts: 2,
        rollouts: 2,
        verifier: 'oracle',
        pairSources: only,
      }).step(1, makeRng(3));
      assert.equal(m[`pairs/${src}`], 1);
      assert.ok(Number.isFinite(m.generator_reward));
    }
  });
  it('the trainer: the rubric writer never reads an answer the step scores or pairs', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const c = { ...defaultEvolmConfig, steps: 2, alternation: 1, prompts: 3, rollouts: 2, verifier: 'oracle' as const };
    const t = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), c);
    for (let step = 0; step < 4; step++) {
      const m = t.step(step, makeRng(11 + step)),
        b = t.lastBatch();
      const used = new Set(m.phase === 0 ? b.scored : b.paired);
      if (m.phase === 0) assert.equal(b.scored.length, c.prompts * c.rollouts);
      else assert.ok(b.paired.length >= c.prompts, 'every pair has a plain member');
      // one read per rubric written: per prompt in a policy step, per rubric (and first rubric) in a generator step
      assert.ok(
        b.read.length >= (m.phase === 0 ? c.prompts : c.prompts * c.rollouts),
        `step ${step}: ${b.read.length}`,
      );
      for (const i of b.read) {
        assert.ok(Number.isInteger(i) && i >= 0 && i < c.prompts * (m.phase === 0 ? c.rollouts + 1 : 2), `index ${i}`);
        assert.ok(!used.has(i), `step ${step} (phase ${m.phase}): the writer read answer ${i}, which the step uses`);
      }
    }
  });
  it('rubric quality reads what the writer reads: the committed cold start cannot write from the question alone', async function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const { preferencePairs, rubricatorQuality } = await import('../src/rl/rubric-quality.js');
    const policy = loadPolicy(coldStartCheckpoint('S'));
    const pairs = preferencePairs(policy, 1, 4, makeRng(1)).slice(0, 6);
    const judge = (
      xs: { c: Parameters<typeof oracleJudge>[0]; p: Parameters<typeof oracleJudge>[1]; completion: string[] }[],
    ) => xs.map((x) => oracleJudge(x.c, x.p, x.completion));
    // no rubric parses from the question alone (format rate 0.000 in results/coldstart/question.csv): every pair ties
    assert.equal(rubricatorQuality(policy, pairs, judge, makeRng(2), 'question'), 0.5);
    assert.notEqual(rubricatorQuality(policy, pairs, judge, makeRng(2)), 0.5);
  });
  const small = {
    ...defaultEvolmConfig,
    steps: 2,
    alternation: 1,
    prompts: 3,
    rollouts: 4,
    verifier: 'oracle' as const,
  };
  it('judge-only rows: the reward is J and nothing else, no labels', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    // teacher rubrics: the reward of every rollout is J recomputed here from the reference rubric and the oracle judge
    const t = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), { ...small, rubricSource: 'teacher' });
    assert.equal(t.totalSteps, 2);
    const m = t.step(1, makeRng(7));
    assert.equal(m.phase, 0);
    const rs = t.lastRollouts();
    assert.equal(rs.length, 12);
    for (const r of rs) {
      assert.deepEqual(Object.keys(r.components), ['judge']);
      const items = referenceRubric(r.problem).items;
      const J = normalisedScore(
        items.map((i) => i.points),
        items.map((i) => oracleJudge(i.criterion, r.problem, decode(r.completion))),
      );
      assert.equal(r.reward, J);
    }
    assert.ok(new Set(rs.map((r) => r.reward)).size > 1, 'J varies, so the check is not vacuous');
    // rubrics written by the frozen cold start: J alone, in [0, 1]
    const frozen = loadPolicy(coldStartCheckpoint('S'));
    const u = makeEvolmTrainer(
      loadPolicy(coldStartCheckpoint('S')),
      { ...small, rubricSource: 'frozen_coldstart' },
      undefined,
      frozen,
    );
    const before = weightsOf(frozen);
    u.step(0, makeRng(8));
    for (const r of u.lastRollouts()) {
      assert.deepEqual(Object.keys(r.components), ['judge']);
      assert.ok(r.reward === r.components.judge && r.reward >= 0 && r.reward <= 1);
    }
    assert.ok(sameWeights(before, weightsOf(frozen)), 'the frozen writer is never trained');
  });
  it('two models: a generator step leaves the policy untouched, a policy step the generator', function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    const policy = loadPolicy(coldStartCheckpoint('S')),
      generator = loadPolicy(coldStartCheckpoint('S'));
    const c: EvolmConfig = { ...small, generatorWeights: 'separate' };
    const t = makeEvolmTrainer(policy, c, undefined, generator);
    const p0 = weightsOf(policy),
      g0 = weightsOf(generator);
    const m0 = t.step(0, makeRng(11));
    assert.equal(m0.phase, 0);
    const p1 = weightsOf(policy);
    assert.ok(!sameWeights(p0, p1), 'the policy step trains the policy');
    assert.ok(sameWeights(g0, weightsOf(generator)), 'the policy step leaves the generator untouched');
    assert.equal(t.step(1, makeRng(12)).phase, 1);
    assert.ok(sameWeights(p1, weightsOf(policy)), 'the generator step leaves the policy untouched');
    assert.ok(!sameWeights(g0, weightsOf(generator)), 'the generator step trains the generator');
    // the generator writes the rubrics: an untrained (random) generator writes none that parse, the cold start does
    const random = createPolicy(policy.config);
    const r0 = makeEvolmTrainer(loadPolicy(coldStartCheckpoint('S')), c, undefined, random).step(0, makeRng(11));
    assert.ok(
      m0.format_rate > 0 && r0.format_rate === 0,
      `format rate ${m0.format_rate} (cold start), ${r0.format_rate} (random)`,
    );
  });
});

function weightsOf(p: Policy): Float32Array[] {
  return Object.values(p.weights).map((v) => (v.dataSync() as Float32Array).slice());
}
function sameWeights(a: Float32Array[], b: Float32Array[]): boolean {
  return a.length === b.length && a.every((x, i) => x.length === b[i].length && x.every((v, j) => v === b[i][j]));
}
