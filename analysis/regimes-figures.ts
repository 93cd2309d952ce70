// Figure builders for a sweep's claims (src/cli/sweep.ts table): the knob-by-knob figure and the map, for the regime
// map (docs/regimes.md, results/regimes/claims.csv, `make regime-map`) and for any sweep of a researcher's own
// (`tsx analysis/make-figures.ts --sweep DIR`, docs/experiments.md). Each panel is as wide as its level labels need, and
// an axis names the knob; it says "world cell" only where every knob is a world setting (from the sweep's config).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import type { SweepFile } from '../src/io/sweep.js';
import type { Figure } from './figures.js';

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

/** How a sweep's figures are named and titled, and which of its knobs are world settings. */
export interface SweepFigureOptions {
  /** file-name prefix: <prefix>_knobs, <prefix>_map */
  prefix: string;
  /** the start of each title, e.g. "Regime map" */
  title: string;
  /** the knobs whose every level sets only world options (`worldKnobs`); none known: none */
  worldKnobs?: Set<string>;
  /** the knob figure's caption and the map's (the defaults describe any sweep) */
  knobCaption?: string;
  mapCaption?: string;
}

/** The knobs of a sweep config whose every level sets only `world` options (and no flags). */
export function worldKnobs(c: Pick<SweepFile, 'knobs'>): Set<string> {
  return new Set(
    (c.knobs ?? [])
      .filter((k) =>
        k.levels.every((l) => !l.args?.length && Object.keys(l.overrides ?? {}).every((key) => key === 'world')),
      )
      .map((k) => k.name),
  );
}

/** Plotly's default font (12 px): about 7 px a character; a title (17 px) about 9. */
const textWidth = (s: string, px = 7) => Math.ceil(s.length * px);

/** What the comparisons measure, for an axis: "average accuracy", or the endpoint's name. */
function measured(claims: Row[]): string {
  const endpoints = [...new Set(claims.map((r) => String(r.endpoint ?? 'average')))];
  return endpoints.length === 1 && endpoints[0] !== 'average' ? endpoints[0] : 'average accuracy';
}

/** The map's column axis: the knob's name where there is one, "world cell" only where every knob is a world setting. */
function cellAxis(knobs: string[], world: Set<string>): string {
  if (knobs.length && knobs.every((k) => world.has(k))) return 'world cell (knob = level)';
  return knobs.length === 1 ? `${knobs[0]} (baseline, then each level)` : 'cell (knob = level)';
}

/**
 * A sweep as a heatmap: one column per cell (the baseline once, then each knob's other levels, in the config's
 * order), one row per comparison, coloured by the paired difference over seeds (diverging, 0 at white) and labelled
 * with the difference, its 95% interval and the verdict. A cell whose runs are not all in is left blank and marked so.
 */
export function sweepMapFigure(claims: Row[], source: string, o: SweepFigureOptions): Figure {
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
  // each cell as wide as its label and its text ("-0.009 [-0.066, +0.048]" is the widest line), the comparisons'
  // names in the left margin, the colour bar in the right one
  const cellWidth = Math.max(120, ...cells.map((c) => textWidth(c))),
    left = Math.max(120, ...comparisons.map((c) => textWidth(c) + 20)),
    right = 150,
    title = `${o.title}: paired differences in ${measured(claims)}, one knob moved at a time`;
  const width = Math.max(left + cells.length * cellWidth + right, textWidth(title, 9) + 80);
  return {
    name: `${o.prefix}_map`,
    table: source,
    width,
    // the title above, the rotated cell names below, each comparison a row of 90 px (at least 200 px in all, so that
    // one comparison still shows its three lines of text and a readable colour bar)
    height: 100 + 160 + Math.max(200, 90 * comparisons.length),
    caption:
      o.mapCaption ??
      `${o.title}: each comparison (rows) as a paired difference in ${measured(claims)} over seeds, in the ` +
        'baseline and with one knob moved at a time (columns). Colour: the mean difference (blue above 0, red below); ' +
        'text: mean, 95% t-interval and verdict (helps / hurts / unclear: docs/verdicts.md). Blank cells have not ' +
        'run yet.',
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
        colorbar: { title: { text: 'difference' }, x: 1.02, xanchor: 'left' },
      },
    ],
    layout: {
      title: { text: title },
      xaxis: { title: { text: cellAxis([...byCell.keys()], o.worldKnobs ?? new Set()) }, tickangle: -30 },
      yaxis: { automargin: true },
      margin: { t: 100, b: 160, l: left, r: right },
    },
  };
}

const COMPARISON_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

