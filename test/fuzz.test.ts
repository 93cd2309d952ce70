// Fuzzing of every reader of model output and of user files, with fixed seeds (a deterministic suite):
// model output (rubric tokens, rubric JSON, traces, criteria) never throws and always gives a well-formed parse;
// user files (config JSON, checkpoints, CSV tables, metrics, evaluation sets) give a value or a one-line
// ConfigError naming the file, never a TypeError, RangeError or crash; encoders round-trip through their readers.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { initBackend } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { loadWeights, readCheckpoint, saveCheckpoint, type ModelConfig } from '../src/models/policy.js';
import {
  CRITERIA,
  CRITERION_NAMES,
  criterionCategory,
  judge,
  parseCriterion,
  type CriterionSpec,
} from '../src/rubrics/criteria.js';
import {
  fromJson,
  MAX_ITEMS,
  parseRubricTokens,
  POINTS,
  referenceRubric,
  sampleTeacherRubric,
  toJson,
  toTokens,
  type Parsed,
  type RubricSet,
} from '../src/rubrics/rubric.js';
import { ConfigError } from '../src/util/validate.js';
import { loadJsonConfig, readMetrics } from '../src/io/run.js';
import { mergeConfig } from '../src/io/config.js';
import { readCsv, toCsv, type Row } from '../src/io/table.js';
import { parseArgs } from '../src/io/args.js';
import { checkTheoryConfig, defaultTheoryConfig } from '../src/theory/experiments.js';
import { loadEvalSet, serialise } from '../src/world/datasets.js';
import { FAMILIES, sampleProblem, type Problem } from '../src/world/problems.js';
import { parseTrace, type ParsedTrace } from '../src/world/trace.js';
import { STYLES, writeTrace } from '../src/world/teacher.js';
import { VOCAB } from '../src/world/vocab.js';
import { makeRng } from '../src/util/random.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wb-fuzz-'));

/**
 * Run a property with a fixed seed and check that the whole property stays within `limitMs` of this process's CPU
 * time (not wall time: on a loaded machine the wall clock measures the other processes too).
 */
function check<T>(prop: fc.IProperty<T>, seed: number, numRuns: number, limitMs: number): void {
  const t0 = process.cpuUsage();
  fc.assert(prop, { seed, numRuns });
  const used = process.cpuUsage(t0),
    ms = (used.user + used.system) / 1000;
  if (process.env.FUZZ_TIMES) console.log(`    [${numRuns} runs in ${Math.round(ms)} ms of CPU]`);
  assert.ok(ms < limitMs, `the property took ${Math.round(ms)} ms of CPU (bound ${limitMs} ms)`);
}

/** One call on a big input must stay well under a second (a quadratic reader would take minutes). */
function bounded<T>(f: () => T, limitMs = 1000): T {
  const t0 = performance.now(),
    v = f(),
    ms = performance.now() - t0;
  assert.ok(ms < limitMs, `one call took ${Math.round(ms)} ms (bound ${limitMs} ms)`);
  return v;
}

// ---------- generators ----------

const problems: Problem[] = (() => {
  const rng = makeRng(7);
  return FAMILIES.flatMap((f) => [2, 3, 4, 5].map((d) => sampleProblem(f, d, rng)));
})();

/** Tokens a reader can meet: the vocabulary, and what a broken decoder or a hostile file could hand it. */
const weird = [
  '',
  ' ',
  '<eos>',
  '<pad>',
  '<?99>',
  '__proto__',
  'toString',
  'constructor',
  'P+4',
  'P+0',
  'P-0',
  'P+1e9',
  'P+Infinity',
  'P+NaN',
  'C10',
  'C-1',
  '10',
  '-1',
  '1.5',
  '\u0000',
  '\n',
  '\uD800',
  'K:dec\n',
  ' 1',
  '1 ',
  '٣',
];
const token = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...VOCAB) },
  { weight: 2, arbitrary: fc.constantFrom(...weird) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);
