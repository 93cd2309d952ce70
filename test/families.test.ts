// The registry of problem families (src/world/families.ts): it matches the hand list below and every list derived
// from it (evaluation grid, committed evaluation sets, training and held-out families, criteria operators, the cold
// start, figures and labels); every family it declares is internally consistent; an unknown family is refused by
// name in one line. A new family adds its entry to the registry and its row to REGISTERED here.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  EVAL_CELLS,
  EVAL_GRID,
  EXTRA_EVAL_CELLS,
  FAMILIES,
  FAMILY_OPS,
  HELD_OUT_FAMILIES,
  TRAIN_FAMILIES,
  checkFamily,
  familySpec,
  isHeldOut,
  passOp,
  type Family,
  type Op,
} from '../src/world/families.js';
import { answerWidth, passWidths, sampleProblem, solve, surfaceForm, type Problem } from '../src/world/problems.js';
import { EVAL_DIR, evalFile, loadEvalSet } from '../src/world/datasets.js';
import { checkWorldConfig, defaultWorld } from '../src/world/defaults.js';
import { writeTrace } from '../src/world/teacher.js';
import { parseTrace, promptTokens, isCorrect } from '../src/world/trace.js';
import { judge, opOf } from '../src/rubrics/criteria.js';
import { checkColdStartData, defaultColdStartData } from '../src/methods/trainers/coldstart.js';
import { PAIR_FAMILIES } from '../src/methods/tables/table1.js';
import { FAMILY_COLORS } from '../analysis/style.js';
import { LABELS } from '../analysis/docs.js';
import { makeRng } from '../src/util/random.js';

/** The registry by hand: operators, evaluation grid, cells beyond it, held out, cold-start hints. */
const REGISTERED: Record<string, { ops: Op[]; grid: number[]; extra: number[]; heldOut: boolean; hints: boolean }> = {
  add: { ops: ['+'], grid: [2, 3, 4, 5], extra: [6], heldOut: false, hints: true },
  sub: { ops: ['-'], grid: [2, 3, 4, 5], extra: [6], heldOut: false, hints: true },
  chain: { ops: ['+', '-'], grid: [2, 3, 4], extra: [5], heldOut: false, hints: false },
  chain_ood: { ops: ['-', '+'], grid: [2, 3, 4], extra: [], heldOut: true, hints: false },
};

/** The value of a problem's expression, left to right. */
const expressionValue = (f: Family, operands: number[]) =>
  FAMILY_OPS[f].reduce((v, op, i) => (op === '+' ? v + operands[i + 1] : v - operands[i + 1]), operands[0]);

