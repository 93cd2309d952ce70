// The positive controls' exact process score (src/world/process.ts), by hand: a wrong carry, a wrong digit, a
// missing step, a repeated step, a wrong pass; the dense rewards' token positions; the reward functions; per-token
// rewards reaching GAE; the gzipped rollout log; a run's full evaluation at a horizon equal to a run of that length.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { solve } from '../src/world/problems.js';
import { parseTrace } from '../src/world/trace.js';
import { denseProcessRewards, processScore, stepEndPositions, traceFlaws } from '../src/world/process.js';
import { denseProcessOracleRewardFn, processOracleRewardFn } from '../src/methods/trainers/process-oracle.js';
import { roleAdvantages } from '../src/rl/ppo.js';
import { endpointsOf, processMetrics, scoreProblem, traceEndpointRows } from '../src/rl/evaluate.js';
import { appendGzipLines, readGzipLines } from '../src/io/gzip-lines.js';
import { encode } from '../src/world/vocab.js';
import type { ReasonerRollout } from '../src/rl/trainer.js';

// 47 + 38: column 0: 7 + 8 = 15 (digit 5, carry 1); column 1: 4 + 3 + 1 = 8 (digit 8, carry 0); answer 085
const add = solve('add', [47, 38]);
const tr = (s: string) => parseTrace(s.split(' '));
const score = (s: string, p = add) => processScore(p, tr(s)).score;

