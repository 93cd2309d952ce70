// Rubicon's anchors on teacher traces: hard anchors by hand, the defence rubric catching a verification whose
// digits do not follow from the working, and reward vectors with the oracle judge.
import { strict as assert } from 'node:assert';
import { ANCHORS, TASK_FAMILIES, lengthBudget, recomputedDigits, rewardVectors } from '../src/methods/rubicon.js';
import { oracleJudge } from '../src/models/verifier.js';
import { sampleProblem } from '../src/world/problems.js';
import { writeTrace } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import { makeRng } from '../src/util/random.js';

const batchJudge = (xs: { c: Parameters<typeof oracleJudge>[0]; p: Parameters<typeof oracleJudge>[1]; completion: string[] }[]) => xs.map((x) => oracleJudge(x.c, x.p, x.completion));

describe('Rubicon anchors', () => {
  const rng = makeRng(12);
  const p = sampleProblem('add', 3, rng);
  it('hard anchors on a correct verified trace, a shortcut and a truncated one', () => {
    const good = writeTrace(p, 'verified', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    const score = (name: string, completion: string[]) => (ANCHORS[name] as { score: (x: unknown) => number }).score({ p, completion, trace: parseTrace(completion) });
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
    const hacked = [...good.slice(0, v + 1), ...want.map((d) => String((d + 1) % 10)), ...good.slice(v + 1 + want.length)];
    const score = (completion: string[]) => (ANCHORS.honest_verification as { score: (x: unknown) => number }).score({ p, completion, trace: parseTrace(completion) });
    assert.equal(score(hacked), 0);
  });
  it('reward vectors follow the family anchors, soft ones judged in one batch', () => {
    const traces = [writeTrace(p, 'systematic', makeRng(2), { errorRate: 0, verifyMiss: 0 }).tokens, ['A', ...p.answer.map(String), '<eos>']];
    const q = rewardVectors(TASK_FAMILIES.quality.map((n) => ANCHORS[n]), traces.map((completion) => ({ p, completion })), batchJudge);
    assert.deepEqual(q[0], [1, 1, 1, 1, 1]);
    assert.deepEqual(q[1], [1, 0, 0, 0, 0]); // a shortcut: right format, no working
    const c = rewardVectors(TASK_FAMILIES.constraints.map((n) => ANCHORS[n]), traces.map((completion) => ({ p, completion })), batchJudge);
    assert.equal(c[0][2], 0); // no verification step
  });
});

describe('Rubicon training', function () {
  this.timeout(120000);
  it('schedules, prompts and the veto defence by hand; one step of each schedule from the cold start', async () => {
    const fs = await import('node:fs');
    const { initBackend } = await import('../src/models/backend.js');
    const { loadPolicy } = await import('../src/models/index.js');
    const { coldStartCheckpoint } = await import('../src/methods/table2.js');
    const { defaultRubiconConfig, familyAnchors, familyOf, makeRubiconTrainer, taskPrompt } = await import('../src/methods/rubicon-train.js');
    const seq = { steps: 10, stageSplit: 0.5 };
    assert.equal(familyOf(4, { ...seq, schedule: 'stagewise' }, makeRng(1)), 'constraints');
    assert.equal(familyOf(5, { ...seq, schedule: 'stagewise' }, makeRng(1)), 'quality');
    assert.equal(familyOf(0, { ...seq, schedule: 'quality_only' }, makeRng(1)), 'quality');
    const p = sampleProblem('sub', 2, makeRng(3));
    assert.equal(taskPrompt(p, 'constraints')[0], '<hint>');
    assert.equal(taskPrompt(p, 'quality')[0], '<reason>');
    assert.deepEqual(familyAnchors('constraints', 'veto').map((a) => [a.name, a.weight, !!a.critical]).slice(-1), [['honest_verification', 0, true]]);
    assert.equal(familyAnchors('constraints', 'weighted_sum').some((a) => a.name === 'honest_verification'), false);
    if (!fs.existsSync(coldStartCheckpoint('S'))) return;
    await initBackend();
    const policy = loadPolicy(coldStartCheckpoint('S'));
    for (const schedule of ['joint', 'stagewise'] as const) {
      const m = makeRubiconTrainer(policy, { ...defaultRubiconConfig, schedule, steps: 2, prompts: 2, rollouts: 2, verifier: 'oracle', aggregator: 'veto' }).step(0, makeRng(4));
      for (const k of ['accuracy', 'reward', 'hack_rate', 'pg_loss']) assert.ok(Number.isFinite(m[k]), `${k} = ${m[k]}`);
    }
    const f = makeRubiconTrainer(policy, { ...defaultRubiconConfig, steps: 1, prompts: 2, rollouts: 2, verifier: 'oracle', filterQuantiles: [0.25, 0.75], poolSize: 8 }).step(0, makeRng(5));
    assert.ok(Number.isFinite(f.reward));
  });
});

describe('Rubicon aggregation', () => {
  it('writes the tidy table and the hacking curves (joint, unfiltered runs) from finished runs', async () => {
    const fs = await import('node:fs'), os = await import('node:os'), path = await import('node:path');
    const { aggregateRubicon } = await import('../analysis/rubicon.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rub-')), out = path.join(root, 'out');
    [0.2, 0.4].forEach((v, seed) => {
      const dir = path.join(root, 'quick', 'weighted_sum', 'joint', `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ rubicon: { aggregator: 'weighted_sum', schedule: 'joint', filterQuantiles: null } }));
      fs.writeFileSync(path.join(dir, 'metrics.jsonl'), JSON.stringify({ step: 0, hack_rate: v, accuracy: 0.5, 'dim/constraints/verification': 0.7 }) + '\n');
      writeCsv(path.join(dir, 'final.csv'), [{ aggregator: 'weighted_sum', schedule: 'joint', seed, column: 'accuracy/add', value: v }]);
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    });
    aggregateRubicon('quick', root, out);
    const t = readCsv(path.join(out, 'table.csv'));
    assert.deepEqual(Object.keys(t[0]), ['profile', 'aggregator', 'schedule', 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
    assert.ok(Math.abs(Number(t[0].mean) - 0.3) < 1e-12);
    const h = readCsv(path.join(out, 'hacking.csv'));
    assert.deepEqual(Object.keys(h[0]).slice(0, 5), ['step', 'aggregator', 'hack_rate', 'judge_score', 'accuracy']);
    assert.ok(Math.abs(Number(h[0].hack_rate) - 0.3) < 1e-12);
    assert.ok(fs.existsSync(path.join(out, 'reported.csv')));
  });

  it('reads the seesaw as paired differences from the same seed\'s cold start', async () => {
    const { seesawTable } = await import('../analysis/rubicon.js');
    const row = (aggregator: string, schedule: string, seed: number, column: string, value: number) => ({ aggregator, schedule, seed, column, value });
    const finals = [0, 1].flatMap((seed) => [
      // base: constraints dims mean (0.5 + 0.5 + 0.2) / 3 = 0.4; quality dims all 0.6; accuracy 0.3 + seed / 10
      row('none', 'base', seed, 'constraints/format', 0.5), row('none', 'base', seed, 'constraints/length', 0.5), row('none', 'base', seed, 'constraints/verification', 0.2),
      ...['format', 'steps', 'carries', 'digits', 'consistency'].map((d) => row('none', 'base', seed, `quality/${d}`, 0.6)),
      row('none', 'base', seed, 'constraints/hack_rate', 0.9), row('none', 'base', seed, 'accuracy/add', 0.3 + seed / 10),
      // trained: constraints +0.1 / +0.3 by seed (verification up 0.3 / 0.9), quality -0.1, accuracy unchanged; hack_rate is not a dimension
      row('veto', 'joint', seed, 'constraints/format', 0.5), row('veto', 'joint', seed, 'constraints/length', 0.5), row('veto', 'joint', seed, 'constraints/verification', 0.5 + 0.6 * seed),
      ...['format', 'steps', 'carries', 'digits', 'consistency'].map((d) => row('veto', 'joint', seed, `quality/${d}`, 0.5)),
      row('veto', 'joint', seed, 'constraints/hack_rate', 0), row('veto', 'joint', seed, 'accuracy/add', 0.3 + seed / 10),
    ]);
    const t = Object.fromEntries(seesawTable(finals, 'quick').map((r) => [r.measure, r]));
    assert.ok(Math.abs(Number(t.constraints.delta) - 0.2) < 1e-12);
    // paired deltas 0.1 and 0.3: sd 0.1414, half-width 12.706 * 0.1414 / sqrt 2 = 1.2706
    assert.ok(Math.abs(Number(t.constraints.ci_high) - (0.2 + 1.2706)) < 1e-9);
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
    const scores = new Map([['a', new Map([['0', { m: 1 }], ['1', { m: 2 }], ['2', { m: 9 }]])], ['b', new Map([['0', { m: 0.5 }], ['1', { m: 1 }]])]]);
    const d = pairedDifference(scores, 'a', 'b', 'm')!;
    assert.equal(d.seeds, 2);
    assert.ok(Math.abs(d.delta - 0.75) < 1e-12);
    assert.equal(pairedDifference(scores, 'a', 'missing', 'm'), null);
    // two measures of one run: a's m minus a's n, seed by seed ((1-0) + (2-1)) / 2
    const two = new Map([['a', new Map([['0', { m: 1, n: 0 }], ['1', { m: 2, n: 1 }]])]]);
    assert.equal(pairedDifference(two, 'a', 'a', 'm', 'n')!.delta, 1);
  });
});
