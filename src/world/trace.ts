// Chain-of-thought traces: the prompt, and a parser that reads any token sequence without throwing.
//
// Grammar of a reasoner's completion:
//   pass ('|' pass)*  ['V' digit* ['R' ('Ck' digit)+]]  'A' digit+ '<eos>'      (a shortcut skips the passes)
//   pass   = column*,  column = 'Ck' x y cin cout d   (least significant column first; the carry before the digit)
import type { Problem } from './problems.js';
import { FAMILY_OPS, digitsLsb } from './problems.js';
import { EOS, roleToken, type Role } from './vocab.js';

/**
 * The prompt of a role. The hint role carries a rubric (`extra`, without <eos>) before the question; the
 * rubricator role carries a reasoner's CoT (`extra`, its <eos> dropped) after the question, as RLCER's
 * rubricator reads the question and a CoT.
 */
export function promptTokens(p: Problem, role: Role = 'reason', extra: string[] = []): string[] {
  const num = (v: number) => String(v).split('');
  const out = [roleToken(role), ...(role === 'hint' ? ['H', ...extra] : []), 'Q', ...num(p.operands[0])];
  FAMILY_OPS[p.family].forEach((op, i) => out.push(op, ...num(p.operands[i + 1])));
  out.push('=');
  if (role === 'rubric') out.push(...extra.filter((t) => t !== '<eos>' && t !== '<pad>'));
  return out;
}

export interface Step {
  k: number;
  x: number;
  y: number;
  cin: number;
  d: number;
  cout: number;
}

export interface ParsedTrace {
  passes: Step[][];
  /** digits of the verification segment (null: no segment) */
  verify: number[] | null;
  revisions: { k: number; d: number }[];
  /** answer digits, most significant first (null: no answer) */
  answer: number[] | null;
  /** the completion ended with <eos> right after the answer */
  terminated: boolean;
  /** why the trace is malformed, empty when it is well formed */
  issues: string[];
  /** completion length in tokens (up to and including <eos>) */
  length: number;
}

const digit = (t: string | undefined) => (t !== undefined && t.length === 1 && t >= '0' && t <= '9' ? Number(t) : -1);
const column = (t: string | undefined) => (t !== undefined && /^C[0-9]$/.test(t) ? Number(t.slice(1)) : -1);

/** Parse a completion (tokens after the prompt). Never throws; problems go to `issues`. */
export function parseTrace(tokens: readonly string[]): ParsedTrace {
  const r: ParsedTrace = {
    passes: [],
    verify: null,
    revisions: [],
    answer: null,
    terminated: false,
    issues: [],
    length: 0,
  };
  const eos = tokens.indexOf('<eos>');
  r.length = eos >= 0 ? eos + 1 : tokens.length;
  let i = 0;
  const fail = (why: string) => {
    r.issues.push(`${why} at token ${i}`);
    return r;
  };
  let pass: Step[] | null = null;
  while (column(tokens[i]) >= 0 || tokens[i] === '|') {
    if (tokens[i] === '|') {
      if (!pass || pass.length === 0) return fail('empty pass');
      pass = null;
      i++;
      continue;
    }
    const v = [1, 2, 3, 4, 5].map((j) => digit(tokens[i + j]));
    if (v.some((x) => x < 0)) return fail('malformed column step');
    if (!pass) {
      pass = [];
      r.passes.push(pass);
    }
    pass.push({ k: column(tokens[i]), x: v[0], y: v[1], cin: v[2], cout: v[3], d: v[4] });
    i += 6;
  }
  if (tokens[i] === 'V') {
    i++;
    r.verify = [];
    while (digit(tokens[i]) >= 0) r.verify.push(digit(tokens[i++]));
    if (tokens[i] === 'R') {
      i++;
      while (column(tokens[i]) >= 0 && digit(tokens[i + 1]) >= 0) {
        r.revisions.push({ k: column(tokens[i]), d: digit(tokens[i + 1]) });
        i += 2;
      }
      if (r.revisions.length === 0) return fail('empty revision');
    }
  }
  if (tokens[i] !== 'A')
    return fail(i >= tokens.length ? 'truncated before the answer' : `expected A, got ${tokens[i]}`);
  i++;
  const ans: number[] = [];
  while (digit(tokens[i]) >= 0) ans.push(digit(tokens[i++]));
  if (ans.length === 0) return fail('empty answer');
  r.answer = ans;
  if (tokens[i] !== '<eos>') return fail(i >= tokens.length ? 'truncated answer' : `expected <eos>, got ${tokens[i]}`);
  r.terminated = true;
  return r;
}

/** Exact-match correctness: a terminated answer equal to the fixed-width true answer. */
/** The final answer as a string, or null when the trace has none or did not end right after it. */
export const answerOf = (t: ParsedTrace): string | null => (t.terminated && t.answer ? t.answer.join('') : null);

export function isCorrect(p: Problem, t: ParsedTrace): boolean {
  return (
    t.terminated &&
    t.answer !== null &&
    t.answer.length === p.answer.length &&
    t.answer.every((d, i) => d === p.answer[i])
  );
}

/** Token ids up to and including the first <eos> (or all of them). */
export function cutAtEos(ids: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    out.push(ids[i]);
    if (ids[i] === EOS) break;
  }
  return out;
}

/** The answer a column pass implies: final digits most significant first, led by the last carry if the width allows. */
export function answerFromPass(cols: readonly Step[], width: number): number[] {
  const digits = cols.map((c) => c.d).reverse();
  return width > cols.length && cols.length ? [cols[cols.length - 1].cout, ...digits] : digits;
}

export { digitsLsb };