const tokens = fc.array(token, { maxLength: 80 });
/** 10^4 to 10^5 tokens: a short pattern repeated (deeply repeated tokens), with a random head and tail. */
const pattern = fc.array(token, { minLength: 1, maxLength: 12 });
const hugeTokens = fc
  .tuple(tokens, pattern, fc.integer({ min: 10_000, max: 100_000 }), tokens)
  .map(([head, rep, n, tail]) => [...head, ...Array.from({ length: n }, (_, i) => rep[i % rep.length]), ...tail]);

const rubrics: RubricSet[] = problems.flatMap((p, i) => {
  const rng = makeRng(100 + i);
  const cot = parseTrace(writeTrace(p, 'verified', rng).tokens);
  return [referenceRubric(p), sampleTeacherRubric(p, rng), sampleTeacherRubric(p, rng, cot)];
});
const traces: string[][] = problems.flatMap((p, i) => {
  const rng = makeRng(200 + i);
  return STYLES.map((s) => writeTrace(p, s, rng).tokens);
});

// ---------- well-formed results ----------

function assertParsedRubric(r: Parsed, tokensIn?: readonly string[]): void {
  if (!r.ok) {
    assert.equal(typeof r.reason, 'string');
    assert.ok(r.reason.length > 0);
    return;
  }
  const { items } = r.rubric;
  assert.ok(items.length >= 1 && items.length <= MAX_ITEMS);
  assert.equal(new Set(items.map((i) => `${i.criterion.name} ${i.criterion.args.join(' ')}`)).size, items.length);
  for (const it of items) {
    assert.ok(CRITERION_NAMES.includes(it.criterion.name));
    assert.equal(criterionCategory(it.criterion), it.category);
    assert.ok(POINTS.includes(it.points));
    const spec = CRITERIA[it.criterion.name] as CriterionSpec;
    assert.equal(it.criterion.args.length, spec.args.length);
    it.criterion.args.forEach((a, j) => assert.ok(Number.isInteger(a) && a >= spec.args[j][0] && a <= spec.args[j][1]));
  }
  // the token form is canonical: an accepted completion is exactly the encoding of its rubric, up to its <eos>
  if (tokensIn) assert.deepEqual(toTokens(r.rubric), tokensIn.slice(0, tokensIn.indexOf('<eos>') + 1));
}

const isDigit = (v: number) => Number.isInteger(v) && v >= 0 && v <= 9;

function assertParsedTrace(t: ParsedTrace, tokensIn: readonly string[]): void {
  const eos = tokensIn.indexOf('<eos>');
  assert.equal(t.length, eos >= 0 ? eos + 1 : tokensIn.length);
  assert.equal(t.terminated, t.issues.length === 0);
  assert.ok(t.issues.length <= 1 && t.issues.every((s) => typeof s === 'string' && s.length > 0));
  if (t.terminated) assert.ok(t.answer !== null && eos >= 0);
  for (const pass of t.passes) {
    assert.ok(pass.length > 0);
    for (const s of pass) assert.ok([s.k, s.x, s.y, s.cin, s.cout, s.d].every(isDigit));
  }
  assert.ok(t.verify === null || t.verify.every(isDigit));
  assert.ok(t.revisions.every((r) => isDigit(r.k) && isDigit(r.d)));
  assert.ok(t.answer === null || (t.answer.length > 0 && t.answer.every(isDigit)));
}

// ---------- model output: never throws ----------

