// The theory experiments as tidy tables. Each function is one experiment: a config in, rows out.
// Deterministic (ODE) experiments do not depend on the seed; the stochastic ones take an Rng.
import {
  coTrainingRate,
  F,
  saddleEigenvaluesClosedForm,
  saddleEigenvaluesNumeric,
  selfRewardRate,
  type TheoryParams,
} from './dynamics.js';
import { coTrainingPath, finalState, selfRewardPath } from './trajectories.js';
import { geometricTimes } from './ode.js';
import {
  binaryAgent,
  cloneAgent,
  correctProbs,
  trainTabular,
  type StepStats,
  type Supervision,
  type TabularConfig,
} from './tabular.js';
import { correlatedPair, errorOverlap, sampleOnce, type PairSpec } from './overlap.js';
import type { Rng } from '../util/random.js';
import { mean } from '../util/stats.js';
import type { Row } from '../io/table.js';
import {
  ConfigError,
  requireArray,
  requireFinite,
  requireInteger,
  requireOddK,
  requirePositive,
  requireProbability,
} from '../util/validate.js';

export interface TheoryConfig {
  /** update rate eta of the ODEs */
  eta: number;
  /** group sizes for the 1-D field, the saddle eigenvalues, the basins and the worked example */
  Ks: number[];
  /** group size for the phase portrait and its vector field */
  portraitK: number;
  /** horizon T at which a trajectory's state counts as final (1-p ~ 1/T near a sink) */
  horizon: number;
  /** points on [0, 1] for the 1-D self-reward field */
  fieldPoints: number;
  /** n: an n x n grid of starting points for the basin check and the phase portrait */
  gridStarts: number;
  /** starts with |pA + pB - 1| below this are near the separatrix and excluded from the basin check */
  separatrixBand: number;
  /** the worked example: half the problems start at (a, b), half at (b, a) */
  workedExample: [number, number];
  /** finite-sample GRPO beside the ODE */
  stochastic: TabularConfig & {
    /** independent replicates (tabular problems) per start */
    replicates: number;
    /** starts at pA + pB = 1 + offset */
    offsets: number[];
    /** pA - pB at every start */
    spread: number;
    /** offsets whose step-by-step paths are tabulated */
    pathOffsets: number[];
  };
  /** error overlap (Cohen's kappa) vs co-training outcome, for agent pairs with controlled correlation */
  overlap: TabularConfig & Omit<PairSpec, 'rho' | 'baseLogit'> & { rhos: number[]; baseLogits: number[] };
}

export const defaultTheoryConfig: TheoryConfig = {
  eta: 1,
  Ks: [3, 5, 7, 11],
  portraitK: 5,
  horizon: 1e6,
  fieldPoints: 101,
  gridStarts: 19,
  separatrixBand: 0.02,
  workedExample: [0.9, 0.2],
  stochastic: {
    K: 5,
    lr: 0.05,
    steps: 600,
    advantageEps: 1e-6,
    replicates: 200,
    offsets: [-0.3, -0.2, -0.1, -0.05, -0.02, 0, 0.02, 0.05, 0.1, 0.2, 0.3],
    spread: 0.3,
    pathOffsets: [-0.2, -0.05, 0.05, 0.2],
  },
  overlap: {
    K: 5,
    lr: 0.1,
    steps: 400,
    advantageEps: 1e-6,
    problems: 300,
    answers: 4,
    skillScale: 2,
    wrongScale: 1.5,
    rhos: [0, 0.25, 0.5, 0.75, 1],
    baseLogits: [0.5, -0.5],
  },
};

