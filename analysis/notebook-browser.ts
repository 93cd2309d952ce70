// The executed notebooks as a reader sees them. Each results/notebooks/*.ipynb is exported to HTML by nbconvert and
// opened in Chromium from file:// (offline, as analysis/gallery.ts opens the gallery) twice:
//   scripts on   as a trusted notebook: the shared plotly bundle loads, every interactive chart is drawn over its
//                static picture (which goes), console and page errors are collected, one chart is hovered with the
//                mouse until its tooltip shows (checkNotebookPage)
//   scripts off  as GitHub, nbviewer or an untrusted notebook show it: exported with nbconvert's sanitizer (scripts
//                and unsafe markup removed) and opened with JavaScript disabled, every chart's static picture is
//                found and shown (checkStaticPage)
// and the notebook file itself is read: every chart output carries its picture as image/png, a real picture of the
// chart's size, the same one its HTML shows (pictureProblems), still there once the sanitizer of an untrusted Jupyter
// notebook has been over the HTML (untrustedProblems), and no copy of plotly (plotlyIn).
// Usage: tsx analysis/notebook-browser.ts [results/notebooks/X.ipynb ...]   (default: every executed notebook;
//   prints one line per notebook, exits 1 on a problem; the HTML goes to a results/.nbhtml-* folder, removed after)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import { BUNDLE, launchChromium, withFilePage } from './figures.js';
import { CHART_CLASS, META, STATIC_CLASS } from './notebook-view.js';
import { pictureStats, type PictureStats } from './png.js';

interface Output {
  output_type: string;
  data?: Record<string, string | string[]>;
  metadata?: Record<string, unknown>;
}
interface Cell {
  cell_type: string;
  outputs?: Output[];
}

const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join('') : (v ?? ''));
const outputsOf = (notebook: string) =>
  (JSON.parse(fs.readFileSync(notebook, 'utf8')) as { cells: Cell[] }).cells.flatMap((c) => c.outputs ?? []);
const CHART_DIV = new RegExp(`<div class="${CHART_CLASS}" id="[^"]*" data-name="([^"]*)"`, 'g');

/** The charts an executed notebook draws: its HTML outputs' chart divs, by figure name, in order. */
export function chartsIn(notebook: string): string[] {
  const html = outputsOf(notebook)
    .map((o) => text(o.data?.['text/html']))
    .join('\n');
  return [...html.matchAll(CHART_DIV)].map((m) => m[1]);
}

/** One chart's output as committed: its static picture (image/png), the one in its HTML, and its spec's size. */
export interface ChartOutput {
  name: string;
  /** the bundle's image/png, decoded from base64 (null when the bundle has none) */
  png: Buffer | null;
  /** the picture of the HTML's <img> (null when it has none) */
  htmlPng: Buffer | null;
  /** the spec's layout width and height (what the picture must measure) */
  size: { width: number; height: number } | null;
}

/** Every output of a notebook that draws a chart (its HTML holds a chart div), with its pictures. */
export function chartOutputs(notebook: string): ChartOutput[] {
  return outputsOf(notebook).flatMap((o) => {
    const html = text(o.data?.['text/html']);
    const names = [...html.matchAll(CHART_DIV)].map((m) => m[1]);
    if (names.length === 0) return [];
    const img = html.match(new RegExp(`<img class="${STATIC_CLASS}"[^>]* src="data:image/png;base64,([^"]*)"`));
    const spec = html.match(/\n {2}var f = (.*);\n/);
    const layout = spec ? (JSON.parse(spec[1]) as { layout: { width: number; height: number } }).layout : null;
    return names.map((name) => ({
      name,
      png: o.data?.['image/png'] ? Buffer.from(text(o.data['image/png']), 'base64') : null,
      htmlPng: img ? Buffer.from(img[1], 'base64') : null,
      size: layout ? { width: layout.width, height: layout.height } : null,
    }));
  });
}

/**
 * Problems of a notebook's chart outputs, one line each: a chart with no image/png beside it, a picture that does not
 * decode, is not the chart's size or is nearly blank (under 2% of its pixels off the background, or fewer than 8
 * colours), an HTML without the same picture (what GitHub, nbviewer and an untrusted notebook show).
 */
export function pictureProblems(notebook: string): string[] {
  const out: string[] = [];
  for (const c of chartOutputs(notebook)) {
    if (!c.png) {
      out.push(`${c.name}: no image/png beside the interactive chart`);
      continue;
    }
    let st: PictureStats;
    try {
      st = pictureStats(c.png);
    } catch (e) {
      out.push(`${c.name}: image/png does not decode (${(e as Error).message})`);
      continue;
    }
    if (c.size && (st.width !== c.size.width || st.height !== c.size.height))
      out.push(`${c.name}: picture ${st.width} x ${st.height}, the chart is ${c.size.width} x ${c.size.height}`);
    if (st.drawn < 0.02 || st.colours < 8)
      out.push(`${c.name}: picture nearly blank (${(100 * st.drawn).toFixed(1)}% drawn, ${st.colours} colours)`);
    if (!c.htmlPng?.equals(c.png)) out.push(`${c.name}: the HTML does not show the same picture`);
  }
  return out;
}