/**
 * One panel per knob, each comparison's paired difference and 95% interval against the knob's level (the default
 * first: the baseline cell), the axis named by the knob; each panel as wide as its levels' labels need.
 */
export function sweepKnobFigure(claims: Row[], source: string, o: SweepFigureOptions): Figure {
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
  // a panel: its levels side by side (each at least 60 px, or its label), and at least its knob's name
  const panel = (knob: string) => {
    const levels = [...new Set(claims.filter((r) => r.knob === knob).map((r) => String(r.level)))];
    return Math.max(
      220,
      textWidth(knob) + 40,
      40 + levels.length * Math.max(60, ...levels.map((l) => textWidth(l) + 16)),
    );
  };
  const panels = knobs.map(panel),
    gap = 60,
    left = 90,
    right = 40,
    yTitle = `paired difference in ${measured(claims)}`,
    title = `${o.title} by knob: paired differences and 95% intervals against the level`;
  const plot = panels.reduce((a, b) => a + b, 0) + gap * (knobs.length - 1);
  const width = Math.max(left + plot + right, textWidth(title, 9) + 80, textWidth(comparisons.join('    ')) + 120);
  // the panels' domains in proportion to their widths, gaps between them
  let at = 0;
  const domains = panels.map((w) => {
    const d = [at / plot, (at + w) / plot];
    at += w + gap;
    return d.map((x) => Math.min(1, Math.round(x * 10000) / 10000));
  });
  const axes = Object.fromEntries(
    knobs.flatMap((knob, k) => [
      [`xaxis${k + 1}`, { title: { text: knob }, type: 'category', domain: domains[k], anchor: `y${k + 1}` }],
      [`yaxis${k + 1}`, { zeroline: true, anchor: `x${k + 1}`, ...(k === 0 ? { title: { text: yTitle } } : {}) }],
    ]),
  );
  return {
    name: `${o.prefix}_knobs`,
    table: source,
    width,
    height: 560,
    caption:
      o.knobCaption ??
      `${o.title} knob by knob: for each knob, each comparison's paired difference in ${measured(claims)} (mean ` +
        "over seeds, 95% t-interval) against the knob's level; the first level is the default, i.e. the baseline " +
        'cell. Points missing have not run yet.',
    data,
    layout: {
      title: { text: title },
      ...axes,
      legend: { orientation: 'h', y: -0.25 },
      margin: { b: 170, l: left, r: right },
    },
  };
}

/** A sweep's two figures from its table folder's claims.csv (none before it has one). */
export function sweepFigures(dir: string, o: SweepFigureOptions): Figure[] {
  const f = path.join(dir, 'claims.csv');
  if (!fs.existsSync(f)) return [];
  const claims = readCsv(f);
  return [sweepKnobFigure(claims, f, o), sweepMapFigure(claims, f, o)];
}

/** The regime map's titles and captions; its world knobs from its config (sweeps/regimes.json). */
function regimeOptions(config = 'sweeps/regimes.json'): SweepFigureOptions {
  const world = fs.existsSync(config)
    ? worldKnobs(JSON.parse(fs.readFileSync(config, 'utf8')) as SweepFile)
    : undefined;
  return {
    prefix: 'regime',
    title: 'Regime map',
    worldKnobs: world,
    knobCaption:
      "The regime map knob by knob (the pre-registered figure): for each knob, each comparison's paired " +
      "difference in held-out average accuracy (mean over seeds, 95% t-interval) against the knob's level; the " +
      'first level is the default, i.e. the baseline cell. Points missing have not run yet.',
    mapCaption:
      'Where rubric rewards help: each comparison (rows) as a paired difference in held-out average accuracy ' +
      'over seeds, in the baseline world and with one knob moved at a time (columns, pre-registered in ' +
      'results/regimes/preregistration.md). Colour: the mean difference (blue above 0, red below); text: mean, 95% ' +
      't-interval and verdict (helps / hurts / unclear: docs/verdicts.md). Blank cells have not run yet.',
  };
}

/** The regime map as a heatmap (`sweepMapFigure` with the regime map's titles). */
export const regimeMapFigure = (claims: Row[], source: string) => sweepMapFigure(claims, source, regimeOptions());

/** The pre-registered figure, knob by knob (`sweepKnobFigure` with the regime map's titles). */
export const regimeKnobFigure = (claims: Row[], source: string) => sweepKnobFigure(claims, source, regimeOptions());

/** The regime map's figures (the pre-registered one, knob by knob, and the map), from results/regimes. */
export function regimeFigures(dir = 'results/regimes', config = 'sweeps/regimes.json'): Figure[] {
  return sweepFigures(dir, regimeOptions(config));
}
