// Figure builders for the sensitivity study (docs/sensitivity.md): the pilot's learning curves from its committed run
// records, the pilot's paired differences (results/sensitivity/pilot.csv), and the confirmatory campaign's claims
// (results/sensitivity/confirm/claims.csv) while it grows. make figures draws the pilot's two (theme sensitivity);
// notebook 07 draws all three inline. Each builder returns null where its input does not exist or has no rows.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { meanInterval } from '../src/util/stats.js';
import { METHODS } from '../src/methods/tables/table2.js';
import type { Figure } from './figures.js';
import { band, METHOD_COLORS } from './style.js';

/** The metrics drawn per step, with their titles. */
export const PILOT_METRICS: [string, string][] = [
  ['accuracy', 'share of right rollouts'],
  ['process/score', 'mean process score of the rollouts'],
  ['process/all_wrong_groups', 'share of all-wrong groups'],
];

const POSITIVE_CONTROL_COLOR = '#2ca02c';
/** The campaign's arms without a Table 2 colour of their own: the positive controls in greens, the RLCER variant in purple. */
const ARM_COLORS: Record<string, string> = {
  process_oracle: POSITIVE_CONTROL_COLOR,
  process_oracle_dense: '#98df8a',
  rlcer_discriminative: '#9467bd',
};
const colorOf = (m: string) => METHOD_COLORS[m] ?? ARM_COLORS[m] ?? '#333333';
const labelOf = (m: string) => METHODS[m]?.label ?? m;

/**
 * The pilot's training curves (`root`: <size>/<method>/<cell>/seed-<n>): per step the mean over seeds of each
 * PILOT_METRICS entry with its 95% band, one column of panels per cell (baseline, the sparse regime), one row per
 * metric, RLVR against the positive control. Every `every`-th step is drawn.
 */
export function pilotCurvesFigure(root = 'results/runs/sensitivity/pilot', every = 5): Figure | null {
  const runs = findFinishedRuns(root).map((dir) => {
    const [size, method, cell] = path.relative(root, dir).split(path.sep);
    return { size, method, cell, metrics: readMetrics(dir) };
  });
  if (runs.length === 0) return null;
  const cells = [...new Set(runs.map((r) => r.cell))].sort();
  const methods = [...new Set(runs.map((r) => r.method))].sort();
  const data: Record<string, unknown>[] = [];
  const layout: Record<string, unknown> = {
    title: {
      text: 'Sensitivity pilot: training curves of RLVR and the ' + 'positive control (means over seeds, 95% bands)',
    },
    grid: { rows: PILOT_METRICS.length, columns: cells.length, pattern: 'independent' },
    legend: { orientation: 'h', y: -0.08 },
    annotations: [] as unknown[],
  };
  PILOT_METRICS.forEach(([metric, title], i) =>
    cells.forEach((cell, j) => {
      const k = i * cells.length + j + 1,
        axes = { xaxis: `x${k}`, yaxis: `y${k}` };
      for (const method of methods) {
        const mine = runs.filter((r) => r.cell === cell && r.method === method);
        const steps = Math.max(0, ...mine.map((r) => r.metrics.length));
        const x: number[] = [],
          y: number[] = [],
          lo: number[] = [],
          hi: number[] = [];
        for (let s = 0; s < steps; s += every) {
          const v = mine.map((r) => Number(r.metrics[s]?.[metric])).filter(Number.isFinite);
          if (v.length === 0) continue;
          const m = meanInterval(v);
          x.push(s);
          y.push(m.mean);
          lo.push(m.ci_low ?? m.mean);
          hi.push(m.ci_high ?? m.mean);
        }
        if (x.length === 0) continue;
        data.push(band(x, lo, hi, colorOf(method), labelOf(method), axes), {
          type: 'scatter',
          mode: 'lines',
          name: `${labelOf(method)} (${mine.length} seeds)`,
          legendgroup: method,
          showlegend: k === 1,
          x,
          y,
          line: { color: colorOf(method) },
          ...axes,
        });
      }
      layout[`xaxis${k === 1 ? '' : k}`] = { title: { text: i === PILOT_METRICS.length - 1 ? 'RL step' : '' } };
      layout[`yaxis${k === 1 ? '' : k}`] = { title: { text: j === 0 ? title : '' }, range: [0, 1] };
      if (i === 0) {
        (layout.annotations as unknown[]).push({
          text: cell === 'baseline' ? 'baseline regime' : cell,
          showarrow: false,
          xref: `x${k} domain`,
          yref: `y${k} domain`,
          x: 0.5,
          y: 1.15,
          font: { size: 13 },
        });
      }
    }),
  );
  return {
    name: 'sensitivity_pilot_curves',
    table: root,
    width: 1100,
    height: 900,
    data,
    layout,
    caption:
      "The sensitivity pilot (make sensitivity-pilot): RLVR and the positive control process_oracle (RLVR's " +
      'outcome plus the exact process score of the trace), 300 steps, per step: the share of right rollouts, the ' +
      'mean process score and the share of groups with no right rollout, in the baseline regime and the ' +
      `sparse-outcome regime. Lines: means over seeds at every ${every}th step; bands: 95% t-intervals over seeds.`,
  };
}

