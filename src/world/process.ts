// The exact process score of a trace, from the world's ground truth: which of the problem's true column steps
// (`Ck x y cin cout d`, every pass) the trace writes correctly, at the right pass and column. It is the positive
// controls' reward (docs/sensitivity.md) and the trace-error endpoint's test; never a reward unless a row says so.
//
// How steps count (docs/sensitivity.md, "the process score"):
// - a true step (pass i, column k) is written correctly when the trace's pass i holds a step of column k, the first
//   such step, with all five of x, y, cin, cout, d equal to the truth; order within a pass does not matter;
// - a missing true step counts as wrong (it is in the denominator and never credited);
// - every written step that is not the first of its (pass, column), or whose column or pass the problem does not
//   have, is an extra step: it counts as wrong too (the denominator grows by one), so a repeated or padded trace
//   scores below 1 even when every true step is right;
// - score = correct / (true steps + extra steps), in [0, 1]; 1 exactly when the trace writes each true step once,
//   right. The verification segment and revisions are not steps: a revised digit leaves its step wrong.
import type { Problem } from './problems.js';
import type { ParsedTrace } from './trace.js';

export interface ProcessScore {
  /** correct / (total + extra) */
  score: number;
  /** true steps written correctly (first occurrences) */
  correct: number;
  /** the problem's true steps */
  total: number;
  /** written steps that are repeats or outside the problem's passes and columns */
  extra: number;
  /** per written step, in the trace's order: whether it earned credit (a correct first occurrence) */
  credited: boolean[];
}

/** The process score of trace t for problem p (see the header for how steps count). */
export function processScore(p: Problem, t: Pick<ParsedTrace, 'passes'>): ProcessScore {
  const total = p.passes.reduce((s, cols) => s + cols.length, 0),
    credited: boolean[] = [];
  let correct = 0,
    extra = 0;
  t.passes.forEach((steps, i) => {
    const truth = p.passes[i],
      seen = new Set<number>();
    for (const s of steps) {
      const want = truth?.[s.k];
      if (!want || seen.has(s.k)) {
        extra++;
        credited.push(false);
        continue;
      }
      seen.add(s.k);
      const ok = s.x === want.x && s.y === want.y && s.cin === want.cin && s.cout === want.cout && s.d === want.d;
      if (ok) correct++;
      credited.push(ok);
    }
  });
  return { score: total + extra === 0 ? 0 : correct / (total + extra), correct, total, extra, credited };
}

/**
 * The two flaws a trace can have (docs/sensitivity.md, "Trace error, split"): `wrongStep`, a true step written wrong
 * or missing (fewer correct first occurrences than true steps: Uesato et al.'s trace error, a wrong reasoning step,
 * when the answer is right); `extraStep`, a step repeated or added (an extra step: a second step of a pass and column,
 * or one outside the problem's passes and columns), whether or not every true step is right. A trace can have both;
 * its process score is below 1 exactly when it has either.
 */
export function traceFlaws(s: Pick<ProcessScore, 'correct' | 'total' | 'extra'>): {
  wrongStep: boolean;
  extraStep: boolean;
} {
  return { wrongStep: s.correct < s.total, extraStep: s.extra > 0 };
}

/**
 * Token index (in the completion) of each written step's last token, in the trace's order: a step is 6 tokens
 * (`Ck x y cin cout d`) and passes are separated by one `|`, from the completion's first token (the parser's grammar,
 * src/world/trace.ts).
 */
export function stepEndPositions(t: Pick<ParsedTrace, 'passes'>): number[] {
  const out: number[] = [];
  let at = 0;
  t.passes.forEach((steps, i) => {
    if (i > 0) at += 1;
    for (let j = 0; j < steps.length; j++) {
      out.push(at + 5);
      at += 6;
    }
  });
  return out;
}

/**
 * Dense process rewards over a completion of `length` tokens: each credited step earns 1 / (total + extra) on its
 * last token, so the rewards sum to the process score and the credit of a wrong step is missing at that step.
 */
export function denseProcessRewards(
  p: Problem,
  t: Pick<ParsedTrace, 'passes'>,
  length: number,
  s: ProcessScore = processScore(p, t),
): number[] {
  const ends = stepEndPositions(t),
    out = new Array<number>(length).fill(0);
  const unit = s.total + s.extra === 0 ? 0 : 1 / (s.total + s.extra);
  s.credited.forEach((c, j) => {
    if (c && ends[j] < length) out[ends[j]] += unit;
  });
  return out;
}