/**
 * The HTML sanitizer of the installed classic Jupyter Notebook (Debian's python3-notebook, from make setup): the one
 * JupyterLab ships (@jupyterlab/apputils' Sanitizer, over sanitize-html), run on every HTML output of a notebook that
 * is not trusted. Null where that notebook is not installed.
 */
export const JUPYTER_SANITIZER = '/usr/lib/python3/dist-packages/notebook/static/components/sanitizer/index.js';
let sanitizer: { sanitize: (html: string, options?: object) => string } | undefined;
export function untrustedJupyterHtml(html: string, file = JUPYTER_SANITIZER): string | null {
  if (!sanitizer) {
    if (!fs.existsSync(file)) return null;
    // an AMD module (define(() => exports)) of plain JavaScript: evaluated in a context of its own
    let mod: { defaultSanitizer: typeof sanitizer } | undefined;
    vm.runInNewContext(fs.readFileSync(file, 'utf8'), { define: (f: () => typeof mod) => (mod = f()) });
    sanitizer = mod!.defaultSanitizer;
  }
  // as the notebook calls it for an untrusted output (security.js: no CSS)
  return sanitizer!.sanitize(html, { allowedStyles: {} });
}

/**
 * Problems of a notebook opened untrusted in Jupyter, one line each: a chart whose HTML, once Jupyter's sanitizer has
 * been over it, no longer holds its picture, or still holds a script. Null where no Jupyter sanitizer is installed.
 */
export function untrustedProblems(notebook: string, file = JUPYTER_SANITIZER): string[] | null {
  const out: string[] = [];
  for (const o of outputsOf(notebook)) {
    const html = text(o.data?.['text/html']);
    const names = [...html.matchAll(CHART_DIV)].map((m) => m[1]);
    if (names.length === 0) continue;
    const clean = untrustedJupyterHtml(html, file);
    if (clean === null) return null;
    const png = text(o.data?.['image/png']);
    if (!png || !clean.includes(`src="data:image/png;base64,${png}"`))
      out.push(`${names.join(', ')}: no picture once sanitized`);
    if (/<script/i.test(clean)) out.push(`${names.join(', ')}: a script survives the sanitizer`);
  }
  return out;
}

/**
 * How a notebook gets plotly: `inlined`, the copies of the bundle it carries (0 for a committed notebook), and
 * `shared`, the paths its loaders of the shared bundle load it from (analysis/notebook.ts sharePlotly), as their
 * scripts say.
 */