const ENDPOINT_ORDER = ['in_distribution', 'chain_ood', 'trace_error', 'average', 'process_score'];

/** Paired differences a - b with their 95% intervals, one marker per (cell, horizon, endpoint): a forest plot. */
function differenceTraces(rows: Row[], group: (r: Row) => string, label: (r: Row) => string) {
  const groups = [...new Set(rows.map(group))];
  const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];
  return groups.map((g, i) => {
    const rs = rows.filter((r) => group(r) === g);
    return {
      type: 'scatter',
      mode: 'markers',
      name: g,
      x: rs.map((r) => Number(r.delta)),
      y: rs.map(label),
      marker: { color: palette[i % palette.length], size: 9 },
      error_x: {
        type: 'data',
        symmetric: false,
        array: rs.map((r) => (r.ci_high === '' ? 0 : Number(r.ci_high) - Number(r.delta))),
        arrayminus: rs.map((r) => (r.ci_low === '' ? 0 : Number(r.delta) - Number(r.ci_low))),
      },
    };
  });
}

const endpointRank = (r: Row) => ENDPOINT_ORDER.indexOf(String(r.endpoint));

/** The pilot's paired differences (process_oracle - RLVR) per endpoint, horizon and regime, with 95% intervals. */
export function pilotDifferenceFigure(file = 'results/sensitivity/pilot.csv'): Figure | null {
  if (!fs.existsSync(file)) return null;
  const rows = readCsv(file).sort((a, b) => endpointRank(a) - endpointRank(b) || Number(a.horizon) - Number(b.horizon));
  if (rows.length === 0) return null;
  return {
    name: 'sensitivity_pilot_differences',
    table: file,
    height: 650,
    data: differenceTraces(
      rows,
      (r) => `${r.cell}, ${r.horizon} steps`,
      (r) => String(r.endpoint),
    ),
    layout: {
      title: { text: 'Sensitivity pilot: positive control minus RLVR, paired by seed (95% intervals)' },
      xaxis: { title: { text: 'process_oracle − rlvr (trace_error: lower is better)' }, zeroline: true },
      yaxis: { title: { text: 'endpoint' }, automargin: true },
      scattermode: 'group',
      legend: { title: { text: 'regime, horizon' } },
    },
    caption:
      "The pilot's paired differences of the positive control against RLVR on each endpoint (accuracy in " +
      'distribution and on the held-out composition, the trace error, the average and the process score), at 60 and ' +
      '300 steps, in both regimes; markers: means of the per-seed differences, bars: 95% t-intervals (3 seeds).',
  };
}

/** The confirmatory campaign's claims so far (results/sensitivity/confirm/claims.csv): each difference and interval. */
export function confirmClaimsFigure(file = 'results/sensitivity/confirm/claims.csv'): Figure | null {
  if (!fs.existsSync(file)) return null;
  const rows = readCsv(file).filter((r) => r.delta !== '');
  if (rows.length === 0) return null;
  return {
    name: 'sensitivity_confirm_claims',
    table: file,
    height: 200 + 28 * rows.length,
    data: differenceTraces(
      rows,
      (r) => `${r.size} ${r.regime}, ${r.horizon} steps`,
      (r) => `${r.claim} · ${r.endpoint}`,
    ),
    layout: {
      title: { text: 'Sensitivity campaign so far: each arm against RLVR, paired by seed (95% intervals)' },
      xaxis: { title: { text: 'difference (trace_error: lower is better)' }, zeroline: true },
      yaxis: { automargin: true },
      scattermode: 'group',
    },
    caption:
      "The confirmatory campaign's claims as far as its runs have finished: the paired difference of each " +
      'arm against RLVR per regime, horizon and endpoint, with its 95% interval; the verdicts (Holm within each ' +
      'family, pending short of the pre-registered seeds) are in results/sensitivity/confirm/claims.csv.',
  };
}

/** The campaign's primary endpoints, in the pre-registration's order, with how each reads. */
export const CONFIRM_ENDPOINTS: [string, string][] = [
  ['in_distribution', 'accuracy in distribution'],
  ['chain_ood', 'accuracy on the held-out composition'],
  ['trace_error', 'trace error (lower is better)'],
];

/**
 * One confirmatory endpoint (results/sensitivity/confirm/table.csv): each arm's mean with its 95% interval over its
 * seeds so far, one panel per regime and horizon, with RLVR's interval (grey) and the positive control's (green,
 * `process_oracle`) drawn as reference bands across the panel. Null where the table has no row of the endpoint.
 */
