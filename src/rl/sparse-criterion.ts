// The clean instrument's sparse regime, chosen on the cold start alone (results/sensitivity2/sparse-criterion.md):
// a regime where the outcome is sparse because errors compound over many steps the cold start knows, not because a
// column is unseen. From a cold start's sampled groups on a candidate training cell this measures the per-sample
// pass rate, the per-step accuracy of every column the cell has, the well-formed share, the share of all-wrong groups
// and the process score's spread within a group; `sparseCriterion` applies the thresholds and `chooseSparseRegime`
// the rule that picks the budget and cells. No accuracy of a trained policy enters.
import type { Problem } from '../world/problems.js';
import type { ParsedTrace } from '../world/trace.js';
import { isCorrect } from '../world/trace.js';
import { processScore } from '../world/process.js';
import { mean, sampleSd } from '../util/stats.js';
import { makeRng } from '../util/random.js';
import { writeTrace } from '../world/teacher.js';
import { promptTokens } from '../world/trace.js';
import { encode } from '../world/vocab.js';
import { tf } from '../models/backend.js';
import type { Policy } from '../models/policy.js';
import { disposeSequenceBatch, makeSequenceBatch, tokenLogProbs } from '../models/logprobs.js';

/** The thresholds: per-sample pass at most this... */
export const SPARSE2_MAX_PASS = 0.05;
/** ...per-step accuracy at least this on every column of the cell... */
export const SPARSE2_MIN_STEP = 0.8;
/** ...and at least this share of well-formed (terminated) traces. */
export const SPARSE2_MIN_FORMED = 0.5;

/**
 * Per true step of p, whether trace t writes it correctly: out[i][k] for pass i, column k. The same credit as
 * processScore: the first step of column k in the trace's pass i, with x, y, cin, cout and d all equal to the truth;
 * a missing step is not credited.
 */
export function stepCredits(p: Problem, t: Pick<ParsedTrace, 'passes'>): boolean[][] {
  return p.passes.map((truth, i) => {
    const out = truth.map(() => false),
      seen = new Set<number>();
    for (const s of t.passes[i] ?? []) {
      const want = truth[s.k];
      if (!want || seen.has(s.k)) continue;
      seen.add(s.k);
      out[s.k] = s.x === want.x && s.y === want.y && s.cin === want.cin && s.cout === want.cout && s.d === want.d;
    }
    return out;
  });
}

/** One group: a problem and its sampled traces (a cold start's rollouts of one prompt). */
export interface SampledGroup {
  problem: Problem;
  traces: ParsedTrace[];
}

export interface CellMeasures {
  groups: number;
  samples: number;
  /** mean share of correct traces per group (avg@n, the per-sample pass) */
  pass: number;
  /** share of traces that end well formed (the answer then <eos>) */
  wellFormed: number;
  /** share of traces that write at least one column step (not a shortcut) */
  stepWriting: number;
  /**
   * per column k (0 = least significant), the share of the cell's true steps at column k, over every pass, that the
   * step-writing traces write correctly (a missing step counts wrong); null where the cell has no column k.
   * A trace with no step at all (a shortcut) is left out: it shows a style, not whether the step is known
   */
  stepAccuracy: (number | null)[];
  /** the same over every trace, shortcuts counting as every step wrong (reported, not in the criterion) */
  stepAccuracyAll: (number | null)[];
  /** share of groups none of whose traces is correct */
  allWrongGroups: number;
  /** mean process score over every trace */
  processMean: number;
  /** mean over groups of the sample SD of the group's process scores */
  processSdWithin: number;
  /** share of groups whose process scores are not all equal */
  processSpreadGroups: number;
  /** processSdWithin over the all-wrong groups only (null when there is none) */
  processSdWithinAllWrong: number | null;
}

/** The measures of one cell from its sampled groups (every group needs at least one trace). */
export function measureCell(groups: readonly SampledGroup[]): CellMeasures {
  if (groups.length === 0) throw new Error('measureCell needs at least one group');
  const columns = Math.max(...groups.map((g) => Math.max(...g.problem.passes.map((c) => c.length))));
  const hit = new Array<number>(columns).fill(0),
    tot = new Array<number>(columns).fill(0),
    hitAll = new Array<number>(columns).fill(0),
    totAll = new Array<number>(columns).fill(0);
  const passes: number[] = [],
    sds: number[] = [],
    sdsWrong: number[] = [],
    scores: number[] = [];
  let formed = 0,
    writing = 0,
    samples = 0,
    allWrong = 0,
    spread = 0;
  for (const { problem, traces } of groups) {
    if (traces.length === 0) throw new Error('a group has no traces');
    let correct = 0;
    const own = traces.map((t) => processScore(problem, t).score);
    for (const t of traces) {
      samples++;
      if (isCorrect(problem, t)) correct++;
      if (t.terminated) formed++;
      const writes = t.passes.some((s) => s.length > 0);
      if (writes) writing++;
      stepCredits(problem, t).forEach((cols) =>
        cols.forEach((ok, k) => {
          totAll[k]++;
          hitAll[k] += +ok;
          if (writes) {
            tot[k]++;
            hit[k] += +ok;
          }
        }),
      );
    }
    passes.push(correct / traces.length);
    scores.push(...own);
    const sd = traces.length > 1 ? sampleSd(own) : 0;
    sds.push(sd);
    if (own.some((s) => s !== own[0])) spread++;
    if (correct === 0) {
      allWrong++;
      sdsWrong.push(sd);
    }
  }
  // a column the cell has but no step-writing trace reached is not known: accuracy 0
  const acc = (h: number[], n: number[]) => n.map((x, k) => (x === 0 ? (totAll[k] === 0 ? null : 0) : h[k] / x));
  return {
    groups: groups.length,
    samples,
    pass: mean(passes),
    wellFormed: formed / samples,
    stepWriting: writing / samples,
    stepAccuracy: acc(hit, tot),
    stepAccuracyAll: acc(hitAll, totAll),
    allWrongGroups: allWrong / groups.length,
    processMean: mean(scores),
    processSdWithin: mean(sds),
    processSpreadGroups: spread / groups.length,
    processSdWithinAllWrong: sdsWrong.length ? mean(sdsWrong) : null,
  };
}