describe('fuzz: model output readers never throw', () => {
  it('rubric token form: arbitrary token arrays give a well-formed parse', () => {
    check(
      fc.property(tokens, (ts) => assertParsedRubric(parseRubricTokens(ts, 'arithmetic'), ts)),
      101,
      3000,
      10_000,
    );
  });
  it('rubric token form: 10^5-token inputs of repeated tokens, bounded in time', () => {
    const parse = (ts: string[]) =>
      assertParsedRubric(
        bounded(() => parseRubricTokens(ts, 'arithmetic')),
        ts,
      );
    check(fc.property(hugeTokens, parse), 102, 25, 10_000);
    const item = ['K:spe', 'COL', '2', '7', 'P+1', ';'];
    const many = Array.from({ length: 100_000 }, (_, i) => item[i % item.length]);
    assert.match(bounded(() => parseRubricTokens(many, 'x')).reason!, /more than 8 items/);
  });
  it('rubric token form: every truncation of a valid completion is a format failure, the whole one parses back', () => {
    for (const r of rubrics) {
      const ts = toTokens(r);
      for (let k = 0; k < ts.length; k++) {
        assert.match(parseRubricTokens(ts.slice(0, k), r.domain).reason ?? 'parsed', /truncated/);
      }
      assert.deepEqual(parseRubricTokens(ts, r.domain), { ok: true, rubric: r });
    }
  });
  it('rubric token form: valid completions with one token replaced give a well-formed parse', () => {
    const arb = fc.tuple(fc.constantFrom(...rubrics), fc.nat(), token);
    check(
      fc.property(arb, ([r, at, t]) => {
        const ts = toTokens(r);
        ts[at % ts.length] = t;
        assertParsedRubric(parseRubricTokens(ts, r.domain), ts);
      }),
      103,
      3000,
      10_000,
    );
  });

  const criterionText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc
      .tuple(
        fc.constantFrom(...CRITERION_NAMES, '__proto__', 'toString', 'constructor', 'hasOwnProperty', ''),
        fc.array(
          fc.oneof(
            fc.double().map(String),
            fc.integer({ min: -20, max: 120 }).map(String),
            fc.constantFrom('Infinity', '-0', '1e400', 'NaN', '0x10', '1.0', '', '١'),
          ),
          { maxLength: 3 },
        ),
        fc.constantFrom(' ', '  ', '\t', '\n'),
      )
      .map(([n, args, sep]) => [n, ...args].join(sep)),
  );
  it('criterion parser: arbitrary strings give a valid criterion or null', () => {
    check(
      fc.property(criterionText, (s) => {
        const c = parseCriterion(s);
        if (c === null) return;
        const spec = CRITERIA[c.name] as CriterionSpec;
        assert.ok(CRITERION_NAMES.includes(c.name) && c.args.length === spec.args.length);
        c.args.forEach((a, j) => assert.ok(Number.isInteger(a) && a >= spec.args[j][0] && a <= spec.args[j][1]));
      }),
      104,
      5000,
      10_000,
    );
    assert.equal(
      bounded(() => parseCriterion(`NSTEP ${' 1'.repeat(100_000)}`)),
      null,
    );
  });

  const anyValue = fc.anything({
    withBigInt: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withBoxedValues: true,
    withTypedArray: true,
    withSparseArray: true,
    maxDepth: 3,
  });
  const points = fc.oneof(
    fc.constantFrom(...POINTS),
    fc.double(),
    fc.constantFrom(1e308, -1e308, Infinity, NaN, -0, '1', 2n),
    anyValue,
  );
  /** RLCER JSON with each field valid or arbitrary. */
  const rubricJson = fc.record(
    {
      question_domain: fc.oneof(fc.string(), anyValue),
      rubrics: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.array(
            fc.record(
              {
                category: fc.oneof(
                  fc.constantFrom('clarity and flow', 'question-specific', 'focus and efficiency'),
                  anyValue,
                ),
                criterion: fc.oneof(criterionText, anyValue),
                points,
              },
              { requiredKeys: [] },
            ),
            { maxLength: 12 },
          ),
        },
        { weight: 1, arbitrary: anyValue },
      ),
      maximum_score: anyValue,
      minimum_score: anyValue,
    },
    { requiredKeys: ['question_domain', 'rubrics'] },
  );
  it('rubric JSON form: arbitrary values and half-valid RLCER JSON give a well-formed parse', () => {
    check(
      fc.property(fc.oneof(anyValue, rubricJson), (j) => assertParsedRubric(fromJson(j))),
      105,
      3000,
      10_000,
    );
    const big = {
      question_domain: 'x',
      rubrics: Array.from({ length: 100_000 }, () => ({
        category: 'clarity and flow',
        criterion: 'CARRY',
        points: 1e308,
      })),
    };
    assert.match(bounded(() => fromJson(big)).reason!, /points must be one of/);
  });
  it('rubric JSON form: truncated rubric lists and criteria of valid rubrics give a well-formed parse', () => {
    check(
      fc.property(fc.constantFrom(...rubrics), fc.nat(), fc.nat(), (r, n, cut) => {
        const j = toJson(r);
        const items = j.rubrics
          .slice(0, n % (j.rubrics.length + 1))
          .map((it, i) =>
            i === 0 ? { ...it, criterion: it.criterion.slice(0, cut % (it.criterion.length + 1)) } : it,
          );
        assertParsedRubric(fromJson({ ...j, rubrics: items }));
      }),
      106,
      2000,
      10_000,
    );
  });

  it('trace parser: arbitrary token arrays give a well-formed trace, and every criterion judges it', () => {
    check(
      fc.property(tokens, fc.constantFrom(...problems), (ts, p) => {
        const t = parseTrace(ts);
        assertParsedTrace(t, ts);
        for (const name of CRITERION_NAMES) {
          const spec = CRITERIA[name] as CriterionSpec;
          assert.equal(typeof judge({ name, args: spec.args.map(([lo]) => lo) }, t, p), 'boolean');
        }
      }),
      107,
      3000,
      10_000,
    );
  });
  it('trace parser: 10^5-token inputs of repeated tokens, bounded in time', () => {
    check(
      fc.property(hugeTokens, (ts) =>
        assertParsedTrace(
          bounded(() => parseTrace(ts)),
          ts,
        ),
      ),
      108,
      25,
      10_000,
    );
    const column = Array.from({ length: 100_002 }, (_, i) => (i % 6 === 0 ? 'C3' : '7'));
    const many = [
      column,
      ['V', ...'9'.repeat(100_000)],
      ['A', ...'1'.repeat(100_000), '<eos>'],
      Array(100_000).fill('|'),
    ];
    for (const ts of many) {
      assertParsedTrace(
        bounded(() => parseTrace(ts)),
        ts,
      );
    }
  });
  it('trace parser: every truncation of a teacher trace parses unterminated, the whole one terminated', () => {
    for (const ts of traces) {
      for (let k = 0; k < ts.length; k++) {
        const t = parseTrace(ts.slice(0, k));
        assertParsedTrace(t, ts.slice(0, k));
        assert.equal(t.terminated, false);
      }
      const t = parseTrace(ts);
      assertParsedTrace(t, ts);
      assert.ok(t.terminated, ts.join(' '));
    }
  });
  it('trace parser: teacher traces with one token replaced give a well-formed trace', () => {
    check(
      fc.property(fc.constantFrom(...traces), fc.nat(), token, (ts0, at, tok) => {
        const ts = [...ts0];
        ts[at % ts.length] = tok;
        assertParsedTrace(parseTrace(ts), ts);
      }),
      109,
      3000,
      10_000,
    );
  });
});