export function confirmEndpointFigure(endpoint: string, file = 'results/sensitivity/confirm/table.csv'): Figure | null {
  if (!fs.existsSync(file)) return null;
  const rows = readCsv(file).filter((r) => r.endpoint === endpoint && r.method !== 'sft' && r.mean !== '');
  if (rows.length === 0) return null;
  const cellOf = (r: Row) => `${r.size} ${r.regime}<br>${r.horizon} steps`;
  // panels by size, regime (baseline first) and horizon (shorter first)
  const rank = (r: Row) => [String(r.size), r.regime === 'baseline' ? 0 : 1, Number(r.horizon)] as const;
  const cells = [
    ...new Set(
      [...rows]
        .sort((a, b) => {
          const [x, y] = [rank(a), rank(b)];
          return x[0].localeCompare(y[0]) || x[1] - y[1] || x[2] - y[2];
        })
        .map(cellOf),
    ),
  ];
  const arms = [...new Set(rows.map((r) => String(r.method)))];
  const width = 1 / cells.length,
    gap = 0.04;
  const data: Record<string, unknown>[] = [];
  const shapes: Record<string, unknown>[] = [];
  const legended = new Set<string>(); // an arm's legend entry on the first panel that has it
  const layout: Record<string, unknown> = {};
  cells.forEach((cell, i) => {
    const ax = i === 0 ? '' : String(i + 1),
      inCell = rows.filter((r) => cellOf(r) === cell);
    layout[`xaxis${ax}`] = {
      domain: [i * width + (i ? gap / 2 : 0), (i + 1) * width - (i < cells.length - 1 ? gap / 2 : 0)],
      title: { text: cell },
      anchor: `y${ax}`,
    };
    layout[`yaxis${ax}`] = {
      anchor: `x${ax}`,
      automargin: true,
      showticklabels: i === 0,
      categoryorder: 'array',
      categoryarray: arms,
      range: [-0.5, arms.length - 0.5], // every arm's row in every panel, where it has a value or not
    };
    for (const [method, color] of [
      ['rlvr', '#7f7f7f'],
      ['process_oracle', POSITIVE_CONTROL_COLOR],
    ]) {
      const ref = inCell.find((r) => r.method === method);
      if (!ref || ref.ci_low === '' || ref.ci_high === '') continue;
      shapes.push({
        type: 'rect',
        xref: `x${ax}`,
        yref: `y${ax} domain`,
        x0: Number(ref.ci_low),
        x1: Number(ref.ci_high),
        y0: 0,
        y1: 1,
        fillcolor: color,
        opacity: 0.15,
        line: { width: 0 },
        layer: 'below',
      });
    }
    for (const method of arms) {
      const r = inCell.find((x) => x.method === method);
      if (!r) continue;
      const m = Number(r.mean),
        lo = r.ci_low === '' ? m : Number(r.ci_low),
        hi = r.ci_high === '' ? m : Number(r.ci_high);
      data.push({
        type: 'scatter',
        mode: 'markers',
        name: labelOf(method),
        legendgroup: method,
        showlegend: !legended.has(method),
        x: [m],
        y: [method],
        xaxis: `x${ax}`,
        yaxis: `y${ax}`,
        marker: { color: colorOf(method), size: 9 },
        error_x: { type: 'data', symmetric: false, array: [hi - m], arrayminus: [m - lo], color: colorOf(method) },
        hovertemplate: `${labelOf(method)}<br>${cell}<br>mean %{x:.3f} (${r.seeds} seeds)<extra></extra>`,
      });
      legended.add(method);
    }
  });
  const title = CONFIRM_ENDPOINTS.find(([e]) => e === endpoint)?.[1] ?? endpoint;
  return {
    name: `sensitivity_confirm_${endpoint}`,
    table: file,
    height: 360 + 26 * arms.length,
    data,
    layout: {
      ...layout,
      shapes,
      title: { text: `Sensitivity campaign: ${title}, per arm (95% intervals)` },
      legend: { orientation: 'h', y: -0.3 },
    },
    caption:
      `Each arm's ${title} after its runs so far: the mean over seeds with its 95% t-interval, one panel per ` +
      'regime and horizon. Reference bands across each panel: RLVR (grey) and the positive control process_oracle ' +
      '(green). Arms short of their pre-registered seeds are provisional (results/sensitivity/confirm/claims.csv).',
  };
}

/**
 * The sensitivity figures make figures draws: the pilot's (fixed once it is done), and the campaign's claims and
 * primary endpoints as far as it has run (bin/commit-campaign redraws them with each batch of records).
 */
export function sensitivityFigures(dir = 'results'): Figure[] {
  const confirm = path.join(dir, 'sensitivity', 'confirm');
  return [
    pilotCurvesFigure(path.join(dir, 'runs', 'sensitivity', 'pilot')),
    pilotDifferenceFigure(path.join(dir, 'sensitivity', 'pilot.csv')),
    confirmClaimsFigure(path.join(confirm, 'claims.csv')),
    ...CONFIRM_ENDPOINTS.map(([e]) => confirmEndpointFigure(e, path.join(confirm, 'table.csv'))),
  ].filter((f): f is Figure => f !== null);
}