export function plotlyIn(notebook: string): { inlined: number; shared: string[] } {
  const outs = outputsOf(notebook);
  return {
    inlined: outs.filter((o) => text(o.data?.['text/html']).includes('* plotly.js v')).length,
    shared: outs.flatMap((o) => {
      const meta = o.metadata?.[META] as { plotly?: string } | undefined;
      if (meta?.plotly !== 'shared') return [];
      const rel = text(o.data?.['text/html']).match(/var rel = ("[^"]*")/);
      return [rel ? (JSON.parse(rel[1]) as string) : ''];
    }),
  };
}

/**
 * nbconvert --to html of one executed notebook into `outDir`; returns the HTML file. `sanitize`: as nbviewer-like
 * tools render an untrusted notebook (nbconvert's sanitize_html: scripts and unsafe markup removed).
 */
export function exportHtml(notebook: string, outDir: string, sanitize = false): string {
  const args = ['nbconvert', '--to', 'html', '--output-dir', outDir, notebook];
  if (sanitize)
    args.push('--HTMLExporter.sanitize_html=True', '--output', `${path.basename(notebook, '.ipynb')}-sanitized`);
  const r = spawnSync('/usr/bin/jupyter', args, {
    encoding: 'utf8',
    env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' },
  });
  if (r.status !== 0) throw new Error(`nbconvert --to html ${notebook} failed:\n${(r.stderr ?? '').slice(-2000)}`);
  return path.join(outDir, `${path.basename(notebook, '.ipynb')}${sanitize ? '-sanitized' : ''}.html`);
}

/**
 * A folder for exported pages where the committed notebooks' relative path to the shared plotly bundle
 * (../figures/plotly.min.js) resolves as it does from results/notebooks/: a fresh results/.nbhtml-* (remove it after).
 */
export const pageDir = () => fs.mkdtempSync(path.join(path.dirname(BUNDLE), '..', '.nbhtml-'));

export interface NotebookPageCheck {
  /** console errors, uncaught page errors and failed requests, in order */
  errors: string[];
  /** per chart div: its figure, traces, whether plotly drew an SVG into it, whether the static picture is still
   * there, and whether it fits the page's width */
  charts: { name: string; traces: number; drawn: boolean; picture: boolean; fits: boolean }[];
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
      name: d.dataset.name, traces: (d.data || []).length, drawn: d.querySelectorAll('svg.main-svg').length > 0,
      picture: d.querySelector('img.${STATIC_CLASS}') !== null,
      fits: [...d.querySelectorAll('svg.main-svg')].every((g) => g.getBoundingClientRect().right <=
        document.documentElement.clientWidth + 1) }))`)) as NotebookPageCheck['charts'];
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
 * Problems of a page, one line each: errors, charts not drawn or empty, a chart drawn with its static picture still
 * beside it, a chart wider than the page, another count of charts than the notebook draws, no chart at all, no
 * tooltip.
 */
export function pageProblems(c: NotebookPageCheck, expected: string[]): string[] {
  return [
    ...c.errors,
    ...c.charts
      .filter((p) => p.traces === 0 || !p.drawn)
      .map((p) => `${p.name}: ${p.traces} traces, ${p.drawn ? 'drawn' : 'not drawn'}`),
    ...c.charts.filter((p) => p.drawn && p.picture).map((p) => `${p.name}: the static picture stays under the chart`),
    ...c.charts.filter((p) => !p.fits).map((p) => `${p.name}: wider than the page`),
    ...(c.charts.length !== expected.length
      ? [`${c.charts.length} charts on the page, the notebook draws ${expected.length}`]
      : []),
    ...(expected.length === 0 ? ['the notebook draws no chart'] : []),
    ...(c.hovered?.tooltip ? [] : [`no tooltip when hovering ${c.hovered ? c.hovered.name : 'any chart'}`]),
  ];
}

export interface StaticPageCheck {
  /** per static picture of a chart: its figure (from the picture's alt text), whether it decoded, its drawn size,
   * and whether it fits the page's width */
  pictures: { name: string; loaded: boolean; width: number; height: number; fits: boolean }[];
  /** charts plotly drew anyway (none where scripts are off) */
  drawn: number;
}

/**
 * Open an exported notebook page as a static renderer shows it: Chromium with JavaScript off, from file://. Finds
 * every chart's static picture and whether the browser decoded it.
 */
export async function checkStaticPage(html: string): Promise<StaticPageCheck> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: false });
    await page.goto(pathToFileURL(path.resolve(html)).href, { waitUntil: 'load', timeout: 120000 });
    const pictures = (await page.evaluate(`[...document.querySelectorAll('img.${STATIC_CLASS}')].map((i) => {
      const r = i.getBoundingClientRect();
      return { name: (i.alt || '').split(':')[0], loaded: i.complete && i.naturalWidth > 0, width: Math.round(r.width),
        height: Math.round(r.height), fits: r.right <= document.documentElement.clientWidth + 1 };
    })`)) as StaticPageCheck['pictures'];
    return { pictures, drawn: await page.locator('svg.main-svg').count() };
  } finally {
    await browser.close();
  }
}

/** Problems of a static page, one line each: a chart without its picture, a picture not shown, wider than the page. */
export function staticProblems(c: StaticPageCheck, expected: string[]): string[] {
  const found = c.pictures.map((p) => p.name);
  return [
    ...(c.drawn ? [`${c.drawn} charts drawn with scripts off`] : []),
    ...(JSON.stringify(found) !== JSON.stringify(expected)
      ? [`pictures of ${found.join(', ') || 'no chart'}; the notebook draws ${expected.join(', ')}`]
      : []),
    ...c.pictures.filter((p) => !p.loaded || p.width < 50 || p.height < 50).map((p) => `${p.name}: picture not shown`),
    ...c.pictures.filter((p) => !p.fits).map((p) => `${p.name}: picture wider than the page`),
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
  // beside results/notebooks, so that the notebooks' path to the shared plotly bundle resolves; removed at the end
  const out = pageDir();
  let bad = 0;
  try {
    for (const nb of files) {
      const t0 = Date.now();
      const expected = chartsIn(nb);
      const c = await checkNotebookPage(exportHtml(nb, out));
      const still = await checkStaticPage(exportHtml(nb, out, true));
      const problems = [
        ...pageProblems(c, expected),
        ...pictureProblems(nb),
        ...(untrustedProblems(nb) ?? ['untrusted Jupyter: no sanitizer installed to check with']).map(
          (p) => `untrusted Jupyter: ${p}`,
        ),
        ...staticProblems(still, expected).map((p) => `scripts off: ${p}`),
      ];
      bad += problems.length ? 1 : 0;
      const tip = JSON.stringify(c.hovered?.tooltip ?? '').slice(0, 60);
      console.log(
        `${nb}: ${(fs.statSync(nb).size / 1e6).toFixed(2)} MB, ${c.charts.length} charts, ` +
          `${still.pictures.length} static pictures, tooltip on ${c.hovered?.name ?? '-'}: ${tip}, ` +
          `${problems.length} problems (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
      );
      for (const p of problems) console.log(`  ${p}`);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  process.exit(bad ? 1 : 0);
}
