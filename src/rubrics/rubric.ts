// Rubric sets: RLCER's JSON schema, the token form a rubricator writes, and a parser that never throws.
//
// Token form:  item (';' item)* '<eos>',   item = category criterion arg-digits points
//   e.g.  K:spe COL 2 7 P+1 ; K:dec STEPS P+2 <eos>
// Each argument is written with a fixed number of digits (the width of its largest value).
import type { Rng } from '../util/random.js';
import type { Problem } from '../world/problems.js';
import type { ParsedTrace } from '../world/trace.js';
import { domainOf } from '../world/problems.js';
import {
  CATEGORIES,
  CATEGORY_NAMES,
  CATEGORY_TOKEN,
  CRITERIA,
  CRITERION_NAMES,
  criterionCategory,
  criterionText,
  parseCriterion,
  problemShape,
  type Category,
  type Criterion,
  type CriterionName,
  type CriterionSpec,
} from './criteria.js';

export const MAX_ITEMS = 8;
export const POINTS = [-3, -2, -1, 1, 2, 3];

export interface RubricItem {
  category: Category;
  criterion: Criterion;
  points: number;
}
export interface RubricSet {
  domain: string;
  items: RubricItem[];
}

export interface RubricJson {
  question_domain: string;
  rubrics: { category: string; criterion: string; points: number }[];
  maximum_score: number;
  minimum_score: number;
  current_score?: number;
}

export const maxScore = (r: RubricSet) => r.items.reduce((s, i) => s + Math.max(0, i.points), 0);
export const minScore = (r: RubricSet) => r.items.reduce((s, i) => s + Math.min(0, i.points), 0);

export function toJson(r: RubricSet, currentScore?: number): RubricJson {
  const j: RubricJson = {
    question_domain: r.domain,
    rubrics: r.items.map((i) => ({
      category: CATEGORY_NAMES[i.category],
      criterion: criterionText(i.criterion),
      points: i.points,
    })),
    maximum_score: maxScore(r),
    minimum_score: minScore(r),
  };
  if (currentScore !== undefined) j.current_score = currentScore;
  return j;
}

// both members name both fields, so code type-checked without strictNullChecks (tslab notebooks) can read them
export type Parsed =
  | { ok: true; rubric: RubricSet; reason?: undefined }
  | { ok: false; reason: string; rubric?: undefined };

/** A value for a reason: its JSON, or its type where it has none (a BigInt, a cycle). */
function show(v: unknown): string {
  try {
    return String(JSON.stringify(v));
  } catch {
    return `(a ${typeof v})`;
  }
}

/** Validate and convert RLCER JSON into a rubric set; never throws. */
export function fromJson(j: unknown): Parsed {
  if (typeof j !== 'object' || j === null) return { ok: false, reason: 'not an object' };
  const o = j as Record<string, unknown>;
  if (typeof o.question_domain !== 'string') return { ok: false, reason: 'question_domain must be a string' };
  if (!Array.isArray(o.rubrics)) return { ok: false, reason: 'rubrics must be an array' };
  const items: RubricItem[] = [];
  for (const [n, r] of o.rubrics.entries()) {
    const it = r as Record<string, unknown>;
    const category = CATEGORIES.find((c) => CATEGORY_NAMES[c] === it?.category);
    const criterion = typeof it?.criterion === 'string' ? parseCriterion(it.criterion) : null;
    if (!category) return { ok: false, reason: `rubrics[${n}]: unknown category ${show(it?.category)}` };
    if (!criterion) return { ok: false, reason: `rubrics[${n}]: invalid criterion ${show(it?.criterion)}` };
    if (!POINTS.includes(it.points as number))
      return { ok: false, reason: `rubrics[${n}]: points must be one of ${POINTS.join(', ')}` };
    items.push({ category, criterion, points: it.points as number });
  }
  return check({ domain: o.question_domain, items });
}

function check(r: RubricSet): Parsed {
  if (r.items.length === 0) return { ok: false, reason: 'empty rubric set' };
  if (r.items.length > MAX_ITEMS) return { ok: false, reason: `more than ${MAX_ITEMS} items` };
  const seen = new Set<string>();
  for (const i of r.items) {
    if (criterionCategory(i.criterion) !== i.category)
      return { ok: false, reason: `category ${i.category} does not fit criterion ${i.criterion.name}` };
    const key = criterionText(i.criterion);
    if (seen.has(key)) return { ok: false, reason: `duplicate criterion ${key}` };
    seen.add(key);
  }
  return { ok: true, rubric: r };
}

const argWidth = (range: [number, number]) => String(range[1]).length;
const pointToken = (p: number) => `P${p > 0 ? '+' : '-'}${Math.abs(p)}`;

export function toTokens(r: RubricSet): string[] {
  const out: string[] = [];
  r.items.forEach((i, n) => {
    if (n > 0) out.push(';');
    const spec = CRITERIA[i.criterion.name] as CriterionSpec;
    out.push(CATEGORY_TOKEN[i.category], i.criterion.name);
    i.criterion.args.forEach((a, j) => out.push(...String(a).padStart(argWidth(spec.args[j]), '0').split('')));
    out.push(pointToken(i.points));
  });
  out.push('<eos>');
  return out;
}

