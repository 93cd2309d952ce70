// The arithmetic world: exact solutions, teacher styles, the trace parser, and the fixed evaluation sets.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { columnPass, isCarryFree, sampleProblem, solve, FAMILIES, checkFamily } from '../src/world/problems.js';
import { writeTrace, STYLES, checkStyle } from '../src/world/teacher.js';
import { isCorrect, parseTrace, promptTokens } from '../src/world/trace.js';
import {
  EVAL_DIR,
  EVAL_GRID,
  evalFile,
  generateEvalSet,
  loadEvalSet,
  serialise,
  sha256,
} from '../src/world/datasets.js';
import { VOCAB, encode, decode } from '../src/world/vocab.js';
import { makeRng } from '../src/util/random.js';
import { EVAL_CELLS } from '../src/world/families.js';

describe('problems', () => {
  it('solve column by column with fixed-width answers', () => {
    assert.equal(solve('add', [347, 589]).answer.join(''), '0936');
    assert.equal(solve('add', [999, 111]).answer.join(''), '1110');
    assert.equal(solve('sub', [503, 498]).answer.join(''), '005');
    assert.equal(solve('chain', [45, 78, 99]).answer.join(''), '024'); // 123 - 99
    assert.equal(solve('chain_ood', [91, 15, 60]).answer.join(''), '136'); // 76 + 60
  });
  it('write carries and borrows per column', () => {
    const { columns } = columnPass(503, 498, '-', 3);
    assert.deepEqual(
      columns.map((c) => [c.d, c.cout]),
      [
        [5, 1],
        [0, 1],
        [0, 0],
      ],
    );
  });
  it('sample valid operands for every family and report carry-free problems', () => {
    const rng = makeRng(1);
    for (const f of FAMILIES)
      for (const n of [2, 3, 4]) {
        const p = sampleProblem(f, n, rng);
        assert.ok(p.operands.every((o) => String(o).length === n));
        assert.deepEqual(solve(f, p.operands).answer, p.answer);
        const free = sampleProblem(f, n, rng, { carryFreeShare: 1 });
        assert.ok(isCarryFree(free));
      }
  });
  it('reject unknown families and styles by name', () => {
    assert.throws(() => checkFamily('mul'), /unknown family "mul"/);
    assert.throws(() => checkStyle('lazy'), /unknown style "lazy"/);
    assert.throws(() => sampleProblem('add', 9, makeRng(0)), /digits must be an integer/);
  });
});

describe('teacher', () => {
  const rng = makeRng(5);
  const exact = { errorRate: 0, verifyMiss: 0 };
  it('is always right in step styles without errors, and the shortcut is right exactly on carry-free problems', () => {
    for (let i = 0; i < 300; i++) {
      const f = FAMILIES[i % 4],
        p = sampleProblem(f, 2 + (i % 3), rng);
      for (const s of ['systematic', 'verified', 'redundant'] as const)
        assert.ok(isCorrect(p, parseTrace(writeTrace(p, s, rng, exact).tokens)), `${s} ${f}`);
      const short = isCorrect(p, parseTrace(writeTrace(p, 'shortcut', rng, exact).tokens));
      const sloppy = isCorrect(p, parseTrace(writeTrace(p, 'sloppy', rng, exact).tokens));
      assert.equal(short, sloppy, 'shortcut and sloppy compute the same carry-free digits');
      if (isCarryFree(p)) assert.ok(short, 'carry-free problems are solved by the shortcut');
      if (f === 'add' || f === 'sub') assert.equal(short, isCarryFree(p));
    }
  });
  it('injects one wrong digit at the error rate, and the verified style revises it', () => {
    let wrong = 0,
      revised = 0;
    for (let i = 0; i < 200; i++) {
      const p = sampleProblem('add', 4, rng);
      const sys = writeTrace(p, 'systematic', rng, { errorRate: 1, verifyMiss: 0 });
      if (!isCorrect(p, parseTrace(sys.tokens))) wrong++;
      const ver = parseTrace(writeTrace(p, 'verified', rng, { errorRate: 1, verifyMiss: 0 }).tokens);
      if (ver.revisions.length === 1 && isCorrect(p, ver)) revised++;
    }
    assert.equal(wrong, 200);
    assert.equal(revised, 200);
  });
  it('writes traces that fit the context of 96 tokens', () => {
    for (const f of FAMILIES)
      for (const n of EVAL_GRID[f])
        for (const s of STYLES) {
          const p = sampleProblem(f, n, rng);
          assert.ok(
            promptTokens(p).length + writeTrace(p, s, rng, { errorRate: 1, verifyMiss: 0 }).tokens.length <= 96,
            `${f} ${n} ${s}`,
          );
        }
  });
});

describe('trace parser (property tests)', () => {
  const rng = makeRng(17);
  it('never throws on random token sequences and rejects almost all of them', () => {
    let ok = 0;
    for (let i = 0; i < 3000; i++) {
      const toks = Array.from({ length: rng.int(60) }, () => VOCAB[rng.int(VOCAB.length)]);
      const t = parseTrace(toks);
      if (t.terminated) ok++;
      else assert.ok(t.issues.length > 0, 'a non-terminated trace says why');
    }
    assert.ok(ok < 30, `${ok} random sequences parsed as complete traces`);
  });
  it('never throws on truncated teacher traces, and only the full trace terminates', () => {
    for (let i = 0; i < 200; i++) {
      const p = sampleProblem(FAMILIES[i % 4], 3, rng),
        toks = writeTrace(p, STYLES[i % 5], rng).tokens;
      for (let cut = 0; cut < toks.length; cut++) assert.equal(parseTrace(toks.slice(0, cut)).terminated, false);
      assert.equal(parseTrace(toks).terminated, true);
    }
  });
  it('encodes and decodes tokens', () => {
    const toks = promptTokens(solve('add', [12, 34]));
    assert.deepEqual(decode(encode(toks)), toks);
    assert.throws(() => encode(['nope']), /unknown token/);
  });
});

describe('evaluation sets', () => {
  it('match their committed checksums and regenerate identically from the seed', () => {
    const sums = fs
      .readFileSync(path.join(EVAL_DIR, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));
    assert.equal(sums.length, EVAL_CELLS.length);
    for (const { family: f, digits: n } of EVAL_CELLS) {
      const text = fs.readFileSync(evalFile(f, n), 'utf8');
      const want = sums.find(([, name]) => name === path.basename(evalFile(f, n)))![0];
      assert.equal(sha256(text), want, `${f}-${n} drifted from SHA256SUMS`);
      assert.equal(serialise(generateEvalSet(f, n)), text, `${f}-${n} no longer regenerates from its seed`);
      assert.equal(loadEvalSet(f, n).length, 100);
    }
  });
});
