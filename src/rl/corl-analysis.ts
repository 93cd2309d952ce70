// Measurements that connect CO-RL's experiments to its theory: error overlap of two agents on the fixed
// evaluation sets (Cohen's kappa, c, w, u), each problem's initial probability of a correct answer, the binary
// theory's prediction of which problems end correct (the binary separatrix rule and the plurality rule), how often
// trained agents agree with each prediction, and a few final completions per family for the run's record.
import { sample, type Policy } from '../models/policy.js';
import type { Rng } from '../util/random.js';
import type { Family, Problem } from '../world/problems.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import { majorityAnswer } from './evaluate.js';
import { answerOf, parseTrace, promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { errorOverlap, type Overlap } from '../theory/overlap.js';

/** Answers per problem (problem-major); null: no parseable, terminated answer. */
type Answers = (string | null)[][];

/** `n` completions (token ids) of a policy per problem at `temperature`, problem-major. */
function sampleCompletions(policy: Policy, problems: Problem[], n: number, rng: Rng, temperature = 1): number[][][] {
  const prompts = problems.flatMap((p) => Array.from({ length: n }, () => encode(promptTokens(p, 'reason'))));
  const outs: number[][] = [];
  for (let i = 0; i < prompts.length; i += 256) {
    outs.push(...sample(policy, prompts.slice(i, i + 256), { maxNew: 96, temperature, topP: 1 }, rng));
  }
  return problems.map((_, j) => outs.slice(j * n, (j + 1) * n));
}

/** `n` answers of a policy per problem (null: no parseable, terminated answer), problem-major. */
export function sampleAnswers(policy: Policy, problems: Problem[], n: number, rng: Rng, temperature = 1): Answers {
  const outs = sampleCompletions(policy, problems, n, rng, temperature);
  return outs.map((os) => os.map((o) => answerOf(parseTrace(decode(o)))));
}

/**
 * Error overlap of two agents from paired draws (the k-th draw of A with the k-th of B, on each problem). Answers are
 * coded 0 = correct, and one shared code per distinct wrong answer, so "both wrong with the same answer" is w; a
 * missing answer gets a code of its own per agent (two silences do not agree).
 */
export function pairOverlap(
  problems: Problem[],
  answersA: (string | null)[][],
  answersB: (string | null)[][],
): Overlap {
  const codes = new Map<string, number>();
  const code = (p: Problem, a: string | null, agent: string) => {
    if (a === p.answer.join('')) return 0;
    const key = a === null ? `none|${agent}|${codes.size}` : `${p.operands.join(',')}|${p.family}|${a}`;
    if (!codes.has(key)) codes.set(key, codes.size + 1);
    return codes.get(key)!;
  };
  const a: number[] = [],
    b: number[] = [];
  problems.forEach((p, j) =>
    answersA[j].forEach((x, k) => {
      a.push(code(p, x, 'A'));
      b.push(code(p, answersB[j][k], 'B'));
    }),
  );
  return errorOverlap(a, b);
}

/** Share of correct answers per problem. */
export const correctShare = (problems: Problem[], answers: (string | null)[][]) =>
  problems.map((p, j) => answers[j].filter((a) => a === p.answer.join('')).length / answers[j].length);

/**
 * The binary theory's prediction of which problems end correct: co-training converges to correct iff
 * pA + pB > 1 (the separatrix), self-rewarding iff p > 1/2. Points on the boundary are predicted wrong.
 */
export const predictCoTraining = (pA: number[], pB: number[]) => pA.map((a, j) => a + pB[j] > 1);
export const predictSelfReward = (p: number[]) => p.map((x) => x > 0.5);

/**
 * The plurality rule: a problem is predicted to end correct when the plurality of the initial answers is the
 * truth (majorityAnswer: missing answers ignored, ties to the answer seen first). A plurality over scattered wrong
 * answers can be right with p < 1/2, where the separatrix rule predicts wrong. For a single agent the answers are
 * its own samples; for a pair, the pooled samples of the agent and its supervisor (predictPooledPlurality).
 */
export const predictPlurality = (problems: Problem[], answers: Answers) =>
  problems.map((p, j) => majorityAnswer(answers[j]) === p.answer.join(''));
export const predictPooledPlurality = (problems: Problem[], answersA: Answers, answersB: Answers) =>
  predictPlurality(
    problems,
    problems.map((_, j) => [...answersA[j], ...answersB[j]]),
  );

export const THEORY_RULES = ['separatrix', 'plurality'] as const;
export type TheoryRule = (typeof THEORY_RULES)[number];

/** Share of problems where the prediction and the trained agent's outcome (majority answer correct) agree. */
export function predictionAgreement(predicted: boolean[], actual: boolean[]): number {
  if (predicted.length !== actual.length || predicted.length === 0)
    throw new Error('predictionAgreement: lengths differ or are zero');
  return predicted.filter((x, j) => x === actual[j]).length / predicted.length;
}

/**
 * The problems whose final completions a run keeps: `perFamily` per family from its evaluation sets, one per
 * difficulty in turn (difficulty 2's first, difficulty 3's first, ..., then each one's second).
 */
export function sampleProblems(perFamily: number, load: (f: Family, d: number) => Problem[] = loadEvalSet): Problem[] {
  return (Object.keys(EVAL_GRID) as Family[]).flatMap((f) =>
    Array.from({ length: perFamily }, (_, k) => {
      const ds = EVAL_GRID[f];
      return load(f, ds[k % ds.length])[Math.floor(k / ds.length)];
    }),
  );
}

/** One completion per problem at temperature 1 (the evaluation's), as rows of the run's samples.csv. */
export function completionRows(policy: Policy, problems: Problem[], rng: Rng) {
  const outs = sampleCompletions(policy, problems, 1, rng);
  return problems.map((p, j) => {
    const tokens = decode(outs[j][0]),
      answer = answerOf(parseTrace(tokens)),
      truth = p.answer.join('');
    return {
      family: p.family,
      difficulty: p.digits,
      problem: p.operands.join(','),
      truth,
      answer: answer ?? '',
      correct: +(answer === truth),
      completion: tokens.join(' '),
    };
  });
}
