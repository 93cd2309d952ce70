// Adaptive Dormand-Prince 5(4) integrator with a stated, measured error bound.
//
// Error bound. Each accepted step keeps the embedded local error estimate below
// atol + rtol*|y| (per component). That alone bounds local, not global, error, so `solveOde`
// integrates twice, at tolerance tol and tol/64, and returns the finer solution together with
// `errorBound` = max |y_tol - y_tol/64| over the output times. For a 5th-order method the finer run's
// global error is ~64x below the coarser one's, so this difference bounds the returned solution's global
// error (it is the coarse run's error up to a few percent). Tests check it on an ODE with a closed form.
import { requirePositive, requireFinite } from '../util/validate.js';

export type Field = (t: number, y: number[]) => number[];

export interface OdeOptions {
  /** relative tolerance per step (the fine run uses tol/64) */
  tol: number;
  /** absolute tolerance floor per step, as a multiple of tol */
  atolFactor: number;
  /** hard cap on steps, so a bad field cannot hang a run */
  maxSteps: number;
}

export const defaultOdeOptions: OdeOptions = { tol: 1e-8, atolFactor: 1, maxSteps: 200_000 };

export interface OdeSolution {
  times: number[];
  states: number[][];
  steps: number;
  rejected: number;
  /** bound on the global error of `states` (max over outputs and components) */
  errorBound: number;
}

// Dormand-Prince coefficients.
const C = [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1];
const A = [
  [],
  [1 / 5],
  [3 / 40, 9 / 40],
  [44 / 45, -56 / 15, 32 / 9],
  [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
  [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
  [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
];
const B5 = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0];
const B4 = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40];

/** One adaptive integration through the (increasing) output times; y(times[0]) = y0. */
export function integrate(f: Field, y0: number[], times: number[], tol: number, atolFactor: number, maxSteps: number) {
  const n = y0.length;
  const states: number[][] = [y0.slice()];
  let t = times[0],
    y = y0.slice(),
    h = Math.max(1e-6, (times[times.length - 1] - t) * 1e-6);
  let steps = 0,
    rejected = 0;
  const k: number[][] = new Array(7);
  for (let out = 1; out < times.length; out++) {
    const target = times[out];
    while (t < target) {
      if (steps + rejected > maxSteps) throw new Error(`ODE integration exceeded maxSteps=${maxSteps} at t=${t}`);
      const last = t + h >= target;
      const hh = last ? target - t : h;
      k[0] = f(t, y);
      for (let s = 1; s < 7; s++) {
        const ys = y.slice();
        for (let j = 0; j < s; j++) if (A[s][j] !== 0) for (let i = 0; i < n; i++) ys[i] += hh * A[s][j] * k[j][i];
        k[s] = f(t + C[s] * hh, ys);
      }
      const y5 = y.slice();
      let errNorm = 0;
      for (let i = 0; i < n; i++) {
        let d5 = 0,
          d4 = 0;
        for (let s = 0; s < 7; s++) {
          d5 += B5[s] * k[s][i];
          d4 += B4[s] * k[s][i];
        }
        y5[i] += hh * d5;
        const scale = tol * atolFactor + tol * Math.max(Math.abs(y[i]), Math.abs(y5[i]));
        errNorm = Math.max(errNorm, Math.abs(hh * (d5 - d4)) / scale);
      }
      requireFinite('ODE error estimate', errNorm);
      const factor = errNorm === 0 ? 5 : Math.min(5, Math.max(0.2, 0.9 * Math.pow(errNorm, -0.2)));
      if (errNorm <= 1) {
        t = last ? target : t + hh;
        y = y5;
        steps++;
        if (!last || factor < 1) h = hh * factor; // keep the pre-clamp step size when landing on an output
      } else {
        rejected++;
        h = hh * factor;
      }
    }
    states.push(y.slice());
  }
  return { states, steps, rejected };
}

/** Integrate y' = f(t, y) from times[0] through the output times, with a global error bound (see top). */
export function solveOde(f: Field, y0: number[], times: number[], opts: Partial<OdeOptions> = {}): OdeSolution {
  const o = { ...defaultOdeOptions, ...opts };
  requirePositive('tol', o.tol);
  y0.forEach((v, i) => requireFinite(`y0[${i}]`, v));
  times.forEach((v, i) => {
    requireFinite(`times[${i}]`, v);
    if (i > 0 && v < times[i - 1])
      throw new Error(`times must be non-decreasing (times[${i}] = ${v} < ${times[i - 1]})`);
  });
  const coarse = integrate(f, y0, times, o.tol, o.atolFactor, o.maxSteps);
  const fine = integrate(f, y0, times, o.tol / 64, o.atolFactor, o.maxSteps);
  let errorBound = 0;
  fine.states.forEach((s, j) =>
    s.forEach((v, i) => {
      errorBound = Math.max(errorBound, Math.abs(v - coarse.states[j][i]));
    }),
  );
  return { times: times.slice(), states: fine.states, steps: fine.steps, rejected: fine.rejected, errorBound };
}

/** Output times: 0, then geometrically spaced up to T (the dynamics slow down like 1/t near the sinks). */
export function geometricTimes(T: number, count: number, first = 0.01): number[] {
  requirePositive('T', T);
  const out = [0];
  for (let i = 0; i < count; i++) out.push(first * Math.pow(T / first, i / (count - 1)));
  return out;
}
