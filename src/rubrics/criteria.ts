// The criterion language: small formal criteria with arguments that the teacher judges exactly on any
// trace, covering RLCER's five categories. Each renders as an English sentence.
import type { Problem } from '../world/problems.js';
import { answerWidth, passWidths } from '../world/problems.js';
import { passOp } from '../world/families.js';
import { answerFromPass, type ParsedTrace } from '../world/trace.js';

export const CATEGORIES = ['decomposition', 'validation', 'clarity', 'focus', 'specific'] as const;
export type Category = (typeof CATEGORIES)[number];
/** JSON names of the categories (RLCER's five). */
export const CATEGORY_NAMES: Record<Category, string> = {
  decomposition: 'decomposition and planning',
  validation: 'backtracking and self-validation',
  clarity: 'clarity and flow',
  focus: 'focus and efficiency',
  specific: 'question-specific',
};
export const CATEGORY_TOKEN: Record<Category, string> = {
  decomposition: 'K:dec',
  validation: 'K:val',
  clarity: 'K:cla',
  focus: 'K:foc',
  specific: 'K:spe',
};

export interface CriterionSpec {
  category: Category;
  /** number of integer arguments, and each one's inclusive range */
  args: [number, number][];
  english: (a: number[]) => string;
  /** exact judgement on a parsed trace for problem p */
  judge: (t: ParsedTrace, p: Problem, a: number[]) => boolean;
}

const steps = (t: ParsedTrace) => t.passes.flat();
/** A pass with repeated steps reduced to the first occurrence of each column (repeats are judged by REPEAT). */
const unique = (cols: ParsedTrace['passes'][number]) => cols.filter((c, i) => cols.findIndex((d) => d.k === c.k) === i);
const finalPass = (t: ParsedTrace) => unique(t.passes[t.passes.length - 1] ?? []);
/** The operation of pass i of a problem's family (the registry's criteria hook, `passOp`). */
export const opOf = (p: Problem, i: number) => passOp(p.family, i);

