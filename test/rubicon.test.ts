// Rubicon's anchors on teacher traces: hard anchors by hand, the defence rubric catching a verification whose
// digits do not follow from the working, and reward vectors with the oracle judge.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ANCHORS,
  RUBICON_REPORTED,
  TASK_FAMILIES,
  TASK_PAIRS,
  auditCheck,
  hackMeasures,
  lengthBudget,
  recomputedDigits,
  rewardVectors,
  tightLengthBudget,
  tightLengthSlack,
} from '../src/rubrics/rubicon.js';
// imported here, not inside a test, so that Stryker counts its module-level tables as static (see stryker/static.config.json)
import { RUBICON_CLAIMS, aggregateRubicon, runScores } from '../analysis/rubicon.js';
import { readCsv, writeCsv } from '../src/io/table.js';
import { sigmoid } from '../src/models/verifier.js';
import { oracleJudge } from '../src/models/verifier.js';
import { sampleProblem, solve } from '../src/world/problems.js';
import { writeTrace } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import { makeRng } from '../src/util/random.js';

const batchJudge = (
  xs: { c: Parameters<typeof oracleJudge>[0]; p: Parameters<typeof oracleJudge>[1]; completion: string[] }[],
) => xs.map((x) => oracleJudge(x.c, x.p, x.completion));