/** Validate a (possibly user-written) config, naming the first bad parameter. Unknown keys are errors. */
export function checkTheoryConfig(c: TheoryConfig): TheoryConfig {
  const known = Object.keys(defaultTheoryConfig);
  for (const k of Object.keys(c))
    if (!known.includes(k)) throw new ConfigError(`unknown config key "${k}" (known: ${known.join(', ')})`);
  requirePositive('eta', c.eta);
  requireArray('Ks', c.Ks, (n, v) => requireOddK(n, v));
  requireOddK('portraitK', c.portraitK);
  requirePositive('horizon', c.horizon);
  requireInteger('fieldPoints', c.fieldPoints, 2);
  requireInteger('gridStarts', c.gridStarts, 2);
  requireProbability('separatrixBand', c.separatrixBand);
  requireArray('workedExample', c.workedExample, (n, v) => requireProbability(n, v), 2);
  const s = c.stochastic;
  requireOddK('stochastic.K', s.K);
  requirePositive('stochastic.lr', s.lr);
  requireInteger('stochastic.steps', s.steps, 1);
  requireInteger('stochastic.replicates', s.replicates, 1);
  requireFinite('stochastic.spread', s.spread);
  for (const [name, list] of [
    ['stochastic.offsets', s.offsets],
    ['stochastic.pathOffsets', s.pathOffsets],
  ] as const) {
    requireArray(name, list, (n, v) => {
      const [a, b] = startAt(requireFinite(n, v), s.spread);
      if (!(a > 0 && a < 1 && b > 0 && b < 1))
        throw new ConfigError(`${n} = ${v} with stochastic.spread = ${s.spread} puts a start outside (0,1)`);
      return v;
    });
  }
  const o = c.overlap;
  requireOddK('overlap.K', o.K);
  requirePositive('overlap.lr', o.lr);
  requireInteger('overlap.steps', o.steps, 1);
  requireArray('overlap.rhos', o.rhos, (n, v) => requireProbability(n, v));
  requireArray('overlap.baseLogits', o.baseLogits, (n, v) => requireFinite(n, v));
  return c;
}

/** Start with pA + pB = 1 + offset and pA - pB = spread. */
export function startAt(offset: number, spread: number): [number, number] {
  const r = (x: number) => Number(x.toFixed(12)); // 0.2, not 0.19999999999999998, in the tables
  return [r(0.5 + offset / 2 + spread / 2), r(0.5 + offset / 2 - spread / 2)];
}

const grid = (n: number, lo: number, hi: number) => Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / (n - 1));
const params = (c: TheoryConfig, K: number): TheoryParams => ({ K, eta: c.eta });

/** 1-D self-rewarding vector field dp/dt for each K. */
export function selfRewardField(c: TheoryConfig): Row[] {
  return c.Ks.flatMap((K) => grid(c.fieldPoints, 0, 1).map((p) => ({ K, p, dp_dt: selfRewardRate(p, params(c, K)) })));
}

/** Eigenvalues of the co-training Jacobian at (1/2,1/2): numeric (central differences) vs closed form. */
export function saddleEigenvalues(c: TheoryConfig): Row[] {
  return c.Ks.flatMap((K) => {
    const num = saddleEigenvaluesNumeric(params(c, K)),
      cf = saddleEigenvaluesClosedForm(params(c, K));
    return [0, 1].map((i) => ({ K, numeric: num[i], closed_form: cf[i] }));
  });
}

/** Co-training vector field on a grid, for the phase portrait. */
export function phaseField(c: TheoryConfig, n = 21): Row[] {
  const prm = params(c, c.portraitK);
  return grid(n, 0.025, 0.975).flatMap((pA) =>
    grid(n, 0.025, 0.975).map((pB) => {
      const [dA, dB] = coTrainingRate([pA, pB], prm);
      return { K: c.portraitK, pA, pB, dpA_dt: dA, dpB_dt: dB };
    }),
  );
}

/**
 * The conserved quantity F_K(pA) - F_K(pB) on a grid, for the phase portrait's level sets: every co-training
 * trajectory runs along one of them (eq. 9).
 */
export function phaseInvariant(c: TheoryConfig, n = 39): Row[] {
  const prm = params(c, c.portraitK),
    Fs = new Map(grid(n, 0.025, 0.975).map((p) => [p, F(p, prm)] as const));
  return [...Fs].flatMap(([pA, fA]) => [...Fs].map(([pB, fB]) => ({ K: c.portraitK, pA, pB, F_diff: fA - fB })));
}

/** Trajectories of the phase portrait from a coarse grid of starts, at geometric output times. */
export function phaseTrajectories(c: TheoryConfig, n = 7, points = 80): Row[] {
  const prm = params(c, c.portraitK),
    times = geometricTimes(c.horizon, points);
  let start = 0;
  return grid(n, 0.1, 0.9).flatMap((pA0) =>
    grid(n, 0.1, 0.9).flatMap((pB0) => {
      const path = coTrainingPath([pA0, pB0], prm, times),
        id = start++;
      return path.times.map((t, j) => ({
        K: c.portraitK,
        start: id,
        pA0,
        pB0,
        t,
        pA: path.states[j][0],
        pB: path.states[j][1],
      }));
    }),
  );
}