describe('the registry of problem families', () => {
  it('declares the hand-listed families, in order, with their operators, grids, held-out and hint flags', () => {
    assert.deepEqual(FAMILIES, Object.keys(REGISTERED));
    for (const f of FAMILIES) {
      const s = familySpec(f),
        want = REGISTERED[f];
      assert.deepEqual(
        { ops: [...s.ops], grid: [...s.evalDigits], extra: [...s.extraEvalDigits], heldOut: s.heldOut },
        { ops: want.ops, grid: want.grid, extra: want.extra, heldOut: want.heldOut },
        f,
      );
      assert.equal(s.coldStartHints, want.hints, f);
    }
  });

  it('every derived list equals the registry', () => {
    assert.deepEqual(Object.keys(EVAL_GRID), [...FAMILIES]);
    for (const f of FAMILIES) {
      assert.deepEqual(EVAL_GRID[f], familySpec(f).evalDigits, `EVAL_GRID.${f}`);
      assert.deepEqual(FAMILY_OPS[f], familySpec(f).ops, `FAMILY_OPS.${f}`);
    }
    assert.deepEqual(
      EXTRA_EVAL_CELLS,
      FAMILIES.flatMap((family) => familySpec(family).extraEvalDigits.map((digits) => ({ family, digits }))),
    );
    assert.deepEqual(
      TRAIN_FAMILIES,
      FAMILIES.filter((f) => !familySpec(f).heldOut),
    );
    assert.deepEqual(
      HELD_OUT_FAMILIES,
      FAMILIES.filter((f) => familySpec(f).heldOut),
    );
    assert.ok(TRAIN_FAMILIES.length > 0 && HELD_OUT_FAMILIES.length > 0);
    // the world, the cold start and the tables read the same lists
    assert.deepEqual(defaultWorld.trainFamilies, TRAIN_FAMILIES);
    assert.deepEqual(defaultWorld.digits, EVAL_GRID);
    assert.deepEqual(defaultColdStartData.families, TRAIN_FAMILIES);
    assert.deepEqual(PAIR_FAMILIES, TRAIN_FAMILIES);
    // the analysis: one colour and one label per family
    assert.deepEqual(Object.keys(FAMILY_COLORS), [...FAMILIES]);
    assert.equal(new Set(Object.values(FAMILY_COLORS)).size, FAMILIES.length);
    for (const f of FAMILIES) assert.equal(LABELS[f], f);
    assert.deepEqual(
      FAMILIES.map((f) => isHeldOut(f)),
      FAMILIES.map((f) => familySpec(f).heldOut),
    );
    assert.equal(isHeldOut('mul'), false);
  });

  it('the committed evaluation sets are exactly the registry cells, in SHA256SUMS order', () => {
    const sums = fs
      .readFileSync(path.join(EVAL_DIR, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[1]);
    assert.deepEqual(
      sums,
      EVAL_CELLS.map((c) => path.basename(evalFile(c.family, c.digits))),
    );
    const files = fs.readdirSync(EVAL_DIR).filter((f) => f.endsWith('.jsonl'));
    assert.deepEqual(files.sort(), [...sums].sort());
  });

  it("the criteria judge each pass with the registry's operator (past the last, or none: the last)", () => {
    for (const f of FAMILIES) {
      const ops = familySpec(f).ops,
        p = { family: f } as Problem;
      ops.forEach((op, i) => {
        assert.equal(opOf(p, i), op, `${f} pass ${i}`);
        assert.equal(passOp(f, i), op);
      });
      for (const i of [-1, ops.length, ops.length + 3]) assert.equal(opOf(p, i), ops[ops.length - 1], `${f} ${i}`);
    }
  });

  it('every family is consistent: widths, operands, answers, prompts, teacher traces, criteria, surface forms', () => {
    const rng = makeRng(3);
    for (const f of FAMILIES) {
      const s = familySpec(f);
      for (const n of [1, 2, 3, 4, 5, 6]) {
        assert.deepEqual(passWidths(f, n), s.passWidths(n));
        assert.equal(passWidths(f, n).length, s.ops.length, `${f}: one width per pass`);
        assert.equal(answerWidth(f, n), s.answerWidth(n));
        for (let i = 0; i < 20; i++) {
          const p = sampleProblem(f, n, rng);
          assert.equal(p.operands.length, s.ops.length + 1, `${f}: one operand more than operators`);
          assert.equal(p.passes.length, s.ops.length);
          assert.equal(p.answer.length, s.answerWidth(n));
          assert.equal(Number(p.answer.join('')), expressionValue(f, p.operands), `${f} ${p.operands}`);
          const q = surfaceForm(p);
          assert.deepEqual(q.answer, p.answer);
          if (!s.commutes) assert.equal(q, p);
          const prompt = promptTokens(p);
          assert.deepEqual(
            prompt.filter((t) => t === '+' || t === '-'),
            [...s.ops],
          );
          const t = parseTrace(writeTrace(p, 'systematic', rng, { errorRate: 0, verifyMiss: 0 }).tokens);
          assert.ok(isCorrect(p, t), `${f}: the teacher's exact trace is right`);
          for (const name of ['CARRY', 'STEPOK', 'MATCH', 'ORDER'] as const)
            assert.ok(judge({ name, args: [] }, t, p), `${f} ${p.operands}: ${name} holds on the exact trace`);
        }
      }
    }
  });

  it('refuses an unknown family by name, in one line, everywhere a family is read', () => {
    const want = new RegExp(`^unknown family "mul" \\(known: ${Object.keys(REGISTERED).join(', ')}\\)$`);
    const mul = 'mul' as Family;
    const refused = (fn: () => unknown) =>
      assert.throws(fn, (e: Error) => e.name === 'ConfigError' && want.test(e.message) && !e.message.includes('\n'));
    refused(() => familySpec('mul'));
    refused(() => checkFamily('mul'));
    refused(() => sampleProblem(mul, 3, makeRng(0)));
    refused(() => solve(mul, [1, 2]));
    refused(() => passWidths(mul, 3));
    refused(() => answerWidth(mul, 3));
    refused(() => opOf({ family: mul } as Problem, 0));
    refused(() => loadEvalSet(mul, 3));
    refused(() => checkWorldConfig({ ...defaultWorld, trainFamilies: [mul] }));
    refused(() => checkColdStartData({ ...defaultColdStartData, families: [mul] }));
    assert.throws(() => familySpec('toString'), /unknown family "toString"/);
  });

  it('refuses a held-out family in RL training and in the cold start', () => {
    for (const f of HELD_OUT_FAMILIES) {
      assert.throws(
        () => checkWorldConfig({ ...defaultWorld, trainFamilies: [...TRAIN_FAMILIES, f] }),
        new RegExp(`^ConfigError: ${f} is held out of RL training$`),
      );
      assert.throws(
        () => checkColdStartData({ ...defaultColdStartData, families: [f] }),
        new RegExp(`${f} is held out of the cold-start mixture`),
      );
    }
  });
});