export const CRITERIA = {
  STEPS: {
    category: 'decomposition',
    args: [],
    english: () => 'The solution works column by column before answering.',
    judge: (t) => steps(t).length > 0,
  },
  ORDER: {
    category: 'decomposition',
    args: [],
    english: () => 'Every pass goes through the columns in order, least significant first, skipping none.',
    judge: (t) => t.passes.length > 0 && t.passes.every((cols) => cols.every((c, i) => c.k === i)),
  },
  NSTEP: {
    category: 'decomposition',
    args: [[1, 16]],
    english: ([n]) => `The solution writes exactly ${n} column steps.`,
    judge: (t, _p, [n]) => steps(t).length === n,
  },
  SHORT: {
    category: 'decomposition',
    args: [],
    english: () => 'The answer is given without any working (a flaw).',
    judge: (t) => steps(t).length === 0 && t.answer !== null,
  },
  VERIFY: {
    category: 'validation',
    args: [],
    english: () => 'The solution checks its column digits in a verification step.',
    judge: (t) => t.verify !== null && t.verify.length > 0,
  },
  REVISE: {
    category: 'validation',
    args: [],
    english: () => 'A wrong column digit is caught and revised to the right value.',
    judge: (t, p) => {
      const fp = finalPass(t),
        op = opOf(p, t.passes.length - 1);
      return (
        t.revisions.length > 0 &&
        t.revisions.every((r) => {
          const c = fp.find((s) => s.k === r.k);
          if (!c) return false;
          const v = op === '+' ? c.x + c.y + c.cin : c.x - c.y - c.cin;
          return c.d !== r.d && ((v % 10) + 10) % 10 === r.d;
        })
      );
    },
  },
  CARRY: {
    category: 'clarity',
    args: [],
    english: () => 'Every carry or borrow is written and passed on to the next column.',
    judge: (t, p) =>
      t.passes.length > 0 &&
      t.passes.map(unique).every((cols, i) =>
        cols.every((c, j) => {
          const op = opOf(p, i),
            v = op === '+' ? c.x + c.y + c.cin : c.x - c.y - c.cin;
          const cout = op === '+' ? (v >= 10 ? 1 : 0) : v < 0 ? 1 : 0;
          return c.cin === (j === 0 ? 0 : cols[j - 1].cout) && c.cout === cout;
        }),
      ),
  },
  STEPOK: {
    category: 'clarity',
    args: [],
    english: () => 'Every column digit is right given the digits and carry written in that step.',
    judge: (t, p) =>
      steps(t).length > 0 &&
      t.passes.every((cols, i) =>
        cols.every((c) => {
          const v = opOf(p, i) === '+' ? c.x + c.y + c.cin : c.x - c.y - c.cin;
          return ((v % 10) + 10) % 10 === c.d;
        }),
      ),
  },
  REPEAT: {
    category: 'focus',
    args: [],
    english: () => 'Some column step is written more than once (a flaw).',
    judge: (t) => t.passes.some((cols) => new Set(cols.map((c) => c.k)).size < cols.length),
  },
  LEN: {
    category: 'focus',
    args: [[1, 99]],
    english: ([n]) => `The whole solution takes at most ${n} tokens.`,
    judge: (t, _p, [n]) => t.terminated && t.length <= n,
  },
  COL: {
    category: 'specific',
    args: [
      [0, 7],
      [0, 9],
    ],
    english: ([k, d]) => `In the last pass, column ${k} (counting from the right, from 0) writes the digit ${d}.`,
    judge: (t, _p, [k, d]) => finalPass(t).some((c) => c.k === k && c.d === d),
  },
  NDIG: {
    category: 'specific',
    args: [[1, 9]],
    english: ([n]) => `The answer is written with exactly ${n} digits (leading zeros kept).`,
    judge: (t, _p, [n]) => t.answer !== null && t.answer.length === n,
  },
  MATCH: {
    category: 'specific',
    args: [],
    english: () => 'The answer is exactly the digits the last pass produced (after any revision).',
    judge: (t, p) => {
      const fp = finalPass(t).map((c) => ({ ...c, d: t.revisions.find((r) => r.k === c.k)?.d ?? c.d }));
      const want = answerFromPass(fp, answerWidth(p.family, p.digits));
      return (
        fp.length > 0 && t.answer !== null && t.answer.length === want.length && t.answer.every((d, i) => d === want[i])
      );
    },
  },
} satisfies Record<string, CriterionSpec>;

export type CriterionName = keyof typeof CRITERIA;
export const CRITERION_NAMES = Object.keys(CRITERIA) as CriterionName[];

export interface Criterion {
  name: CriterionName;
  args: number[];
}

export const criterionText = (c: Criterion) => [c.name, ...c.args].join(' ');
export const criterionEnglish = (c: Criterion) => CRITERIA[c.name].english(c.args);
export const criterionCategory = (c: Criterion): Category => CRITERIA[c.name].category as Category;

/** The teacher's exact judgement: is criterion c satisfied by trace t for problem p? */
export function judge(c: Criterion, t: ParsedTrace, p: Problem): boolean {
  return CRITERIA[c.name].judge(t, p, c.args);
}

/** Parse "COL 2 7" into a criterion; null when the name or arguments are invalid. */
export function parseCriterion(s: string): Criterion | null {
  const parts = s.trim().split(/\s+/);
  const name = parts[0] as CriterionName;
  if (!Object.hasOwn(CRITERIA, name)) return null; // not `in`: "toString" or "__proto__" are no criteria
  const spec = CRITERIA[name] as CriterionSpec,
    args = parts.slice(1).map(Number);
  if (
    args.length !== spec.args.length ||
    args.some((a, i) => !Number.isInteger(a) || a < spec.args[i][0] || a > spec.args[i][1])
  )
    return null;
  return { name, args };
}

/** Widths used by the reference rubrics. */
export const problemShape = (p: Problem) => ({
  passes: passWidths(p.family, p.digits),
  answer: answerWidth(p.family, p.digits),
});

/** Criteria with arguments name a concrete value of the problem (EvoLM's "concrete" criteria). */
export const isConcrete = (c: Criterion) => c.args.length > 0;
