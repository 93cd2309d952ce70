// Figure builders for the CO-RL theory, from the tidy tables in results/theory/ (nothing is recomputed).
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import type { Figure } from './figures.js';

const num = (v: unknown) => Number(v);
const uniq = <T>(xs: T[]) => [...new Set(xs)];
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const axis = (title: string, extra: Record<string, unknown> = {}) => ({
  title: { text: title },
  zeroline: false,
  ...extra,
});

/** dp/dt of self-rewarding against p, one line per K: negative below 1/2, positive above (Prop. 2). */
export function selfRewardFieldFigure(field: Row[]): Figure {
  const Ks = uniq(field.map((r) => num(r.K)));
  return {
    name: 'theory_self_reward_field',
    data: Ks.map((K, i) => {
      const rows = field.filter((r) => num(r.K) === K);
      return {
        type: 'scatter',
        mode: 'lines',
        name: `K = ${K}`,
        x: rows.map((r) => num(r.p)),
        y: rows.map((r) => num(r.dp_dt)),
        line: { color: COLORS[i % COLORS.length] },
      };
    }),
    layout: {
      title: { text: 'Self-rewarding confirms its own bias: dp/dt has the sign of p − 1/2' },
      xaxis: axis('p = P(correct answer)'),
      yaxis: axis('dp/dt (η = 1)', { zeroline: true }),
      shapes: [{ type: 'line', x0: 0.5, x1: 0.5, yref: 'paper', y0: 0, y1: 1, line: { dash: 'dot', color: 'gray' } }],
    },
  };
}

/**
 * Level sets of the conserved F_K(pA) - F_K(pB) as a contour trace (lines only, no fill): z[j][i] at
 * (pA = xs[i], pB = ys[j]); levels every 2 from -8 to 8 (0 is the diagonal pA = pB).
 */
export function invariantContours(inv: Row[]): Record<string, unknown> {
  const xs = uniq(inv.map((r) => num(r.pA))).sort((a, b) => a - b),
    ys = uniq(inv.map((r) => num(r.pB))).sort((a, b) => a - b);
  const at = new Map(inv.map((r) => [`${num(r.pA)},${num(r.pB)}`, num(r.F_diff)]));
  return {
    type: 'contour',
    name: 'level sets of F_K(pA) − F_K(pB)',
    x: xs,
    y: ys,
    z: ys.map((y) => xs.map((x) => at.get(`${x},${y}`) ?? null)),
    showscale: false,
    showlegend: true,
    contours: { coloring: 'lines', start: -8, end: 8, size: 2 },
    line: { width: 1, dash: 'dot' },
    colorscale: [
      [0, '#1f77b4'],
      [1, '#1f77b4'],
    ],
    hoverinfo: 'skip',
  };
}

/** Phase portrait of co-training: vector field, level sets of the invariant, trajectories, saddle, separatrix, sinks. */
export function phasePortraitFigure(field: Row[], trajectories: Row[], invariant: Row[] = []): Figure {
  const K = num(field[0].K);
  // arrows as short normalised segments, joined in one trace with null breaks
  const ax: (number | null)[] = [],
    ay: (number | null)[] = [];
  const L = 0.028;
  for (const r of field) {
    const dx = num(r.dpA_dt),
      dy = num(r.dpB_dt),
      n = Math.hypot(dx, dy);
    if (n === 0) continue;
    const x = num(r.pA),
      y = num(r.pB),
      ux = (L * dx) / n,
      uy = (L * dy) / n;
    // shaft and a two-stroke head
    ax.push(
      x - ux / 2,
      x + ux / 2,
      x + ux / 2 - 0.35 * (ux - 0.5 * uy),
      null,
      x + ux / 2,
      x + ux / 2 - 0.35 * (ux + 0.5 * uy),
      null,
    );
    ay.push(
      y - uy / 2,
      y + uy / 2,
      y + uy / 2 - 0.35 * (uy + 0.5 * ux),
      null,
      y + uy / 2,
      y + uy / 2 - 0.35 * (uy - 0.5 * ux),
      null,
    );
  }
  const starts = uniq(trajectories.map((r) => num(r.start)));
  const paths = {
    up: { x: [] as (number | null)[], y: [] as (number | null)[] },
    down: { x: [] as (number | null)[], y: [] as (number | null)[] },
  };
  for (const s of starts) {
    const rows = trajectories.filter((r) => num(r.start) === s);
    const end = rows[rows.length - 1];
    const p = num(end.pA) + num(end.pB) > 1 ? paths.up : paths.down;
    for (const r of rows) {
      p.x.push(num(r.pA));
      p.y.push(num(r.pB));
    }
    p.x.push(null);
    p.y.push(null);
  }
  return {
    name: 'theory_phase_portrait',
    width: 760,
    height: 720,
    data: [
      {
        type: 'scatter',
        mode: 'lines',
        name: 'vector field',
        x: ax,
        y: ay,
        line: { color: '#b0b0b0', width: 1 },
        hoverinfo: 'skip',
      },
      ...(invariant.length ? [invariantContours(invariant)] : []),
      {
        type: 'scatter',
        mode: 'lines',
        name: 'trajectory → (1,1)',
        x: paths.up.x,
        y: paths.up.y,
        line: { color: '#2ca02c', width: 1.6 },
      },
      {
        type: 'scatter',
        mode: 'lines',
        name: 'trajectory → (0,0)',
        x: paths.down.x,
        y: paths.down.y,
        line: { color: '#d62728', width: 1.6 },
      },
      {
        type: 'scatter',
        mode: 'lines',
        name: 'separatrix pA + pB = 1',
        x: [0, 1],
        y: [1, 0],
        line: { color: 'black', dash: 'dash', width: 2 },
      },
      {
        type: 'scatter',
        mode: 'markers',
        name: 'saddle (1/2, 1/2)',
        x: [0.5],
        y: [0.5],
        marker: { symbol: 'x', size: 14, color: 'black' },
      },
      {
        type: 'scatter',
        mode: 'markers',
        name: 'sinks (0,0), (1,1)',
        x: [0, 1],
        y: [0, 1],
        marker: { symbol: 'circle', size: 14, color: 'black' },
      },
    ],
    layout: {
      title: { text: `Co-training phase portrait (K = ${K}): the basin of (1,1) is pA + pB > 1` },
      xaxis: axis('pA (agent A accuracy)', { range: [-0.03, 1.03], constrain: 'domain' }),
      yaxis: axis('pB (agent B accuracy)', { range: [-0.03, 1.03], scaleanchor: 'x' }),
      legend: { x: 1.02, y: 1 },
    },
  };
}

