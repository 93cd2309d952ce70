// analysis/trace-split.ts on a small records tree, by hand: what each group of records holds, the split of logged
// training rollouts (47 + 38's crafted traces: a true step wrong or missing, a step repeated or added, either), and the
// paired proxy against RLVR (the committed trace error and eval.csv's redundant share).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendGzipLines } from '../src/io/gzip-lines.js';
import { writeCsv } from '../src/io/table.js';
import { splitCounts, traceSplitTables } from '../analysis/trace-split.js';

// 47 + 38 = 085: the true steps C0 7 8 0 1 5, C1 4 3 1 0 8
const T = {
  perfect: 'C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>',
  repeated: 'C0 7 8 0 1 5 C0 7 8 0 1 5 C1 4 3 1 0 8 A 0 8 5 <eos>',
  added: 'C0 7 8 0 1 5 C1 4 3 1 0 8 C2 0 0 0 0 0 A 0 8 5 <eos>',
  shortcut: 'A 0 8 5 <eos>',
  wrongThenRepeated: 'C0 7 8 0 1 5 C1 4 3 0 0 7 C1 4 3 1 0 8 A 0 8 5 <eos>',
  wrongAnswer: 'C0 7 8 0 1 5 C1 4 3 0 0 7 A 0 7 5 <eos>',
};
const right = (t: string) => t !== T.wrongAnswer;

