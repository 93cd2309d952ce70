// What a notebook shows a researcher, from the same code as the reports and the gallery (a notebook re-implements
// nothing):
//   tables   a tidy CSV (or rows) -> a danfojs DataFrame (frame), then views of it rendered as HTML tables: filtered,
//            sorted, a few columns, an interval beside its estimate, one block per group (viewHtml / show); per-seed
//            rows grouped and summarised by danfojs (summarise); a long table spread to one row per key (wide)
//   charts   a figure spec (analysis/figures.ts `Figure`) -> one output holding both a static PNG of the chart
//            (drawn by Chromium from the spec, as `make figures` draws its exports) and an interactive plotly chart
//            that replaces it where the notebook's scripts run (chartOutputs / chart): GitHub, nbviewer and an
//            untrusted notebook show the picture, a trusted one the chart. figure(name) builds a results/figures/
//            figure with the builders `make figures` draws its PNG and SVG with (analysis/figure-themes.ts), so the
//            chart and the export are one spec. The first chart of a kernel session inlines the installed
//            plotly.js-dist-min bundle once (no network); `make notebooks` swaps it, in the executed copies, for a
//            script that loads the shared results/figures/plotly.min.js (analysis/notebook.ts)
// Every *Html and *Outputs function is pure (tested in test/notebook-view.test.ts); show hands its HTML to
// tslab.display.html, chart its outputs to the kernel (display).
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as dfd from 'danfojs-node';
import * as tslab from 'tslab';
import { readCsv, type Cell, type Row } from '../src/io/table.js';
import { findFinishedRuns } from '../src/io/run.js';
import {
  escapeHtml,
  type FigureRenderer,
  openRenderer,
  plotlyJs,
  readFigureScript,
  type Rendered,
  specOf,
  type Figure,
} from './figures.js';
import { smallPng } from './png.js';
import { figureThemes, themeOf } from './figure-themes.js';
import { paperOf } from './docs.js';

export type Frame = dfd.DataFrame;

/** A column whose filled cells are all numbers reads '' as NaN (danfojs' missing value): means skip it. */
function numericBlanks(rows: Row[]): Row[] {
  const cols = rows.length ? Object.keys(rows[0]) : [];
  const numeric = cols.filter(
    (c) => rows.some((r) => typeof r[c] === 'number') && rows.every((r) => typeof r[c] === 'number' || r[c] === ''),
  );
  if (numeric.length === 0) return rows;
  return rows.map((r) => {
    const out: Row = { ...r };
    for (const c of numeric) if (out[c] === '') out[c] = NaN;
    return out;
  });
}

/**
 * A tidy table as a DataFrame: a CSV (read by the project's reader, src/io/table.ts) or rows; `where` keeps the rows
 * whose columns equal the given values (a list: any of them). A missing file or no rows give an empty frame.
 */
export function frame(source: string | Row[], where: Where = {}): Frame {
  const rows = typeof source === 'string' ? (fs.existsSync(source) ? readCsv(source) : []) : source;
  const kept = numericBlanks(filterRows(rows, where));
  return kept.length ? new dfd.DataFrame(kept) : new dfd.DataFrame([]);
}

/** A frame's rows as plain objects (the order of its columns kept). */
export function rowsOf(df: Frame | Row[]): Row[] {
  if (Array.isArray(df)) return df;
  if (df.shape[0] === 0) return [];
  return dfd.toJSON(df) as Row[];
}

/** Rows kept by a view: column -> value (or a list of values), or a predicate. */
export type Where = Record<string, Cell | Cell[]> | ((r: Row) => boolean);

export function filterRows(rows: Row[], where: Where = {}): Row[] {
  if (typeof where === 'function') return rows.filter(where);
  const tests = Object.entries(where);
  return rows.filter((r) => tests.every(([c, v]) => (Array.isArray(v) ? v.some((x) => same(r[c], x)) : same(r[c], v))));
}

const same = (a: Cell | undefined, b: Cell) => a === b || (a !== undefined && a !== '' && String(a) === String(b));

