// The executed notebooks as a reader sees them: each results/notebooks/*.ipynb exported to HTML by nbconvert, opened
// in Chromium from file:// (offline, as analysis/gallery.ts opens the gallery), its interactive charts counted once
// plotly has drawn them, console and page errors collected, and one chart hovered with the mouse until its tooltip
// shows.
// Usage: tsx analysis/notebook-browser.ts [results/notebooks/X.ipynb ...]   (default: every executed notebook;
//   prints one line per notebook, exits 1 on a problem; the HTML goes to a temporary folder)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withFilePage } from './figures.js';
import { CHART_CLASS } from './notebook-view.js';

interface Output {
  output_type: string;
  data?: Record<string, string | string[]>;
}
interface Cell {
  cell_type: string;
  outputs?: Output[];
}

const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join('') : (v ?? ''));

/** The charts an executed notebook draws: its HTML outputs' chart divs, by figure name, in order. */
export function chartsIn(notebook: string): string[] {
  const cells = (JSON.parse(fs.readFileSync(notebook, 'utf8')) as { cells: Cell[] }).cells;
  const html = cells
    .flatMap((c) => c.outputs ?? [])
    .map((o) => text(o.data?.['text/html']))
    .join('\n');
  const div = new RegExp(`<div class="${CHART_CLASS}" id="[^"]*" data-name="([^"]*)"`, 'g');
  return [...html.matchAll(div)].map((m) => m[1]);
}

/** The outputs of a notebook that are static images (PNG, JPEG, SVG): the notebooks draw interactive charts instead. */
export function imagesIn(notebook: string): number {
  const cells = (JSON.parse(fs.readFileSync(notebook, 'utf8')) as { cells: Cell[] }).cells;
  return cells
    .flatMap((c) => c.outputs ?? [])
    .filter((o) => Object.keys(o.data ?? {}).some((k) => k.startsWith('image/'))).length;
}

/** nbconvert --to html of one executed notebook into `outDir`; returns the HTML file. */
export function exportHtml(notebook: string, outDir: string): string {
  const r = spawnSync('/usr/bin/jupyter', ['nbconvert', '--to', 'html', '--output-dir', outDir, notebook], {
    encoding: 'utf8',
    env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' },
  });
  if (r.status !== 0) throw new Error(`nbconvert --to html ${notebook} failed:\n${(r.stderr ?? '').slice(-2000)}`);
  return path.join(outDir, `${path.basename(notebook, '.ipynb')}.html`);
}

export interface NotebookPageCheck {
  /** console errors, uncaught page errors and failed requests, in order */
  errors: string[];
  /** per chart div: its figure, traces and whether plotly drew an SVG into it */
  charts: { name: string; traces: number; drawn: boolean }[];
  /** the chart hovered and the text of the tooltip the mouse brought up ('' when none showed) */
  hovered: { name: string; tooltip: string } | null;
}

// Runs in the page: the page position of a hoverable data point of the chart number `k`, or null. A point of a line,
// marker or bar trace (not a band: hoverinfo skip) in the middle of its trace, through the axes' own conversions.
const POINT = `(k) => {
  const div = document.querySelectorAll('div.${CHART_CLASS}')[k];
  const fl = div._fullLayout;
  for (const t of div._fullData || []) {
    if (t.hoverinfo === 'skip' || !['scatter', 'bar'].includes(t.type) || !t.visible) continue;
    const x = t.x || [], y = t.y || [];
    for (const i of [Math.floor(x.length / 2), 0]) {
      if (x[i] === undefined || y[i] === undefined || y[i] === null) continue;
      const xa = fl[(t.xaxis || 'x').replace('x', 'xaxis')], ya = fl[(t.yaxis || 'y').replace('y', 'yaxis')];
      const px = xa._offset + xa.l2p(xa.d2c(x[i], 0, t.xcalendar));
      let py = ya._offset + ya.l2p(ya.d2c(y[i], 0, t.ycalendar));
      if (t.type === 'bar') py = ya._offset + (ya.l2p(ya.d2c(y[i], 0)) + ya.l2p(0)) / 2;
      if (!Number.isFinite(px) || !Number.isFinite(py)) continue;
      const r = div.getBoundingClientRect();
      return { x: r.left + px, y: r.top + py };
    }
  }
  return null;
}`;