function record(
  root: string,
  method: string,
  seed: number,
  o: {
    te: number;
    redundant: [number, number];
    rollouts?: Record<number, string[]>;
    split?: boolean;
    metrics?: boolean;
  },
) {
  const dir = path.join(root, 'S-baseline', 'S', method, 'baseline', `seed-${seed}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'done.json'), '{}');
  const ep = (endpoint: string, value: number) => ({
    method,
    size: 'S',
    seed,
    step: 60,
    endpoint,
    value,
    n: 10,
    cells: 'add-2 add-3',
  });
  writeCsv(path.join(dir, 'endpoints.csv'), [
    ep('in_distribution', 0.9),
    ep('trace_error', o.te),
    ...(o.split ? [ep('repeat_rate', 0.1), ep('flaw_rate', 0.2)] : []),
  ]);
  writeCsv(path.join(dir, 'eval.csv'), [
    { family: 'add', difficulty: 2, style_redundant: o.redundant[0] },
    { family: 'add', difficulty: 3, style_redundant: o.redundant[1] },
    { family: 'sub', difficulty: 2, style_redundant: 0.9 }, // not an in-distribution cell here
  ]);
  if (o.metrics) fs.writeFileSync(path.join(dir, 'metrics.jsonl'), '{"step":1,"process/trace_error":0.5}\n');
  for (const [step, ts] of Object.entries(o.rollouts ?? {}))
    appendGzipLines(
      path.join(dir, 'rollouts.jsonl.gz'),
      ts.map((t) =>
        JSON.stringify({ step: Number(step), group: 0, problem: 'add 47 38', completion: t, correct: right(t) }),
      ),
    );
}

describe('trace error, split, from the committed records (analysis/trace-split.ts)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-split-'));
  record(root, 'rlvr', 0, { te: 0.2, redundant: [0.1, 0.3], metrics: true });
  record(root, 'rlvr', 1, { te: 0.3, redundant: [0.25, 0.35] });
  record(root, 'process_oracle', 0, {
    te: 0.05,
    redundant: [0.05, 0.07],
    rollouts: { 0: [T.perfect, T.repeated, T.shortcut, T.wrongAnswer], 50: [T.perfect, T.perfect] },
  });
  record(root, 'process_oracle', 1, {
    te: 0.1,
    redundant: [0.1, 0.12],
    rollouts: { 0: [T.perfect, T.wrongThenRepeated], 50: [T.added, T.perfect] },
  });
  record(root, 'rlcer', 0, { te: 0.2, redundant: [0.2, 0.2], split: true });
  fs.mkdirSync(path.join(root, 'S-baseline', 'S', 'rlcer', 'baseline', 'seed-1')); // unfinished: not read
  const t = traceSplitTables(root);

  it('splitCounts: right answers, a true step wrong or missing, a step repeated or added, either', () => {
    const c = (ts: string[]) => splitCounts(ts.map((completion) => ({ problem: 'add 47 38', completion })));
    assert.deepEqual(c(Object.values(T)), { right: 5, wrong: 2, extra: 3, flawed: 4 });
    assert.deepEqual(c([T.wrongAnswer]), { right: 0, wrong: 0, extra: 0, flawed: 0 });
    assert.throws(
      () => splitCounts([{ problem: 'add 47 38', completion: T.perfect, correct: false }]),
      /logged correct false, the world says true/,
    );
  });

  it('records: what each group holds, and where the split can come from', () => {
    const by = Object.fromEntries(t.records.map((r) => [r.method, r]));
    assert.deepEqual(Object.keys(by).sort(), ['process_oracle', 'rlcer', 'rlvr']);
    assert.deepEqual(
      [by.rlvr.records, by.rlvr.split_endpoints, by.rlvr.training_rollouts, by.rlvr.process_metrics, by.rlvr.split],
      [2, 0, 0, 1, 'none: aggregates only'],
    );
    assert.equal(by.rlvr.horizons, '60');
    assert.equal(by.rlvr.evaluation_traces, 0);
    assert.deepEqual(
      [by.process_oracle.training_rollouts, by.process_oracle.rollout_steps, by.process_oracle.split],
      [2, '0-50 every 50', 'training rollouts only (exploratory)'],
    );
    assert.deepEqual([by.rlcer.records, by.rlcer.split_endpoints, by.rlcer.split], [1, 1, 'endpoints']);
  });

  it('rollouts: the cold start and the last logged step before the horizon, mean over seeds (by hand)', () => {
    const at = (step: number, measure: string) =>
      t.rollouts.find((r) => r.method === 'process_oracle' && r.step === step && r.measure === measure)!;
    // step 0: seed 0 right = perfect, repeated, shortcut (wrong 1, extra 1, flawed 2 of 3); seed 1 right = perfect,
    // wrong-then-repeated (wrong 1, extra 1, flawed 1 of 2)
    const close = (a: unknown, b: number) => assert.ok(Math.abs(Number(a) - b) < 1e-12, `${a} != ${b}`);
    close(at(0, 'trace_error').mean, (1 / 3 + 1 / 2) / 2);
    close(at(0, 'repeat_rate').mean, (1 / 3 + 1 / 2) / 2);
    close(at(0, 'flaw_rate').mean, (2 / 3 + 1 / 2) / 2);
    close(at(0, 'wrong_share_of_flawed').mean, (1 / 2 + 1) / 2);
    assert.deepEqual([at(0, 'trace_error').seeds, at(0, 'trace_error').right_answers], [2, 5]);
    // step 50: seed 0 two perfect traces (no flaw: no wrong share); seed 1 an added column and a perfect trace
    close(at(50, 'trace_error').mean, 0);
    close(at(50, 'repeat_rate').mean, 1 / 4);
    close(at(50, 'flaw_rate').mean, 1 / 4);
    assert.deepEqual([at(50, 'wrong_share_of_flawed').seeds, at(50, 'wrong_share_of_flawed').mean], [1, 0]);
    assert.equal(at(50, 'wrong_share_of_flawed').ci_low, '');
    assert.equal(t.rollouts.filter((r) => r.method !== 'process_oracle').length, 0);
  });

  it('proxy: each arm minus RLVR by seed on the committed trace error and the redundant share', () => {
    const p = (comparison: string, measure: string) =>
      t.proxy.find((r) => r.comparison === comparison && r.measure === measure)!;
    // flaw: 0.05 - 0.2, 0.1 - 0.3; redundant (mean of add-2, add-3): 0.06 - 0.2, 0.11 - 0.3
    const close = (a: unknown, b: number) => assert.ok(Math.abs(Number(a) - b) < 1e-12, `${a} != ${b}`);
    const f = p('process_oracle_minus_rlvr', 'flaw_rate'),
      r = p('process_oracle_minus_rlvr', 'redundant_share');
    close(f.delta, -0.175);
    close(f.arm_mean, 0.075);
    close(f.rlvr_mean, 0.25);
    close(r.delta, -0.165);
    // differences 0.05 apart: sd 0.05 / sqrt 2, half-width t_{0.975,1} sd / sqrt 2 = 12.706204736174694 x 0.025
    close(f.ci_high, -0.175 + 12.706204736174694 * 0.025);
    close(r.ci_low, -0.165 - 12.706204736174694 * 0.025);
    assert.equal(f.seeds, 2);
    // RLCER: one seed paired (seed 1 unfinished): no interval
    const one = p('rlcer_minus_rlvr', 'flaw_rate');
    assert.deepEqual([one.seeds, one.delta, one.ci_low], [1, 0, '']);
    assert.equal(t.proxy.filter((x) => x.comparison === 'rlvr_minus_rlvr').length, 0);
  });
});
