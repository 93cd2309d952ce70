// Figure builders for the regime map (issue 20), from results/regimes/claims.csv (`make regime-map`).
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
    const knob = String(r.knob), level = String(r.level);
    if (!byCell.has(knob)) defaults.add(`${knob}=${level}`); // a knob's first level is its default
    byCell.set(knob, [...(byCell.get(knob) ?? []), r]);
  }
  const cellOf = (r: Row) => (defaults.has(`${r.knob}=${r.level}`) ? 'baseline' : `${r.knob}=${r.level}`);
  const cells = [...new Set(claims.map(cellOf))];
  const comparisons = [...new Set(claims.map((r) => String(r.claim)))];
  const at = (cell: string, claim: string) => claims.find((r) => cellOf(r) === cell && r.claim === claim);
  const z = comparisons.map((c) => cells.map((cell) => {
    const r = at(cell, c);
    return r && r.delta !== '' ? Number(r.delta) : null;
  }));
  const text = comparisons.map((c) => cells.map((cell) => {
    const r = at(cell, c);
    if (!r || r.delta === '') return 'not run yet';
    const ci = r.ci_low === '' ? 'no interval' : `[${signed(Number(r.ci_low))}, ${signed(Number(r.ci_high))}]`;
    return `${signed(Number(r.delta))}<br>${ci}<br>${r.verdict}${r.seeds !== undefined ? ` (${r.seeds} seeds)` : ''}`;
  }));
  const big = Math.max(0.05, ...z.flat().filter((v): v is number => v !== null).map(Math.abs));
  return { name: 'regime_map', table: source, width: 1400, height: 200 + 90 * comparisons.length,
    caption: 'Where rubric rewards help: each comparison (rows) as a paired difference in held-out average accuracy ' +
      'over seeds, in the baseline world and with one world knob moved at a time (columns, pre-registered in ' +
      'results/regimes/preregistration.md). Colour: the mean difference (blue above 0, red below); text: mean, 95% ' +
      't-interval and verdict (helps / hurts / unclear). Blank cells have not run yet.',
    data: [{ type: 'heatmap', x: cells, y: comparisons, z, text, texttemplate: '%{text}', hoverinfo: 'text',
      colorscale: 'RdBu', zmid: 0, zmin: -big, zmax: big, colorbar: { title: { text: 'difference' } } }],
    layout: { title: { text: 'Regime map: paired differences in average accuracy, one knob moved at a time' },
      xaxis: { title: { text: 'world cell (knob = level)' }, tickangle: -30 }, yaxis: { automargin: true },
      margin: { b: 160, l: 220 } } };
}

export function regimeFigures(dir = 'results/regimes'): Figure[] {
  const f = path.join(dir, 'claims.csv');
  return fs.existsSync(f) ? [regimeMapFigure(readCsv(f), f)] : [];
}
