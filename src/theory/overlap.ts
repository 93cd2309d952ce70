// Error overlap between two agents, as CO-RL's Tables 5-7 define it from the 2x2 outcome table of one
// answer per agent per problem: Cohen's kappa of correctness, complementarity c (exactly one correct),
// wrong-agreement w (both wrong with the same answer), oracle accuracy u (not both wrong).
import type { Rng } from '../util/random.js';
import { agentFromProbs, type TabularAgent, answerProbs } from './tabular.js';
import { requireProbability, requireInteger, requirePositive, requireFinite, ConfigError } from '../util/validate.js';

export interface Overlap {
  kappa: number;
  complementarity: number;
  wrongAgreement: number;
  oracle: number;
  accA: number;
  accB: number;
}

/** Overlap statistics from paired answers (0 = correct). Kappa is NaN-free: 0 when chance agreement is 1. */
export function errorOverlap(answersA: ArrayLike<number>, answersB: ArrayLike<number>): Overlap {
  const n = answersA.length;
  if (n === 0 || answersB.length !== n)
    throw new ConfigError(`answer lists must be non-empty and equal length (${n} vs ${answersB.length})`);
  let both = 0,
    onlyA = 0,
    onlyB = 0,
    sameWrong = 0;
  for (let i = 0; i < n; i++) {
    const a = answersA[i] === 0,
      b = answersB[i] === 0;
    if (a && b) both++;
    else if (a) onlyA++;
    else if (b) onlyB++;
    else if (answersA[i] === answersB[i]) sameWrong++;
  }
  const neither = n - both - onlyA - onlyB;
  const accA = (both + onlyA) / n,
    accB = (both + onlyB) / n;
  const po = (both + neither) / n;
  const pe = accA * accB + (1 - accA) * (1 - accB);
  return {
    kappa: pe === 1 ? 0 : (po - pe) / (1 - pe),
    complementarity: (onlyA + onlyB) / n,
    wrongAgreement: sameWrong / n,
    oracle: (n - neither) / n,
    accA,
    accB,
  };
}

export interface PairSpec {
  problems: number;
  /** answers per problem (1 correct + answers-1 wrong) */
  answers: number;
  /** correlation of the two agents' latent skill and wrong-answer preferences, in [0, 1] */
  rho: number;
  /** mean logit of P(correct) */
  baseLogit: number;
  /** spread of the latent correctness logit across problems */
  skillScale: number;
  /** spread of the wrong-answer logits (a larger value concentrates wrong mass on an attractor) */
  wrongScale: number;
}

export function checkPairSpec(s: PairSpec): void {
  requireInteger('problems', s.problems, 1);
  requireInteger('answers', s.answers, 2);
  requireProbability('rho', s.rho);
  requireFinite('baseLogit', s.baseLogit);
  requirePositive('skillScale', s.skillScale);
  requirePositive('wrongScale', s.wrongScale);
}

/**
 * Two agents whose errors are correlated through shared latents: per problem, logit P(correct) =
 * baseLogit + skillScale*(sqrt(rho) z + sqrt(1-rho) e_n), and wrong-answer logits mix a shared and an own
 * Gaussian the same way. rho = 1: identical agents ("seed only"); rho = 0: independent ("other family").
 */
export function correlatedPair(s: PairSpec, rng: Rng): [TabularAgent, TabularAgent] {
  checkPairSpec(s);
  const a = Math.sqrt(s.rho),
    b = Math.sqrt(1 - s.rho),
    W = s.answers - 1;
  const rows: number[][][] = [[], []];
  for (let x = 0; x < s.problems; x++) {
    const z = rng.normal();
    const shared = Array.from({ length: W }, () => rng.normal());
    for (let n = 0; n < 2; n++) {
      const p = 1 / (1 + Math.exp(-(s.baseLogit + s.skillScale * (a * z + b * rng.normal()))));
      const w = shared.map((v) => Math.exp(s.wrongScale * (a * v + b * rng.normal())));
      const wz = w.reduce((u, v) => u + v, 0);
      // keep every probability strictly positive so that logits stay finite
      const pc = Math.min(Math.max(p, 1e-9), 1 - 1e-9);
      rows[n].push([pc, ...w.map((v) => Math.max(((1 - pc) * v) / wz, 1e-12))]);
    }
  }
  return [agentFromProbs(rows[0]), agentFromProbs(rows[1])];
}

/** One sampled answer per problem (the papers' single-sample protocol). */
export function sampleOnce(agent: TabularAgent, rng: Rng): Int32Array {
  const row = new Float64Array(agent.answers),
    out = new Int32Array(agent.problems);
  for (let x = 0; x < agent.problems; x++) out[x] = rng.categorical(answerProbs(agent, x, row));
  return out;
}