/** A stable sort on several columns (numbers as numbers, blanks last); a leading '-' sorts that column descending. */
export function sortRows(rows: Row[], by: string | string[]): Row[] {
  const keys = (Array.isArray(by) ? by : [by]).map((k) =>
    k.startsWith('-') ? { c: k.slice(1), d: -1 } : { c: k, d: 1 },
  );
  const blank = (v: Cell | undefined) => v === undefined || v === '' || (typeof v === 'number' && Number.isNaN(v));
  return rows
    .map((r, i) => ({ r, i }))
    .sort((x, y) => {
      for (const { c, d } of keys) {
        const a = x.r[c],
          b = y.r[c];
        if (blank(a) || blank(b)) {
          if (blank(a) !== blank(b)) return blank(a) ? 1 : -1;
          continue;
        }
        const cmp =
          typeof a === 'number' && typeof b === 'number'
            ? a - b
            : String(a).localeCompare(String(b), 'en', { numeric: true });
        if (cmp !== 0) return d * cmp;
      }
      return x.i - y.i;
    })
    .map((x) => x.r);
}

export interface View {
  /** the columns shown, in order (default: all) */
  columns?: string[];
  where?: Where;
  /** sort keys; '-col' descending */
  sort?: string | string[];
  /** one block per value of this column, in order of first appearance after sorting, each headed by its value */
  groupBy?: string;
  /** estimate column(s) shown as "est [lo, hi]" from ci_low and ci_high (which are then not shown on their own) */
  ci?: string | string[];
  /** decimals of non-integer numbers (default 3) */
  digits?: number;
  /** at most this many rows (default 200); the caption says how many were left out */
  limit?: number;
  caption?: string;
}

/** A cell as text: numbers to `digits` decimals (integers as they are), blanks and NaN empty. */
export function formatValue(v: Cell | undefined | null, digits = 3): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '';
    return Number.isInteger(v) ? String(v) : v.toFixed(digits);
  }
  return String(v);
}

/** The rows a view shows, as text cells (filtered, sorted, intervals merged, columns picked), and the columns. */
export function viewCells(
  df: Frame | Row[],
  v: View = {},
): { columns: string[]; rows: Record<string, string>[]; total: number } {
  let rows = filterRows(rowsOf(df), v.where ?? {});
  if (v.sort) rows = sortRows(rows, v.sort);
  const all = rows.length ? Object.keys(rows[0]) : (v.columns ?? []);
  const cis = v.ci === undefined ? [] : Array.isArray(v.ci) ? v.ci : [v.ci];
  for (const c of [...cis, ...(v.columns ?? []), ...(v.groupBy ? [v.groupBy] : [])]) {
    if (rows.length && !all.includes(c)) throw new Error(`no column "${c}" (columns: ${all.join(', ')})`);
  }
  const hidden = cis.length ? ['ci_low', 'ci_high'] : [];
  const columns = (v.columns ?? all.filter((c) => !hidden.includes(c))).filter((c) => c !== v.groupBy || v.columns);
  const digits = v.digits ?? 3;
  const text = (r: Row, c: string) => {
    if (!cis.includes(c)) return formatValue(r[c], digits);
    const [lo, hi] = [formatValue(r.ci_low, digits), formatValue(r.ci_high, digits)];
    return lo === '' && hi === '' ? formatValue(r[c], digits) : `${formatValue(r[c], digits)} [${lo}, ${hi}]`;
  };
  const limit = v.limit ?? 200;
  const shown = rows
    .slice(0, limit)
    .map((r) => Object.fromEntries([...columns, ...(v.groupBy ? [v.groupBy] : [])].map((c) => [c, text(r, c)])));
  return { columns, rows: shown, total: rows.length };
}

