// Trajectories of the self-rewarding and co-training ODEs, integrated in log-odds l = log(p/(1-p)):
// dl/dt = (dp/dt) / (p(1-p)), which never leaves (0,1) and stays smooth as p approaches a sink
// (in p the approach is algebraic, 1-p ~ 1/t, because q_K(p) ~ (1-p)^2 there).
import { voteMoments } from './binomial.js';
import { checkParams, type TheoryParams } from './dynamics.js';
import { solveOde, type OdeOptions } from './ode.js';
import { requireProbability } from '../util/validate.js';

export const logit = (p: number) => Math.log(p / (1 - p));
export const sigmoid = (l: number) => 1 / (1 + Math.exp(-l));

export interface PathResult {
  times: number[];
  /** states[j] = probabilities at times[j]: [p] for self-rewarding, [pA, pB] for co-training */
  states: number[][];
  /** bound on the global error of the states, in probability units (see ode.ts) */
  errorBound: number;
}

function solveInLogOdds(
  p0: number[],
  rate: (l: number[]) => number[],
  times: number[],
  opts?: Partial<OdeOptions>,
): PathResult {
  // p in {0, 1} is a fixed point of both dynamics (no variance, no gradient); it stays there
  if (p0.some((p) => p === 0 || p === 1)) {
    const fixed = p0.map((p) => (p === 0 || p === 1 ? p : NaN));
    if (fixed.every((v) => !Number.isNaN(v)))
      return { times: times.slice(), states: times.map(() => p0.slice()), errorBound: 0 };
  }
  const clampLogit = (p: number) => (p === 0 ? -40 : p === 1 ? 40 : logit(p));
  const sol = solveOde((_t, l) => rate(l), p0.map(clampLogit), times, opts);
  // |dp| <= |dl|/4, since dp/dl = p(1-p) <= 1/4
  return { times: sol.times, states: sol.states.map((l) => l.map(sigmoid)), errorBound: sol.errorBound / 4 };
}

/** Self-rewarding trajectory from p0. */
export function selfRewardPath(p0: number, prm: TheoryParams, times: number[], opts?: Partial<OdeOptions>): PathResult {
  checkParams(prm);
  requireProbability('p0', p0);
  return solveInLogOdds([p0], ([l]) => [prm.eta * voteMoments(prm.K, sigmoid(l)).signedMeanStd], times, opts);
}

/** Co-training trajectory from (pA0, pB0): dlA/dt = eta E_A[s] phi(pB), dlB/dt = eta E_B[s] phi(pA). */
export function coTrainingPath(
  start: [number, number],
  prm: TheoryParams,
  times: number[],
  opts?: Partial<OdeOptions>,
): PathResult {
  checkParams(prm);
  requireProbability('pA0', start[0]);
  requireProbability('pB0', start[1]);
  return solveInLogOdds(
    start,
    ([lA, lB]) => {
      const a = voteMoments(prm.K, sigmoid(lA)),
        b = voteMoments(prm.K, sigmoid(lB));
      return [prm.eta * a.meanStd * b.phi, prm.eta * b.meanStd * a.phi];
    },
    times,
    opts,
  );
}

/** Final state at horizon T. */
export function finalState(path: PathResult): number[] {
  return path.states[path.states.length - 1];
}
