// The rubricator role: the shared policy reads a question and a reasoner's CoT and writes a rubric set as tokens.
// Malformed output is normal; it is parsed (never thrown) and earns no format reward.
import { sample, type Policy } from '../models/policy.js';
import type { Rng } from '../util/random.js';
import { domainOf, type Problem } from '../world/problems.js';
import { promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { parseRubricTokens, referenceRubric, toTokens, type Parsed } from '../rubrics/rubric.js';
import { evaluateReasoner } from './evaluate.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import type { Family } from '../world/problems.js';

/** Longest rubric completion: 8 items of at most 6 tokens, separators and <eos>. */
export const RUBRIC_MAX_NEW = 56;

export interface WrittenRubric {
  prompt: number[];
  completion: number[];
  parsed: Parsed;
}

/** One rubric set per (problem, CoT) pair, sampled from the rubricator role. */
export function writeRubrics(
  policy: Policy,
  problems: Problem[],
  cots: string[][],
  rng: Rng,
  temperature = 1,
): WrittenRubric[] {
  const prompts = problems.map((p, i) => encode(promptTokens(p, 'rubric', cots[i])));
  const outs = sample(policy, prompts, { maxNew: RUBRIC_MAX_NEW, temperature, topP: 1 }, rng);
  return outs.map((completion, i) => ({
    prompt: prompts[i],
    completion,
    parsed: parseRubricTokens(decode(completion), domainOf(problems[i].family)),
  }));
}

/**
 * Share of rubricator completions that parse into a valid rubric set, each written after one of the policy's own
 * CoTs (`reads` 'own_cot'), or from the question alone ('question', as EvoLM's generator reads).
 */
export function rubricFormatValidity(
  policy: Policy,
  problems: Problem[],
  rng: Rng,
  temperature = 1,
  reads: 'own_cot' | 'question' = 'own_cot',
): { valid: number; reasons: Record<string, number> } {
  const cots =
    reads === 'question'
      ? problems.map(() => [])
      : sample(
          policy,
          problems.map((p) => encode(promptTokens(p, 'reason'))),
          { maxNew: 96, temperature, topP: 1 },
          rng,
        ).map(decode);
  let valid = 0;
  const reasons: Record<string, number> = {};
  for (const { parsed: r } of writeRubrics(policy, problems, cots, rng, temperature)) {
    if (r.ok) valid++;
    else {
      const why = r.reason.replace(/ at token \d+/, '').replace(/got .*/, 'got ...');
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
  }
  return { valid: valid / problems.length, reasons };
}

/**
 * Rubrics as in-prompt hints at inference: the policy reads one of its own CoTs, writes a rubric, and its
 * positive-point criteria (at most 3, the cold start's hint format) go into a hint-role prompt. Which criteria
 * would be valid needs answer labels, which inference does not have, so every positive criterion is used.
 */
export function selfHints(policy: Policy, problems: Problem[], rng: Rng): string[][] {
  const cots = sample(
    policy,
    problems.map((p) => encode(promptTokens(p, 'reason'))),
    { maxNew: 96, temperature: 1, topP: 1 },
    rng,
  ).map(decode);
  return writeRubrics(policy, problems, cots, rng).map((w, i) => hintTokens(w.parsed, problems[i]));
}

/** A rubric's positive-point criteria (at most 3) as hint tokens; empty when it did not parse or has none. */
export function hintTokens(parsed: Parsed, p: Problem): string[] {
  if (!parsed.ok) return [];
  const items = parsed.rubric.items.filter((it) => it.points > 0).slice(0, 3);
  return items.length ? toTokens({ domain: domainOf(p.family), items }).slice(0, -1) : [];
}

/** Accuracy per family with and without self-written hints, on the same problems of the fixed evaluation sets. */
export function hintReport(
  policy: Policy,
  perCell: number,
  n: number,
  rng: Rng,
): { family: string; plain: number; hinted: number; hint_rate: number }[] {
  return (Object.keys(EVAL_GRID) as Family[]).map((family) => {
    const problems = EVAL_GRID[family].flatMap((d) => loadEvalSet(family, d).slice(0, perCell));
    const hints = selfHints(policy, problems, rng);
    const acc = (rs: ReturnType<typeof evaluateReasoner>) =>
      rs.reduce((s, r) => s + r.correct / r.samples, 0) / rs.length;
    const plain = acc(evaluateReasoner(policy, problems, n, rng));
    const hinted = acc(
      evaluateReasoner(policy, problems, n, rng, 1, 256, (p, i) =>
        encode(hints[i].length ? promptTokens(p, 'hint', hints[i]) : promptTokens(p, 'reason')),
      ),
    );
    return { family, plain, hinted, hint_rate: hints.filter((h) => h.length > 0).length / problems.length };
  });
}

/**
 * One rubric set per (problem, CoT): written by `writer`'s rubricator role after reading the CoT (the trained policy,
 * or a frozen copy of the cold start), or the teacher's reference rubric when there is no writer. `written` (prompts
 * and completions, for a rubricator update) is null for the teacher. Shared by RLCER and EvoLM.
 */
export function sourceRubrics(
  writer: Policy | undefined,
  problems: Problem[],
  cots: string[][],
  rng: Rng,
  temperature: number,
): { sets: Parsed[]; written: WrittenRubric[] | null } {
  const written = writer ? writeRubrics(writer, problems, cots, rng, temperature) : null;
  return {
    written,
    sets: written
      ? written.map((w) => w.parsed)
      : problems.map((p) => ({ ok: true as const, rubric: referenceRubric(p) })),
  };
}
