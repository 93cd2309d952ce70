// The rubric language: criteria judged exactly, JSON and token forms, and a parser that never throws.
import { strict as assert } from 'node:assert';
import { CRITERIA, CRITERION_NAMES, criterionEnglish, judge, parseCriterion } from '../src/rubrics/criteria.js';
import {
  fromJson,
  parseRubricTokens,
  referenceRubric,
  sampleTeacherRubric,
  toJson,
  toTokens,
  maxScore,
  minScore,
} from '../src/rubrics/rubric.js';
import { sampleProblem, solve, FAMILIES } from '../src/world/problems.js';
import { writeTrace } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import { VOCAB } from '../src/world/vocab.js';
import { makeRng } from '../src/util/random.js';

const p = solve('add', [347, 589]); // 0936: columns 7+9=16 (d6 c1), 4+8+1=13 (d3 c1), 3+5+1=9 (d9 c0)
const T = (s: string) => parseTrace(s.split(' '));
const sys = T('C0 7 9 0 1 6 C1 4 8 1 1 3 C2 3 5 1 0 9 A 0 9 3 6 <eos>');
const sloppy = T('C0 7 9 0 0 6 C1 4 8 0 0 2 C2 3 5 0 0 8 A 0 8 2 6 <eos>');
const short = T('A 0 8 2 6 <eos>');
const revised = T('C0 7 9 0 1 6 C1 4 8 1 1 4 C2 3 5 1 0 9 V 6 3 9 R C1 3 A 0 9 3 6 <eos>');
const repeated = T('C0 7 9 0 1 6 C1 4 8 1 1 3 C1 4 8 1 1 3 C2 3 5 1 0 9 A 0 9 3 6 <eos>');
const j = (s: string, t: ReturnType<typeof T>) => judge(parseCriterion(s)!, t, p);

describe('criteria, judged by hand', () => {
  it('decomposition', () => {
    assert.deepEqual(
      [j('STEPS', sys), j('STEPS', short), j('SHORT', short), j('SHORT', sys)],
      [true, false, true, false],
    );
    assert.deepEqual(
      [j('ORDER', sys), j('ORDER', repeated), j('NSTEP 3', sys), j('NSTEP 4', sys)],
      [true, false, true, false],
    );
  });
  it('validation', () => {
    assert.deepEqual(
      [j('VERIFY', revised), j('VERIFY', sys), j('REVISE', revised), j('REVISE', sys)],
      [true, false, true, false],
    );
  });
  it('clarity', () => {
    assert.deepEqual(
      [j('CARRY', sys), j('CARRY', sloppy), j('STEPOK', sys), j('STEPOK', sloppy), j('STEPOK', revised)],
      [true, false, true, true, false],
    );
  });
  it('focus', () => {
    assert.deepEqual(
      [j('REPEAT', repeated), j('REPEAT', sys), j('LEN 24', sys), j('LEN 23', sys)],
      [true, false, true, false],
    );
  });
  it('question-specific (concrete values)', () => {
    assert.deepEqual(
      [j('COL 1 3', sys), j('COL 1 2', sys), j('COL 1 3', revised), j('NDIG 4', sys), j('NDIG 3', sys)],
      [true, false, false, true, false],
    );
    assert.deepEqual(
      [j('MATCH', sys), j('MATCH', revised), j('MATCH', short), j('MATCH', sloppy)],
      [true, true, false, true],
    );
  });
  it('every criterion has an English sentence', () => {
    for (const name of CRITERION_NAMES) {
      const args = CRITERIA[name].args.map(([lo]) => lo);
      assert.match(criterionEnglish({ name, args }), /^[A-Z].*\.$/);
    }
    assert.equal(parseCriterion('COL 9 1'), null, 'column out of range');
    assert.equal(parseCriterion('FOO'), null);
  });
});