// ---------- user files: a value or a one-line ConfigError naming the file ----------

/** Call a reader of `file`: it returns a value (checked by `ok`) or throws a one-line ConfigError naming the file. */
function valueOrUserError<T>(file: string, read: () => T, ok: (v: T) => void = () => {}, names = true): void {
  let v: T;
  try {
    v = read();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw new Error(`not a ConfigError: ${e instanceof Error ? e.stack : String(e)}`);
    assert.ok(!/[\r\n\u2028\u2029]/.test(e.message), `message on several lines: ${JSON.stringify(e.message)}`);
    if (names) assert.ok(e.message.includes(file), `message does not name ${file}: ${e.message}`);
    return;
  }
  ok(v);
}

/** Bytes of a file: random, non-UTF-8, truncations of valid text, valid text with some bytes overwritten. */
function fileBytes(valid: string[]): fc.Arbitrary<Uint8Array> {
  const texts = valid.map((t) => Buffer.from(t));
  const nonUtf8 = fc
    .array(fc.constantFrom(0xff, 0xfe, 0xc3, 0x80, 0xed, 0xa0, 0xf4, 0x90, 0x0a, 0x22, 0x2c, 0x7b, 0x5b), {
      maxLength: 200,
    })
    .map((b) => Uint8Array.from(b));
  const truncated = fc.tuple(fc.constantFrom(...texts), fc.nat()).map(([t, n]) => t.subarray(0, n % (t.length + 1)));
  const mutated = fc
    .tuple(
      fc.constantFrom(...texts),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
    )
    .map(([t, edits]) => {
      const b = Uint8Array.from(t);
      for (const [at, v] of edits) b[at % b.length] = v;
      return b;
    });
  return fc.oneof(fc.uint8Array({ maxLength: 400 }), nonUtf8, truncated, mutated);
}

