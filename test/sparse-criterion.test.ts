// The clean instrument's sparse-regime criterion (src/rl/sparse-criterion.ts), by hand: which true steps a trace
// writes right, a cell's measures from two hand-written groups, each threshold just met and just missed, and the rule
// that picks the budget and the cells.
import { strict as assert } from 'node:assert';
import { solve } from '../src/world/problems.js';
import { parseTrace } from '../src/world/trace.js';
import { processScore } from '../src/world/process.js';
import {
  chooseSparseRegime,
  measureCell,
  SPARSE2_MAX_PASS,
  SPARSE2_MIN_FORMED,
  SPARSE2_MIN_STEP,
  sparseCriterion,
  stepCredits,
  stepSpans,
  knownStepAccuracy,
} from '../src/rl/sparse-criterion.js';
import { tf } from '../src/models/backend.js';
import type { Policy } from '../src/models/policy.js';
import type { SequenceBatch } from '../src/models/logprobs.js';
import { encode, V } from '../src/world/vocab.js';

// 47 + 85: column 0: 7 + 5 = 12 (digit 2, carry 1); column 1: 4 + 8 + 1 = 13 (digit 3, carry 1); answer 132
const add = solve('add', [47, 85]);
const tr = (s: string) => parseTrace(s.split(' '));
const RIGHT = 'C0 7 5 0 1 2 C1 4 8 1 1 3 A 1 3 2 <eos>';
const WRONG_C1 = 'C0 7 5 0 1 2 C1 4 8 1 1 2 A 1 2 2 <eos>'; // column 1's digit wrong
const SHORTCUT = 'A 1 3 2 <eos>'; // right, no step written
const TRUNCATED = 'C0 7 5 0 1 2 C1'; // column 0 right, then cut off
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} != ${b}`);

describe('sparse criterion: the steps a trace writes right', () => {
  it('credits a true step only when its first occurrence in its pass has all five fields right', () => {
    assert.deepEqual(stepCredits(add, tr(RIGHT)), [[true, true]]);
    assert.deepEqual(stepCredits(add, tr(WRONG_C1)), [[true, false]]);
    assert.deepEqual(stepCredits(add, tr(SHORTCUT)), [[false, false]]);
    assert.deepEqual(stepCredits(add, tr(TRUNCATED)), [[true, false]]);
    // a wrong first C0 is not rescued by a right repeat
    assert.deepEqual(stepCredits(add, tr('C0 7 5 0 0 2 C0 7 5 0 1 2 C1 4 8 1 1 3 A 1 3 2 <eos>')), [[false, true]]);
  });
  it('credits per pass: chain steps written in the wrong pass earn nothing', () => {
    // 12 + 34 - 25: pass 0 over 2 columns (46), pass 1 over 3 columns (046 - 025 = 021)
    const chain = solve('chain', [12, 34, 25]);
    const t = tr('C0 2 4 0 0 6 C1 1 3 0 0 4 | C0 6 5 0 0 1 C1 4 2 0 0 2 C2 0 0 0 0 0 A 0 2 1 <eos>');
    assert.deepEqual(stepCredits(chain, t), [
      [true, true],
      [true, true, true],
    ]);
    const swapped = tr('C0 6 5 0 0 1 | C0 2 4 0 0 6 A 0 2 1 <eos>');
    assert.deepEqual(stepCredits(chain, swapped), [
      [false, false],
      [false, false, false],
    ]);
  });
  it('agrees with the process score on how many true steps are right', () => {
    for (const s of [RIGHT, WRONG_C1, SHORTCUT, TRUNCATED]) {
      const n = stepCredits(add, tr(s))
        .flat()
        .filter((x) => x).length;
      assert.equal(n, processScore(add, tr(s)).correct, s);
    }
  });
});

describe('sparse criterion: a cell measured by hand', () => {
  // group 1: right, wrong C1, right shortcut, truncated (process 1, 1/2, 0, 1/2); group 2: two wrong shortcuts (0, 0)
  const m = measureCell([
    { problem: add, traces: [RIGHT, WRONG_C1, SHORTCUT, TRUNCATED].map(tr) },
    { problem: add, traces: ['A 1 3 3 <eos>', 'A 1 3 3 <eos>'].map(tr) },
  ]);
  it('pass, well-formed, step-writing and all-wrong shares', () => {
    assert.equal(m.groups, 2);
    assert.equal(m.samples, 6);
    close(m.pass, (2 / 4 + 0) / 2);
    close(m.wellFormed, 5 / 6);
    close(m.stepWriting, 3 / 6);
    close(m.allWrongGroups, 1 / 2);
  });
  it('per-column step accuracy over the step-writing traces, and over every trace', () => {
    // step-writing traces: RIGHT, WRONG_C1, TRUNCATED; C0 right in all three, C1 in RIGHT only
    assert.equal(m.stepAccuracy.length, 2);
    close(m.stepAccuracy[0], 1);
    close(m.stepAccuracy[1], 1 / 3);
    close(m.stepAccuracyAll[0], 3 / 6);
    close(m.stepAccuracyAll[1], 1 / 6);
  });
  it("the process score's mean and within-group spread", () => {
    close(m.processMean, (1 + 0.5 + 0 + 0.5 + 0 + 0) / 6);
    const sd1 = Math.sqrt((0.5 ** 2 + 0 + 0.5 ** 2 + 0) / 3); // sample SD of 1, 1/2, 0, 1/2 about 1/2
    close(m.processSdWithin, (sd1 + 0) / 2);
    close(m.processSpreadGroups, 1 / 2);
    close(m.processSdWithinAllWrong, 0);
  });
  it('a column no step-writing trace reached counts as unknown (0); no all-wrong group gives null', () => {
    const only = measureCell([{ problem: add, traces: [SHORTCUT, SHORTCUT].map(tr) }]);
    assert.deepEqual(only.stepAccuracy, [0, 0]);
    assert.equal(only.processSdWithinAllWrong, null);
    assert.equal(only.allWrongGroups, 0);
  });
});

describe('sparse criterion: the thresholds', () => {
  const base = { pass: 0.05, wellFormed: 0.5, stepAccuracy: [0.8, 0.95, null] };
  it('are 0.05, 0.8 and 0.5, each met at its value', () => {
    assert.deepEqual([SPARSE2_MAX_PASS, SPARSE2_MIN_STEP, SPARSE2_MIN_FORMED], [0.05, 0.8, 0.5]);
    assert.deepEqual(sparseCriterion(base), { meets: true, failed: [] });
  });
  it('a candidate just missing one threshold fails on that one alone', () => {
    assert.deepEqual(sparseCriterion({ ...base, pass: 0.0501 }).failed, ['pass']);
    assert.deepEqual(sparseCriterion({ ...base, stepAccuracy: [0.8, 0.7999, null] }).failed, ['step C1']);
    assert.deepEqual(sparseCriterion({ ...base, wellFormed: 0.4999 }).failed, ['well-formed']);
    assert.equal(sparseCriterion({ ...base, pass: 0.0501 }).meets, false);
  });
  it('every column counts, and a cell with no column fails', () => {
    assert.deepEqual(sparseCriterion({ ...base, stepAccuracy: [0.5, 0.9, 0.1] }).failed, ['step C0', 'step C2']);
    assert.deepEqual(sparseCriterion({ ...base, stepAccuracy: [null, null] }).failed, ['no columns']);
  });
});

describe('sparse criterion: the rule', () => {
  it('takes the largest budget with a cell meeting every threshold, and every such cell there', () => {
    const rows = [
      { budget: 3000, cell: 'add-7', meets: true },
      { budget: 3000, cell: 'chain-6', meets: true },
      { budget: 3500, cell: 'add-7', meets: false },
      { budget: 3500, cell: 'chain-6', meets: true },
      { budget: 3500, cell: 'sub-7', meets: true },
      { budget: 4000, cell: 'chain-6', meets: false },
    ];
    assert.deepEqual(chooseSparseRegime(rows), { budget: 3500, cells: ['chain-6', 'sub-7'] });
  });
  it('chooses nothing when no candidate meets the criterion', () => {
    assert.equal(chooseSparseRegime([{ budget: 4500, cell: 'chain-6', meets: false }]), null);
  });
});

describe('sparse criterion, amendment 2: each step given the right trace before it', () => {
  it('finds every true step of a systematic trace, pass by pass', () => {
    const t = 'C0 7 5 0 1 2 C1 4 8 1 1 3 | C0 2 1 0 0 3 A 1 3 <eos>'.split(' ');
    assert.deepEqual(stepSpans(t), [
      [
        [0, 6],
        [6, 12],
      ],
      [[13, 19]],
    ]);
  });

  // a model that puts probability q on the token that follows in its input (the teacher's next token) and spreads
  // the rest evenly: each 6-token step is written right with probability q^6, whatever came before
  const oracle = (q: number) =>
    ({
      forward: (b: SequenceBatch) =>
        tf.tidy(() => {
          const [B, T] = b.tokens.shape;
          const next = tf.concat([b.tokens.slice([0, 1], [B, T - 1]), tf.zeros([B, 1], 'int32')], 1);
          const lo = Math.log((1 - q) / (V - 1)),
            hi = Math.log(q);
          const logits = tf
            .oneHot(next as tf.Tensor2D, V)
            .toFloat()
            .mul(hi - lo)
            .add(lo);
          return { logits, values: tf.zeros([B, T, 3]) };
        }),
    }) as unknown as Policy;

  // a model whose probability of the next token depends on that token (0.5 + 0.04 x (id mod 10)): a step's known
  // probability is then the product over its own six tokens, and reading the wrong positions changes it
  const byToken = {
    forward: (b: SequenceBatch) =>
      tf.tidy(() => {
        const [B, T] = b.tokens.shape;
        const next = tf.concat([b.tokens.slice([0, 1], [B, T - 1]), tf.zeros([B, 1], 'int32')], 1) as tf.Tensor2D;
        const q = next.mod(10).toFloat().mul(0.04).add(0.5);
        const lo = tf.log(
            tf
              .scalar(1)
              .sub(q)
              .div(V - 1),
          ),
          hi = tf.log(q);
        const oh = tf.oneHot(next, V).toFloat();
        const logits = oh.mul(hi.sub(lo).expandDims(2)).add(lo.expandDims(2));
        return { logits, values: tf.zeros([B, T, 3]) };
      }),
  } as unknown as Policy;

  it('reads each step at its own six tokens (the product of their probabilities)', () => {
    const p = solve('add', [47, 85]);
    const qOf = (t: string) => 0.5 + 0.04 * (encode([t])[0] % 10);
    const step = (toks: string[]) => toks.reduce((a, t) => a * qOf(t), 1);
    const want = [step('C0 7 5 0 1 2'.split(' ')), step('C1 4 8 1 1 3'.split(' '))];
    const got = knownStepAccuracy(byToken, [p], 1);
    got.forEach((x, k) => assert.ok(x !== null && Math.abs(x - want[k]) < 1e-6, `column ${k}: ${x} != ${want[k]}`));
  });

  it('is q^6 per column for a model that knows each token with probability q', () => {
    const ps = [solve('add', [47, 85]), solve('add', [12, 30]), solve('sub', [93, 48])];
    for (const q of [0.9, 0.5]) {
      const k = knownStepAccuracy(oracle(q), ps, 2);
      assert.equal(k.length, 2);
      // float32 log-probs: equal to 1e-6
      for (const x of k) assert.ok(x !== null && Math.abs(x - q ** 6) < 1e-6, `${x} != ${q ** 6}`);
    }
  });
});
