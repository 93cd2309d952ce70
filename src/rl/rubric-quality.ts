// Rubric quality, the RewardBench-2 analogue of Table 2: on held-out preference pairs (a correct and an incorrect
// response to the same problem), how often does a reward source rank the correct one higher? A rubric source is
// read by the frozen judge (EvoLM's J: the weight-normalised sum of satisfied criteria, in [0, 1]); ties count 1/2.
import { sample, type Policy } from '../models/policy.js';
import type { Rng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import type { Family, Problem } from '../world/problems.js';
import { isCorrect, parseTrace, promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import type { Criterion } from '../rubrics/criteria.js';
import { referenceRubric, type Parsed } from '../rubrics/rubric.js';
import { normalisedScore } from '../rubrics/rewards.js';
import { writeRubrics } from './rubricator.js';

export interface PreferencePair {
  p: Problem;
  chosen: string[];
  rejected: string[];
}
export type BatchJudge = (items: { c: Criterion; p: Problem; completion: string[] }[]) => boolean[];

/**
 * Pairs from a policy's own samples on the evaluation sets (problems `offset`.. of every cell, all families
 * including the held-out one): for each problem with at least one correct and one incorrect of `samples` draws,
 * the first correct and the first incorrect.
 */
export function preferencePairs(
  policy: Policy,
  perCell: number,
  samples: number,
  rng: Rng,
  offset = 50,
): PreferencePair[] {
  const problems = (Object.keys(EVAL_GRID) as Family[]).flatMap((f) =>
    EVAL_GRID[f].flatMap((d) => loadEvalSet(f, d).slice(offset, offset + perCell)),
  );
  const prompts = problems.flatMap((p) => Array.from({ length: samples }, () => encode(promptTokens(p, 'reason'))));
  const outs: string[][] = [];
  for (let i = 0; i < prompts.length; i += 256)
    outs.push(...sample(policy, prompts.slice(i, i + 256), { maxNew: 96, temperature: 1, topP: 1 }, rng).map(decode));
  const pairs: PreferencePair[] = [];
  problems.forEach((p, k) => {
    const mine = outs.slice(k * samples, (k + 1) * samples);
    const good = mine.find((o) => isCorrect(p, parseTrace(o))),
      bad = mine.find((o) => !isCorrect(p, parseTrace(o)));
    if (good && bad) pairs.push({ p, chosen: good, rejected: bad });
  });
  return pairs;
}

/** Share of pairs ranked right (ties 1/2). */
export function pairwiseAccuracy(chosen: number[], rejected: number[]): number {
  if (chosen.length === 0) return NaN;
  return chosen.reduce((s, c, i) => s + (c > rejected[i] ? 1 : c === rejected[i] ? 0.5 : 0), 0) / chosen.length;
}

/** Judge scores J of the two responses of each pair under one rubric per pair (an unparsed rubric scores 0 for both). */
export function judgePairs(
  pairs: PreferencePair[],
  rubrics: Parsed[],
  judge: BatchJudge,
): { chosen: number[]; rejected: number[] } {
  const items = pairs.flatMap((pair, i) => {
    const r = rubrics[i];
    return r.ok
      ? r.rubric.items.flatMap((it) =>
          [pair.chosen, pair.rejected].map((completion) => ({ c: it.criterion, p: pair.p, completion })),
        )
      : [];
  });
  const ans = judge(items);
  let q = 0;
  const chosen: number[] = [],
    rejected: number[] = [];
  pairs.forEach((_, i) => {
    const r = rubrics[i];
    if (!r.ok) {
      chosen.push(0);
      rejected.push(0);
      return;
    }
    const a: boolean[] = [],
      b: boolean[] = [];
    for (let k = 0; k < r.rubric.items.length; k++) {
      a.push(ans[q++]);
      b.push(ans[q++]);
    }
    const pts = r.rubric.items.map((it) => it.points);
    chosen.push(normalisedScore(pts, a));
    rejected.push(normalisedScore(pts, b));
  });
  return { chosen, rejected };
}

/**
 * Rubric quality of a policy's rubricator: it reads one of its own CoTs for the problem (`reads` 'own_cot'), or the
 * question alone ('question', as EvoLM's question-reading generator writes), then writes the rubric.
 */
export function rubricatorQuality(
  writer: Policy,
  pairs: PreferencePair[],
  judge: BatchJudge,
  rng: Rng,
  reads: 'own_cot' | 'question' = 'own_cot',
): number {
  const cots =
    reads === 'question'
      ? pairs.map(() => [])
      : sample(
          writer,
          pairs.map((x) => encode(promptTokens(x.p, 'reason'))),
          { maxNew: 96, temperature: 1, topP: 1 },
          rng,
        ).map(decode);
  const rubrics = writeRubrics(
    writer,
    pairs.map((x) => x.p),
    cots,
    rng,
  ).map((w) => w.parsed);
  const s = judgePairs(pairs, rubrics, judge);
  return pairwiseAccuracy(s.chosen, s.rejected);
}

/** Rubric quality of the teacher's reference rubrics. */
export function teacherQuality(pairs: PreferencePair[], judge: BatchJudge): number {
  const s = judgePairs(
    pairs,
    pairs.map((x) => ({ ok: true as const, rubric: referenceRubric(x.p) })),
    judge,
  );
  return pairwiseAccuracy(s.chosen, s.rejected);
}