const jsonText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v, null, 2)),
);

describe('fuzz: user file readers give a value or a one-line ConfigError', () => {
  const dir = tmp();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('config files: loadJsonConfig, merged over the defaults and checked', () => {
    const file = path.join(dir, 'config.json');
    const valid = [JSON.stringify(defaultTheoryConfig, null, 2), JSON.stringify({ Ks: [3], stochastic: { lr: 0.1 } })];
    const bytes = fc.oneof(
      fileBytes(valid),
      jsonText.map((t) => Buffer.from(t)),
      fc
        .constantFrom('{"toString": 1}', '{"__proto__": {"x": 1}}', '{"constructor": {}}', '{"a\\nb": 1}', '[]', 'null')
        .map((t) => Buffer.from(t)),
    );
    check(
      fc.property(bytes, (b) => {
        fs.writeFileSync(file, b);
        valueOrUserError(
          file,
          () => loadJsonConfig(file),
          (v) => {
            assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v));
            // merging and checking name the key, not the file
            valueOrUserError(
              file,
              () => checkTheoryConfig(mergeConfig(defaultTheoryConfig, v)),
              () => {},
              false,
            );
          },
        );
      }),
      201,
      2000,
      10_000,
    );
    const deep = path.join(dir, 'deep.json');
    fs.writeFileSync(deep, '['.repeat(100_000) + ']'.repeat(100_000));
    valueOrUserError(deep, () => bounded(() => loadJsonConfig(deep)));
  });

  it('config keys and arguments: inherited names ("toString", "__proto__") are unknown keys', () => {
    for (const k of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      assert.throws(() => mergeConfig(defaultTheoryConfig, JSON.parse(`{"${k}": {}}`)), /unknown config key/, k);
      assert.throws(() => parseArgs([`--${k}`, '1'], { steps: 'steps' }), /unknown argument/, k);
    }
  });

  it('checkpoints: readCheckpoint and loadWeights on damaged files', async () => {
    await initBackend();
    const config: ModelConfig = {
      arch: 'transformer',
      size: 'S',
      vocab: VOCAB.length,
      context: 16,
      dModel: 8,
      layers: 1,
      heads: 2,
      roles: 1,
      seed: 3,
      positions: 'alibi',
    };
    const policy = createPolicy(config),
      file = path.join(dir, 'checkpoint.json');
    saveCheckpoint(policy, file, { step: 4 });
    const valid = fs.readFileSync(file, 'utf8'),
      ck = JSON.parse(valid);
    const name = Object.keys(ck.weights)[0];
    // valid JSON with one field replaced by an arbitrary value
    const structural = fc
      .tuple(
        fc.constantFrom('config', 'meta', 'weights', 'weight', 'shape', 'data', 'dModel'),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([field, v]) => {
        const c = structuredClone(ck);
        if (field === 'config' || field === 'meta' || field === 'weights') c[field] = v;
        else if (field === 'dModel') c.config.dModel = v;
        else if (field === 'weight') c.weights[name] = v;
        else c.weights[name][field] = v;
        return Buffer.from(JSON.stringify(c));
      });
    check(
      fc.property(fc.oneof(fileBytes([valid]), structural), (b) => {
        fs.writeFileSync(file, b);
        valueOrUserError(file, () => loadWeights(policy, readCheckpoint(file), file));
      }),
      202,
      1000,
      10_000,
    );
  });

  it('CSV tables: readCsv on damaged files', () => {
    const file = path.join(dir, 't.csv');
    const valid = [
      toCsv([
        { a: 1.5, b: 'x,y', c: 'say "hi"' },
        { a: -2e-9, b: 'two\nlines', c: '' },
      ]),
    ];
    check(
      fc.property(fileBytes(valid), (b) => {
        fs.writeFileSync(file, b);
        valueOrUserError(
          file,
          () => readCsv(file),
          (rows) => assert.ok(Array.isArray(rows)),
        );
      }),
      203,
      3000,
      10_000,
    );
  });

  it('metrics.jsonl: readMetrics keeps the object lines of damaged files and never throws', () => {
    const run = path.join(dir, 'run');
    fs.mkdirSync(run, { recursive: true });
    const valid = ['{"step":0,"reward":1}\n{"step":1,"reward":0.5}\n'];
    const bytes = fc.oneof(
      fileBytes(valid),
      fc.array(jsonText, { maxLength: 5 }).map((ls) => Buffer.from(ls.join('\n'))),
    );
    check(
      fc.property(bytes, (b) => {
        fs.writeFileSync(path.join(run, 'metrics.jsonl'), b);
        for (const r of readMetrics(run)) assert.ok(typeof r === 'object' && r !== null && !Array.isArray(r));
      }),
      204,
      2000,
      10_000,
    );
  });

  it('evaluation sets: loadEvalSet on damaged files', () => {
    const evalDir = path.join(dir, 'eval'),
      file = path.join(evalDir, 'sub-3.jsonl');
    fs.mkdirSync(evalDir, { recursive: true });
    const rng = makeRng(5),
      valid = [serialise(Array.from({ length: 4 }, () => sampleProblem('sub', 3, rng)))];
    const lines = fc
      .array(
        fc.record({
          family: fc.constantFrom('sub', 'add', 'x'),
          operands: fc.array(
            fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(1e300, 1.5, NaN, 999, 100)),
            { maxLength: 4 },
          ),
          answer: fc.string({ maxLength: 4 }),
        }),
        { minLength: 1, maxLength: 3 },
      )
      .map((ls) => Buffer.from(ls.map((l) => JSON.stringify(l)).join('\n')));
    check(
      fc.property(fc.oneof(fileBytes(valid), lines), (b) => {
        fs.writeFileSync(file, b);
        valueOrUserError(
          file,
          () => loadEvalSet('sub', 3, evalDir),
          (ps) => assert.ok(ps.every((p) => p.family === 'sub')),
        );
      }),
      205,
      2000,
      10_000,
    );
  });
});