describe('rubric sets', () => {
  const rng = makeRng(2);
  it('round-trip through JSON and tokens', () => {
    for (let i = 0; i < 200; i++) {
      const q = sampleProblem(FAMILIES[i % 4], 2 + (i % 3), rng);
      const r = i % 2 ? referenceRubric(q) : sampleTeacherRubric(q, rng);
      const viaTokens = parseRubricTokens(toTokens(r), r.domain),
        viaJson = fromJson(JSON.parse(JSON.stringify(toJson(r))));
      assert.ok(viaTokens.ok && viaJson.ok);
      if (viaTokens.ok) assert.deepEqual(viaTokens.rubric, r);
      if (viaJson.ok) assert.deepEqual(viaJson.rubric, r);
    }
  });
  it("follow RLCER's JSON schema with min and max scores", () => {
    const j = toJson(referenceRubric(p), 4);
    assert.deepEqual(Object.keys(j), ['question_domain', 'rubrics', 'maximum_score', 'minimum_score', 'current_score']);
    assert.equal(j.question_domain, 'arith/add');
    assert.equal(j.maximum_score, maxScore(referenceRubric(p)));
    assert.equal(j.minimum_score, -3);
    assert.equal(minScore(referenceRubric(p)), -3);
  });
  it('the reference rubric separates good from bad processes', () => {
    const r = referenceRubric(p);
    const score = (t: ReturnType<typeof T>) =>
      r.items.reduce((s, i) => s + (judge(i.criterion, t, p) ? i.points : 0), 0);
    assert.ok(score(sys) > score(sloppy) && score(sloppy) > score(short));
  });
  it('parser never throws: random, truncated and corrupted sequences give a reason', () => {
    let valid = 0;
    for (let i = 0; i < 3000; i++) {
      const toks = Array.from({ length: rng.int(40) }, () => VOCAB[rng.int(VOCAB.length)]);
      const r = parseRubricTokens(toks, 'd');
      if (r.ok) valid++;
      else assert.ok(r.reason.length > 0);
    }
    assert.ok(valid < 10);
    for (let i = 0; i < 100; i++) {
      const toks = toTokens(sampleTeacherRubric(sampleProblem('sub', 3, rng), rng));
      for (let cut = 0; cut < toks.length; cut++) {
        const r = parseRubricTokens(toks.slice(0, cut), 'd');
        assert.ok(!r.ok && /truncated|expected/.test(r.reason), `cut ${cut}: ${JSON.stringify(r)}`);
      }
    }
  });
  it('rejects duplicates, category mismatches, too many items, bad JSON', () => {
    assert.match(
      (parseRubricTokens('K:dec STEPS P+1 ; K:dec STEPS P+2 <eos>'.split(' '), 'd') as { reason: string }).reason,
      /duplicate/,
    );
    assert.match(
      (parseRubricTokens('K:spe STEPS P+1 <eos>'.split(' '), 'd') as { reason: string }).reason,
      /does not fit/,
    );
    assert.match((parseRubricTokens('<eos>'.split(' '), 'd') as { reason: string }).reason, /expected a category/);
    const many =
      Array.from({ length: 9 }, (_, k) => `K:spe COL ${k % 8} ${Math.floor(k / 8)} P+1`).join(' ; ') + ' <eos>';
    assert.match((parseRubricTokens(many.split(' '), 'd') as { reason: string }).reason, /more than 8/);
    assert.equal(fromJson(null).ok, false);
    assert.equal(
      fromJson({ question_domain: 'x', rubrics: [{ category: 'clarity and flow', criterion: 'CARRY', points: 0 }] }).ok,
      false,
    );
  });
  it('judges teacher traces of every style without throwing', () => {
    for (let i = 0; i < 100; i++) {
      const q = sampleProblem(FAMILIES[i % 4], 3, rng),
        t = parseTrace(writeTrace(q, 'verified', rng).tokens);
      for (const it of referenceRubric(q).items) assert.equal(typeof judge(it.criterion, t, q), 'boolean');
    }
  });
});

describe("RLCER's validity test", () => {
  it('Pearson correlation by hand, null when a side is constant', async () => {
    const { pearson, isValidCriterion } = await import('../src/rubrics/validity.js');
    assert.ok(Math.abs(pearson([1, 0, 1, 0], [1, 0, 1, 0])! - 1) < 1e-12);
    assert.ok(Math.abs(pearson([1, 0, 1, 0], [0, 1, 0, 1])! + 1) < 1e-12);
    // v = [1,1,0,0], z = [1,0,0,0]: cov = 0.125, sd_v = 0.5, sd_z = sqrt(3)/4 -> r = 1/sqrt(3)
    assert.ok(Math.abs(pearson([1, 1, 0, 0], [1, 0, 0, 0])! - 1 / Math.sqrt(3)) < 1e-12);
    assert.equal(pearson([1, 1, 1], [0, 1, 0]), null);
    assert.equal(isValidCriterion([1, 1, 0, 0], [1, 0, 0, 0]), true); // 0.577 > 0.2
    assert.equal(isValidCriterion([1, 0, 1, 0], [1, 1, 0, 0]), false); // r = 0
    assert.equal(isValidCriterion([1, 1, 1, 1], [1, 0, 0, 0]), false); // constant satisfaction
    assert.equal(isValidCriterion([1, 0, 1, 0], [1, 1, 1, 1]), false); // constant correctness
  });
  it('Pearson: null when y is constant, an error for unequal lengths; the threshold is strict', async () => {
    const { pearson, isValidCriterion } = await import('../src/rubrics/validity.js');
    // y constant: syy = 0 (x varies: sxx = 2/3), so null, not 0 / 0
    assert.equal(pearson([0, 1, 0], [1, 1, 1]), null);
    assert.throws(
      () => pearson([1, 2], [1]),
      (e: Error) => e.message === 'pearson: lengths differ (2 vs 1)',
    );
    // corr([1,0,1,0], [1,0,1,0]) = 1 / sqrt(1 * 1) = 1 exactly: not > 1
    assert.equal(isValidCriterion([1, 0, 1, 0], [1, 0, 1, 0], 1), false);
    // corr([1,0,1,0], [1,1,0,0]): sxy = 0.25 - 0.25 - 0.25 + 0.25 = 0 exactly: not > 0
    assert.equal(isValidCriterion([1, 0, 1, 0], [1, 1, 0, 0], 0), false);
  });
});