/** Final states on an n x n grid of starts, under both dynamics, with the theory's predicted sink. */
export function basinGrid(c: TheoryConfig): Row[] {
  const rows: Row[] = [];
  const starts = grid(c.gridStarts, 0.05, 0.95),
    times = [0, c.horizon];
  for (const K of c.Ks) {
    const prm = params(c, K);
    const self = new Map(starts.map((p) => [p, selfRewardPath(p, prm, times)] as const));
    for (const pA0 of starts)
      for (const pB0 of starts) {
        const co = coTrainingPath([pA0, pB0], prm, times);
        const [fA, fB] = finalState(co),
          sA = finalState(self.get(pA0)!)[0],
          sB = finalState(self.get(pB0)!)[0];
        const offset = pA0 + pB0 - 1;
        rows.push({
          K,
          method: 'co_training',
          pA0,
          pB0,
          offset,
          final_pA: fA,
          final_pB: fB,
          predicted_pA: offset > 0 ? 1 : offset < 0 ? 0 : 0.5,
          predicted_pB: offset > 0 ? 1 : offset < 0 ? 0 : 0.5,
          near_separatrix: Math.abs(offset) < c.separatrixBand,
          error_bound: co.errorBound,
        });
        rows.push({
          K,
          method: 'self_reward',
          pA0,
          pB0,
          offset,
          final_pA: sA,
          final_pB: sB,
          predicted_pA: pA0 > 0.5 ? 1 : pA0 < 0.5 ? 0 : 0.5,
          predicted_pB: pB0 > 0.5 ? 1 : pB0 < 0.5 ? 0 : 0.5,
          near_separatrix: Math.abs(pA0 - 0.5) < c.separatrixBand || Math.abs(pB0 - 0.5) < c.separatrixBand,
          error_bound: Math.max(self.get(pA0)!.errorBound, self.get(pB0)!.errorBound),
        });
      }
  }
  return rows;
}

/** F_K(pA) - F_K(pB) along co-training trajectories (conserved), and pA + pB on the separatrix (invariant). */
export function conservation(c: TheoryConfig, horizon = 40, points = 41): Row[] {
  const rows: Row[] = [];
  const times = grid(points, 0, horizon);
  const starts: [string, [number, number]][] = [
    ['above', [0.6, 0.45]],
    ['below', [0.35, 0.55]],
    ['far', [0.8, 0.3]],
    ['separatrix', [0.3, 0.7]],
  ];
  for (const K of c.Ks) {
    const prm = params(c, K);
    for (const [name, s] of starts) {
      const path = coTrainingPath(s, prm, times);
      const f0 = F(s[0], prm) - F(s[1], prm);
      path.times.forEach((t, j) => {
        const [pA, pB] = path.states[j];
        rows.push({
          K,
          start: name,
          pA0: s[0],
          pB0: s[1],
          t,
          pA,
          pB,
          sum: pA + pB,
          F_diff: F(pA, prm) - F(pB, prm),
          drift: F(pA, prm) - F(pB, prm) - f0,
        });
      });
    }
  }
  return rows;
}

/** CO-RL's worked example: half the problems at (a, b), half at (b, a); accuracy = mean over agents and problems. */
export function workedExample(c: TheoryConfig): Row[] {
  const [a, b] = c.workedExample,
    times = [0, c.horizon];
  return c.Ks.flatMap((K) => {
    const prm = params(c, K);
    const self = (finalState(selfRewardPath(a, prm, times))[0] + finalState(selfRewardPath(b, prm, times))[0]) / 2;
    const co1 = finalState(coTrainingPath([a, b], prm, times)),
      co2 = finalState(coTrainingPath([b, a], prm, times));
    const co = (co1[0] + co1[1] + co2[0] + co2[1]) / 4;
    return [
      { K, method: 'self_reward', final_accuracy: self },
      { K, method: 'co_training', final_accuracy: co },
    ];
  });
}

/** ODE state (mean of pA and pB) at the times that tabular steps correspond to: t = 2 lr step / eta. */
export function odeAtSteps(c: TheoryConfig, start: [number, number], steps: number[]): number[] {
  const s = c.stochastic,
    prm = params(c, s.K);
  const path = coTrainingPath(
    start,
    prm,
    steps.map((k) => (2 * s.lr * k) / c.eta),
  );
  return path.states.map(([pA, pB]) => (pA + pB) / 2);
}

export interface StochasticResult {
  basin: Row[];
  paths: Row[];
}

/**
 * Co-training of two binary tabular agents from starts across the separatrix, `replicates` independent
 * problems per start. Reports the share of replicates that end with both agents correct (p > 1/2) beside the
 * ODE's prediction, and the replicate-mean accuracy per step beside the ODE path.
 */
