// Figure builders for the regime map (docs/regimes.md), from results/regimes/claims.csv (`make regime-map`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import type { Figure } from './figures.js';

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

/**
 * The regime map as a heatmap: one column per cell (the baseline once, then each knob's other levels, in the
 * pre-registered order), one row per comparison, coloured by the paired difference over seeds (diverging, 0 at
 * white) and labelled with the difference, its 95% interval and the verdict. A cell whose runs are not all in is
 * left blank and marked so.
 */
export function regimeMapFigure(claims: Row[], source: string): Figure {
  const byCell = new Map<string, Row[]>();
  const defaults = new Set<string>();
  for (const r of claims) {
    const knob = String(r.knob),
      level = String(r.level);
    if (!byCell.has(knob)) defaults.add(`${knob}=${level}`); // a knob's first level is its default
    byCell.set(knob, [...(byCell.get(knob) ?? []), r]);
  }
  const cellOf = (r: Row) => (defaults.has(`${r.knob}=${r.level}`) ? 'baseline' : `${r.knob}=${r.level}`);
  const cells = [...new Set(claims.map(cellOf))];
  const comparisons = [...new Set(claims.map((r) => String(r.claim)))];
  const at = (cell: string, claim: string) => claims.find((r) => cellOf(r) === cell && r.claim === claim);
  const z = comparisons.map((c) =>
    cells.map((cell) => {
      const r = at(cell, c);
      return r && r.delta !== '' ? Number(r.delta) : null;
    }),
  );
  const text = comparisons.map((c) =>
    cells.map((cell) => {
      const r = at(cell, c);
      if (!r || r.delta === '') return 'not run yet';
      const ci = r.ci_low === '' ? 'no interval' : `[${signed(Number(r.ci_low))}, ${signed(Number(r.ci_high))}]`;
      return `${signed(Number(r.delta))}<br>${ci}<br>${r.verdict}${r.seeds !== undefined ? ` (${r.seeds} seeds)` : ''}`;
    }),
  );
  const big = Math.max(
    0.05,
    ...z
      .flat()
      .filter((v): v is number => v !== null)
      .map(Math.abs),
  );
  return {
    name: 'regime_map',
    table: source,
    width: 1400,
    height: 200 + 90 * comparisons.length,
    caption:
      'Where rubric rewards help: each comparison (rows) as a paired difference in held-out average accuracy ' +
      'over seeds, in the baseline world and with one world knob moved at a time (columns, pre-registered in ' +
      'results/regimes/preregistration.md). Colour: the mean difference (blue above 0, red below); text: mean, 95% ' +
      't-interval and verdict (helps / hurts / unclear). Blank cells have not run yet.',
    data: [
      {
        type: 'heatmap',
        x: cells,
        y: comparisons,
        z,
        text,
        texttemplate: '%{text}',
        hoverinfo: 'text',
        colorscale: 'RdBu',
        zmid: 0,
        zmin: -big,
        zmax: big,
        colorbar: { title: { text: 'difference' } },
      },
    ],
    layout: {
      title: { text: 'Regime map: paired differences in average accuracy, one knob moved at a time' },
      xaxis: { title: { text: 'world cell (knob = level)' }, tickangle: -30 },
      yaxis: { automargin: true },
      margin: { b: 160, l: 220 },
    },
  };
}

const COMPARISON_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

/**
 * The pre-registered figure: one panel per knob, each comparison's paired difference and 95% interval against the
 * knob's level (the default first: the baseline cell), a dotted line at 0.
 */
export function regimeKnobFigure(claims: Row[], source: string): Figure {
  const knobs = [...new Set(claims.map((r) => String(r.knob)))];
  const comparisons = [...new Set(claims.map((r) => String(r.claim)))];
  const data = knobs.flatMap((knob, k) =>
    comparisons.map((c, j) => {
      const rs = claims.filter((r) => r.knob === knob && r.claim === c);
      const v = (r: Row, key: string) => (r[key] === '' ? null : Number(r[key]));
      return {
        type: 'scatter',
        mode: 'lines+markers',
        name: c,
        legendgroup: c,
        showlegend: k === 0,
        xaxis: `x${k + 1}`,
        yaxis: `y${k + 1}`,
        marker: { color: COMPARISON_COLORS[j % COMPARISON_COLORS.length] },
        x: rs.map((r) => String(r.level)),
        y: rs.map((r) => v(r, 'delta')),
        error_y: {
          type: 'data',
          symmetric: false,
          array: rs.map((r) => (r.ci_high === '' ? 0 : Number(r.ci_high) - Number(r.delta))),
          arrayminus: rs.map((r) => (r.ci_low === '' ? 0 : Number(r.delta) - Number(r.ci_low))),
        },
      };
    }),
  );
  const axes = Object.fromEntries(
    knobs.flatMap((knob, k) => [
      [`xaxis${k + 1}`, { title: { text: knob }, type: 'category' }],
      [
        `yaxis${k + 1}`,
        { zeroline: true, ...(k === 0 ? { title: { text: 'paired difference in average accuracy' } } : {}) },
      ],
    ]),
  );
  return {
    name: 'regime_knobs',
    table: source,
    width: 360 * Math.max(1, knobs.length),
    height: 560,
    caption:
      "The regime map knob by knob (the pre-registered figure): for each knob, each comparison's paired " +
      "difference in held-out average accuracy (mean over seeds, 95% t-interval) against the knob's level; the " +
      'first level is the default, i.e. the baseline cell. Points missing have not run yet.',
    data,
    layout: {
      title: { text: 'Regime map by knob: paired differences and 95% intervals against the level' },
      grid: { rows: 1, columns: Math.max(1, knobs.length), pattern: 'independent' },
      ...axes,
      legend: { orientation: 'h', y: -0.25 },
      margin: { b: 170 },
    },
  };
}

export function regimeFigures(dir = 'results/regimes'): Figure[] {
  const f = path.join(dir, 'claims.csv');
  if (!fs.existsSync(f)) return [];
  const claims = readCsv(f);
  return [regimeKnobFigure(claims, f), regimeMapFigure(claims, f)];
}