/** A view of a table as one HTML table (a caption, a header row; with groupBy a heading row per group). */
export function viewHtml(df: Frame | Row[], v: View = {}): string {
  const { columns, rows, total } = viewCells(df, v);
  const cap = [v.caption, total > rows.length ? `first ${rows.length} of ${total} rows` : `${total} rows`]
    .filter(Boolean)
    .join(' · ');
  const head = `<tr>${columns
    .map((c) => `<th>${escapeHtml(c)}${(Array.isArray(v.ci) ? v.ci : [v.ci]).includes(c) ? ' [95% CI]' : ''}</th>`)
    .join('')}</tr>`;
  const tr = (r: Record<string, string>) => `<tr>${columns.map((c) => `<td>${escapeHtml(r[c])}</td>`).join('')}</tr>`;
  let body: string;
  if (v.groupBy) {
    const groups = [...new Set(rows.map((r) => r[v.groupBy!]))];
    body = groups
      .map((g) => {
        const mine = rows.filter((r) => r[v.groupBy!] === g);
        return (
          `<tbody><tr class="wb-group"><th colspan="${columns.length}" style="text-align:left">` +
          `${escapeHtml(v.groupBy!)}: ${escapeHtml(g)} (${mine.length})</th></tr>${mine.map(tr).join('')}</tbody>`
        );
      })
      .join('');
  } else {
    body = `<tbody>${rows.map(tr).join('')}</tbody>`;
  }
  return (
    `<table class="wb-table"><caption style="caption-side:top;text-align:left">${escapeHtml(cap)}</caption>` +
    `<thead>${head}</thead>${body}</table>`
  );
}

/** Per-group statistics of value columns by danfojs (<col>_mean, <col>_std, <col>_count, ...), sorted by `by`. */
export function summarise(
  df: Frame | Row[],
  by: string[],
  values: string[],
  stats: ('mean' | 'std' | 'count' | 'min' | 'max' | 'median' | 'sum')[] = ['mean', 'std', 'count'],
): Frame {
  const rows = rowsOf(df);
  if (rows.length === 0) return new dfd.DataFrame([]);
  const d = Array.isArray(df) ? frame(df) : df;
  const g = d
    .loc({ columns: [...by, ...values] })
    .groupby(by)
    .agg(Object.fromEntries(values.map((v) => [v, stats])));
  return new dfd.DataFrame(sortRows(rowsOf(g), by));
}

/**
 * A long table spread to one row per `index` key and one column per value of `column` (e.g. Table 2's rows by
 * method, one column per accuracy column), each cell `value` (with "[ci_low, ci_high]" when `ci`).
 */
export function wide(
  df: Frame | Row[],
  o: { index: string[]; column: string; value: string; ci?: boolean; digits?: number },
): Frame {
  const rows = rowsOf(df);
  const cols = [...new Set(rows.map((r) => String(r[o.column])))];
  const keyOf = (r: Row) => JSON.stringify(o.index.map((c) => r[c]));
  const out = new Map<string, Row>();
  for (const r of rows) {
    const k = keyOf(r);
    if (!out.has(k)) {
      out.set(k, {
        ...Object.fromEntries(o.index.map((c) => [c, r[c]])),
        ...Object.fromEntries(cols.map((c) => [c, ''])),
      });
    }
    const fmt = (c: Cell | undefined) => formatValue(c, o.digits ?? 3);
    const cell = fmt(r[o.value]);
    const ci = o.ci && fmt(r.ci_low) !== '' ? ` [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]` : '';
    out.get(k)![String(r[o.column])] = `${cell}${ci}`;
  }
  return out.size ? new dfd.DataFrame([...out.values()]) : new dfd.DataFrame([]);
}

/**
 * A claims table (profile, claim, run, against, ..., verdict) as a DataFrame with two columns in front: `paper`, the
 * paper the claim tests (as the reports split them, analysis/docs.ts paperOf), and `setting`, the run's setting
 * (`S|rlcer` -> S); `where` filters as in frame().
 */
export function claims(file: string, where: Where = {}): Frame {
  const rows = fs.existsSync(file) ? readCsv(file) : [];
  return frame(
    rows.map((r) => ({ paper: paperOf(file, r), setting: String(r.run).split('|')[0], ...r })),
    where,
  );
}

/**
 * The finished runs under `root` (a directory with done.json; its checksums verified) as a DataFrame: one row per run,
 * its path below `root` split into the named columns (e.g. ['size', 'method', 'cell', 'seed'] for a sweep's archive;
 * a seed-<n> part reads as n), and `dir`. Group it to see which cells have all their seeds.
 */
