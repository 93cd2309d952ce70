// analysis/evolm-spread.ts: the blocks, the onset, the separation and its chance, the per-seed rows and the split,
// by hand on made-up metrics lines.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import {
  blocksOf,
  chanceOfSeparation,
  MEASURES,
  onsetBlock,
  separates,
  spreadOf,
  summarise,
  type SeedRecord,
} from '../analysis/evolm-spread.js';
import { toCsv } from '../src/io/table.js';

/** A policy line (phase 0) and a generator line (phase 1) with the fields the summary reads. */
const pol = (step: number, accuracy: number, judge = 0.5, kl = 0.001) => ({
  step,
  policy_step: step,
  phase: 0,
  accuracy,
  probe_accuracy: accuracy,
  judge_score: judge,
  'policy/approx_kl': kl,
  'policy/frac_reward_zero_std': 0.25,
  format_rate: 1,
  criteria_per_rubric: 3,
  concrete_share: 0.5,
  mean_length: 6,
  'policy/clipfrac': 0,
  'policy/grad_norm': 1,
  response_length: 30,
});
const gen = (margin: number) => ({
  phase: 1,
  generator_reward: 0.3,
  margin,
  pair_accuracy: 0.5,
  format_rate: 0.9,
  'generator/approx_kl': 0.002,
  criteria_per_rubric: null, // no rubric parsed: the mean skips it
});

/** A run of blocks of two policy steps (accuracy `acc[b]` in block b) and two generator steps (margin `m`). */
const runOf = (acc: number[], m: number, kl = 0.001) =>
  acc.flatMap((a, b) => [pol(2 * b + 1, a, 0.5, kl), pol(2 * b + 2, a, 0.5, kl), gen(m), gen(m)]);

describe("EvoLM's spread under the exact judge (analysis/evolm-spread.ts)", () => {
  it('groups the lines into alternation blocks: the policy steps and the generator steps after them', () => {
    const b = blocksOf(runOf([0.5, 0.6], 0.1));
    assert.equal(b.length, 2);
    assert.deepEqual(
      b.map((x) => [x.policy.length, x.generator.length]),
      [
        [2, 2],
        [2, 2],
      ],
    );
    assert.deepEqual(
      b[1].policy.map((l) => l.policy_step),
      [3, 4],
    );
  });

  it('dates the onset to the first block from which accuracy stays below the first block', () => {
    assert.equal(onsetBlock([0.5, 0.6, 0.4, 0.3]), 2);
    assert.equal(onsetBlock([0.5, 0.4, 0.6, 0.3]), 3); // block 1 dips, block 2 recovers: the fall starts at 3
    assert.equal(onsetBlock([0.5, 0.6, 0.7]), null);
    assert.equal(onsetBlock([0.5, 0.5]), null); // equal is not below
  });

  it('says when the collapsed seeds lie on one side, and how often a random labelling would do so', () => {
    assert.equal(separates([1, 2], [3]), true);
    assert.equal(separates([3, 4], [2]), true);
    assert.equal(separates([1, 3], [2]), false);
    assert.equal(separates([2], [2]), false);
    // 2 of the C(n, k) labellings put the k collapsed seeds lowest or highest
    assert.equal(chanceOfSeparation(1, 2), 2 / 3);
    assert.equal(chanceOfSeparation(2, 2), 2 / 6);
    assert.equal(chanceOfSeparation(3, 3), 2 / 20);
    assert.equal(chanceOfSeparation(1, 1), 1);
    assert.ok(Number.isNaN(chanceOfSeparation(0, 3)));
  });

  it("correlates the step's mean J with its accuracy over a span", () => {
    const f = MEASURES.judge_accuracy_corr;
    // J 0, 1, 2 against accuracy 0, 2, 1: deviations (-1, 0, 1) and (-1, 1, 0): 1 / sqrt(2 x 2) = 0.5
    assert.equal(f([pol(1, 0, 0), pol(2, 2, 1), pol(3, 1, 2)], []), 0.5);
    assert.equal(f([pol(1, 0.3, 0.1), pol(2, 0.2, 0.2), pol(3, 0.1, 0.3)], []), -1);
    assert.ok(Number.isNaN(f([pol(1, 0.3, 0.1), pol(2, 0.3, 0.2)], []))); // constant accuracy: none
  });

  it('summarises each seed per block, before the onset and over the run, and splits by outcome', () => {
    const seed = (s: number, acc: number[], m: number, kl: number, start: number, final: number): SeedRecord => ({
      seed: s,
      blocks: blocksOf(runOf(acc, m, kl)),
      startAverage: start,
      finalAverage: final,
      finalMalformed: 0.02,
    });
    const { rows, split } = summarise('x', [
      seed(0, [0.5, 0.6, 0.6, 0.7], 0.08, 0, 0.4, 0.5), // held: ends above its start
      seed(1, [0.5, 0.6, 0.4, 0.3], 0.02, 0.004, 0.4, 0.2), // collapsed from block 2 (policy steps 5-6)
    ]);
    const row = (s: number, w: string) => rows.find((r) => r.seed === s && r.window === w)!;
    assert.deepEqual(
      rows.filter((r) => r.seed === 1).map((r) => `${r.window}:${r.policy_steps}`),
      ['1:1-2', '2:3-4', '3:5-6', '4:7-8', 'early:1-4', 'all:1-8'],
    );
    assert.equal(row(1, 'all').outcome, 'collapsed');
    assert.equal(row(1, 'all').onset_policy_step, '5');
    assert.equal(row(0, 'all').outcome, 'held');
    assert.equal(row(0, 'all').onset_policy_step, '');
    // early = blocks 1 and 2: accuracy (0.5 + 0.5 + 0.6 + 0.6) / 4, the KL summed over 4 steps
    assert.equal(row(1, 'early').accuracy, 0.55);
    assert.equal(row(1, 'early').policy_kl_sum, 0.016);
    assert.equal(row(1, 'early').separation, 0.02);
    assert.equal(row(1, 'early').generator_kl_sum, 0.008);
    assert.equal(row(1, 'early').criteria_per_rubric, 3); // the generator's null is not the policy's
    assert.equal(row(1, 'all').accuracy, 0.45);
    const at = (w: string, m: string) => split.find((r) => r.window === w && r.measure === m)!;
    assert.equal(at('3', 'accuracy').held_mean, 0.6);
    assert.equal(at('3', 'accuracy').collapsed_mean, 0.4);
    assert.equal(at('3', 'accuracy').collapsed_minus_held, -0.2);
    assert.equal(at('3', 'accuracy').separates, 'yes');
    assert.equal(at('3', 'accuracy').chance, 1); // one seed each: any difference separates
    assert.equal(at('early', 'response_length').separates, 'no'); // equal values
  });

  it('recomputes the committed tables from the committed records, byte for byte (as make verify-results)', () => {
    const { rows, split } = spreadOf('results/runs/table2/full/S/evolm_oracle_judge', 'evolm_oracle_judge');
    assert.equal(toCsv(rows), fs.readFileSync('results/evolm/oracle_spread.csv', 'utf8'));
    assert.equal(toCsv(split), fs.readFileSync('results/evolm/oracle_spread_split.csv', 'utf8'));
  });
});
