// The verifier's competence as a knob (docs/verifier.md): its settings and their errors, the noisy oracle's realised
// accuracy, its reproducibility from the seed and its own stream, and the competent verifier's selection, which reads
// held-out pairs only.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { initBackend } from '../src/models/backend.js';
import { loadPolicy } from '../src/models/index.js';
import { oracleJudge, parseVerifierSetting, settingJudge, VERIFIER_NOISE_STREAM } from '../src/models/verifier.js';
import { alignedJudge, defaultAlignedConfig, loadAlignedVerifier } from '../src/models/aligned-verifier.js';
import {
  kindAccuracy,
  labelCots,
  pairsOf,
  perturb,
  selectionScore,
  trainCompetent,
  judgeAccuracy,
  criteriaFor,
} from '../src/methods/trainers/verifier.js';
import { checkRlcerConfig, defaultRlcerConfig, makeRlcerTrainer } from '../src/methods/trainers/rlcer.js';
import { checkEvolmConfig, defaultEvolmConfig, makeEvolmTrainer } from '../src/methods/trainers/evolm.js';
import { table2Row } from '../src/methods/tables/table2-kinds.js';
import {
  coldStartCheckpoint,
  COMPETENT_VERIFIER_CHECKPOINT,
  methodSpec,
  VERIFIER_CHECKPOINT,
} from '../src/methods/tables/table2.js';
import { ConfigError } from '../src/util/validate.js';
import { makeRng } from '../src/util/random.js';
import { FAMILIES, sampleProblem, type Problem } from '../src/world/problems.js';
import { STYLES, writeTrace } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import type { Criterion } from '../src/rubrics/criteria.js';

/** Teacher traces of every style with their criteria: (criterion, problem, completion) items. */
function items(n: number, seed: number): { c: Criterion; p: Problem; completion: string[] }[] {
  const rng = makeRng(seed),
    out: { c: Criterion; p: Problem; completion: string[] }[] = [];
  for (let i = 0; out.length < n; i++) {
    const p = sampleProblem(FAMILIES[i % 3], 1 + (i % 6), rng),
      completion = writeTrace(p, STYLES[i % STYLES.length], rng).tokens;
    for (const c of criteriaFor(p, rng, parseTrace(completion))) out.push({ c, p, completion });
  }
  return out.slice(0, n);
}

