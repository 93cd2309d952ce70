// Fixed evaluation sets, per family and difficulty, generated from a seed (committed under data/eval/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { makeRng } from '../util/random.js';
import { sampleProblem, solve, checkFamily, FAMILY_OPS, type Family, type Problem } from './problems.js';
import { ConfigError } from '../util/validate.js';

// The evaluation grid and the cells beyond it are declared per family in the registry (./families.ts).
export { EVAL_GRID, EXTRA_EVAL_CELLS } from './families.js';
export const EVAL_SEED = 20261129;
export const EVAL_SIZE = 100;
export const EVAL_DIR = 'data/eval';

/** Seed of one (family, digits) cell: independent of the other cells and of the grid's order. */
function cellSeed(family: Family, digits: number, seed: number): number {
  return createHash('sha256').update(`${seed}/${family}/${digits}`).digest().readUInt32LE(0);
}

export function generateEvalSet(family: Family, digits: number, seed = EVAL_SEED, size = EVAL_SIZE): Problem[] {
  const rng = makeRng(cellSeed(family, digits, seed));
  return Array.from({ length: size }, () => sampleProblem(family, digits, rng));
}

export const evalFile = (family: Family, digits: number, dir = EVAL_DIR) => path.join(dir, `${family}-${digits}.jsonl`);

export function serialise(problems: Problem[]): string {
  return (
    problems
      .map((p) =>
        JSON.stringify({ family: p.family, digits: p.digits, operands: p.operands, answer: p.answer.join('') }),
      )
      .join('\n') + '\n'
  );
}

/** Load a committed evaluation set, re-solving each problem and checking its stored answer. */
export function loadEvalSet(family: Family, digits: number, dir = EVAL_DIR): Problem[] {
  checkFamily(family);
  const file = evalFile(family, digits, dir);
  if (!fs.existsSync(file)) throw new ConfigError(`no evaluation set ${file}; run "make data"`);
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line, i) => {
      let o: { family?: unknown; operands?: unknown; answer?: unknown };
      try {
        o = JSON.parse(line);
      } catch {
        throw new ConfigError(`${file}:${i + 1} is not valid JSON`);
      }
      const n = FAMILY_OPS[family].length + 1,
        ops = o?.operands;
      // operands of `digits` digits (the first one) and at most that many (the others), as the sampler draws them
      const fits =
        Array.isArray(ops) &&
        ops.length === n &&
        ops.every(
          (v, j) =>
            Number.isSafeInteger(v) && v >= 0 && String(v).length <= digits && (j > 0 || String(v).length === digits),
        );
      if (o?.family !== family || !fits)
        throw new ConfigError(`${file}:${i + 1} is no ${family} problem of ${digits} digits`);
      let p: Problem;
      try {
        p = solve(family, ops as number[]);
      } catch (e) {
        throw new ConfigError(`${file}:${i + 1}: ${(e as Error).message}`);
      }
      if (p.answer.join('') !== o.answer) {
        throw new ConfigError(
          `${file}:${i + 1}: stored answer ${o.answer} differs from the solution ${p.answer.join('')}`,
        );
      }
      return p;
    });
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
