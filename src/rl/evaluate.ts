// Evaluation: sample n completions per problem and report avg@n (the pass@1 estimate), unbiased pass@k,
// maj@k and the share of each CoT style.
import type { Rng } from '../util/random.js';
import { sample, type Policy } from '../models/policy.js';
import type { Problem } from '../world/problems.js';
import { answerOf, isCorrect, parseTrace, promptTokens, type ParsedTrace } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { judge } from '../rubrics/criteria.js';
import { choose } from '../theory/binomial.js';
import { majorityVote } from '../theory/tabular.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import { processScore, traceFlaws } from '../world/process.js';
import type { Family } from '../world/problems.js';
import type { Row } from '../io/table.js';
import type { Rollout } from './rollout.js';
import { mean } from '../util/stats.js';

/** Unbiased pass@k from c correct out of n samples: 1 - C(n-c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} samples (got ${n})`);
  if (n - c < k) return 1;
  return 1 - choose(n - c, k) / choose(n, k);
}

/** Majority-vote correctness over answers (null = no answer, which never wins a vote against an answer). */
export function majCorrect(answers: (string | null)[], truth: string): boolean {
  return majorityAnswer(answers) === truth;
}

/** The plurality answer among the non-null ones, ties going to the answer seen first; null when there is none. */
export function majorityAnswer(answers: (string | null)[]): string | null {
  const given = answers.filter((a): a is string => a !== null);
  if (given.length === 0) return null;
  const ids = [...new Set(given)];
  return ids[
    majorityVote(
      given.map((a) => ids.indexOf(a)),
      ids.length,
    )
  ];
}

export type TraceStyle = 'shortcut' | 'verified' | 'redundant' | 'sloppy' | 'systematic' | 'malformed';

/** Which style a trace looks like, judged from its content (not from how it was produced). */
export function classifyStyle(t: ParsedTrace, p: Problem): TraceStyle {
  if (!t.terminated) return 'malformed';
  if (t.passes.length === 0) return 'shortcut';
  if (t.verify !== null) return 'verified';
  if (judge({ name: 'REPEAT', args: [] }, t, p)) return 'redundant';
  if (!judge({ name: 'CARRY', args: [] }, t, p)) return 'sloppy';
  return 'systematic';
}

export interface ProblemResult {
  problem: Problem;
  correct: number;
  samples: number;
  maj: boolean;
  styles: Record<string, number>;
  traces: ParsedTrace[];
}

/** Sample n completions per problem (batched) and score them. */
export function evaluateReasoner(
  policy: Policy,
  problems: Problem[],
  n: number,
  rng: Rng,
  temperature = 1,
  batchRows = 256,
  promptOf: (p: Problem, i: number) => number[] = (p) => encode(promptTokens(p, 'reason')),
): ProblemResult[] {
  const prompts = problems.flatMap((p, i) => Array.from({ length: n }, () => promptOf(p, i)));
  const outs: number[][] = [];
  for (let i = 0; i < prompts.length; i += batchRows) {
    outs.push(...sample(policy, prompts.slice(i, i + batchRows), { maxNew: 96, temperature, topP: 1 }, rng));
  }
  return problems.map((p, j) =>
    scoreProblem(
      p,
      outs.slice(j * n, (j + 1) * n).map((o) => parseTrace(decode(o))),
    ),
  );
}

/** One problem's sampled traces scored: how many are correct, whether the majority answer is, each style's count. */
export function scoreProblem(problem: Problem, traces: ParsedTrace[]): ProblemResult {
  const styles: Record<string, number> = {};
  let correct = 0;
  for (const t of traces) {
    if (isCorrect(problem, t)) correct++;
    const s = classifyStyle(t, problem);
    styles[s] = (styles[s] ?? 0) + 1;
  }
  const maj = majCorrect(traces.map(answerOf), problem.answer.join(''));
  return { problem, correct, samples: traces.length, maj, styles, traces };
}

/**
 * Accuracy table on the committed evaluation sets: the first `perCell` problems of every (family, digits)
 * cell, `n` samples each. One row per cell: avg@n, pass@k and maj@k for k = n, and the share of each style.
 */
export function evalReport(
  policy: Policy,
  perCell: number,
  n: number,
  rng: Rng,
  families = Object.keys(EVAL_GRID) as Family[],
): Row[] {
  return evalCells(
    policy,
    families.flatMap((family) => EVAL_GRID[family].map((digits) => ({ family, digits }))),
    perCell,
    n,
    rng,
  ).rows;
}

/** evalReport over any list of cells (each needs a committed evaluation set), with every cell's scored problems. */
export function evalCells(
  policy: Policy,
  cells: { family: Family; digits: number }[],
  perCell: number,
  n: number,
  rng: Rng,
): { rows: Row[]; results: { family: Family; digits: number; res: ProblemResult[] }[] } {
  const rows: Row[] = [],
    results: { family: Family; digits: number; res: ProblemResult[] }[] = [];
  for (const { family, digits } of cells) {
    const res = evaluateReasoner(policy, loadEvalSet(family, digits).slice(0, perCell), n, rng);
    rows.push(cellRow(family, digits, res, n));
    results.push({ family, digits, res });
  }
  return { rows, results };
}

/**
 * The pre-registered endpoints of scored cells (docs/sensitivity.md): accuracy (the mean over families of each
 * family's mean over its cells, as `average` weighs them), the mean process score, and three shares of the right final
 * answers ('' without one; src/world/process.ts, traceFlaws): `trace_error`, a true step written wrong or missing
 * (Uesato et al.'s sense); `repeat_rate`, a step repeated or added; `flaw_rate`, either (process score below 1: what
 * the records written before wave 4's split call trace_error). With the counts they rest on.
 */