describe('verifier knob: settings', () => {
  it('reads learned, competent, oracle and oracle@A', () => {
    assert.deepEqual(parseVerifierSetting('learned'), { kind: 'learned', accuracy: null });
    assert.deepEqual(parseVerifierSetting('competent'), { kind: 'competent', accuracy: null });
    assert.deepEqual(parseVerifierSetting('oracle'), { kind: 'oracle', accuracy: null });
    assert.deepEqual(parseVerifierSetting('oracle@0.8'), { kind: 'oracle', accuracy: 0.8 });
    assert.deepEqual(parseVerifierSetting('oracle@1'), { kind: 'oracle', accuracy: 1 });
    assert.deepEqual(parseVerifierSetting('oracle@0.5'), { kind: 'oracle', accuracy: 0.5 });
  });
  it('rejects anything else with one line naming the setting', () => {
    for (const bad of [
      'orcale',
      'oracle@',
      'oracle@0.4',
      'oracle@1.01',
      'oracle@-0.8',
      'learned@0.9',
      'oracle@0.8x',
      0.8,
      null,
    ]) {
      assert.throws(
        () => parseVerifierSetting(bad),
        (e: Error) => e instanceof ConfigError && /^verifier must be/.test(e.message) && !e.message.includes('\n'),
        String(bad),
      );
      const v = bad as unknown as 'oracle';
      assert.throws(() => checkRlcerConfig({ ...defaultRlcerConfig, verifier: v }), ConfigError);
      assert.throws(() => checkEvolmConfig({ ...defaultEvolmConfig, verifier: v }), ConfigError);
    }
    checkRlcerConfig({ ...defaultRlcerConfig, verifier: 'oracle@0.9' });
    checkEvolmConfig({ ...defaultEvolmConfig, verifier: 'competent' });
  });
  it('defaults stay the learned verifier', () => {
    assert.equal(defaultRlcerConfig.verifier, 'learned');
    assert.equal(defaultEvolmConfig.verifier, 'learned');
  });
  it('a setting without its model or seed is a ConfigError', () => {
    assert.throws(() => settingJudge('learned', {}), ConfigError);
    assert.throws(() => settingJudge('competent', {}), ConfigError);
    assert.throws(() => settingJudge('oracle@0.8', {}), /needs the run's seed/);
    settingJudge('oracle', {});
  });
});

describe('verifier knob: the noisy oracle', () => {
  const xs = items(4000, 1);
  const truth = xs.map((x) => oracleJudge(x.c, x.p, x.completion));
  it('judges exactly at oracle, and at oracle@1', () => {
    assert.deepEqual(settingJudge('oracle', {}).judge(xs), truth);
    assert.deepEqual(settingJudge('oracle@1', { seed: 3 }).judge(xs), truth);
  });
  it('its realised accuracy over many draws is the set accuracy', () => {
    for (const a of [0.7, 0.8, 0.9, 0.95]) {
      const j = settingJudge(`oracle@${a}`, { seed: 7 });
      let agree = 0,
        n = 0;
      for (let r = 0; r < 5; r++) {
        const v = j.judge(xs);
        agree += v.filter((x, i) => x === truth[i]).length;
        n += v.length;
        assert.ok(Math.abs(j.lastAgreement() - v.filter((x, i) => x === truth[i]).length / v.length) < 1e-12);
      }
      // 20,000 verdicts: the binomial SD is at most 0.0033; 4 SDs
      assert.ok(Math.abs(agree / n - a) < 0.013, `oracle@${a}: realised ${agree / n}`);
      assert.equal(j.draws(), n);
    }
  });
  it('flips symmetrically: true and false verdicts alike', () => {
    const j = settingJudge('oracle@0.8', { seed: 11 });
    const v = [0, 1, 2, 3, 4].flatMap(() => j.judge(xs));
    const t = [0, 1, 2, 3, 4].flatMap(() => truth);
    const rate = (want: boolean) => {
      const idx = t.flatMap((x, i) => (x === want ? [i] : []));
      return idx.filter((i) => v[i] !== t[i]).length / idx.length;
    };
    assert.ok(Math.abs(rate(true) - 0.2) < 0.02 && Math.abs(rate(false) - 0.2) < 0.02, `${rate(true)} ${rate(false)}`);
  });
  it('is reproducible from the seed, differs across seeds, and resumes exactly after a skip', () => {
    const a = settingJudge('oracle@0.8', { seed: 5 }).judge(xs),
      b = settingJudge('oracle@0.8', { seed: 5 }).judge(xs),
      c = settingJudge('oracle@0.8', { seed: 6 }).judge(xs);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    // the stream is makeRng(VERIFIER_NOISE_STREAM + seed), one draw per verdict in order
    const r = makeRng(VERIFIER_NOISE_STREAM + 5);
    assert.deepEqual(
      a,
      truth.map((t) => (r.next() < 1 - 0.8 ? !t : t)),
    );
    const j1 = settingJudge('oracle@0.8', { seed: 5 });
    j1.judge(xs.slice(0, 1234));
    const next = j1.judge(xs.slice(1234));
    const j2 = settingJudge('oracle@0.8', { seed: 5 });
    j2.skip(1234);
    assert.deepEqual(j2.judge(xs.slice(1234)), next);
  });
  it("does not move the run's other draws: an RLCER step at oracle@1 is the step at oracle", async function () {
    this.timeout(120000);
    // the cold start writes rubrics (an untrained policy's are unparsed: nothing to judge)
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    await initBackend();
    const c = { ...defaultRlcerConfig, prompts: 3, rollouts: 4 };
    const step = (verifier: 'oracle' | 'oracle@1') => {
      const policy = loadPolicy(coldStartCheckpoint('S'));
      const t = makeRlcerTrainer(policy, { ...c, verifier }, { seed: 9 });
      const m = t.step(makeRng(21));
      const w = Object.values(policy.weights).map((v) => Array.from(v.dataSync().slice(0, 64)));
      return { m: Object.fromEntries(Object.entries(m).filter(([k]) => !k.endsWith('_ms'))), w };
    };
    const a = step('oracle'),
      b = step('oracle@1');
    assert.ok(Number.isNaN(a.m.verifier_agreement) && b.m.verifier_agreement === 1);
    delete a.m.verifier_agreement;
    delete b.m.verifier_agreement;
    assert.deepEqual(b.m, a.m);
    assert.deepEqual(b.w, a.w);
  });
});

describe("verifier knob: the trainers draw the flips from the run's seed", function () {
  this.timeout(180000);
  before(async function () {
    if (!fs.existsSync(coldStartCheckpoint('S'))) this.skip();
    await initBackend();
  });
  const untimed = (m: Record<string, number>) =>
    Object.fromEntries(Object.entries(m).filter(([k]) => !k.endsWith('_ms')));
  it('RLCER: the same seed gives the same step, another seed other flips', () => {
    const step = (seed: number) =>
      untimed(
        makeRlcerTrainer(
          loadPolicy(coldStartCheckpoint('S')),
          { ...defaultRlcerConfig, prompts: 3, rollouts: 4, verifier: 'oracle@0.7' },
          { seed },
        ).step(makeRng(21)),
      );
    const a = step(9),
      b = step(9),
      c = step(10);
    assert.deepEqual(b, a);
    assert.ok(a.verifier_agreement < 1 && a.verifier_agreement !== c.verifier_agreement, JSON.stringify([a, c]));
  });
  it('EvoLM: the same seed gives the same step, another seed other flips', () => {
    const step = (seed: number) =>
      untimed(
        makeEvolmTrainer(
          loadPolicy(coldStartCheckpoint('S')),
          { ...defaultEvolmConfig, prompts: 3, rollouts: 4, steps: 2, rubricSource: 'teacher', verifier: 'oracle@0.7' },
          undefined,
          undefined,
          { seed },
        ).step(0, makeRng(21)) as Record<string, number>,
      );
    const a = step(9),
      b = step(9),
      c = step(10);
    assert.deepEqual(b, a);
    assert.ok(a.judge_agreement < 1 && a.judge_agreement !== c.judge_agreement, JSON.stringify([a, c]));
  });
});

describe('verifier knob: Table 2 rows', () => {
  const row = (kind: 'rlcer' | 'evolm', verifier?: string) =>
    table2Row({
      spec: methodSpec(kind),
      user: verifier ? { verifier } : {},
      steps: 2,
      klTarget: null,
      scalarRmCheckpoint: 'unused',
    });
  it('record the learned checkpoint as before at every setting but competent, and the setting in the config', () => {
    for (const kind of ['rlcer', 'evolm'] as const) {
      assert.deepEqual(Object.keys(row(kind).record), [kind, 'verifier']);
      assert.equal(row(kind).record.verifier, VERIFIER_CHECKPOINT);
      const noisy = row(kind, 'oracle@0.8');
      assert.deepEqual(Object.keys(noisy.record), [kind, 'verifier']);
      assert.equal((noisy.record[kind] as { verifier: string }).verifier, 'oracle@0.8');
      assert.throws(() => row(kind, 'oracle@2').check(), ConfigError);
    }
  });
  it('a competent row records the competent checkpoint and its hash', function () {
    if (!fs.existsSync(COMPETENT_VERIFIER_CHECKPOINT)) this.skip();
    const r = row('rlcer', 'competent');
    r.check();
    const rec = r.record.competentVerifier as { checkpoint: string; sha256: string };
    assert.equal(rec.checkpoint, COMPETENT_VERIFIER_CHECKPOINT);
    assert.match(rec.sha256, /^[0-9a-f]{12}$/);
  });
});

describe('competent verifier', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('per-kind accuracy and balanced accuracy, hand-computed', () => {
    const t = kindAccuracy(
      ['A', 'A', 'A', 'A', 'B', 'B'],
      [true, true, true, false, false, false],
      [true, true, false, true, false, false],
    );
    const a = t.find((r) => r.criterion === 'A')!,
      b = t.find((r) => r.criterion === 'B')!;
    assert.equal(a.accuracy, 0.5);
    assert.equal(a.balanced_accuracy, (2 / 3 + 0) / 2);
    assert.equal(b.accuracy, 1);
    assert.ok(Number.isNaN(b.balanced_accuracy));
    // the selection score: the smallest balanced accuracy (the accuracy where a kind has one label)
    assert.equal(selectionScore(t), 1 / 3);
  });
  it('selection keeps the weights of the best score on the held-out pairs, and reads nothing else', () => {
    const rng = makeRng(4);
    const cots = labelCots(
      items(300, 2).map((x) => ({ p: x.p, completion: perturb(x.completion, rng) ?? x.completion })),
      rng,
    );
    const validation = pairsOf(labelCots(items(200, 3), rng));
    const config = { ...defaultAlignedConfig(1), hidden: 24, products: 4, record: 12, head: 16 };
    const { model, best, history } = trainCompetent(
      cots,
      validation,
      { steps: 60, curriculum: 0, batch: 32, lr: 3e-3, every: 20, config },
      makeRng(8),
    );
    assert.equal(history.length, 3);
    assert.equal(best.score, Math.max(...history.map((h) => h.score)));
    assert.equal(best.step, history.find((h) => h.score === best.score)!.step);
    // the model handed back is the one of the best score
    assert.equal(selectionScore(judgeAccuracy(alignedJudge(model), validation)), best.score);
  });
  it('the trainer and its CLI read no policy accuracy (no evaluation, no correctness)', () => {
    for (const f of ['src/methods/trainers/verifier.ts', 'src/cli/verifier-competent.ts']) {
      const src = fs.readFileSync(f, 'utf8').replace(/\/\/.*$/gm, '');
      for (const banned of ['rl/evaluate', 'isCorrect', 'evalReport', 'familyAccuracy', 'evalCells', '.correct'])
        assert.ok(!src.includes(banned), `${f} reads ${banned}`);
    }
  });
  it('the committed checkpoint loads and judges teacher traces of every style', function () {
    if (!fs.existsSync(COMPETENT_VERIFIER_CHECKPOINT)) this.skip();
    const m = loadAlignedVerifier(COMPETENT_VERIFIER_CHECKPOINT);
    const xs = items(3000, 9);
    const truth = xs.map((x) => oracleJudge(x.c, x.p, x.completion));
    const v = alignedJudge(m)(xs);
    const acc = v.filter((x, i) => x === truth[i]).length / v.length;
    assert.ok(acc > 0.95, `accuracy ${acc}`);
    // the competent setting's judge is that model, and measures its agreement without a draw
    const j = settingJudge('competent', { competent: m });
    assert.deepEqual(j.judge(xs), v);
    assert.equal(j.lastAgreement(), acc);
    assert.equal(j.draws(), 0);
  });
  it('a checkpoint that is damaged is a ConfigError', () => {
    const f = 'runs/test-verifier-knob-damaged.json';
    fs.mkdirSync('runs', { recursive: true });
    fs.writeFileSync(f, '{"config": {"arch": "aligned-verifier"}, "weights": {}, "checksum": "0"}');
    assert.throws(() => loadAlignedVerifier(f), ConfigError);
    fs.rmSync(f);
    assert.throws(() => loadAlignedVerifier('runs/no-such-verifier.json'), ConfigError);
  });
  it('uses the checkpoint of the learned verifier by default (loadPolicy reads it)', function () {
    if (!fs.existsSync(VERIFIER_CHECKPOINT)) this.skip();
    const j = settingJudge('learned', { learned: loadPolicy(VERIFIER_CHECKPOINT) });
    assert.equal(j.judge(items(10, 1)).length, 10);
    assert.ok(Number.isNaN(j.lastAgreement()));
  });
});