/** Final accuracy of the worked example (0.9/0.2 on complementary halves), by K and method. */
export function workedExampleFigure(rows: Row[]): Figure {
  const methods = uniq(rows.map((r) => String(r.method)));
  return {
    name: 'theory_worked_example',
    data: methods.map((m, i) => {
      const rs = rows.filter((r) => r.method === m);
      return {
        type: 'bar',
        name: m === 'co_training' ? 'co-training' : 'self-rewarding',
        x: rs.map((r) => `K = ${r.K}`),
        y: rs.map((r) => num(r.final_accuracy)),
        text: rs.map((r) => num(r.final_accuracy).toFixed(3)),
        textposition: 'outside',
        marker: { color: COLORS[i] },
      };
    }),
    layout: {
      title: { text: 'Worked example: (pA, pB) = (0.9, 0.2) on half the problems, (0.2, 0.9) on the other half' },
      barmode: 'group',
      xaxis: axis('samples per step'),
      yaxis: axis('final accuracy (ODE at the horizon)', { range: [0, 1.12] }),
    },
  };
}

/** Finite-sample GRPO beside the ODE: paths, and the share reaching (1,1) across the separatrix. */
export function stochasticVsOdeFigure(paths: Row[], basin: Row[]): Figure {
  const offsets = uniq(paths.map((r) => num(r.offset)));
  const data: Record<string, unknown>[] = [];
  offsets.forEach((o, i) => {
    const rs = paths.filter((r) => num(r.offset) === o),
      color = COLORS[i % COLORS.length];
    const t = rs.map((r) => num(r.t)),
      m = rs.map((r) => num(r.stochastic_accuracy_mean)),
      ci = rs.map((r) => num(r.stochastic_accuracy_ci95) || 0);
    data.push({
      type: 'scatter',
      mode: 'lines',
      x: [...t, ...t.slice().reverse()],
      y: [...m.map((v, j) => v + ci[j]), ...m.map((v, j) => v - ci[j]).reverse()],
      fill: 'toself',
      fillcolor: color,
      opacity: 0.2,
      line: { width: 0 },
      showlegend: false,
      hoverinfo: 'skip',
    });
    data.push({ type: 'scatter', mode: 'lines', name: `GRPO, pA+pB−1 = ${o}`, x: t, y: m, line: { color } });
    data.push({
      type: 'scatter',
      mode: 'lines',
      name: `ODE, pA+pB−1 = ${o}`,
      x: t,
      y: rs.map((r) => num(r.ode_accuracy)),
      line: { color, dash: 'dash' },
    });
  });
  const b = basin.slice().sort((x, y) => num(x.offset) - num(y.offset));
  data.push({
    type: 'scatter',
    mode: 'lines+markers',
    name: 'theory: share → (1,1)',
    xaxis: 'x2',
    yaxis: 'y2',
    x: b.map((r) => num(r.offset)),
    y: b.map((r) => num(r.theory_limit)),
    line: { shape: 'hv', color: 'black', dash: 'dash' },
  });
  data.push({
    type: 'scatter',
    mode: 'markers',
    name: 'GRPO: share → (1,1) (mean, 95% CI over seeds)',
    xaxis: 'x2',
    yaxis: 'y2',
    x: b.map((r) => num(r.offset)),
    y: b.map((r) => num(r.stochastic_share_correct_mean)),
    error_y: { type: 'data', array: b.map((r) => num(r.stochastic_share_correct_ci95) || 0) },
    marker: { color: '#9467bd', size: 9 },
  });
  const K = num(basin[0].K);
  return {
    name: 'theory_stochastic_vs_ode',
    width: 1300,
    height: 560,
    data,
    layout: {
      title: {
        text: `Finite-sample co-training (tabular GRPO, K = ${K}) against the ODE: agreement away from the separatrix, noise near it`,
      },
      xaxis: axis('ODE time t = 2·lr·step', { domain: [0, 0.45] }),
      yaxis: axis('mean accuracy of the two agents', { range: [0, 1] }),
      xaxis2: axis('start offset pA + pB − 1', { domain: [0.58, 1], anchor: 'y2' }),
      yaxis2: axis('share of replicates ending at (1,1)', { anchor: 'x2', range: [-0.05, 1.05] }),
      legend: { orientation: 'h', y: -0.18 },
    },
  };
}

