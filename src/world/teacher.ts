// The symbolic teacher: writes a trace for any problem in any style, with a configurable error rate.
// It stands in for the papers' strong teacher model (cold-start data, verifier labels); it is never a
// reward during RL unless a config says so.
import type { Rng } from '../util/random.js';
import { answerWidth, passWidths, FAMILY_OPS, digitsLsb, type Problem } from './problems.js';
import { answerFromPass, type Step } from './trace.js';
import { ConfigError, requireProbability } from '../util/validate.js';

export const STYLES = ['systematic', 'verified', 'shortcut', 'sloppy', 'redundant'] as const;
export type Style = (typeof STYLES)[number];

export function checkStyle(s: string): Style {
  if (!(STYLES as readonly string[]).includes(s))
    throw new ConfigError(`unknown style "${s}" (known: ${STYLES.join(', ')})`);
  return s as Style;
}

export interface TeacherKnobs {
  /** probability that a trace contains one wrong step digit (shortcut: one wrong answer digit) */
  errorRate: number;
  /** probability that the verified style's check misses its own error */
  verifyMiss: number;
}

export const defaultTeacherKnobs: TeacherKnobs = { errorRate: 0.1, verifyMiss: 0.2 };

/** Column pass as written: exact (carries propagated) or sloppy (carries dropped), optionally one wrong digit. */
function writePass(xs: number[], ys: number[], op: '+' | '-', sloppy: boolean, wrongAt: number, rng: Rng): Step[] {
  const cols: Step[] = [];
  let cin = 0;
  xs.forEach((x, k) => {
    const y = ys[k],
      c = sloppy ? 0 : cin;
    const t = op === '+' ? x + y + c : x - y - c;
    let d = ((t % 10) + 10) % 10;
    const cout = sloppy ? 0 : op === '+' ? (t >= 10 ? 1 : 0) : t < 0 ? 1 : 0;
    if (k === wrongAt) d = (d + 1 + rng.int(9)) % 10;
    cols.push({ k, x, y, cin: c, d, cout });
    cin = cout;
  });
  return cols;
}

// carry before digit: given the carry, the digit is x + y + cin - 10 cout, far easier to learn than a bare mod 10
// (a transformer trained with the digit first learned the carry but never the digit)
const stepTokens = (s: Step) => [`C${s.k}`, String(s.x), String(s.y), String(s.cin), String(s.cout), String(s.d)];

export interface TeacherTrace {
  style: Style;
  tokens: string[];
  erred: boolean;
}

/** Write a completion for problem p in the given style. */
export function writeTrace(
  p: Problem,
  style: Style,
  rng: Rng,
  knobs: TeacherKnobs = defaultTeacherKnobs,
): TeacherTrace {
  checkStyle(style);
  requireProbability('errorRate', knobs.errorRate);
  requireProbability('verifyMiss', knobs.verifyMiss);
  const ops = FAMILY_OPS[p.family],
    widths = passWidths(p.family, p.digits),
    width = answerWidth(p.family, p.digits);
  const erred = rng.next() < knobs.errorRate;
  const wrongPass = erred ? rng.int(ops.length) : -1;
  // passes computed from what was written, so a wrong intermediate digit flows into the next pass
  const passes: Step[][] = [];
  let xs = digitsLsb(p.operands[0], widths[0]);
  ops.forEach((op, i) => {
    const ys = digitsLsb(p.operands[i + 1], widths[i]);
    const cols = writePass(
      xs,
      ys,
      op,
      style === 'sloppy' || style === 'shortcut',
      i === wrongPass ? rng.int(widths[i]) : -1,
      rng,
    );
    passes.push(cols);
    if (i + 1 < ops.length) {
      const v = answerFromPass(cols, widths[i + 1])
        .slice()
        .reverse();
      xs = Array.from({ length: widths[i + 1] }, (_, k) => v[k] ?? 0);
    }
  });
  const final = passes[passes.length - 1];
  if (style === 'shortcut') {
    // digit-wise answer without carries: right exactly when the problem is carry-free (and no error)
    const answer = answerFromPass(final, width);
    return { style, tokens: ['A', ...answer.map(String), '<eos>'], erred };
  }
  const tokens: string[] = [];
  passes.forEach((cols, i) => {
    if (i > 0) tokens.push('|');
    cols.forEach((c, j) => {
      tokens.push(...stepTokens(c));
      if (style === 'redundant' && j === Math.floor(cols.length / 2)) tokens.push(...stepTokens(c)); // a repeated step
    });
  });
  let answerCols = final;
  if (style === 'verified') {
    // recompute every final-pass digit from the written inputs; revise the ones that disagree
    const recomputed = final.map((c) => {
      const op = ops[ops.length - 1],
        t = op === '+' ? c.x + c.y + c.cin : c.x - c.y - c.cin;
      return ((t % 10) + 10) % 10;
    });
    const missed = rng.next() < knobs.verifyMiss;
    const seen = missed ? final.map((c) => c.d) : recomputed;
    tokens.push('V', ...seen.map(String));
    const wrong = final.filter((c, k) => c.d !== seen[k]);
    if (wrong.length) {
      tokens.push('R', ...wrong.flatMap((c) => [`C${c.k}`, String(seen[c.k])]));
      answerCols = final.map((c, k) => ({ ...c, d: seen[k] }));
    }
  }
  tokens.push('A', ...answerFromPass(answerCols, width).map(String), '<eos>');
  return { style, tokens, erred };
}
