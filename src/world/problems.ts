// Problem families and their exact column-by-column solutions.
// Answers are fixed width (addition n+1 digits, subtraction n, chains n+1), leading zeros kept, so that
// answer formatting is never the dominant error (the naive world's calibration found it was).
import type { Rng } from '../util/random.js';
import { ConfigError, requireInteger, requireProbability } from '../io/validate.js';
import { MAX_COLUMNS } from './vocab.js';

export const FAMILIES = ['add', 'sub', 'chain', 'chain_ood'] as const;
export type Family = (typeof FAMILIES)[number];
/** operators per family; chain_ood (a - b + c) is an unseen combination held out of SFT and RL */
export const FAMILY_OPS: Record<Family, ('+' | '-')[]> = {
  add: ['+'],
  sub: ['-'],
  chain: ['+', '-'],
  chain_ood: ['-', '+'],
};
export const TRAIN_FAMILIES: Family[] = ['add', 'sub', 'chain'];

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

export function checkFamily(f: string): Family {
  if (!(FAMILIES as readonly string[]).includes(f))
    throw new ConfigError(`unknown family "${f}" (known: ${FAMILIES.join(', ')})`);
  return f as Family;
}

/** Digits of v, least significant first, padded to width. */
export function digitsLsb(v: number, width: number): number[] {
  return Array.from({ length: width }, (_, k) => Math.floor(v / 10 ** k) % 10);
}

/** Column pass of x (op) y over `width` columns. */
export function columnPass(x: number, y: number, op: '+' | '-', width: number): { columns: Column[]; value: number } {
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

/** Widths of each pass and of the answer for a family at n digits. */
export function passWidths(family: Family, n: number): number[] {
  switch (family) {
    case 'add':
      return [n]; // the final carry is the answer's leading digit
    case 'sub':
      return [n];
    case 'chain':
      return [n, n + 1]; // (a + b) has n+1 digits, then - c over n+1 columns
    case 'chain_ood':
      return [n, n]; // (a - b) has n digits, then + c; final carry leads
  }
}

export function answerWidth(family: Family, n: number): number {
  return family === 'sub' ? n : n + 1;
}

/** Solve a problem exactly from its operands. */
export function solve(family: Family, operands: number[]): Problem {
  const n = String(operands[0]).length,
    ops = FAMILY_OPS[family],
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
 * where the operation commutes (add, and the a + b of chain); subtraction has no such form in this grammar and is
 * returned unchanged.
 */
export function surfaceForm(p: Problem): Problem {
  if (p.family === 'add' || p.family === 'chain')
    return solve(p.family, [p.operands[1], p.operands[0], ...p.operands.slice(2)]);
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
  checkFamily(family);
  requireInteger('digits', digits, 1, MAX_COLUMNS - 1);
  if (knobs.carryFreeShare !== null) requireProbability('carryFreeShare', knobs.carryFreeShare);
  const wantFree = knobs.carryFreeShare === null ? null : rng.next() < knobs.carryFreeShare;
  for (let tries = 0; tries < 100000; tries++) {
    const ops = [nDigit(digits, rng), nDigit(digits, rng), nDigit(digits, rng)];
    let operands: number[];
    if (family === 'add') operands = ops.slice(0, 2);
    else if (family === 'sub') operands = [Math.max(ops[0], ops[1]), Math.min(ops[0], ops[1])];
    else if (family === 'chain') {
      if (ops[2] > ops[0] + ops[1]) continue;
      operands = ops;
    } else operands = [Math.max(ops[0], ops[1]), Math.min(ops[0], ops[1]), ops[2]];
    const p = solve(family, operands);
    if (wantFree === null || isCarryFree(p) === wantFree) return p;
  }
  throw new ConfigError(
    `could not sample a ${wantFree ? 'carry-free' : 'carrying'} ${family} problem with ${digits} digits`,
  );
}

export const domainOf = (f: Family) => `arith/${f}`;