export function endpointsOf(cells: { family: Family; res: ProblemResult[] }[]): {
  accuracy: number;
  trace_error: number | '';
  repeat_rate: number | '';
  flaw_rate: number | '';
  right_answers: number;
  process_score: number;
  samples: number;
} {
  const fams = [...new Set(cells.map((c) => c.family))];
  const cellAcc = (c: { res: ProblemResult[] }) => c.res.reduce((s, r) => s + r.correct / r.samples, 0) / c.res.length;
  const accuracy =
    fams.reduce((s, f) => {
      const cs = cells.filter((c) => c.family === f);
      return s + cs.reduce((a, c) => a + cellAcc(c), 0) / cs.length;
    }, 0) / fams.length;
  let right = 0,
    wrong = 0,
    extra = 0,
    flawed = 0,
    samples = 0,
    proc = 0;
  for (const c of cells)
    for (const r of c.res)
      for (const t of r.traces) {
        const s = processScore(r.problem, t);
        samples++;
        proc += s.score;
        if (isCorrect(r.problem, t)) {
          const f = traceFlaws(s);
          right++;
          wrong += +f.wrongStep;
          extra += +f.extraStep;
          flawed += +(s.score < 1);
        }
      }
  const share = (k: number) => (right ? k / right : '');
  return {
    accuracy,
    trace_error: share(wrong),
    repeat_rate: share(extra),
    flaw_rate: share(flawed),
    right_answers: right,
    process_score: samples ? proc / samples : 0,
    samples,
  };
}

/** What the per-step process metrics read of a step's rollouts (any trainer's: the reasoner's role is kept). */
export type StepRollout = Pick<Rollout, 'role' | 'group' | 'completion'> & { problem: Problem };

/**
 * Per-step process metrics of a step's reasoner rollouts (the sensitivity profiles log them for every row,
 * src/cli/table2-run.ts): the mean process score; among the right answers, the shares with a true step wrong or
 * missing, a step repeated or added, and either (src/world/process.ts, traceFlaws; process/flaw_rate is what records
 * before wave 4's split log as process/trace_error); the shares of all-wrong and all-right groups. NaN shares
 * without a right answer; {} without a reasoner rollout.
 */
export function processMetrics(all: StepRollout[]): Record<string, number> {
  const rs = all
    .filter((r) => r.role === 'reason')
    .map((r) => {
      const trace = parseTrace(decode(r.completion)),
        s = processScore(r.problem, trace);
      return { group: r.group, correct: isCorrect(r.problem, trace), score: s.score, ...traceFlaws(s) };
    });
  if (rs.length === 0) return {};
  const right = rs.filter((r) => r.correct),
    share = (f: (r: (typeof rs)[number]) => boolean) => (right.length ? right.filter(f).length / right.length : NaN);
  const groups = [...new Set(rs.map((r) => r.group))].map((g) => rs.filter((r) => r.group === g));
  return {
    'process/score': mean(rs.map((r) => r.score)),
    'process/trace_error': share((r) => r.wrongStep),
    'process/repeat_rate': share((r) => r.extraStep),
    'process/flaw_rate': share((r) => r.score < 1),
    'process/all_wrong_groups': mean(groups.map((g) => +g.every((r) => !r.correct))),
    'process/all_right_groups': mean(groups.map((g) => +g.every((r) => r.correct))),
  };
}

/**
 * The trace rows of a run's endpoints.csv (src/cli/table2-run.ts): trace_error, then repeat_rate and flaw_rate, each a
 * share of the in-distribution right answers (`n`), '' without one.
 */
export function traceEndpointRows(
  e: Pick<ReturnType<typeof endpointsOf>, 'trace_error' | 'repeat_rate' | 'flaw_rate' | 'right_answers'>,
  cells: string,
): { endpoint: string; value: number | ''; n: number; cells: string }[] {
  return (['trace_error', 'repeat_rate', 'flaw_rate'] as const).map((endpoint) => ({
    endpoint,
    value: e[endpoint],
    n: e.right_answers,
    cells,
  }));
}

/** One evaluation cell's row: avg@n (`accuracy`), pass@n and maj@n over its problems, and the share of each style. */
export function cellRow(family: Family, digits: number, res: ProblemResult[], n: number): Row {
  const styles = ['systematic', 'verified', 'shortcut', 'sloppy', 'redundant', 'malformed'];
  const share = (s: string) => res.reduce((a, r) => a + (r.styles[s] ?? 0) / n, 0) / res.length;
  return {
    family,
    difficulty: digits,
    problems: res.length,
    samples: n,
    accuracy: res.reduce((s, r) => s + r.correct / n, 0) / res.length,
    [`pass_at_${n}`]: res.reduce((s, r) => s + passAtK(n, r.correct, n), 0) / res.length,
    [`maj_at_${n}`]: res.reduce((s, r) => s + +r.maj, 0) / res.length,
    ...Object.fromEntries(styles.map((s) => [`style_${s}`, share(s)])),
  };
}

/** Mean accuracy per family over its difficulty cells. */
export function familyAccuracy(rows: Row[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of [...new Set(rows.map((r) => String(r.family)))]) {
    const rs = rows.filter((r) => r.family === f);
    out[f] = rs.reduce((s, r) => s + Number(r.accuracy), 0) / rs.length;
  }
  return out;
}

/** The final table's accuracy columns: each family's accuracy, then `average`, their unweighted mean over families. */
export function accuracyColumns(rows: Row[]): { column: string; value: number }[] {
  const fam = Object.entries(familyAccuracy(rows));
  const average = fam.reduce((s, [, v]) => s + v, 0) / fam.length;
  return [...fam.map(([column, value]) => ({ column, value })), { column: 'average', value: average }];
}