/** Open an exported notebook page in Chromium, wait for its charts, hover one, and report. */
export async function checkNotebookPage(html: string, screenshot?: string): Promise<NotebookPageCheck> {
  const goto = { waitUntil: 'load' as const, timeout: 120000 };
  return withFilePage(html, { width: 1200, height: 900 }, goto, async (page, errors) => {
    // every chart drawn (or 30 s gone: then the count below says which were not)
    await page
      .waitForFunction(
        `[...document.querySelectorAll('div.${CHART_CLASS}')].every((d) =>
      d.querySelector('svg.main-svg'))`,
        undefined,
        { timeout: 30000 },
      )
      .catch(() => undefined);
    const charts = (await page.evaluate(`[...document.querySelectorAll('div.${CHART_CLASS}')].map((d) => ({
      name: d.dataset.name, traces: (d.data || []).length, drawn: d.querySelectorAll('svg.main-svg').length > 0 }))`)) as NotebookPageCheck['charts'];
    let hovered: NotebookPageCheck['hovered'] = null;
    for (let k = 0; k < charts.length && !hovered?.tooltip; k++) {
      await page.evaluate(`document.querySelectorAll('div.${CHART_CLASS}')[${k}].scrollIntoView({ block: 'center' })`);
      const at = (await page.evaluate(`(${POINT})(${k})`)) as { x: number; y: number } | null;
      if (!at) continue;
      await page.mouse.move(at.x - 40, at.y - 40);
      await page.mouse.move(at.x, at.y, { steps: 5 });
      const tip = await page
        .waitForFunction(
          `(() => { const t = document.querySelectorAll('div.${CHART_CLASS}')[${k}]
        .querySelector('.hoverlayer .hovertext'); return t ? t.textContent || ' ' : false; })()`,
          undefined,
          { timeout: 5000 },
        )
        .then((h) => h.jsonValue() as Promise<string>)
        .catch(() => '');
      hovered = { name: charts[k].name, tooltip: tip };
      if (tip && screenshot) await page.screenshot({ path: screenshot });
    }
    return { errors, charts, hovered };
  });
}

/**
 * Problems of a page, one line each: errors, charts not drawn or empty, another count of charts than the notebook
 * draws, no chart at all, no tooltip.
 */
export function pageProblems(c: NotebookPageCheck, expected: string[]): string[] {
  return [
    ...c.errors,
    ...c.charts
      .filter((p) => p.traces === 0 || !p.drawn)
      .map((p) => `${p.name}: ${p.traces} traces, ${p.drawn ? 'drawn' : 'not drawn'}`),
    ...(c.charts.length !== expected.length
      ? [`${c.charts.length} charts on the page, the notebook draws ${expected.length}`]
      : []),
    ...(expected.length === 0 ? ['the notebook draws no chart'] : []),
    ...(c.hovered?.tooltip ? [] : [`no tooltip when hovering ${c.hovered ? c.hovered.name : 'any chart'}`]),
  ];
}

if (process.argv[1]?.endsWith(path.join('analysis', 'notebook-browser.ts'))) {
  const files = process.argv.slice(2).length
    ? process.argv.slice(2)
    : fs
        .readdirSync('results/notebooks')
        .filter((f) => f.endsWith('.ipynb'))
        .sort()
        .map((f) => path.join('results/notebooks', f));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbhtml-'));
  let bad = 0;
  for (const nb of files) {
    const t0 = Date.now();
    const c = await checkNotebookPage(exportHtml(nb, out));
    const problems = pageProblems(c, chartsIn(nb));
    bad += problems.length ? 1 : 0;
    const tip = JSON.stringify(c.hovered?.tooltip ?? '').slice(0, 60);
    console.log(
      `${nb}: ${c.charts.length} charts, tooltip on ${c.hovered?.name ?? '-'}: ${tip}, ` +
        `${problems.length} problems ` +
        `(${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    for (const p of problems) console.log(`  ${p}`);
  }
  console.log(`HTML in ${out}`);
  process.exit(bad ? 1 : 0);
}