// ---------- round trips ----------

describe('fuzz: round trips', () => {
  it('rubrics: toTokens and toJson parse back to the rubric', () => {
    for (const r of rubrics) {
      assert.deepEqual(parseRubricTokens(toTokens(r), r.domain), { ok: true, rubric: r });
      assert.deepEqual(fromJson(JSON.parse(JSON.stringify(toJson(r, 1)))), { ok: true, rubric: r });
    }
  });

  it('CSV tables: toCsv then readCsv gives back numbers and non-numeric strings', () => {
    const file = path.join(tmp(), 't.csv');
    // numeric-looking strings are read as numbers by design, and -0 is written as 0
    const cell = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
      fc.string({ unit: 'binary', maxLength: 10 }).filter((s) => s === '' || Number.isNaN(Number(s))),
    );
    const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }).filter((s) => s !== '__proto__');
    const table = fc.uniqueArray(name, { minLength: 2, maxLength: 4 }).chain((cols) =>
      fc
        .array(
          fc
            .tuple(...cols.map(() => cell))
            .map((cells) => Object.fromEntries(cols.map((c, i) => [c, cells[i]])) as Row),
          { maxLength: 5 },
        )
        .map((rows) => ({ cols, rows })),
    );
    check(
      fc.property(table, ({ cols, rows }) => {
        fs.writeFileSync(file, toCsv(rows, cols));
        assert.deepEqual(readCsv(file), rows);
      }),
      301,
      1000,
      10_000,
    );
  });
});

// ---------- counterexamples the properties found (fixed in src/) ----------