/** The criterion on one cell: every threshold met, and the name of each one missed. */
export function sparseCriterion(m: Pick<CellMeasures, 'pass' | 'wellFormed' | 'stepAccuracy'>): {
  meets: boolean;
  failed: string[];
} {
  const failed: string[] = [];
  if (!(m.pass <= SPARSE2_MAX_PASS)) failed.push('pass');
  const cols = m.stepAccuracy.flatMap((a, k) => (a === null ? [] : [{ a, k }]));
  if (cols.length === 0) failed.push('no columns');
  for (const { a, k } of cols) if (!(a >= SPARSE2_MIN_STEP)) failed.push(`step C${k}`);
  if (!(m.wellFormed >= SPARSE2_MIN_FORMED)) failed.push('well-formed');
  return { meets: failed.length === 0, failed };
}

/**
 * The rule: the largest SFT budget at which at least one candidate cell meets the criterion; the regime trains on
 * every cell that meets it at that budget (in the order given). Null when no budget has one.
 */
export function chooseSparseRegime<C>(
  rows: readonly { budget: number; cell: C; meets: boolean }[],
): { budget: number; cells: C[] } | null {
  const ok = rows.filter((r) => r.meets);
  if (ok.length === 0) return null;
  const budget = Math.max(...ok.map((r) => r.budget));
  return { budget, cells: ok.filter((r) => r.budget === budget).map((r) => r.cell) };
}

/**
 * Where each true step of an error-free systematic trace lies in its tokens: out[i][k] = [start, end) of pass i's
 * column k (a step is `C<k> x y cin cout d`; passes are split by `|`).
 */
export function stepSpans(tokens: readonly string[]): [number, number][][] {
  const out: [number, number][][] = [[]];
  tokens.forEach((t, j) => {
    if (t === '|') out.push([]);
    else if (/^C\d+$/.test(t)) out[out.length - 1][Number(t.slice(1))] = [j, j + 6];
  });
  return out;
}

/**
 * Whether the cold start knows each step, apart from what it wrote before (amendment 2): per column k, the mean over
 * the problems' true steps at column k (every pass) of the probability that sampling at temperature 1 writes the step
 * exactly, given the teacher's error-free systematic trace before it (teacher forcing). Free-running per-step accuracy
 * (`measureCell`) compares each written step with the truth, so one early wrong carry makes every later step wrong:
 * it compounds by construction. This does not.
 */
export function knownStepAccuracy(policy: Policy, problems: readonly Problem[], batch = 64): (number | null)[] {
  const traces = problems.map((p) => writeTrace(p, 'systematic', makeRng(0), { errorRate: 0, verifyMiss: 0 }).tokens);
  const columns = Math.max(...problems.map((p) => Math.max(...p.passes.map((c) => c.length))));
  const sum = new Array<number>(columns).fill(0),
    n = new Array<number>(columns).fill(0);
  for (let i = 0; i < problems.length; i += batch) {
    const ps = problems.slice(i, i + batch),
      ts = traces.slice(i, i + batch);
    const sb = makeSequenceBatch(
      ps.map((p) => encode(promptTokens(p, 'reason'))),
      ts.map((t) => encode(t)),
    );
    const logp = tf.tidy(() => tokenLogProbs(policy, sb, 0, false).logp.arraySync() as number[][]);
    ps.forEach((p, b) =>
      stepSpans(ts[b]).forEach((pass, pi) =>
        pass.forEach(([s, e], k) => {
          if (!p.passes[pi]?.[k]) return;
          let lp = 0;
          for (let j = s; j < e; j++) lp += logp[b][sb.start[b] + j];
          sum[k] += Math.exp(lp);
          n[k]++;
        }),
      ),
    );
    disposeSequenceBatch(sb);
  }
  return n.map((x, k) => (x === 0 ? null : sum[k] / x));
}