describe('process score', () => {
  it('is 1 for the true steps written once, right, in any order within a pass', () => {
    assert.equal(score('C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>'), 1);
    assert.equal(score('C1 4 3 1 0 8 C0 7 8 0 1 5 A 0 8 5 <eos>'), 1);
  });
  it('counts a wrong carry, a wrong carry-out or a wrong digit as a wrong step', () => {
    assert.equal(score('C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>'), 1 / 2); // the carry dropped into column 1
    assert.equal(score('C0 7 8 0 0 5 C1 4 3 1 0 8 A 0 8 5 <eos>'), 1 / 2); // carry-out not written
    assert.equal(score('C0 7 8 0 1 5 C1 4 3 1 0 9 A 0 9 5 <eos>'), 1 / 2); // wrong digit
    assert.equal(score('C0 7 8 0 1 5 C1 4 3 0 0 8 A 0 8 5 <eos>'), 1 / 2); // only the carry-in wrong
    assert.equal(score('C0 7 9 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>'), 1 / 2); // only the second input wrong
    assert.equal(score('C0 6 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>'), 1 / 2); // only the first input wrong
  });
  it('counts a missing step as wrong, and a shortcut (no steps) scores 0', () => {
    assert.equal(score('C0 7 8 0 1 5 A 0 8 5 <eos>'), 1 / 2);
    assert.equal(score('A 0 8 5 <eos>'), 0);
  });
  it('counts a repeated step as an extra, wrong step; only the first occurrence earns credit', () => {
    const s = processScore(add, tr('C0 7 8 0 1 5 C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>'));
    assert.deepEqual([s.correct, s.total, s.extra, s.score], [2, 2, 1, 2 / 3]);
    assert.deepEqual(s.credited, [true, false, true]);
    // a wrong first write is not rescued by a right repeat
    assert.equal(score('C0 7 8 0 1 4 C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>'), 1 / 3);
    // a column the problem does not have is extra
    assert.equal(score('C0 7 8 0 1 5 C1 4 3 1 0 8 C2 0 0 0 0 0 A 0 8 5 <eos>'), 2 / 3);
  });
  it('checks steps at the right pass: the second pass written first, or an extra pass, earns nothing', () => {
    // 45 + 78 - 99: pass 0 (45 + 78 = 123): C0 5 8 0 1 3, C1 4 7 1 1 2; pass 1 (123 - 099): C0 3 9 0 1 4, C1 2 9 1 1 2,
    // C2 1 0 1 0 0
    const chain = solve('chain', [45, 78, 99]);
    const p0 = 'C0 5 8 0 1 3 C1 4 7 1 1 2',
      p1 = 'C0 3 9 0 1 4 C1 2 9 1 1 2 C2 1 0 1 0 0';
    assert.equal(score(`${p0} | ${p1} A 0 2 4 <eos>`, chain), 1);
    assert.equal(score(`${p1} A 0 2 4 <eos>`, chain), 0); // pass 1's steps in pass 0: two wrong, one extra
    assert.equal(processScore(chain, tr(`${p1} A 0 2 4 <eos>`)).extra, 1);
    assert.equal(score(`${p0} A 1 2 3 <eos>`, chain), 2 / 5); // pass 1 missing
    assert.equal(score(`${p0} | ${p1} | C0 1 1 0 0 2 A 0 2 4 <eos>`, chain), 5 / 6); // a third pass is extra
  });
  it("puts dense rewards on each credited step's last token, summing to the score", () => {
    const chain = solve('chain', [45, 78, 99]);
    const good = tr('C0 5 8 0 1 3 C1 4 7 1 1 2 | C0 3 9 0 1 4 C1 2 9 1 1 2 C2 1 0 1 0 0 A 0 2 4 <eos>');
    assert.deepEqual(stepEndPositions(good), [5, 11, 18, 24, 30]); // '|' is token 12
    const d = denseProcessRewards(chain, good, 37);
    assert.deepEqual(
      d.map((v, i) => (v ? i : -1)).filter((i) => i >= 0),
      [5, 11, 18, 24, 30],
    );
    assert.ok(Math.abs(d.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(d[5], 1 / 5);
    // the wrong step (column 1 of pass 1) gets nothing; the repeat's token nothing
    const bad = tr('C0 5 8 0 1 3 C1 4 7 1 1 2 | C0 3 9 0 1 4 C1 2 9 1 1 3 C2 1 0 1 0 0 A 0 3 4 <eos>');
    const db = denseProcessRewards(chain, bad, 37);
    assert.equal(db[24], 0);
    assert.ok(Math.abs(db.reduce((a, b) => a + b, 0) - processScore(chain, bad).score) < 1e-12);
  });
});

describe('positive-control rewards', () => {
  const rollout = (s: string, label: boolean): ReasonerRollout => {
    const toks = s.split(' ');
    return {
      role: 'reason',
      group: 0,
      prompt: [],
      completion: encode(toks),
      problem: add,
      trace: parseTrace(toks),
      correct: label,
      label,
      reward: 0,
      components: {},
    };
  };
  const wrongCarry = 'C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>',
    right = 'C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>';
  it('process_oracle: the outcome of the training label plus the process score, on the last token', () => {
    const out = processOracleRewardFn()([rollout(wrongCarry, false), rollout(right, true)]);
    assert.deepEqual(
      out.map((o) => o.reward),
      [-1 + 0.5, 1 + 1],
    );
    assert.deepEqual(out[0].components, { outcome: -1, process: 0.5 });
    assert.equal(out[0].tokenRewards, undefined);
  });
  it("process_oracle_dense: the outcome on the last token, the steps' shares on their last tokens", () => {
    const [o] = denseProcessOracleRewardFn()([rollout(wrongCarry, false)]);
    assert.equal(o.reward, -1);
    assert.equal(o.tokenRewards!.length, 17);
    assert.deepEqual(o.tokenRewards!.map((v, i) => (v ? [i, v] : null)).filter(Boolean), [[5, 0.5]]);
    assert.deepEqual(o.components, { outcome: -1, process: 0.5 });
  });
  it("per-token rewards enter GAE beside the last token's reward (returns by hand, gamma = lambda = 1)", () => {
    const rs = [{ reward: 1, completion: [1, 2, 3, 4], tokenRewards: [0, 0.5, 0, 0] }];
    const [{ ret }] = roleAdvantages([{ rs, values: [[0, 0, 0, 0]], logp: [[0, 0, 0, 0]], refLogp: null }], {
      gamma: 1,
      lambda: 1,
      klCoef: 0,
    });
    assert.deepEqual(Array.from(ret[0]), [1.5, 1.5, 1, 1]);
    const [{ ret: plain }] = roleAdvantages(
      [{ rs: [{ reward: 1, completion: [1, 2, 3, 4] }], values: [[0, 0, 0, 0]], logp: [[0, 0, 0, 0]], refLogp: null }],
      { gamma: 1, lambda: 1, klCoef: 0 },
    );
    assert.deepEqual(Array.from(plain[0]), [1, 1, 1, 1]);
  });
});

describe('endpoints', () => {
  it('accuracy averages families; trace error, repeat rate and flaw rate are shares of the right answers', () => {
    const traces = [
      'C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>',
      'C0 7 8 0 1 5 C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>',
      'A 0 8 5 <eos>',
      'C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>',
    ].map(tr);
    const e = endpointsOf([{ family: 'add', res: [scoreProblem(add, traces)] }]);
    // three right answers (a perfect trace, a repeat, a shortcut): the shortcut misses both true steps (a trace
    // error), the repeat adds one (a repeat); either is a flaw (the committed campaign's trace_error)
    assert.equal(e.right_answers, 3);
    assert.equal(e.trace_error, 1 / 3);
    assert.equal(e.repeat_rate, 1 / 3);
    assert.equal(e.flaw_rate, 2 / 3);
    assert.equal(e.accuracy, 3 / 4);
    assert.equal(e.process_score, (1 + 2 / 3 + 0 + 1 / 2) / 4);
    const sub = solve('sub', [50, 1]);
    const e2 = endpointsOf([
      { family: 'add', res: [scoreProblem(add, traces)] },
      { family: 'sub', res: [scoreProblem(sub, [tr('A 0 0 <eos>')])] },
    ]);
    assert.equal(e2.accuracy, (3 / 4 + 0) / 2);
    const none = endpointsOf([{ family: 'sub', res: [scoreProblem(sub, [tr('A 0 0 <eos>')])] }]);
    assert.deepEqual([none.trace_error, none.repeat_rate, none.flaw_rate, none.right_answers], ['', '', '', 0]);
  });

  // 47 + 38 = 085: C0 7 8 0 1 5, C1 4 3 1 0 8 (the true steps)
  const crafted: [string, string, { wrongStep: boolean; extraStep: boolean }][] = [
    ['perfect', 'C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>', { wrongStep: false, extraStep: false }],
    ['repeated column', 'C0 7 8 0 1 5 C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>', { wrongStep: false, extraStep: true }],
    ['added column', 'C0 7 8 0 1 5 C1 4 3 1 0 8 C2 0 0 0 0 0 A 0 8 5 <eos>', { wrongStep: false, extraStep: true }],
    ['shortcut (steps missing)', 'A 0 8 5 <eos>', { wrongStep: true, extraStep: false }],
    ['one step missing', 'C1 4 3 1 0 8 A 0 8 5 <eos>', { wrongStep: true, extraStep: false }],
    ['wrong digit, right answer', 'C0 7 8 0 1 5 C1 4 3 1 0 9 A 0 8 5 <eos>', { wrongStep: true, extraStep: false }],
    // the carry dropped in C1, then C1 rewritten right: the first write counts, so both flaws
    [
      'wrong, then repeated right',
      'C0 7 8 0 1 5 C1 4 3 0 0 7 C1 4 3 1 0 8 A 0 8 5 <eos>',
      { wrongStep: true, extraStep: true },
    ],
  ];
  it('traceFlaws: a true step wrong or missing, a step repeated or added, both, neither (by hand)', () => {
    for (const [what, text, want] of crafted) {
      const s = processScore(add, tr(text));
      assert.deepEqual(traceFlaws(s), want, what);
      assert.equal(s.score < 1, want.wrongStep || want.extraStep, `${what}: a flaw is a process score below 1`);
    }
    assert.deepEqual(traceFlaws({ correct: 3, total: 3, extra: 0 }), { wrongStep: false, extraStep: false });
    assert.deepEqual(traceFlaws({ correct: 2, total: 3, extra: 0 }), { wrongStep: true, extraStep: false });
    assert.deepEqual(traceFlaws({ correct: 3, total: 3, extra: 2 }), { wrongStep: false, extraStep: true });
  });
  it('the split endpoints over crafted right answers: trace_error 4/7, repeat_rate 3/7, flaw_rate 6/7', () => {
    // the seven crafted traces all answer 085 (right); one wrong answer (085 -> 075) counts in no share
    const traces = [...crafted.map(([, text]) => tr(text)), tr('C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>')];
    const e = endpointsOf([{ family: 'add', res: [scoreProblem(add, traces)] }]);
    assert.equal(e.right_answers, 7);
    assert.equal(e.accuracy, 7 / 8);
    // wrong or missing: the shortcut, the missing step, the wrong digit and the wrong-then-repeated trace
    assert.equal(e.trace_error, 4 / 7);
    // repeated or added: the repeated column, the added column, the wrong-then-repeated trace
    assert.equal(e.repeat_rate, 3 / 7);
    // either: all but the perfect trace
    assert.equal(e.flaw_rate, 6 / 7);
    // the rows a run writes to endpoints.csv, in this order, over the right answers
    assert.deepEqual(traceEndpointRows(e, 'add-2'), [
      { endpoint: 'trace_error', value: 4 / 7, n: 7, cells: 'add-2' },
      { endpoint: 'repeat_rate', value: 3 / 7, n: 7, cells: 'add-2' },
      { endpoint: 'flaw_rate', value: 6 / 7, n: 7, cells: 'add-2' },
    ]);
  });
  it("the per-step process metrics of a step's reasoner rollouts: the same split, groups, a rubricator's left out", () => {
    const wrong = 'C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>';
    const ro = (text: string, group: number, role: 'reason' | 'rubric' = 'reason') => ({
      role,
      group,
      completion: encode(text.split(' ')),
      problem: add,
    });
    // group 0: the seven crafted right answers and a wrong one; group 1: two wrong answers; a rubricator's rollout
    const m = processMetrics([
      ...crafted.map(([, text]) => ro(text, 0)),
      ro(wrong, 0),
      ro(wrong, 1),
      ro(wrong, 1),
      ro('A 0 8 5 <eos>', 2, 'rubric'),
    ]);
    assert.equal(m['process/trace_error'], 4 / 7);
    assert.equal(m['process/repeat_rate'], 3 / 7);
    assert.equal(m['process/flaw_rate'], 6 / 7);
    // scores 1, 2/3, 2/3, 0, 1/2, 1/2, 1/3 (wrong C1 first: 1 of 2 true steps, 1 extra), then 1/2 x 3: 31/6 of 10
    assert.ok(Math.abs(m['process/score'] - 31 / 60) < 1e-12);
    assert.equal(m['process/all_wrong_groups'], 1 / 2);
    assert.equal(m['process/all_right_groups'], 0);
    const none = processMetrics([ro(wrong, 0)]);
    assert.ok(Number.isNaN(none['process/trace_error']) && Number.isNaN(none['process/repeat_rate']));
    assert.deepEqual(processMetrics([ro(wrong, 0, 'rubric')]), {});
  });
});

describe('gzipped rollout log', () => {
  it('appends members, reads them back whole, drops a torn last member', () => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gz-')), 'r.jsonl.gz');
    appendGzipLines(f, ['{"a":1}', '{"a":2}']);
    appendGzipLines(f, []);
    appendGzipLines(f, ['{"a":3}']);
    assert.deepEqual(readGzipLines(f), ['{"a":1}', '{"a":2}', '{"a":3}']);
    const whole = fs.readFileSync(f);
    appendGzipLines(f, ['{"a":4}']);
    fs.writeFileSync(f, fs.readFileSync(f).subarray(0, whole.length + 10));
    assert.deepEqual(readGzipLines(f), ['{"a":1}', '{"a":2}', '{"a":3}']);
  });
});

describe('horizons', function () {
  this.timeout(180_000);
  it("a run's full evaluation after step 1 of 2 is byte for byte a 1-step run's", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'horizon-'));
    const run = (steps: number) => {
      const out = path.join(root, `s${steps}`);
      const r = spawnSync(
        './node_modules/.bin/tsx',
        [
          'src/cli/table2-run.ts',
          '--method',
          'process_oracle_dense',
          '--profile',
          'smoke',
          '--steps',
          String(steps),
          '--horizons',
          '1',
          '--out',
          out,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stderr);
      return out;
    };
    const one = run(1),
      two = run(2);
    for (const t of ['eval', 'final', 'hints']) {
      assert.equal(
        fs.readFileSync(path.join(two, `${t}-1.csv`), 'utf8'),
        fs.readFileSync(path.join(one, `${t}.csv`), 'utf8'),
        t,
      );
    }
    assert.ok(!fs.existsSync(path.join(one, 'eval-1.csv')), 'no horizon table at the last step');
    assert.notEqual(
      fs.readFileSync(path.join(two, 'eval.csv'), 'utf8'),
      fs.readFileSync(path.join(one, 'eval.csv'), 'utf8'),
    );
  });
});