describe('fuzz: regressions', () => {
  const dir = tmp();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string | object) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, typeof text === 'string' ? text : JSON.stringify(text));
    return f;
  };
  const userError = (file: string) => (e: unknown) =>
    e instanceof ConfigError && !e.message.includes('\n') && e.message.includes(file);

  it('criterion names inherited from Object.prototype are no criteria (was a TypeError)', () => {
    for (const s of ['__proto__', 'toString', 'constructor 1']) assert.equal(parseCriterion(s), null);
    const j = {
      question_domain: 'x',
      rubrics: [{ category: 'clarity and flow', criterion: 'constructor', points: 1 }],
    };
    assert.match(fromJson(j).reason!, /invalid criterion "constructor"/);
  });
  it('rubric JSON reasons show a BigInt or a cyclic value without throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const big = { question_domain: '', rubrics: [{ category: 'clarity and flow', criterion: { '': 0n } }] };
    assert.match(fromJson(big).reason!, /invalid criterion \(a object\)/);
    const loop = { question_domain: '', rubrics: [{ category: cyclic }] };
    assert.match(fromJson(loop).reason!, /unknown category \(a object\)/);
  });
  it('a ConfigError is one line even when JSON.parse quotes a file with newlines', () => {
    const f = write('nl.json', '\u0000\n  "eta": 1\n');
    assert.throws(() => loadJsonConfig(f), userError(f));
  });
  it('checkpoints: missing or damaged weight data, a null meta and an empty config are ConfigErrors', async () => {
    await initBackend();
    const config: ModelConfig = {
      arch: 'gru',
      size: 'S',
      vocab: VOCAB.length,
      context: 8,
      dModel: 4,
      layers: 1,
      heads: 1,
      roles: 1,
      seed: 1,
      recallAttention: false,
    };
    const policy = createPolicy(config),
      f = path.join(dir, 'ck.json');
    saveCheckpoint(policy, f);
    const ck = JSON.parse(fs.readFileSync(f, 'utf8')),
      name = Object.keys(ck.weights)[0];
    const cases = [
      { ...ck, weights: { ...ck.weights, [name]: { ...ck.weights[name], data: null } } },
      { ...ck, weights: { ...ck.weights, [name]: { ...ck.weights[name], data: ck.weights[name].data.slice(0, -8) } } },
      { ...ck, weights: { ...ck.weights, [name]: 1 } },
      { ...ck, meta: null },
      { ...ck, config: {} },
    ];
    for (const c of cases) {
      write('ck.json', c);
      assert.throws(() => loadWeights(policy, readCheckpoint(f), f), userError(f));
    }
  });
  it('CSV: an empty file is a ConfigError; cells with newlines and header names with commas round-trip', () => {
    const f = write('empty.csv', '');
    assert.throws(() => readCsv(f), userError(f));
    const rows = [
      { 'a,b': 'two\nlines', c: 1 },
      { 'a,b': '"q"\n', c: 2 },
    ];
    const g = write('nl.csv', toCsv(rows));
    assert.deepEqual(readCsv(g), rows);
    const h = write('ragged.csv', 'a,b\n1\n');
    assert.throws(() => readCsv(h), userError(h));
  });
  it('metrics.jsonl lines that are no object are skipped', () => {
    const run = path.join(dir, 'run');
    fs.mkdirSync(run);
    fs.writeFileSync(path.join(run, 'metrics.jsonl'), '[]\nnull\n1\n{"step":0}\n"x"\n');
    assert.deepEqual(readMetrics(run), [{ step: 0 }]);
  });
  it('evaluation set lines without operands or with a negative result are ConfigErrors', () => {
    const evalDir = path.join(dir, 'eval'),
      f = path.join(evalDir, 'sub-3.jsonl');
    fs.mkdirSync(evalDir);
    for (const line of [
      { family: 'sub', operands: [], answer: '' },
      { family: 'sub', operands: [100, 999], answer: '1' },
      { family: 'add', operands: [100, 999], answer: '1099' },
    ]) {
      fs.writeFileSync(f, JSON.stringify(line));
      assert.throws(() => loadEvalSet('sub', 3, evalDir), userError(f));
    }
  });
});