/** Parse a rubricator's completion. Any token sequence gives a rubric set or a format failure with a reason. */
export function parseRubricTokens(tokens: readonly string[], domain: string): Parsed {
  const items: RubricItem[] = [];
  let i = 0;
  const at = (why: string): Parsed => ({ ok: false, reason: `${why} at token ${i}` });
  for (;;) {
    if (i >= tokens.length) return at('truncated (no <eos>)');
    const category = CATEGORIES.find((c) => CATEGORY_TOKEN[c] === tokens[i]);
    if (!category) return at(`expected a category, got ${tokens[i]}`);
    i++;
    if (i >= tokens.length) return at('truncated (no <eos>)');
    const name = tokens[i] as CriterionName;
    if (!CRITERION_NAMES.includes(name)) return at(`expected a criterion, got ${tokens[i]}`);
    i++;
    const spec = CRITERIA[name] as CriterionSpec,
      args: number[] = [];
    for (const range of spec.args) {
      let s = '';
      for (let w = 0; w < argWidth(range); w++, i++) {
        if (i >= tokens.length) return at('truncated (no <eos>)');
        if (!/^[0-9]$/.test(tokens[i])) return at(`expected a digit for ${name}, got ${tokens[i]}`);
        s += tokens[i];
      }
      const v = Number(s);
      if (v < range[0] || v > range[1]) return at(`argument ${v} of ${name} outside [${range[0]}, ${range[1]}]`);
      args.push(v);
    }
    if (i >= tokens.length) return at('truncated (no <eos>)');
    const m = /^P([+-])([1-3])$/.exec(tokens[i]);
    if (!m) return at(`expected points, got ${tokens[i]}`);
    i++;
    items.push({ category, criterion: { name, args }, points: (m[1] === '+' ? 1 : -1) * Number(m[2]) });
    if (items.length > MAX_ITEMS) return at(`more than ${MAX_ITEMS} items`);
    if (tokens[i] === '<eos>') return check({ domain, items });
    if (tokens[i] !== ';')
      return at(i >= tokens.length ? 'truncated (no <eos>)' : `expected ; or <eos>, got ${tokens[i]}`);
    i++;
  }
}

/** The teacher's reference rubric for a problem: the strong external rubric source. */
export function referenceRubric(p: Problem): RubricSet {
  const shape = problemShape(p),
    final = p.passes[p.passes.length - 1];
  const hard = final.find((c) => c.cin === 1) ?? final[final.length - 1];
  const item = (category: Category, name: CriterionName, args: number[], points: number): RubricItem => ({
    category,
    criterion: { name, args },
    points,
  });
  return {
    domain: domainOf(p.family),
    items: [
      item('decomposition', 'STEPS', [], 2),
      item('decomposition', 'SHORT', [], -2),
      item('validation', 'VERIFY', [], 1),
      item('clarity', 'CARRY', [], 2),
      item('focus', 'REPEAT', [], -1),
      item('specific', 'COL', [hard.k, hard.d], 1),
      item('specific', 'NDIG', [shape.answer], 1),
      item('specific', 'MATCH', [], 2),
    ],
  };
}

/**
 * Rubric-writing traces for the cold start: a random subset of plausible criteria with random points, written
 * after reading a CoT. Concrete values are read from the CoT half the time (right only when the CoT is) and are
 * otherwise the true ones with a `wrongValueRate` of mistakes, so the untrained rubricator is a plausible but
 * unrefined writer whose concrete criteria RL can learn to ground in the problem rather than in the CoT.
 */
export function sampleTeacherRubric(
  p: Problem,
  rng: Rng,
  cot: ParsedTrace | null = null,
  wrongValueRate = 0.3,
): RubricSet {
  const shape = problemShape(p),
    final = p.passes[p.passes.length - 1];
  const pool: RubricItem[] = [];
  const add = (name: CriterionName, args: number[], sign: number) =>
    pool.push({
      category: criterionCategory({ name, args }),
      criterion: { name, args },
      points: sign * (1 + rng.int(3)),
    });
  const fromCot = cot !== null && rng.next() < 0.5;
  const cotSteps = cot ? cot.passes.reduce((a, b) => a + b.length, 0) : 0;
  const steps = fromCot && cotSteps > 0 ? Math.min(16, cotSteps) : shape.passes.reduce((a, b) => a + b, 0);
  add('STEPS', [], 1);
  add('ORDER', [], 1);
  add('NSTEP', [steps], 1);
  add('SHORT', [], -1);
  add('VERIFY', [], 1);
  add('REVISE', [], 1);
  add('CARRY', [], 1);
  add('STEPOK', [], 1);
  add('REPEAT', [], -1);
  add('LEN', [Math.min(99, 12 + 7 * steps)], 1);
  const c = final[rng.int(final.length)];
  const seen = fromCot ? cot!.passes[cot!.passes.length - 1]?.find((s) => s.k === c.k) : undefined;
  add('COL', [c.k, seen ? seen.d : rng.next() < wrongValueRate ? (c.d + 1 + rng.int(9)) % 10 : c.d], 1);
  const ndig =
    fromCot && cot!.answer && cot!.answer.length >= 1 && cot!.answer.length <= 9
      ? cot!.answer.length
      : rng.next() < wrongValueRate
        ? Math.max(1, shape.answer - 1)
        : shape.answer;
  add('NDIG', [ndig], 1);
  add('MATCH', [], 1);
  // a random subset of 3..6 items, in random order
  for (let i = pool.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return { domain: domainOf(p.family), items: pool.slice(0, 3 + rng.int(4)) };
}