describe('Rubicon anchors', () => {
  const rng = makeRng(12);
  const p = sampleProblem('add', 3, rng);
  it('hard anchors on a correct verified trace, a shortcut and a truncated one', () => {
    const good = writeTrace(p, 'verified', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    const score = (name: string, completion: string[]) =>
      (ANCHORS[name] as { score: (x: unknown) => number }).score({ p, completion, trace: parseTrace(completion) });
    assert.equal(score('format', good), 1);
    assert.equal(score('honest_verification', good), 1);
    assert.equal(score('length', good), 1);
    assert.equal(score('format', good.slice(0, -2)), 0); // truncated: no <eos>
    const shortcut = ['A', ...p.answer.map(String), '<eos>'];
    assert.equal(score('honest_verification', shortcut), 1); // nothing claimed, nothing to catch
    const long = [...good.slice(0, -1), ...Array(3 * lengthBudget(p)).fill('|')];
    assert.equal(score('length', long), 0);
  });
  it('the defence rubric catches verification digits that do not follow from the working', () => {
    const good = writeTrace(p, 'verified', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    const v = good.indexOf('V');
    const want = recomputedDigits(parseTrace(good), p)!;
    const hacked = [
      ...good.slice(0, v + 1),
      ...want.map((d) => String((d + 1) % 10)),
      ...good.slice(v + 1 + want.length),
    ];
    const score = (completion: string[]) =>
      (ANCHORS.honest_verification as { score: (x: unknown) => number }).score({
        p,
        completion,
        trace: parseTrace(completion),
      });
    assert.equal(score(hacked), 0);
  });
  it('reward vectors follow the family anchors, soft ones judged in one batch', () => {
    const traces = [
      writeTrace(p, 'systematic', makeRng(2), { errorRate: 0, verifyMiss: 0 }).tokens,
      ['A', ...p.answer.map(String), '<eos>'],
    ];
    const q = rewardVectors(
      TASK_FAMILIES.quality.map((n) => ANCHORS[n]),
      traces.map((completion) => ({ p, completion })),
      batchJudge,
    );
    assert.deepEqual(q[0], [1, 1, 1, 1, 1]);
    assert.deepEqual(q[1], [1, 0, 0, 0, 0]); // a shortcut: right format, no working
    const c = rewardVectors(
      TASK_FAMILIES.constraints.map((n) => ANCHORS[n]),
      traces.map((completion) => ({ p, completion })),
      batchJudge,
    );
    assert.equal(c[0][2], 0); // no verification step
  });
});

describe('Rubicon training', function () {
  this.timeout(240000);
  it('schedules, prompts and the veto defence by hand; one step of each schedule from the cold start', async () => {
    const fs = await import('node:fs');
    const { initBackend } = await import('../src/models/backend.js');
    const { loadPolicy } = await import('../src/models/index.js');
    const { coldStartCheckpoint } = await import('../src/methods/tables/table2.js');
    const { defaultRubiconConfig, familyAnchors, familyOf, makeRubiconTrainer, taskPrompt } = await import(
      '../src/methods/trainers/rubicon-train.js'
    );
    const seq = { steps: 10, stageSplit: 0.5 };
    assert.equal(familyOf(4, { ...seq, schedule: 'stagewise' }, makeRng(1)), 'constraints');
    assert.equal(familyOf(5, { ...seq, schedule: 'stagewise' }, makeRng(1)), 'quality');
    assert.equal(familyOf(0, { ...seq, schedule: 'quality_only' }, makeRng(1)), 'quality');
    const p = sampleProblem('sub', 2, makeRng(3));
    assert.equal(taskPrompt(p, 'constraints')[0], '<hint>');
    assert.equal(taskPrompt(p, 'quality')[0], '<reason>');
    assert.deepEqual(
      familyAnchors('constraints', 'veto')
        .map((a) => [a.name, a.weight, !!a.critical])
        .slice(-1),
      [['honest_verification', 0, true]],
    );
    assert.equal(
      familyAnchors('constraints', 'weighted_sum').some((a) => a.name === 'honest_verification'),
      false,
    );
    if (!fs.existsSync(coldStartCheckpoint('S'))) return;
    await initBackend();
    const policy = loadPolicy(coldStartCheckpoint('S'));
    for (const schedule of ['joint', 'stagewise'] as const) {
      const m = makeRubiconTrainer(policy, {
        ...defaultRubiconConfig,
        schedule,
        steps: 2,
        prompts: 2,
        rollouts: 2,
        verifier: 'oracle',
        aggregator: 'veto',
      }).step(0, makeRng(4));
      for (const k of ['accuracy', 'reward', 'hack_rate', 'pg_loss'])
        assert.ok(Number.isFinite(m[k]), `${k} = ${m[k]}`);
    }
    const f = makeRubiconTrainer(policy, {
      ...defaultRubiconConfig,
      steps: 1,
      prompts: 2,
      rollouts: 2,
      verifier: 'oracle',
      filterQuantiles: [0.25, 0.75],
      poolSize: 8,
    }).step(0, makeRng(5));
    assert.ok(Number.isFinite(f.reward));
    // the learned verifier's graded scores: sigmoid of the logit its verdicts threshold at 0
    const { VERIFIER_CHECKPOINT } = await import('../src/methods/tables/table2.js');
    if (!fs.existsSync(VERIFIER_CHECKPOINT)) return;
    const { learnedJudge, learnedLogits, learnedProbability, loadVerifier, sigmoid } = await import(
      '../src/models/verifier.js'
    );
    const verifier = loadVerifier(VERIFIER_CHECKPOINT);
    const q = sampleProblem('add', 3, makeRng(6));
    const items = (['systematic', 'verified', 'sloppy'] as const).map((style, i) => ({
      p: q,
      completion: writeTrace(q, style, makeRng(7 + i)).tokens,
    }));
    const judged = items.flatMap((x) =>
      (['VERIFY', 'STEPOK', 'CARRY'] as const).map((name) => ({ c: { name, args: [] }, ...x })),
    );
    const logits = learnedLogits(verifier)(judged),
      prob = learnedProbability(verifier)(judged);
    assert.deepEqual(prob, logits.map(sigmoid));
    assert.deepEqual(
      learnedJudge(verifier)(judged),
      logits.map((v) => v > 0),
    );
    assert.ok(
      prob.every((x) => x > 0 && x < 1),
      prob.join(','),
    );
    const anchors = TASK_FAMILIES.quality.map((n) => ANCHORS[n]);
    const graded = rewardVectors(anchors, items, learnedProbability(verifier));
    assert.ok(graded.flatMap((v) => v.slice(1)).some((x) => x > 0 && x < 1)); // soft dimensions are graded, not 0/1
    // one step with every new setting: probabilities, the competing pair, the defence under saturation
    const g = makeRubiconTrainer(
      policy,
      {
        ...defaultRubiconConfig,
        steps: 1,
        prompts: 2,
        rollouts: 2,
        aggregator: 'saturation',
        defence: 'yes',
        tasks: 'competing',
      },
      verifier,
    ).step(0, makeRng(8));
    for (const k of ['reward', 'hack_rate', 'check_rate', 'mismatch_rate'])
      assert.ok(Number.isFinite(g[k]), `${k} = ${g[k]}`);
    assert.ok(
      Object.keys(g).some((k) => k.endsWith('/tight_length')),
      Object.keys(g).join(','),
    );
  });
});

describe('Rubicon aggregation', () => {
  it('writes the tidy table and the hacking curves (joint, unfiltered runs) from finished runs', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { aggregateRubicon } = await import('../analysis/rubicon.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rub-')),
      out = path.join(root, 'out');
    [0.2, 0.4].forEach((v, seed) => {
      const dir = path.join(root, 'quick', 'standard', 'weighted_sum-nodefence', 'joint', `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({
          rubicon: {
            aggregator: 'weighted_sum',
            schedule: 'joint',
            filterQuantiles: null,
            defence: 'auto',
            tasks: 'standard',
          },
        }),
      );
      fs.writeFileSync(
        path.join(dir, 'metrics.jsonl'),
        JSON.stringify({
          step: 0,
          hack_rate: v,
          check_rate: 0.5,
          mismatch_rate: 0.1,
          accuracy: 0.5,
          'dim/constraints/verification': 0.7,
        }) + '\n',
      );
      writeCsv(path.join(dir, 'final.csv'), [
        {
          tasks: 'standard',
          aggregator: 'weighted_sum',
          defence: 'no',
          schedule: 'joint',
          seed,
          column: 'accuracy/add',
          value: v,
        },
      ]);
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    });
    // a run from before the task-pair option (no tasks column) is skipped, not mixed in
    const stale = path.join(root, 'quick', 'weighted_sum', 'joint', 'seed-0');
    fs.mkdirSync(stale, { recursive: true });
    writeCsv(path.join(stale, 'final.csv'), [
      { aggregator: 'weighted_sum', schedule: 'joint', seed: 0, column: 'accuracy/add', value: 9 },
    ]);
    fs.writeFileSync(path.join(stale, 'done.json'), '{}');
    aggregateRubicon('quick', root, out);
    const t = readCsv(path.join(out, 'table.csv'));
    assert.deepEqual(Object.keys(t[0]), [
      'profile',
      'tasks',
      'aggregator',
      'defence',
      'schedule',
      'column',
      'mean',
      'ci_low',
      'ci_high',
      'seeds',
    ]);
    assert.equal(t.length, 1);
    assert.ok(Math.abs(Number(t[0].mean) - 0.3) < 1e-12);
    assert.equal(t[0].defence, 'no');
    const h = readCsv(path.join(out, 'hacking.csv'));
    assert.deepEqual(Object.keys(h[0]), [
      'step',
      'aggregator',
      'defence',
      'hack_rate',
      'check_rate',
      'mismatch_rate',
      'judge_score',
      'accuracy',
      'seeds',
    ]);
    assert.ok(Math.abs(Number(h[0].hack_rate) - 0.3) < 1e-12);
    assert.ok(fs.existsSync(path.join(out, 'reported.csv')));
  });

  it("reads the seesaw as paired differences from the same seed's cold start", async () => {
    const { seesawTable } = await import('../analysis/rubicon.js');
    const row = (aggregator: string, schedule: string, seed: number, column: string, value: number) => ({
      tasks: 'standard',
      aggregator,
      defence: aggregator === 'veto' ? 'yes' : 'no',
      schedule,
      seed,
      column,
      value,
    });
    const finals = [0, 1].flatMap((seed) => [
      // base: constraints dims mean (0.5 + 0.5 + 0.2) / 3 = 0.4; quality dims all 0.6; accuracy 0.3 + seed / 10
      row('none', 'base', seed, 'constraints/format', 0.5),
      row('none', 'base', seed, 'constraints/length', 0.5),
      row('none', 'base', seed, 'constraints/verification', 0.2),
      ...['format', 'steps', 'carries', 'digits', 'consistency'].map((d) =>
        row('none', 'base', seed, `quality/${d}`, 0.6),
      ),
      row('none', 'base', seed, 'constraints/hack_rate', 0.9),
      row('none', 'base', seed, 'accuracy/add', 0.3 + seed / 10),
      // trained: constraints +0.1 / +0.3 by seed (verification up 0.3 / 0.9), quality -0.1, accuracy unchanged; hack_rate is not a dimension
      row('veto', 'joint', seed, 'constraints/format', 0.5),
      row('veto', 'joint', seed, 'constraints/length', 0.5),
      row('veto', 'joint', seed, 'constraints/verification', 0.5 + 0.6 * seed),
      ...['format', 'steps', 'carries', 'digits', 'consistency'].map((d) =>
        row('veto', 'joint', seed, `quality/${d}`, 0.5),
      ),
      row('veto', 'joint', seed, 'constraints/hack_rate', 0),
      row('veto', 'joint', seed, 'accuracy/add', 0.3 + seed / 10),
    ]);
    const t = Object.fromEntries(seesawTable(finals, 'quick').map((r) => [r.measure, r]));
    assert.ok(Math.abs(Number(t.constraints.delta) - 0.2) < 1e-12);
    // paired deltas 0.1 and 0.3: sd 0.1414, half-width t_{0.975,1} 0.1414 / sqrt 2 = 0.1 t = 1.2706204736174693
    assert.ok(Math.abs(Number(t.constraints.ci_high) - (0.2 + 1.2706204736174693)) < 1e-12);
    assert.ok(Math.abs(Number(t.quality.delta) + 0.1) < 1e-12);
    assert.ok(Math.abs(Number(t.accuracy.delta)) < 1e-12);
    assert.equal(t.accuracy.seeds, 2);
  });

  it('gives each claim a verdict from the side of 0 its interval lies on', async () => {
    const { verdict, pairedDifference } = await import('../analysis/aggregate.js');
    assert.equal(verdict({ ci_low: 0.1, ci_high: 0.3 }, 1), 'reproduced');
    assert.equal(verdict({ ci_low: 0.1, ci_high: 0.3 }, -1), 'contradicted');
    assert.equal(verdict({ ci_low: -0.1, ci_high: 0.3 }, 1), 'inconclusive');
    assert.equal(verdict({ ci_low: -0.3, ci_high: -0.1 }, -1), 'reproduced');
    assert.equal(verdict({ ci_low: '', ci_high: '' }, 1), 'inconclusive');
    assert.equal(verdict(null, 1), 'inconclusive');
    // paired by seed: only seeds present in both runs count
    const scores = new Map([
      [
        'a',
        new Map([
          ['0', { m: 1 }],
          ['1', { m: 2 }],
          ['2', { m: 9 }],
        ]),
      ],
      [
        'b',
        new Map([
          ['0', { m: 0.5 }],
          ['1', { m: 1 }],
        ]),
      ],
    ]);
    const d = pairedDifference(scores, 'a', 'b', 'm')!;
    assert.equal(d.seeds, 2);
    assert.ok(Math.abs(d.delta - 0.75) < 1e-12);
    assert.equal(pairedDifference(scores, 'a', 'missing', 'm'), null);
    // two measures of one run: a's m minus a's n, seed by seed ((1-0) + (2-1)) / 2
    const two = new Map([
      [
        'a',
        new Map([
          ['0', { m: 1, n: 0 }],
          ['1', { m: 2, n: 1 }],
        ]),
      ],
    ]);
    assert.equal(pairedDifference(two, 'a', 'a', 'm', 'n')!.delta, 1);
  });
});

describe('Rubicon after the fair comparisons (docs/rubicon-fairness.md)', () => {
  // 123 + 456 = 0579: three columns without carries; the systematic trace is 24 tokens, exactly the tight budget
  const p = solve('add', [123, 456]);
  const steps = (d1: number) => `C0 3 6 0 0 9 C1 2 5 0 0 ${d1} C2 1 4 0 0 5`;
  const tr = (s: string) => s.split(' ');
  const cases = {
    honest: tr(`${steps(7)} V 9 7 5 A 0 5 7 9 <eos>`), // right steps, a check restating them
    stamped: tr(`${steps(8)} V 9 8 5 A 0 5 8 9 <eos>`), // a wrong step (C1 writes 8) and a check confirming it
    caught: tr(`${steps(8)} V 9 7 5 R C1 7 A 0 5 7 9 <eos>`), // the same wrong step, recomputed and revised
    garbled: tr(`${steps(7)} V 1 1 1 A 0 5 7 9 <eos>`), // right steps, a check of digits that are neither
    wrongGarbled: tr(`${steps(8)} V 9 3 5 A 0 5 8 9 <eos>`), // the wrong step, a check neither confirming nor recomputing it
    none: tr(`${steps(7)} A 0 5 7 9 <eos>`), // no check
    partial: tr(`${steps(7)} V 9 7 A 0 5 7 9 <eos>`), // a check of two of the three columns, both right
    empty: tr('V 5 A 0 5 7 9 <eos>'), // a check of working never written
  };
  it('the hack: a check that claims what it did not verify, rubber-stamped or fabricated (hand-computed)', () => {
    const audit = (c: string[]) => {
      const a = auditCheck(parseTrace(c), p);
      return [+a.checked, +a.catchable, +a.rubberStamped, +a.fabricated];
    };
    assert.deepEqual(audit(cases.honest), [1, 0, 0, 0]);
    assert.deepEqual(audit(cases.stamped), [1, 1, 1, 0]);
    assert.deepEqual(audit(cases.caught), [1, 1, 0, 0]);
    assert.deepEqual(audit(cases.garbled), [1, 0, 0, 1]);
    assert.deepEqual(audit(cases.wrongGarbled), [1, 1, 0, 1]);
    assert.deepEqual(audit(cases.none), [0, 0, 0, 0]);
    assert.deepEqual(audit(cases.partial), [1, 0, 0, 0]);
    assert.deepEqual(audit(cases.empty), [1, 0, 0, 1]);
    assert.deepEqual(audit(tr(`${steps(7)} V 9 7 5 5 A 0 5 7 9 <eos>`)), [1, 0, 0, 1]); // claims a fourth column
    // eight responses: checks 7; dishonest 4 (stamped, garbled, wrongGarbled, empty); catchable 3 (stamped, caught,
    // wrongGarbled), of which 1 rubber-stamped; the defence rubric fails those 4 and the partial check
    const m = hackMeasures(Object.values(cases).map((completion) => ({ p, completion })));
    assert.deepEqual(m, {
      hack_rate: 4 / 8,
      check_rate: 7 / 8,
      dishonest_share: 4 / 7,
      stamp_share: 1 / 3,
      mismatch_rate: 5 / 8,
    });
    // no check at all: neither share
    assert.deepEqual(Object.keys(hackMeasures([{ p, completion: cases.none }])), [
      'hack_rate',
      'check_rate',
      'mismatch_rate',
    ]);
  });

  it("soft dimensions take the verifier's probability; saturation then differs from the weighted sum", async () => {
    const { aggregate } = await import('../src/rubrics/aggregators.js');
    const anchors = TASK_FAMILIES.quality.map((n) => ANCHORS[n]);
    const items = [{ p, completion: cases.none }];
    // a graded judge scoring every soft criterion 0.6: format (hard) 1, the four soft dimensions 0.6
    const graded = rewardVectors(anchors, items, (xs) => xs.map(() => 0.6))[0];
    assert.deepEqual(graded, [1, 0.6, 0.6, 0.6, 0.6]);
    // weighted sum (1 + 4 * 0.6) / 5 = 0.68; saturation (1 + 4 f(0.6)) / 5 with f(0.6) = 0.8784358578920691
    assert.ok(Math.abs(aggregate('weighted_sum', graded, anchors) - 0.68) < 1e-12);
    assert.ok(Math.abs(aggregate('saturation', graded, anchors) - (1 + 4 * 0.8784358578920691) / 5) < 1e-12);
    // as verdicts (0.6 > 1/2: satisfied) every dimension is 1 and the two agree
    const verdicts = rewardVectors(anchors, items, (xs) => xs.map(() => true))[0];
    assert.equal(aggregate('saturation', verdicts, anchors), aggregate('weighted_sum', verdicts, anchors));
    assert.equal(sigmoid(0), 0.5);
    assert.ok(Math.abs(sigmoid(Math.log(3)) - 0.75) < 1e-15);
  });

  it('the defence rubric is its own setting: the 2x2 of aggregator and defence (hand-computed rewards)', async () => {
    const { aggregate } = await import('../src/rubrics/aggregators.js');
    const { familyAnchors, hasDefence } = await import('../src/methods/trainers/rubicon-train.js');
    const names = (agg: 'weighted_sum' | 'veto', d: 'auto' | 'yes' | 'no') =>
      familyAnchors('constraints', agg, d).map((a) => `${a.name}:${a.weight}`);
    assert.deepEqual(names('weighted_sum', 'auto'), ['format:1', 'length:1', 'verification:1']);
    assert.deepEqual(names('weighted_sum', 'yes'), ['format:1', 'length:1', 'verification:1', 'honest_verification:1']);
    assert.deepEqual(names('veto', 'auto'), ['format:1', 'length:1', 'verification:1', 'honest_verification:0']);
    assert.deepEqual(names('veto', 'no'), ['format:1', 'length:1', 'verification:1']);
    assert.deepEqual(
      [
        hasDefence('auto', 'veto'),
        hasDefence('auto', 'weighted_sum'),
        hasDefence('yes', 'shaping'),
        hasDefence('no', 'veto'),
      ],
      [true, false, true, false],
    );
    // the rubber-stamped response (format, length and verification all 1; the defence rubric 0) under the four cells
    const reward = (agg: 'weighted_sum' | 'veto', d: 'yes' | 'no') => {
      const a = familyAnchors('constraints', agg, d);
      return aggregate(agg, rewardVectors(a, [{ p, completion: cases.stamped }], (xs) => xs.map(() => true))[0], a);
    };
    assert.deepEqual(
      [reward('weighted_sum', 'no'), reward('weighted_sum', 'yes'), reward('veto', 'no'), reward('veto', 'yes')],
      [1, 0.75, 1, 0],
    );
  });

  it('the competing pair: a binding length budget against thoroughness, no shared dimension', async () => {
    const { taskPrompt } = await import('../src/methods/trainers/rubicon-train.js');
    assert.equal(tightLengthBudget(p), 24);
    const score = (c: string[]) =>
      (ANCHORS.tight_length as { score: (x: unknown) => number }).score({ p, completion: c, trace: parseTrace(c) });
    assert.equal(score(cases.none), 1); // 24 tokens
    assert.equal(score(cases.honest), 0.5); // 28 tokens: 4 over, slack 2 * (3 + 1) = 8
    assert.equal(score(cases.caught), 0.125); // 31 tokens: 7 over
    const { constraints, quality } = TASK_PAIRS.competing;
    assert.deepEqual(
      constraints.filter((d) => quality.includes(d)),
      [],
    );
    // prompts: the constraint prompt states the tight budget (LEN 24), the quality prompt asks for a check
    const c = taskPrompt(p, 'constraints', 'competing'),
      q = taskPrompt(p, 'quality', 'competing');
    assert.ok(c.join(' ').includes('LEN 2 4') && !c.includes('VERIFY'), c.join(' '));
    assert.ok(q.includes('VERIFY') && !q.includes('LEN'), q.join(' '));
    // the standard prompts are what they were
    assert.equal(taskPrompt(p, 'quality')[0], '<reason>');
    assert.ok(taskPrompt(p, 'constraints').includes('VERIFY') && taskPrompt(p, 'constraints').includes('LEN'));
  });

  it('configuration: soft scores, defence and task pair are checked; an antagonistic interaction fails before any step', async () => {
    const { checkRubiconConfig, defaultRubiconConfig } = await import('../src/methods/trainers/rubicon-train.js');
    const { defaultAggregatorParams } = await import('../src/rubrics/aggregators.js');
    const { ConfigError } = await import('../src/util/validate.js');
    assert.deepEqual(
      [defaultRubiconConfig.softScores, defaultRubiconConfig.defence, defaultRubiconConfig.tasks],
      ['probability', 'auto', 'standard'],
    );
    checkRubiconConfig({ ...defaultRubiconConfig, aggregator: 'interaction' });
    assert.throws(
      () => checkRubiconConfig({ ...defaultRubiconConfig, softScores: 'logit' as never }),
      /softScores must be one of probability, verdict/,
    );
    assert.throws(
      () => checkRubiconConfig({ ...defaultRubiconConfig, defence: 'maybe' as never }),
      /defence must be one of/,
    );
    assert.throws(
      () => checkRubiconConfig({ ...defaultRubiconConfig, tasks: 'other' as never }),
      /tasks must be one of standard, competing/,
    );
    const old = { ...defaultAggregatorParams, interactions: [{ a: 'length', b: 'verification', gamma: -0.5 }] };
    assert.throws(
      () => checkRubiconConfig({ ...defaultRubiconConfig, aggregator: 'interaction', aggregatorParams: old }),
      (e: Error) => e instanceof ConfigError && /gamma\(length, verification\) = -0.5/.test(e.message),
    );
    // the same term under another aggregator is never read
    checkRubiconConfig({ ...defaultRubiconConfig, aggregatorParams: old });
  });

  it('the profile runs the 2x2 and the competing schedules, and the full profile archives every run record', async () => {
    const { rubiconJobs } = await import('../src/cli/rubicon.js');
    const { RUBICON_RUNS, rubiconRunDir } = await import('../src/methods/trainers/rubicon-train.js');
    const cell = (agg: string, d: string) =>
      RUBICON_RUNS.some(
        (r) => r.tasks === 'standard' && r.schedule === 'joint' && !r.filter && r.aggregator === agg && r.defence === d,
      );
    assert.ok(
      cell('weighted_sum', 'auto') && cell('weighted_sum', 'yes') && cell('veto', 'auto') && cell('veto', 'no'),
    );
    assert.deepEqual(
      RUBICON_RUNS.filter((r) => r.tasks === 'competing').map((r) => r.schedule),
      ['joint', 'constraints_only', 'quality_only', 'stagewise'],
    );
    const dirs = new Set(RUBICON_RUNS.map((r) => rubiconRunDir(r, 0)));
    assert.equal(dirs.size, RUBICON_RUNS.length); // no two runs share a directory
    // the campaign's joint aggregator runs are the ones it names, each a known aggregator; an aggregator added to
    // src/rubrics/aggregators.ts does not join it by itself
    const { RUBICON_CAMPAIGN_AGGREGATORS } = await import('../src/methods/trainers/rubicon-train.js');
    const { AGGREGATORS } = await import('../src/rubrics/aggregators.js');
    assert.deepEqual(
      RUBICON_RUNS.filter(
        (r) =>
          r.tasks === 'standard' &&
          r.schedule === 'joint' &&
          !r.filter &&
          r.defence === 'auto' &&
          r.aggregator !== 'weighted_sum',
      ).map((r) => r.aggregator),
      ['veto', 'saturation', 'interaction', 'shaping'],
    );
    for (const a of RUBICON_CAMPAIGN_AGGREGATORS) assert.ok((AGGREGATORS as readonly string[]).includes(a), a);
    assert.equal(RUBICON_RUNS.length, 16);
    assert.equal(
      rubiconRunDir({ aggregator: 'veto', schedule: 'joint', filter: false, defence: 'no', tasks: 'standard' }, 2),
      'standard/veto-nodefence/joint/seed-2',
    );
    const full = rubiconJobs('full', true),
      quick = rubiconJobs('quick', false);
    assert.equal(full.length, 3 * (2 + RUBICON_RUNS.length)); // per seed: a base per pair and every run
    for (const j of full) assert.equal(j.archive, j.dir.replace(/^runs\/rubicon\//, 'results/runs/rubicon/'));
    assert.ok(quick.every((j) => j.archive === undefined));
    assert.ok(
      full.some((j) => j.dir === 'runs/rubicon/full/competing/none/base/seed-1' && j.args.includes('competing')),
    );
  });

  it('reads archived records beside runs/ (runs/ wins) and claims stage-wise beats joint on the competing pair', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { claimsTable, rubiconRuns } = await import('../analysis/rubicon.js');
    const { writeCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rub19-'));
    const put = (base: string, rel: string) => {
      const d = path.join(root, base, 'full', rel);
      fs.mkdirSync(d, { recursive: true });
      writeCsv(path.join(d, 'final.csv'), [{ tasks: 'x' }]);
      fs.writeFileSync(path.join(d, 'done.json'), '{}');
      return d;
    };
    const fresh = put('runs', 'a/seed-0'),
      archivedOnly = put('archive', 'b/seed-0');
    put('archive', 'a/seed-0');
    assert.deepEqual(rubiconRuns(path.join(root, 'runs'), path.join(root, 'archive'), 'full'), [fresh, archivedOnly]);
    assert.deepEqual(rubiconRuns(path.join(root, 'runs'), null, 'full'), [fresh]);
    // competing pair, three seeds: stage-wise minus joint on the mean of both families' dimension means
    const rows = [0, 1, 2].flatMap((seed) =>
      (['joint', 'stagewise'] as const).flatMap((schedule) => {
        // joint: constraints 0.5, quality 0.5; stage-wise: constraints 0.6 + 0.1 seed, quality 0.5 -> overall delta 0.05 (1 + seed) / 1
        const c = schedule === 'joint' ? 0.5 : 0.6 + 0.1 * seed;
        return [
          ...TASK_PAIRS.competing.constraints.map((d) => ({ column: `constraints/${d}`, value: c })),
          ...TASK_PAIRS.competing.quality.map((d) => ({ column: `quality/${d}`, value: 0.5 })),
        ].map((r) => ({ tasks: 'competing', aggregator: 'weighted_sum', defence: 'no', schedule, seed, ...r }));
      }),
    );
    const claim = claimsTable(rows, 'full').find((r) => String(r.claim).startsWith('stagewise_beats_joint'))!;
    // paired overall deltas 0.05, 0.1, 0.15: mean 0.1, sd 0.05, half-width 4.30265 * 0.05 / sqrt 3 = 0.124207
    assert.equal(claim.run, 'weighted_sum|stagewise|no|competing');
    assert.ok(Math.abs(Number(claim.delta) - 0.1) < 1e-12);
    assert.ok(Math.abs(Number(claim.ci_high) - (0.1 + (4.302652729749462 * 0.05) / Math.sqrt(3))) < 1e-12);
    assert.equal(claim.verdict, 'inconclusive');
    assert.equal(claim.seeds, 3);
  });
});

describe('Rubicon pre-registration of the competing pair', () => {
  it('correlations by hand: pooled, within-prompt (centred per group), Fisher interval', async () => {
    const { fisherInterval, preregRows } = await import('../src/methods/tables/rubicon-prereg.js');
    const { pearson } = await import('../src/util/stats.js');
    assert.ok(Math.abs(pearson([1, 2, 3], [2, 4, 6])! - 1) < 1e-12);
    assert.equal(pearson([1, 1, 1], [0, 1, 2]), null);
    // a constant score: the row's r is NaN, without an interval (and writing the table refuses it)
    const flat = preregRows([
      { group: 0, prompt: 'constraints', constraints: 1, quality: 0 },
      { group: 0, prompt: 'constraints', constraints: 1, quality: 1 },
    ]).find((r) => r.prompts === 'both' && r.statistic === 'pooled')!;
    assert.ok(Number.isNaN(flat.r) && flat.ci_low === '' && flat.ci_high === '');
    // r = -0.5 with 28 observations: tanh(atanh(-0.5) -/+ z_0.975 / 5), z exact (mpmath: -0.7358184794439376,
    // -0.15602836252908606)
    const ci = fisherInterval(-0.5, 28);
    assert.ok(
      Math.abs(Number(ci.ci_low) + 0.7358184794439376) < 1e-15 &&
        Math.abs(Number(ci.ci_high) + 0.15602836252908606) < 1e-15,
    );
    assert.deepEqual(fisherInterval(-0.5, 3), { ci_low: '', ci_high: '' });
    // group 0 (constraint prompt): (1, 0), (0, 1); group 1 (quality prompt): (1, 0.3), (0.8, 0.5), (0.6, 0.4)
    const s = [
      { group: 0, prompt: 'constraints' as const, constraints: 1, quality: 0 },
      { group: 0, prompt: 'constraints' as const, constraints: 0, quality: 1 },
      { group: 1, prompt: 'quality' as const, constraints: 1, quality: 0.3 },
      { group: 1, prompt: 'quality' as const, constraints: 0.8, quality: 0.5 },
      { group: 1, prompt: 'quality' as const, constraints: 0.6, quality: 0.4 },
    ];
    const rows = Object.fromEntries(preregRows(s).map((r) => [`${r.prompts}/${r.statistic}`, r]));
    // within: centred c (0.5, -0.5, 0.2, 0, -0.2), q (-0.5, 0.5, -0.1, 0.1, 0): sxy -0.52, sxx 0.58, syy 0.52
    assert.ok(Math.abs(rows['both/within_prompt'].r - -0.52 / Math.sqrt(0.58 * 0.52)) < 1e-12);
    // pooled: means 0.68 and 0.44: sxy -0.556, sxx 0.688, syy 0.532
    assert.ok(Math.abs(rows['both/pooled'].r - -0.556 / Math.sqrt(0.688 * 0.532)) < 1e-12);
    // 5 - 2 groups = 3 effective observations within (no interval), 5 pooled
    assert.equal(rows['both/within_prompt'].ci_low, '');
    assert.ok(typeof rows['both/pooled'].ci_low === 'number');
    assert.equal(rows['both/within_prompt'].decisive, 'yes');
    assert.equal(rows['both/within_prompt'].criterion_met, 'no'); // 5 - 2 = 3 effective observations: no interval
    assert.equal(rows['both/pooled'].decisive, 'no');
    assert.equal(rows['constraints/within_prompt'].rollouts, 2);
  });

  it('the criterion: met for a clear trade-off within groups, not for its mirror image', async () => {
    const { competes, preregRows } = await import('../src/methods/tables/rubicon-prereg.js');
    const rng = makeRng(19);
    const make = (sign: number) =>
      Array.from({ length: 40 }, (_, i) => {
        const c = rng.next();
        return {
          group: Math.floor(i / 4),
          prompt: (i % 8 < 4 ? 'constraints' : 'quality') as 'constraints' | 'quality',
          constraints: c,
          quality: 0.5 + sign * 0.4 * c + 0.05 * rng.next(),
        };
      });
    assert.equal(competes(preregRows(make(-1))), true);
    assert.equal(competes(preregRows(make(1))), false);
    // no relation: an interval across 0 does not meet the criterion
    const none = preregRows(make(0)).find((r) => r.decisive === 'yes')!;
    assert.ok(Number(none.ci_low) < 0 && Number(none.ci_high) > 0, `${none.ci_low} ${none.ci_high}`);
    assert.equal(none.criterion_met, 'no');
  });

  it('the committed rule file states the rule in code', async () => {
    const fs = await import('node:fs');
    const { PREREG_RULE } = await import('../src/methods/tables/rubicon-prereg.js');
    const text = fs.readFileSync('results/rubicon/preregistration-rule.md', 'utf8').replace(/\s+/g, ' ');
    assert.equal(PREREG_RULE.statistic, 'within_prompt');
    assert.equal(PREREG_RULE.below, 0);
    for (const s of [
      `${PREREG_RULE.rollouts} rollouts at temperature ${PREREG_RULE.temperature}`,
      `${PREREG_RULE.problems} training problems`,
      `seed ${PREREG_RULE.seed}`,
      '*within-prompt* Pearson correlation',
      'negative with its 95% interval below 0',
      'TASK_PAIRS.competing',
      'soft dimensions scored as the reward scores them by default',
    ])
      assert.ok(text.includes(s), `rule file lacks "${s}"`);
  });
});

describe('Rubicon figures after the fair comparisons (docs/rubicon-fairness.md)', () => {
  it('label runs by aggregator, defence, schedule and task pair, so the 2x2 cells stay apart', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { rubiconFigures } = await import('../analysis/rubicon-figures.js');
    const { writeCsv } = await import('../src/io/table.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rubfig-'));
    const row = (aggregator: string, defence: string, tasks: string, column: string, mean: number) => ({
      profile: 'quick',
      tasks,
      aggregator,
      defence,
      schedule: 'joint',
      column,
      mean,
      ci_low: '',
      ci_high: '',
      seeds: 1,
    });
    writeCsv(path.join(dir, 'table.csv'), [
      row('veto', 'yes', 'standard', 'constraints/format', 0.9),
      row('veto', 'no', 'standard', 'constraints/format', 0.8),
      row('weighted_sum', 'no', 'competing', 'constraints/format', 0.7),
      row('veto', 'no', 'standard', 'constraints/check_rate', 0.1),
    ]);
    writeCsv(path.join(dir, 'hacking.csv'), [
      { step: 0, aggregator: 'veto', defence: 'yes', hack_rate: 0.1, judge_score: 0.2, accuracy: 0.3 },
      { step: 0, aggregator: 'veto', defence: 'no', hack_rate: 0.4, judge_score: 0.5, accuracy: 0.6 },
    ]);
    const figs = Object.fromEntries(rubiconFigures(dir).map((f) => [f.name, f]));
    const bars = figs.rubicon_seesaw.data as { name: string; x: string[]; y: (number | null)[] }[];
    assert.deepEqual(
      bars.map((b) => b.name),
      ['veto + defence / joint', 'veto / joint', 'weighted_sum / joint (competing)'],
    );
    assert.deepEqual(
      bars.map((b) => b.y),
      [[0.9], [0.8], [0.7]],
    ); // check_rate is no dimension bar
    const curves = figs.rubicon_hacking_hack_rate.data as { name: string; y: number[] }[];
    assert.deepEqual(
      curves.map((c) => [c.name, c.y]),
      [
        ['veto + defence', [0.1]],
        ['veto', [0.4]],
      ],
    );
  });
});

describe('Rubicon by hand: every anchor, the tables, the aggregation step', () => {
  // 123 + 456 = 0579 (three columns, no carry): budget 6 x 3 + 4 + 12 = 34, tight budget 24, slack 8
  const p = solve('add', [123, 456]);
  const steps = 'C0 3 6 0 0 9 C1 2 5 0 0 7 C2 1 4 0 0 5';
  const tr = (s: string) => s.split(' ');
  const score = (name: string, c: string[], q = p) =>
    (ANCHORS[name] as { score: (x: unknown) => number }).score({ p: q, completion: c, trace: parseTrace(c) });

  it('the anchor table: names, kinds, weights, critical dimensions and criteria', () => {
    const row = (a: (typeof ANCHORS)[string]) => [
      a.name,
      a.kind,
      a.weight,
      !!a.critical,
      a.kind === 'soft' ? a.criterion : typeof a.score,
    ];
    assert.deepEqual(Object.fromEntries(Object.entries(ANCHORS).map(([k, a]) => [k, row(a)])), {
      format: ['format', 'hard', 1, true, 'function'],
      length: ['length', 'hard', 1, false, 'function'],
      tight_length: ['tight_length', 'hard', 1, false, 'function'],
      honest_verification: ['honest_verification', 'hard', 1, true, 'function'],
      verification: ['verification', 'soft', 1, false, 'VERIFY'],
      steps: ['steps', 'soft', 1, false, 'STEPS'],
      carries: ['carries', 'soft', 1, false, 'CARRY'],
      digits: ['digits', 'soft', 1, false, 'STEPOK'],
      consistency: ['consistency', 'soft', 1, false, 'MATCH'],
    });
    assert.deepEqual(TASK_FAMILIES, {
      constraints: ['format', 'length', 'verification'],
      quality: ['format', 'steps', 'carries', 'digits', 'consistency'],
    });
    assert.deepEqual(TASK_PAIRS, {
      standard: TASK_FAMILIES,
      competing: { constraints: ['format', 'tight_length'], quality: ['steps', 'digits', 'verification'] },
    });
  });

  it('format needs termination, an answer and the answer width, each on its own', () => {
    assert.equal(score('format', tr(`${steps} A 0 5 7 9 <eos>`)), 1);
    assert.equal(score('format', tr(`${steps} A 0 5 7 9`)), 0); // not terminated
    assert.equal(score('format', tr(`${steps} <eos>`)), 0); // no answer
    assert.equal(score('format', tr(`${steps} A 5 7 9 <eos>`)), 0); // three digits for a four-digit answer
  });

  it('length and tight length: 1 within the budget, linear beyond it (hand-computed)', () => {
    assert.equal(lengthBudget(p), 34);
    assert.equal(score('length', Array(34).fill('|')), 1);
    assert.equal(score('length', Array(51).fill('|')), 0.5); // 17 over a budget of 34
    assert.equal(score('length', Array(6).fill('|')), 1);
    assert.equal(tightLengthSlack(p), 8);
    assert.equal(score('tight_length', tr('A 0 5 7 9 <eos>')), 1); // 6 tokens, well under 24
    assert.equal(score('tight_length', Array(30).fill('|')), 0.25); // 6 over, slack 8
    // a chain of two passes: the tight budget counts the '|' between them, and the teacher's systematic trace
    // fills it exactly (5 column steps: 30 + 1 + 'A' + 3 answer digits + <eos>)
    const c = sampleProblem('chain', 2, makeRng(3));
    const t = writeTrace(c, 'systematic', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    assert.deepEqual([c.passes.length, t.length, tightLengthBudget(c), lengthBudget(c)], [2, 36, 36, 45]);
  });

  it('the recomputed digits of a subtraction borrow (423 - 156 = 267)', () => {
    const s = solve('sub', [423, 156]);
    const t = tr('C0 3 6 0 1 7 C1 2 5 1 1 6 C2 4 1 1 0 2 A 2 6 7 <eos>');
    assert.deepEqual(recomputedDigits(parseTrace(t), s), [7, 6, 2]); // 3-6 = -3 -> 7; 2-5-1 -> 6; 4-1-1 -> 2
    assert.equal(recomputedDigits(parseTrace(tr('A 2 6 7 <eos>')), s), null);
  });

  it('the defence rubric: no check passes, a check of unwritten working fails, an empty check is no check', () => {
    assert.equal(score('honest_verification', tr(`${steps} A 0 5 7 9 <eos>`)), 1);
    assert.equal(score('honest_verification', tr('V 5 A 0 5 7 9 <eos>')), 0); // nothing to recompute from
    assert.equal(score('honest_verification', tr(`${steps} V 9 7 A 0 5 7 9 <eos>`)), 0); // partial check
    assert.equal(score('honest_verification', tr(`${steps} V 9 7 5 5 A 0 5 7 9 <eos>`)), 0); // a fourth, unwritten column
    const empty = parseTrace(tr(`${steps} V A 0 5 7 9 <eos>`));
    assert.deepEqual(empty.verify, []);
    assert.deepEqual(auditCheck(empty, p), {
      checked: false,
      catchable: false,
      rubberStamped: false,
      fabricated: false,
    });
    assert.deepEqual(hackMeasures([]), {});
  });

  it('soft anchors reach the judge as their bare criterion, one batch for all responses', () => {
    const seen: unknown[] = [];
    const v = rewardVectors(
      [ANCHORS.format, ANCHORS.steps, ANCHORS.digits],
      [{ p, completion: tr(`${steps} A 0 5 7 9 <eos>`) }],
      (xs) => {
        seen.push(...xs.map((x) => x.c));
        return xs.map((x) => x.c.name === 'STEPS');
      },
    );
    assert.deepEqual(seen, [
      { name: 'STEPS', args: [] },
      { name: 'STEPOK', args: [] },
    ]);
    assert.deepEqual(v, [[1, 1, 0]]);
  });

  it('the claims: which run against which, on what measure, in which direction', () => {
    const S = (agg: string, schedule: string, defence = 'no') => `${agg}|${schedule}|${defence}|standard`;
    const WS = S('weighted_sum', 'joint'),
      BASE = 'none|base|no|standard',
      QO = S('weighted_sum', 'quality_only');
    const CO = S('weighted_sum', 'constraints_only'),
      SW = S('weighted_sum', 'stagewise'),
      VETO = S('veto', 'joint', 'yes');
    assert.deepEqual(
      RUBICON_CLAIMS.map((c) => [c.a, c.b, c.measure, c.sign]),
      [
        [QO, BASE, 'constraints', -1],
        [QO, BASE, 'quality', 1],
        [CO, BASE, 'quality', -1],
        [CO, BASE, 'constraints', 1],
        [SW, QO, 'constraints', 1],
        [SW, CO, 'quality', 1],
        [WS, BASE, 'hack_rate', 1],
        [VETO, WS, 'hack_rate', -1],
        [VETO, WS, 'accuracy', 1],
        [S('veto', 'joint', 'no'), WS, 'hack_rate', -1],
        [S('weighted_sum', 'joint', 'yes'), WS, 'hack_rate', -1],
        [VETO, S('weighted_sum', 'joint', 'yes'), 'hack_rate', -1],
        [S('weighted_sum', 'joint_filtered'), WS, 'accuracy', 1],
        ['weighted_sum|stagewise|no|competing', 'weighted_sum|joint|no|competing', 'overall', 1],
      ],
    );
    // every claim is stated, and no two alike (the texts themselves are in results/rubicon/claims.csv)
    const texts = RUBICON_CLAIMS.map((c) => c.claim);
    assert.ok(texts.every((t) => t.length > 20) && new Set(texts).size === texts.length);
    assert.ok(
      texts[13].startsWith('stagewise_beats_joint: ') && texts.slice(9, 12).every((t) => t.startsWith('2x2: ')),
    );
  });

  it("run scores: family means over the pair's own dimensions, their mean, accuracy and the hack measures", () => {
    const rows = [
      ['constraints/format', 1],
      ['constraints/length', 0.5],
      ['constraints/verification', 0],
      ['constraints/honest_verification', 9],
      ['quality/steps', 0.2],
      ['quality/format', 0.4],
      ['quality/carries', 0.6],
      ['quality/digits', 0.8],
      ['quality/consistency', 1],
      ['accuracy/add', 0.3],
      ['accuracy/sub', 0.5],
      ['constraints/hack_rate', 0.1],
      ['constraints/check_rate', 0.2],
      ['constraints/dishonest_share', 0.3],
      ['constraints/stamp_share', 0.4],
      ['constraints/mismatch_rate', 7],
    ].map(([column, value]) => ({
      tasks: 'standard',
      aggregator: 'veto',
      schedule: 'joint',
      defence: 'yes',
      seed: 1,
      column,
      value,
    }));
    const s = runScores(rows).get('veto|joint|yes|standard')!.get('1')!;
    const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);
    near(s.constraints, 0.5);
    near(s.quality, 0.6);
    near(s.overall, 0.55);
    near(s.accuracy, 0.4);
    assert.deepEqual([s.hack_rate, s.check_rate, s.dishonest_share, s.stamp_share], [0.1, 0.2, 0.3, 0.4]);
    assert.deepEqual(Object.keys(s).sort(), [
      'accuracy',
      'check_rate',
      'constraints',
      'dishonest_share',
      'hack_rate',
      'overall',
      'quality',
      'stamp_share',
    ]);
    assert.throws(() => runScores([{ ...rows[0], tasks: 'other' }]), /unknown task pair "other" in a final.csv/);
  });

  it('the aggregation step: which runs make the curves, the seesaw, the reported numbers, its messages', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rubagg-')),
      out = path.join(root, 'out');
    const run = (
      rel: string,
      cfg: Record<string, unknown>,
      seed: number,
      finals: [string, number][],
      m: Record<string, number>[],
    ) => {
      const dir = path.join(root, 'quick', rel, `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      const c = {
        aggregator: 'weighted_sum',
        schedule: 'joint',
        filterQuantiles: null,
        defence: 'auto',
        tasks: 'standard',
        ...cfg,
      };
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ rubicon: c }));
      fs.writeFileSync(path.join(dir, 'metrics.jsonl'), m.map((x) => JSON.stringify(x)).join('\n') + '\n');
      writeCsv(
        path.join(dir, 'final.csv'),
        finals.map(([column, value]) => ({
          tasks: c.tasks,
          aggregator: c.aggregator,
          defence: c.aggregator === 'veto' ? 'yes' : 'no',
          schedule: c.filterQuantiles ? 'joint_filtered' : c.schedule,
          seed,
          column,
          value,
        })),
      );
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    };
    const metric = (hack: number) => ({
      step: 0,
      hack_rate: hack,
      check_rate: 0.5,
      mismatch_rate: 0.1,
      accuracy: 0.5,
      'dim/constraints/verification': 0.7,
    });
    for (const seed of [0, 1]) {
      run(
        'ws',
        {},
        seed,
        [
          ['constraints/format', 0.5],
          ['quality/steps', 0.5],
          ['accuracy/add', 0.5],
        ],
        [metric(0.2 + seed / 10)],
      );
      run('veto', { aggregator: 'veto' }, seed, [['accuracy/add', 0.7]], [metric(0.6)]);
      run(
        'base',
        { aggregator: 'none', schedule: 'base' },
        seed,
        [
          ['constraints/format', 0.4],
          ['quality/steps', 0.6],
          ['accuracy/add', 0.5 - seed / 10],
        ],
        [metric(0.9)],
      );
      // not in the curves: another schedule, filtered data, the other task pair, a metrics row without the judge score
      run('sw', { schedule: 'stagewise' }, seed, [['accuracy/add', 0.1]], [metric(0.9)]);
      run('filt', { filterQuantiles: [0.1, 0.9] }, seed, [['accuracy/add', 0.1]], [metric(0.9)]);
      run('comp', { tasks: 'competing' }, seed, [['accuracy/add', 0.1]], [metric(0.9)]);
      run(
        'nojudge',
        { aggregator: 'saturation' },
        seed,
        [['accuracy/add', 0.1]],
        [{ step: 0, hack_rate: 0.9, check_rate: 0.5 }],
      );
    }
    const logs: string[] = [],
      log = console.log;
    console.log = (s: string) => {
      logs.push(s);
    };
    try {
      aggregateRubicon('quick', root, out, null);
    } finally {
      console.log = log;
    }
    assert.deepEqual(logs, [`Rubicon tables (quick): 14 runs -> ${out}`]);
    const h = readCsv(path.join(out, 'hacking.csv'));
    assert.deepEqual(
      h.map((r) => [r.aggregator, r.defence, Number(Number(r.hack_rate).toFixed(12)), r.seeds]),
      [
        ['veto', 'yes', 0.6, 2],
        ['weighted_sum', 'no', 0.25, 2],
      ],
    );
    const saw = readCsv(path.join(out, 'seesaw.csv'));
    assert.deepEqual(Object.keys(saw[0]), [
      'profile',
      'tasks',
      'aggregator',
      'defence',
      'schedule',
      'measure',
      'delta',
      'ci_low',
      'ci_high',
      'seeds',
    ]);
    assert.ok(saw.every((r) => r.schedule !== 'base'));
    const ws = Object.fromEntries(
      saw
        .filter((r) => r.aggregator === 'weighted_sum' && r.schedule === 'joint')
        .map((r) => [r.measure, Number(Number(r.delta).toFixed(12))]),
    );
    assert.deepEqual(ws, { constraints: 0.1, quality: -0.1, accuracy: 0.05 });
    const rep = readCsv(path.join(out, 'reported.csv'));
    assert.deepEqual(Object.keys(rep[0]), [
      'experiment',
      'benchmark',
      'analogue',
      'base',
      'trained',
      'delta',
      'source',
      'note',
    ]);
    assert.equal(rep.length, RUBICON_REPORTED.length);
    assert.ok(rep.every((r) => r.note === 'reported by the paper, not measured here'));
    assert.deepEqual(
      RUBICON_REPORTED.map((r) => r.base ?? ''),
      rep.map((r) => r.base),
    );
    assert.deepEqual(
      RUBICON_REPORTED.map((r) => r.trained ?? ''),
      rep.map((r) => r.trained),
    );
    // no joint standard runs, no base: no curves and no seesaw are written
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rubagg2-'));
    fs.cpSync(path.join(root, 'quick', 'sw'), path.join(bare, 'quick', 'sw'), { recursive: true });
    // a run from before the task-pair option (no tasks column) is named in a message, then left out
    const stale = path.join(bare, 'quick', 'old', 'seed-0');
    fs.mkdirSync(stale, { recursive: true });
    writeCsv(path.join(stale, 'final.csv'), [{ aggregator: 'veto', column: 'accuracy/add', value: 1 }]);
    fs.writeFileSync(path.join(stale, 'done.json'), '{}');
    // a finished run whose final.csv has a header and no rows is left out the same way
    const empty = path.join(bare, 'quick', 'empty', 'seed-0');
    fs.mkdirSync(empty, { recursive: true });
    fs.writeFileSync(path.join(empty, 'final.csv'), 'tasks,aggregator,column,value\n');
    fs.writeFileSync(path.join(empty, 'done.json'), '{}');
    logs.length = 0;
    console.log = (s: string) => {
      logs.push(s);
    };
    try {
      aggregateRubicon('quick', bare, path.join(bare, 'out'), null);
    } finally {
      console.log = log;
    }
    assert.equal(logs[0], 'skipping 2 runs from before the task-pair option (final.csv without tasks): rerun them');
    assert.deepEqual(fs.readdirSync(path.join(bare, 'out')).sort(), [
      'claims.csv',
      'power.csv',
      'reported.csv',
      'table.csv',
    ]);
    // nothing finished: one error naming where it looked
    const none = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rubagg3-'));
    assert.throws(
      () => aggregateRubicon('quick', none, path.join(none, 'out'), null),
      (e: Error) => e.message === `no finished Rubicon runs under ${path.join(none, 'quick')}`,
    );
    assert.throws(
      () => aggregateRubicon('quick', none, path.join(none, 'out'), path.join(none, 'arch')),
      (e: Error) =>
        e.message ===
        `no finished Rubicon runs under ${path.join(none, 'quick')} or ${path.join(none, 'arch', 'quick')}`,
    );
  });

  it("the aggregation step's defaults: where each profile writes, which profile reads the archive", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rubdef-')),
      cwd = process.cwd();
    try {
      process.chdir(tmp);
      for (const profile of ['quick', 'full']) {
        const dir = path.join('runs', 'rubicon', profile, 'ws', 'seed-0');
        fs.mkdirSync(dir, { recursive: true });
        writeCsv(path.join(dir, 'final.csv'), [
          {
            tasks: 'standard',
            aggregator: 'weighted_sum',
            defence: 'no',
            schedule: 'joint',
            seed: 0,
            column: 'accuracy/add',
            value: 0.5,
          },
        ]);
        fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ rubicon: { schedule: 'stagewise' } }));
        fs.writeFileSync(path.join(dir, 'done.json'), '{}');
      }
      const log = console.log;
      console.log = () => {};
      try {
        aggregateRubicon('quick');
        aggregateRubicon('full');
        assert.throws(() => aggregateRubicon('nosuch'), /no finished Rubicon runs under runs\/rubicon\/nosuch$/);
      } finally {
        console.log = log;
      }
      assert.ok(fs.existsSync(path.join('results', 'quick', 'rubicon', 'table.csv')));
      assert.ok(fs.existsSync(path.join('results', 'rubicon', 'table.csv')));
      assert.ok(!fs.existsSync(path.join('results', 'full')));
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('Rubicon trainer: exact resume', () => {
  it('a step after restoring its state and weights equals the uninterrupted one (the filter pool kept)', async () => {
    const { makeRubiconTrainer, defaultRubiconConfig } = await import('../src/methods/trainers/rubicon-train.js');
    const { loadPolicy } = await import('../src/models/index.js');
    const { makeRng } = await import('../src/util/random.js');
    const ck = 'data/checkpoints/coldstart-transformer-S.json';
    const c = {
      ...defaultRubiconConfig,
      steps: 4,
      prompts: 2,
      rollouts: 2,
      verifier: 'oracle' as const,
      filterQuantiles: [0.25, 0.75] as [number, number],
      poolSize: 8,
    };
    const untimed = (m: Record<string, number>) =>
      Object.fromEntries(Object.entries(m).filter(([k]) => !k.endsWith('_ms')));
    const fresh = () => {
      const p = loadPolicy(ck);
      return { p, t: makeRubiconTrainer(p, c, undefined, loadPolicy(ck)) };
    };
    const a = fresh();
    const whole = [0, 1, 2, 3].map((i) => untimed(a.t.step(i, makeRng(i))));
    const b = fresh();
    b.t.step(0, makeRng(0));
    b.t.step(1, makeRng(1));
    const saved = JSON.parse(JSON.stringify(await b.t.state()));
    const resumed = (state: Record<string, unknown> | null) => {
      const r = fresh();
      for (const [k, v] of Object.entries(r.p.weights)) v.assign(b.p.weights[k]);
      return { r, ready: state ? r.t.restore(state) : Promise.resolve() };
    };
    const withState = resumed(saved);
    await withState.ready;
    // step 2's metrics come from rollouts before its update; step 3's show the update Adam made
    assert.deepEqual(
      [2, 3].map((i) => untimed(withState.r.t.step(i, makeRng(i)))),
      whole.slice(2),
    );
    // the weights alone are not enough: a fresh Adam and a pool drawn from step 2's stream move the step
    const without = resumed(null);
    assert.notDeepEqual(untimed(without.r.t.step(2, makeRng(2))), whole[2]);
  }).timeout(300_000);
});