export function runs(root: string, parts: string[]): Frame {
  return frame(
    findFinishedRuns(root).map((dir) => {
      const names = path.relative(root, dir).split(path.sep);
      const row: Row = Object.fromEntries(
        parts.map((p, i) => {
          const v = names[i] ?? '';
          return [p, /^seed-\d+$/.test(v) ? Number(v.slice(5)) : v];
        }),
      );
      return { ...row, dir };
    }),
  );
}

// ---- charts

/** The figure `name` of results/figures/, built now from the committed tables by the builders make-figures uses. */
export function figure(name: string, results = 'results'): Figure {
  const theme = themeOf(name);
  const built = figureThemes(results)[theme]();
  const f = built.find((g) => g.name === name);
  if (!f) {
    throw new Error(`theme ${theme} draws no figure "${name}" now (it draws: ${built.map((g) => g.name).join(', ')})`);
  }
  return f;
}

/** Whether a figure's spec equals its committed export's (results/figures/<name>.js): the chart is the PNG's chart. */
export function sameAsCommitted(f: Figure, dir = 'results/figures'): boolean {
  const file = path.join(dir, `${f.name}.js`);
  return fs.existsSync(file) && isDeepStrictEqual(JSON.parse(JSON.stringify(specOf(f))), readFigureScript(file));
}

/** The class of a chart's div: the browser test counts them. */
export const CHART_CLASS = 'wb-chart';
/** The class of the static picture inside a chart's div, shown until plotly draws the chart over it. */
export const STATIC_CLASS = 'wb-chart-static';

/** One output of a notebook cell: a display_data's mime bundle and metadata. */
export interface DisplayOutput {
  data: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** The key of the outputs' metadata that names what the workbench put there (`chart`, `plotly`). */
export const META = 'workbench';

/**
 * The installed plotly bundle inlined as one script, for a notebook run live (the first chart of a kernel session
 * shows it). It registers window.Plotly whatever module loader the page has (plotly.js-dist-min 4's wrapper sets it
 * itself); the closing-tag escape keeps the script whole. `make notebooks` replaces it in the executed copies by
 * sharedPlotlyLoaderHtml (analysis/notebook.ts), so that no committed notebook carries the 4.8 MB bundle.
 */
export function plotlyLoaderHtml(source = plotlyJs()): string {
  return `<script type="text/javascript">${source.replace(/<\/script/gi, '<\\/script')}</script>`;
}

/**
 * A script that loads the one shared bundle (results/figures/plotly.min.js) from `rel`, its path from the notebook's
 * folder: under a Jupyter server (classic notebook, JupyterLab, Notebook 7) through the server's /files/ route beside
 * the notebook's own path, else (nbconvert's HTML, a static copy) relative to the page. Where neither loads, the
 * charts keep their static pictures.
 */
export function sharedPlotlyLoaderHtml(rel: string): string {
  return (
    `<script type="text/javascript">(function () {\n` +
    `  if (window.Plotly || window.wbPlotlyLoading) return;\n` +
    `  window.wbPlotlyLoading = true;\n` +
    `  var rel = ${JSON.stringify(rel).replace(/</g, '\\u003c')}, urls = [];\n` +
    `  var m = location.pathname.match(/^(.*?\\/)(?:lab\\/tree|lab\\/workspaces\\/[^/]+\\/tree|doc\\/tree|notebooks|tree)\\/(.*\\/)?[^/]*$/);\n` +
    `  if (m && location.protocol !== 'file:') urls.push(new URL(rel, location.origin + m[1] + 'files/' + (m[2] || '')).href);\n` +
    `  urls.push(new URL(rel, document.baseURI).href);\n` +
    `  var next = function (i) {\n` +
    `    if (window.Plotly) return;\n` +
    `    if (i >= urls.length) return console.warn('plotly not found at ' + urls.join(', ') + ': static pictures only');\n` +
    `    var s = document.createElement('script');\n` +
    `    s.src = urls[i];\n` +
    `    s.onload = function () { next(i + 1); };\n` +
    `    s.onerror = function () { s.remove(); next(i + 1); };\n` +
    `    document.head.appendChild(s);\n` +
    `  };\n` +
    `  next(0);\n` +
    `})();</script>`
  );
}

const titleOf = (f: Figure) => {
  const t = (f.layout.title as { text?: string } | undefined)?.text;
  return t ? t.replace(/<br>/g, ' ').replace(/<[^>]+>/g, '') : f.name;
};

/**
 * A spec with every number that is not an integer to `digits` significant digits: what a chart can show (hover
 * labels carry 3 or 4), at about half the JSON of a long trajectory's full doubles (theory_phase_portrait: 281 KB to
 * 140 KB), which keeps a notebook of such charts under 1 MB.
 */
export function compactSpec<T>(v: T, digits = 6): T {
  if (typeof v === 'number')
    return (Number.isInteger(v) || !Number.isFinite(v) ? v : Number(v.toPrecision(digits))) as T;
  if (Array.isArray(v)) return v.map((x) => compactSpec(x, digits)) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compactSpec(x, digits)])) as T;
  return v;
}

