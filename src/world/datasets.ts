// Fixed evaluation sets, per family and difficulty, generated from a seed (committed under data/eval/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { makeRng } from '../util/random.js';
import { sampleProblem, solve, checkFamily, type Family, type Problem } from './problems.js';

/** Difficulties (operand digits) per family: the evaluation grid. */
export const EVAL_GRID: Record<Family, number[]> = { add: [2, 3, 4, 5], sub: [2, 3, 4, 5], chain: [2, 3, 4], chain_ood: [2, 3, 4] };
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
  return problems.map((p) => JSON.stringify({ family: p.family, digits: p.digits, operands: p.operands, answer: p.answer.join('') })).join('\n') + '\n';
}

/** Load a committed evaluation set, re-solving each problem and checking its stored answer. */
export function loadEvalSet(family: Family, digits: number, dir = EVAL_DIR): Problem[] {
  checkFamily(family);
  const file = evalFile(family, digits, dir);
  if (!fs.existsSync(file)) throw new Error(`no evaluation set ${file}; run "make data"`);
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((line, i) => {
    const o = JSON.parse(line) as { family: Family; operands: number[]; answer: string };
    const p = solve(o.family, o.operands);
    if (p.answer.join('') !== o.answer) throw new Error(`${file}:${i + 1}: stored answer ${o.answer} differs from the solution ${p.answer.join('')}`);
    return p;
  });
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
