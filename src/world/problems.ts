// Problems of the registry's families (./families.ts) and their exact column-by-column solutions.
// Answers are fixed width (addition n+1 digits, subtraction n, chains n+1), leading zeros kept, so that
// answer formatting is never the dominant error (the naive world's calibration found it was).
import type { Rng } from '../util/random.js';
import { ConfigError, requireInteger, requireProbability } from '../util/validate.js';
import { MAX_COLUMNS } from './vocab.js';
import { familySpec, type Family, type Op } from './families.js';

// The families themselves (operators, widths, operand draws) are declared in the registry, ./families.ts.
export { FAMILIES, FAMILY_OPS, TRAIN_FAMILIES, checkFamily, type Family } from './families.js';

/** One column step: inputs x (running value) and y (next operand) at column k, carry/borrow in, digit, carry/borrow out. */
export interface Column {
  k: number;
  x: number;
  y: number;
  cin: number;
  d: number;
  cout: number;
}

export interface Problem {
  family: Family;
  digits: number;
  /** operand values */
  operands: number[];
  /** one list of columns per operator, least significant column first */
  passes: Column[][];
  /** fixed-width answer digits, most significant first */
  answer: number[];
}

/** Digits of v, least significant first, padded to width. */
export function digitsLsb(v: number, width: number): number[] {
  return Array.from({ length: width }, (_, k) => Math.floor(v / 10 ** k) % 10);
}

/** Column pass of x (op) y over `width` columns. */
export function columnPass(x: number, y: number, op: Op, width: number): { columns: Column[]; value: number } {
  const xs = digitsLsb(x, width),
    ys = digitsLsb(y, width),
    columns: Column[] = [];
  let cin = 0;
  for (let k = 0; k < width; k++) {
    const t = op === '+' ? xs[k] + ys[k] + cin : xs[k] - ys[k] - cin;
    const d = ((t % 10) + 10) % 10,
      cout = op === '+' ? (t >= 10 ? 1 : 0) : t < 0 ? 1 : 0;
    columns.push({ k, x: xs[k], y: ys[k], cin, d, cout });
    cin = cout;
  }
  return { columns, value: op === '+' ? x + y : x - y };
}

/** Widths of each pass at n digits (the family's registry entry). */
export const passWidths = (family: Family, n: number): number[] => familySpec(family).passWidths(n);

/** Width of the fixed-width answer at n digits (the family's registry entry). */
export const answerWidth = (family: Family, n: number): number => familySpec(family).answerWidth(n);

/** Solve a problem exactly from its operands. */
export function solve(family: Family, operands: number[]): Problem {
  const n = String(operands[0]).length,
    ops = familySpec(family).ops,
    widths = passWidths(family, n);
  let value = operands[0];
  const passes: Column[][] = [];
  ops.forEach((op, i) => {
    const p = columnPass(value, operands[i + 1], op, widths[i]);
    passes.push(p.columns);
    value = p.value;
  });
  if (value < 0) throw new Error(`negative result for ${family} ${operands.join(',')}`);
  const width = answerWidth(family, n);
  return { family, digits: n, operands, passes, answer: digitsLsb(value, width).reverse() };
}

/**
 * Another surface form of a problem with the same answer (CO-RL's data decoupling): the first two operands swapped
 * where the family's first operation commutes (add, and the a + b of chain); otherwise (subtraction first) there is no
 * such form in this grammar and the problem is returned unchanged.
 */
export function surfaceForm(p: Problem): Problem {
  if (familySpec(p.family).commutes) return solve(p.family, [p.operands[1], p.operands[0], ...p.operands.slice(2)]);
  return p;
}

/** True when no column of any pass carries or borrows: the only problems that bad processes get right. */
export function isCarryFree(p: Problem): boolean {
  return p.passes.every((cols) => cols.every((c) => c.cin === 0 && c.cout === 0));
}

export interface ProblemKnobs {
  /** probability of drawing a carry-free problem (rejection sampling); null = natural frequency */
  carryFreeShare: number | null;
}

function nDigit(n: number, rng: Rng): number {
  return 10 ** (n - 1) + rng.int(9 * 10 ** (n - 1));
}

/** Sample a problem of `family` with `digits`-digit operands (first operand >= the others where needed). */
export function sampleProblem(
  family: Family,
  digits: number,
  rng: Rng,
  knobs: ProblemKnobs = { carryFreeShare: null },
): Problem {
  const spec = familySpec(family);
  requireInteger('digits', digits, 1, MAX_COLUMNS - 1);
  if (knobs.carryFreeShare !== null) requireProbability('carryFreeShare', knobs.carryFreeShare);
  const wantFree = knobs.carryFreeShare === null ? null : rng.next() < knobs.carryFreeShare;
  for (let tries = 0; tries < 100000; tries++) {
    const operands = spec.operands([nDigit(digits, rng), nDigit(digits, rng), nDigit(digits, rng)]);
    if (operands === null) continue;
    const p = solve(family, operands);
    if (wantFree === null || isCarryFree(p) === wantFree) return p;
  }
  throw new ConfigError(
    `could not sample a ${wantFree ? 'carry-free' : 'carrying'} ${family} problem with ${digits} digits`,
  );
}

export const domainOf = (f: Family) => `arith/${f}`;