/**
 * One chart: a div holding the chart's static picture (`png`, shown where no script runs: GitHub, nbviewer, an
 * untrusted notebook, nbconvert's HTML) and the script that draws the interactive chart of the spec in its place
 * (the picture removed once plotly has drawn). The div is found beside its own script, so a rerun cell whose id
 * repeats an old one draws in the right place (by id where the page runs scripts without currentScript). A chart
 * wider than the page is drawn at the page's width, the picture scaled down to it. The spec is specOf(f), the JSON
 * of results/figures/<name>.js, its numbers to 6 significant digits (compactSpec); the picture is drawn from the
 * whole spec.
 */
export function chartHtml(f: Figure, id: string, png: Uint8Array): string {
  const spec = JSON.stringify(compactSpec(specOf(f))).replace(/</g, '\\u003c');
  const alt = `${f.name}: ${titleOf(f)}`;
  const src = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
  return (
    `<div class="${CHART_CLASS}" id="${escapeHtml(id)}" data-name="${escapeHtml(f.name)}">` +
    `<img class="${STATIC_CLASS}" alt="${escapeHtml(alt)}" src="${src}" style="max-width:100%;height:auto"></div>` +
    `<script type="text/javascript">(function () {\n` +
    `  var me = document.currentScript, div = me && me.previousElementSibling;\n` +
    `  if (!div || div.className !== '${CHART_CLASS}') div = document.getElementById(${JSON.stringify(id)});\n` +
    `  var f = ${spec};\n` +
    `  var draw = function (n) {\n` +
    `    if (window.Plotly) {\n` +
    `      var img = div.querySelector('img.${STATIC_CLASS}'), w = div.clientWidth;\n` +
    `      var layout = Object.assign({}, f.layout, w > 0 && w < f.layout.width ? {width: w} : {});\n` +
    `      return window.Plotly.newPlot(div, f.data, layout, {responsive: true}).then(function () {\n` +
    `        if (img) img.remove();\n` +
    `      });\n` +
    `    }\n` +
    `    if (n > 600) return console.warn('no plotly on this page: the chart stays a static picture');\n` +
    `    setTimeout(function () { draw(n + 1); }, 50);\n` +
    `  };\n` +
    `  draw(0);\n` +
    `})();</script>`
  );
}

/** A caption under a chart: the figure's own caption, and the reading the notebook gives beside it. */
export function readingHtml(f: Figure, reading?: string): string {
  const parts = [
    f.caption
      ? `<p style="max-width:900px;color:#444">${escapeHtml(f.caption)}${
          f.table ? ` Drawn from <code>${escapeHtml(f.table)}</code>.` : ''
        }</p>`
      : '',
    reading ? `<p style="max-width:900px"><b>Reading.</b> ${escapeHtml(reading)}</p>` : '',
  ];
  return parts.join('');
}

