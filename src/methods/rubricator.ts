// The rubricator role: the shared policy reads a question and a reasoner's CoT and writes a rubric set as tokens.
// Malformed output is normal; it is parsed (never thrown) and earns no format reward.
import { sample, type Policy } from '../models/policy.js';
import type { Rng } from '../util/random.js';
import { domainOf, type Problem } from '../world/problems.js';
import { promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { parseRubricTokens, type Parsed } from '../rubrics/rubric.js';

/** Longest rubric completion: 8 items of at most 6 tokens, separators and <eos>. */
export const RUBRIC_MAX_NEW = 56;

export interface WrittenRubric { prompt: number[]; completion: number[]; parsed: Parsed }

/** One rubric set per (problem, CoT) pair, sampled from the rubricator role. */
export function writeRubrics(policy: Policy, problems: Problem[], cots: string[][], rng: Rng, temperature = 1): WrittenRubric[] {
  const prompts = problems.map((p, i) => encode(promptTokens(p, 'rubric', cots[i])));
  const outs = sample(policy, prompts, { maxNew: RUBRIC_MAX_NEW, temperature, topP: 1 }, rng);
  return outs.map((completion, i) => ({ prompt: prompts[i], completion, parsed: parseRubricTokens(decode(completion), domainOf(problems[i].family)) }));
}

/** Share of rubricator completions that parse into a valid rubric set, each written after one of the policy's own CoTs. */
export function rubricFormatValidity(policy: Policy, problems: Problem[], rng: Rng, temperature = 1): { valid: number; reasons: Record<string, number> } {
  const cots = sample(policy, problems.map((p) => encode(promptTokens(p, 'reason'))), { maxNew: 96, temperature, topP: 1 }, rng).map(decode);
  let valid = 0;
  const reasons: Record<string, number> = {};
  for (const { parsed: r } of writeRubrics(policy, problems, cots, rng, temperature)) {
    if (r.ok) valid++;
    else { const why = r.reason.replace(/ at token \d+/, '').replace(/got .*/, 'got ...'); reasons[why] = (reasons[why] ?? 0) + 1; }
  }
  return { valid: valid / problems.length, reasons };
}
