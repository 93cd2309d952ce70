// The registry of problem families. A family declares here, in one place, its operators, its widths, how its operands
// are drawn, its hooks into the trace grammar, the criteria and the cold start, and its evaluation grid; everything
// else (problems, prompts, the teacher, the criteria, the data sets, the trainers' checks, the analysis) reads it.
// An unknown family is refused with a ConfigError naming the known ones. docs/architecture.md (worked example 3)
// lists what else a new family touches.
import { ConfigError } from '../util/validate.js';

export type Op = '+' | '-';

export interface FamilySpec {
  /**
   * One operator per column pass, in order. The trace grammar's hooks: the prompt writes them between the operands
   * (`Q a op b op c =`) and the teacher writes one pass per operator; the criteria's hook: `passOp` (CARRY, STEPOK,
   * REVISE judge each written pass with its operator).
   */
  ops: readonly Op[];
  /** Columns of each pass at n-digit operands (the teacher's passes, the reference rubrics' shape). */
  passWidths: (n: number) => number[];
  /** Digits of the fixed-width answer at n-digit operands, leading zeros kept (the criteria's MATCH, NDIG). */
  answerWidth: (n: number) => number;
  /**
   * The operands from three n-digit draws, or null to draw again. The sampler always makes the three draws, so the
   * random stream does not depend on the family's arity.
   */
  operands: (draws: readonly [number, number, number]) => number[] | null;
  /** The first two operands commute: CO-RL's surface form swaps them (otherwise a problem has one surface form). */
  commutes: boolean;
  /** Held out of the cold start and of RL training: the out-of-distribution composition, evaluated only. */
  heldOut: boolean;
  /** The cold start's hint examples (a reference rubric before the question) draw problems of this family. */
  coldStartHints: boolean;
  /** The evaluation grid: operand digits of its committed evaluation sets (data/eval/), in order. */
  evalDigits: readonly number[];
  /**
   * Evaluation sets beyond the grid, in order: the sparse-outcome regime's training cells
   * (results/sensitivity/regime_criterion.csv, chosen by a criterion on the cold start alone), where its
   * in-distribution endpoint is measured.
   */
  extraEvalDigits: readonly number[];
}

/** The families, in the order every table, grid and evaluation stream reads them. */
const SPECS = {
  add: {
    ops: ['+'],
    passWidths: (n) => [n], // the final carry is the answer's leading digit
    answerWidth: (n) => n + 1,
    operands: ([a, b]) => [a, b],
    commutes: true,
    heldOut: false,
    coldStartHints: true,
    evalDigits: [2, 3, 4, 5],
    extraEvalDigits: [6],
  },
  sub: {
    ops: ['-'],
    passWidths: (n) => [n],
    answerWidth: (n) => n,
    operands: ([a, b]) => [Math.max(a, b), Math.min(a, b)],
    commutes: false,
    heldOut: false,
    coldStartHints: true,
    evalDigits: [2, 3, 4, 5],
    extraEvalDigits: [6],
  },
  chain: {
    ops: ['+', '-'],
    passWidths: (n) => [n, n + 1], // (a + b) has n+1 digits, then - c over n+1 columns
    answerWidth: (n) => n + 1,
    operands: ([a, b, c]) => (c > a + b ? null : [a, b, c]),
    commutes: true,
    heldOut: false,
    coldStartHints: false,
    evalDigits: [2, 3, 4],
    extraEvalDigits: [5],
  },
  /** a - b + c: an unseen combination, held out of SFT and RL */
  chain_ood: {
    ops: ['-', '+'],
    passWidths: (n) => [n, n], // (a - b) has n digits, then + c; the final carry leads
    answerWidth: (n) => n + 1,
    operands: ([a, b, c]) => [Math.max(a, b), Math.min(a, b), c],
    commutes: false,
    heldOut: true,
    coldStartHints: false,
    evalDigits: [2, 3, 4],
    extraEvalDigits: [],
  },
} satisfies Record<string, FamilySpec>;

export type Family = keyof typeof SPECS;
export const FAMILIES = Object.keys(SPECS) as readonly Family[];

/** The family's entry; a ConfigError naming the known families for any other name. */
export function familySpec(f: string): FamilySpec {
  if (!Object.hasOwn(SPECS, f)) throw new ConfigError(`unknown family "${f}" (known: ${FAMILIES.join(', ')})`);
  return SPECS[f as Family];
}

/** `f` as a Family, or the ConfigError of `familySpec`. */
export function checkFamily(f: string): Family {
  familySpec(f);
  return f as Family;
}

const byFamily = <T>(value: (s: FamilySpec) => T) =>
  Object.fromEntries(FAMILIES.map((f) => [f, value(SPECS[f])])) as Record<Family, T>;

/** Operators per family. */
export const FAMILY_OPS: Record<Family, readonly Op[]> = byFamily((s) => s.ops);
/** The families the cold start and RL train on: every family not held out. */
export const TRAIN_FAMILIES: Family[] = FAMILIES.filter((f) => !SPECS[f].heldOut);
/** The held-out families (evaluated, never trained on). */
export const HELD_OUT_FAMILIES: Family[] = FAMILIES.filter((f) => SPECS[f].heldOut);
/** Whether a name (a table's family column, say) is a held-out family; false for any other name. */
export const isHeldOut = (f: string): boolean => (HELD_OUT_FAMILIES as readonly string[]).includes(f);
/** Difficulties (operand digits) per family: the evaluation grid. */
export const EVAL_GRID: Record<Family, number[]> = byFamily((s) => [...s.evalDigits]);
/** Evaluation sets beyond the grid, family by family. */
export const EXTRA_EVAL_CELLS: { family: Family; digits: number }[] = FAMILIES.flatMap((family) =>
  SPECS[family].extraEvalDigits.map((digits) => ({ family, digits })),
);
/** Every committed evaluation set (data/eval/): the grid, family by family, then the cells beyond it. */
export const EVAL_CELLS: { family: Family; digits: number }[] = [
  ...FAMILIES.flatMap((family) => EVAL_GRID[family].map((digits) => ({ family, digits }))),
  ...EXTRA_EVAL_CELLS,
];

/**
 * The operator a criterion judges pass i of a family's trace with: the family's i-th; a pass past the family's last
 * (a trace may write more passes than the problem has) and i < 0 (a trace with no pass) read the last operator.
 */
export function passOp(f: Family, i: number): Op {
  const ops = familySpec(f).ops;
  return ops[i >= 0 && i < ops.length ? i : ops.length - 1];
}

/** Throws a ConfigError when `families` names an unknown or a held-out family (`where`: what it is held out of). */
export function requireNotHeldOut(families: readonly string[], where: string): void {
  for (const f of families) if (familySpec(f).heldOut) throw new ConfigError(`${f} is held out of ${where}`);
}