/** The same as text, for a reader that shows no HTML. */
function readingText(f: Figure, reading?: string): string {
  return [
    f.caption ? `${f.caption}${f.table ? ` Drawn from ${f.table}.` : ''}` : '',
    reading ? `Reading. ${reading}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

// The kernel session's renderer: started by the first chart, kept while charts follow (each then takes a fraction of
// a second, not the 2-15 s of Chromium's start), closed after a minute without one; charts drawn one at a time.
let renderer: Promise<FigureRenderer> | undefined;
let idle: ReturnType<typeof setTimeout> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** Close the session's renderer now (a test does; the kernel lets it close itself after a minute idle). */
export async function closeChartRenderer(): Promise<void> {
  clearTimeout(idle);
  const r = renderer;
  renderer = undefined;
  await r?.then((x) => x.close()).catch(() => undefined);
}

/**
 * A chart's static picture: its spec drawn by Chromium at the figure's own size (openRenderer, the renderer of
 * `make figures`, at scale 1) and re-encoded with at most 256 colours (analysis/png.ts smallPng).
 */
export function chartPng(f: Figure): Promise<Buffer> {
  const next = queue.then(async () => {
    clearTimeout(idle);
    renderer ??= openRenderer();
    let img: Rendered;
    try {
      img = await (await renderer).render(f, ['png'], 1);
    } catch (e) {
      await closeChartRenderer();
      throw e;
    }
    idle = setTimeout(() => void closeChartRenderer(), 60000);
    idle.unref();
    return smallPng(img.png!);
  });
  queue = next.catch(() => undefined);
  return next;
}

/**
 * The outputs of one chart, in order: the plotly loader (`loader`, in front of the first chart of a session); the
 * chart, one bundle with the picture as image/png beside the interactive text/html (which shows the same picture
 * until its script has drawn); its caption and reading.
 */
export function chartOutputs(
  f: Figure,
  id: string,
  png: Uint8Array,
  reading?: string,
  loader?: string,
): DisplayOutput[] {
  const text = readingText(f, reading);
  return [
    ...(loader ? [{ data: { 'text/html': loader }, metadata: { [META]: { plotly: 'inline' } } }] : []),
    {
      data: {
        'image/png': Buffer.from(png).toString('base64'),
        'text/html': chartHtml(f, id, png),
        'text/plain': `[chart ${f.name}] ${titleOf(f)}`,
      },
      metadata: { [META]: { chart: f.name } },
    },
    ...(text ? [{ data: { 'text/html': readingHtml(f, reading), 'text/plain': text }, metadata: {} }] : []),
  ];
}

let charts = 0;

/** The outputs of the next chart of this kernel session: with the inlined plotly bundle in front of the first. */
export function nextChartOutputs(f: Figure, png: Uint8Array, reading?: string): DisplayOutput[] {
  const first = charts === 0;
  charts++;
  return chartOutputs(f, `${CHART_CLASS}-${charts}-${f.name}`, png, reading, first ? plotlyLoaderHtml() : undefined);
}

// tslab's display API sends one mime type per output; its kernel's writer (the module the kernel itself loaded, found
// from the project root as figures.ts finds plotly) sends a whole bundle
const req = createRequire(path.join(process.cwd(), 'noop.js'));

/** Send one output to the cell being run (a tslab kernel only). */
export function display(o: DisplayOutput): void {
  const kernel = req('tslab/dist/jupyter.js') as {
    lastWriteDisplayData: ((d: DisplayOutput & { transient: object }, update: boolean) => void) | null;
  };
  if (!kernel.lastWriteDisplayData) throw new Error('display: not inside a running tslab kernel');
  kernel.lastWriteDisplayData({ ...o, transient: {} }, false);
}

/** Show a view of a table in the notebook. */
export function show(df: Frame | Row[] | string, v: View = {}): void {
  tslab.display.html(viewHtml(typeof df === 'string' ? frame(df) : df, v));
}

/**
 * Draw a figure inline: its static picture and, where the notebook's scripts run, the interactive chart over it,
 * with its caption and a reading; a name is a results/figures/ figure built by figure(name). Await it (the picture
 * is drawn by Chromium), so that its outputs land in the cell that asked for them.
 */
export async function chart(f: Figure | string, reading?: string): Promise<void> {
  const fig = typeof f === 'string' ? figure(f) : f;
  for (const o of nextChartOutputs(fig, await chartPng(fig), reading)) display(o);
}