export function stochasticVsOde(
  c: TheoryConfig,
  seed: number,
  rng: Rng,
  log?: (r: Record<string, unknown>) => void,
): StochasticResult {
  const s = c.stochastic,
    basin: Row[] = [],
    paths: Row[] = [];
  const allSteps = Array.from({ length: s.steps + 1 }, (_, k) => k);
  for (const offset of s.offsets) {
    const start = startAt(offset, s.spread);
    const agents = start.map((p) => binaryAgent(new Array(s.replicates).fill(p)));
    const mean: number[] = [];
    trainTabular(agents, 'co_training', s, rng, (st: StepStats) => {
      mean.push((st.accuracy[0] + st.accuracy[1]) / 2);
      log?.({ experiment: 'stochastic_vs_ode', seed, offset, ...flatStats(st) });
    });
    const [pA, pB] = agents.map(correctProbs);
    const correct = pA.filter((v, i) => v > 0.5 && pB[i] > 0.5).length / s.replicates;
    const ode = finalState(coTrainingPath(start, params(c, s.K), [0, c.horizon]));
    // theory_limit: the accuracy the theorem predicts (on the separatrix the flow ends at the saddle, 1/2)
    basin.push({
      K: s.K,
      offset,
      pA0: start[0],
      pB0: start[1],
      seed,
      theory_limit: offset > 0 ? 1 : offset < 0 ? 0 : 0.5,
      stochastic_share_correct: correct,
      ode_final_accuracy: (ode[0] + ode[1]) / 2,
      stochastic_final_accuracy: mean[mean.length - 1],
    });
    if (s.pathOffsets.includes(offset)) {
      const ode = odeAtSteps(c, start, allSteps);
      allSteps.forEach((k) =>
        paths.push({
          K: s.K,
          offset,
          seed,
          step: k,
          t: (2 * s.lr * k) / c.eta,
          stochastic_accuracy: mean[k],
          ode_accuracy: ode[k],
        }),
      );
    }
  }
  return { basin, paths };
}

function flatStats(st: StepStats): Record<string, number> {
  return {
    step: st.step,
    accuracy_A: st.accuracy[0],
    accuracy_B: st.accuracy[1],
    pseudo_label_accuracy_A: st.pseudoLabelAccuracy[0],
    pseudo_label_accuracy_B: st.pseudoLabelAccuracy[1],
    agreement: st.agreement,
    reward_std_A: st.rewardStd[0],
    reward_std_B: st.rewardStd[1],
  };
}

/**
 * Agent pairs with controlled error correlation: their error overlap (kappa, c, w, u from one sampled answer
 * each, as CO-RL measures it), then self-rewarding and co-training from the same start, and the binary
 * theory's prediction (co-training: correct iff pA + pB > 1; self-rewarding: iff p > 1/2).
 */
export function overlapVsOutcome(
  c: TheoryConfig,
  seed: number,
  rng: Rng,
  log?: (r: Record<string, unknown>) => void,
): Row[] {
  const o = c.overlap,
    rows: Row[] = [];
  for (const baseLogit of o.baseLogits)
    for (const rho of o.rhos) {
      const pair = correlatedPair({ ...o, rho, baseLogit }, rng);
      const ov = errorOverlap(sampleOnce(pair[0], rng), sampleOnce(pair[1], rng));
      const [pA, pB] = pair.map(correctProbs);
      const predictedCo = mean(pA.map((a, i) => (a + pB[i] > 1 ? 1 : 0)));
      const predictedSelf = (mean(pA.map((a) => (a > 0.5 ? 1 : 0))) + mean(pB.map((b) => (b > 0.5 ? 1 : 0)))) / 2;
      const final: Record<Supervision, number> = { self_reward: 0, co_training: 0 };
      for (const mode of ['self_reward', 'co_training'] as const) {
        const agents = pair.map(cloneAgent);
        trainTabular(agents, mode, o, rng, (st) =>
          log?.({ experiment: 'overlap', seed, rho, baseLogit, mode, ...flatStats(st) }),
        );
        final[mode] = mean(agents.flatMap(correctProbs));
      }
      rows.push({
        rho,
        base_logit: baseLogit,
        seed,
        kappa: ov.kappa,
        complementarity: ov.complementarity,
        wrong_agreement: ov.wrongAgreement,
        oracle: ov.oracle,
        initial_accuracy: (mean(pA) + mean(pB)) / 2,
        final_self_reward: final.self_reward,
        final_co_training: final.co_training,
        predicted_self_reward: predictedSelf,
        predicted_co_training: predictedCo,
      });
    }
  return rows;
}