/** Error overlap (kappa) against final accuracy: simulation and the binary theory's prediction. */
export function accuracyVsKappaFigure(rows: Row[]): Figure {
  const bases = uniq(rows.map((r) => num(r.base_logit)));
  const data: Record<string, unknown>[] = [];
  bases.forEach((bl, i) => {
    const rs = rows.filter((r) => num(r.base_logit) === bl).sort((a, b) => num(a.kappa_mean) - num(b.kappa_mean));
    const x = rs.map((r) => num(r.kappa_mean)),
      ex = rs.map((r) => num(r.kappa_ci95) || 0),
      color = COLORS[i];
    const acc = num(rs[0].initial_accuracy_mean).toFixed(2);
    const series = (name: string, col: string, dash: string, symbol: string) =>
      data.push({
        type: 'scatter',
        mode: 'lines+markers',
        name: `${name} (initial acc ≈ ${acc})`,
        x,
        y: rs.map((r) => num(r[`${col}_mean`])),
        error_x: { type: 'data', array: ex, thickness: 1 },
        error_y: { type: 'data', array: rs.map((r) => num(r[`${col}_ci95`]) || 0), thickness: 1 },
        line: { color, dash },
        marker: { symbol, size: 8, color },
      });
    series('co-training', 'final_co_training', 'solid', 'circle');
    series('self-rewarding', 'final_self_reward', 'dot', 'square');
    series('binary theory, co-training', 'predicted_co_training', 'dash', 'circle-open');
  });
  return {
    name: 'theory_accuracy_vs_kappa',
    data,
    layout: {
      title: {
        text: 'Diverse partners: final accuracy against the error overlap (Cohen’s κ) of the pair before training',
      },
      xaxis: axis('Cohen’s κ of the two agents’ errors (one sample each)'),
      yaxis: axis('final mean accuracy'),
      legend: { orientation: 'h', y: -0.2 },
    },
  };
}

/** Every theory figure, from the tables in `dir`, each with its caption and the table it is drawn from. */
export function theoryFigures(dir = 'results/theory'): Figure[] {
  const file = (name: string) => path.join(dir, `${name}.csv`);
  const t = (name: string) => readCsv(file(name));
  const about = (f: Figure, table: string, caption: string): Figure => ({ ...f, table: file(table), caption });
  return [
    about(
      selfRewardFieldFigure(t('self_reward_field')),
      'self_reward_field',
      'The self-rewarding ODE (majority vote of K ' +
        'own samples as the label): dp/dt against the accuracy p, one line per K. It is negative below 1/2 and positive ' +
        'above, so the policy drifts to whichever answer it already prefers (Prop. 2).',
    ),
    about(
      phasePortraitFigure(t('phase_field'), t('phase_trajectories'), t('phase_invariant')),
      'phase_field',
      "Co-training of two agents labelled by each other's majority votes: the vector field (grey arrows, " +
        'normalised), ODE trajectories coloured by where they end, the saddle at (1/2, 1/2), the separatrix ' +
        'pA + pB = 1, and dotted blue level sets of the conserved F_K(pA) - F_K(pB) (every 2 from -8 to 8; ' +
        'phase_invariant.csv), along which every trajectory runs (trajectories from phase_trajectories.csv).',
    ),
    about(
      workedExampleFigure(t('worked_example')),
      'worked_example',
      "The paper's worked example: two agents that are " +
        'each right on a different half of the problems. Final accuracy at the ODE horizon, by samples per step K, for ' +
        'co-training and for self-rewarding.',
    ),
    about(
      stochasticVsOdeFigure(t('stochastic_paths'), t('stochastic_basin')),
      'stochastic_paths',
      'Left: tabular GRPO ' +
        'with finite samples (means and 95% bands over replicates) against the ODE (dashed), for starts at several ' +
        'offsets pA + pB - 1. Right: the share of replicates ending at (1,1), theory and GRPO with 95% CIs ' +
        '(stochastic_basin.csv).',
    ),
    about(
      accuracyVsKappaFigure(t('error_overlap')),
      'error_overlap',
      'Final accuracy against the error overlap ' +
        "(Cohen's kappa of the two agents' errors before training), for co-training, self-rewarding and the binary " +
        "theory's prediction; error bars are 95% CIs over seeds.",
    ),
  ];
}
