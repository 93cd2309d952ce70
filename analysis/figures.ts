// Plotly figures: a figure is plain JSON (data + layout), with a caption and the table it is drawn from. Each is
// written as <name>.js (the spec), <name>.html (a page that shows it) and SVG and PNG exports (one headless
// Chromium page per batch). Every page loads one shared plotly bundle, results/figures/plotly.min.js (the full
// plotly.js-dist-min, so heatmaps and contours are available), and the gallery results/figures/index.html shows
// every figure of a folder, grouped by paper (analysis/gallery.ts, drawn by make-figures). Everything works offline from file://.
// Node never imports plotly: the bundle needs a DOM, so it only runs inside the browser.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../src/io/table.js';

export interface Figure {
  /** file stem: <folder>/<name>.{js,html,svg,png} */
  name: string;
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
  width?: number;
  height?: number;
  /** shown under the figure in the gallery: what is drawn, over what, how to read it (smoothing, bands) */
  caption?: string;
  /** the committed table the figure is drawn from, as a path from the project root */
  table?: string;
}

export type Format = 'html' | 'svg' | 'png';

/** The one plotly bundle every figure page and the gallery load (a path from the project root). */
export const BUNDLE = path.join('results', 'figures', 'plotly.min.js');

// Resolved from the working directory (the project root for make targets and the tslab kernel).
const req = createRequire(path.join(process.cwd(), 'noop.js'));
let plotlySource: string | undefined;
export function plotlyJs(): string {
  plotlySource ??= fs.readFileSync(req.resolve('plotly.js-dist-min'), 'utf8');
  return plotlySource;
}

/** Keep the shared bundle beside the figures equal to the installed plotly (written only when it differs). */
export function ensureBundle(): void {
  const src = plotlyJs();
  if (fs.existsSync(BUNDLE) && fs.readFileSync(BUNDLE, 'utf8') === src) return;
  writeFileAtomic(BUNDLE, src);
}

const size = (f: Figure) => ({ width: f.width ?? 900, height: f.height ?? 600 });

/** What <name>.js holds: the figure's spec, registered under its name for the pages that load it. */
export interface FigureSpec {
  name: string;
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
  caption: string;
  table: string;
}

export const specOf = (f: Figure): FigureSpec => ({
  name: f.name,
  data: f.data,
  layout: { ...size(f), ...f.layout },
  caption: f.caption ?? '',
  table: f.table ?? '',
});

const SPEC_HEAD = '(window.FIGURES = window.FIGURES || {})[';

/** <name>.js: three lines (the registration, the spec as one line of JSON, the end), so that Node can read it back. */
export function figureScript(f: Figure): string {
  return `${SPEC_HEAD}${JSON.stringify(f.name)}] =\n${JSON.stringify(specOf(f))}\n;\n`;
}

/** Read a <name>.js back (the gallery does); throws on a file that is not a figure spec. */
export function readFigureScript(file: string): FigureSpec {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (!lines[0].startsWith(SPEC_HEAD) || lines[2] !== ';')
    throw new Error(`${file}: not a figure spec written by figureScript`);
  return JSON.parse(lines[1]) as FigureSpec;
}

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A page showing one figure, beside its <name>.js; `bundle` is the path of the plotly bundle from the page. */
export function figureHtml(f: Figure, bundle: string): string {
  const cap = f.caption ? `<p style="max-width:900px;font-family:sans-serif">${escapeHtml(f.caption)}</p>` : '';
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(f.name)}</title>` +
    `<script src="${escapeHtml(bundle)}"></script><script src="${escapeHtml(f.name)}.js"></script></head>` +
    `<body><div id="fig"></div>${cap}<script>const f = FIGURES[${JSON.stringify(f.name).replace(/</g, '\\u003c')}];\n` +
    `Plotly.newPlot('fig', f.data, f.layout, {responsive: true});</script></body></html>\n`
  );
}

/** The bundle's path as a page in `dir` refers to it (a relative URL path). */
export const bundleFrom = (dir: string) => path.relative(dir, BUNDLE).split(path.sep).join('/');

/** Debian's Chromium, headless and offline, driven by playwright-core (the caller closes it). */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--allow-file-access-from-files',
    ],
  });
}

/** A page of Chromium that records every console error, uncaught page error and failed request, in order. */
export type CheckedPage = Awaited<ReturnType<Awaited<ReturnType<typeof launchChromium>>['newPage']>>;

/**
 * Open a local file in headless Chromium at `viewport`, collecting its errors, run `check` on the page and close the
 * browser whatever happens (the gallery's check and the notebooks' browser test).
 */
export async function withFilePage<T>(
  file: string,
  viewport: { width: number; height: number },
  goto: { waitUntil?: 'load'; timeout?: number },
  check: (page: CheckedPage, errors: string[]) => Promise<T>,
): Promise<T> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    await page.goto(pathToFileURL(path.resolve(file)).href, goto);
    return await check(page, errors);
  } finally {
    await browser.close();
  }
}

export function chromiumPath(): string {
  const p = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(p))
    throw new Error(`Chromium not found at ${p}: run "make setup" (Debian package chromium) or set CHROMIUM_PATH`);
  return p;
}

// Runs in the page. A string, not a function, so that no transpiler helper leaks into the browser. Plotly names
// its SVG definitions and traces from Math.random: a seeded generator (mulberry32), reset for every figure, makes
// the files of unchanged inputs byte-identical, so regenerating figures leaves git clean.
const RENDER = `async ({ data, layout, width, height, formats, pngScale }) => {
  let s = 20261201;
  Math.random = () => {
    s = (s + 0x6D2B79F5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  await Plotly.newPlot('fig', data, { ...layout, width, height }, { staticPlot: true });
  const out = {};
  for (const format of formats) out[format] = await Plotly.toImage('fig', { format, width, height, scale: format === 'png' ? pngScale : 1 });
  Plotly.purge('fig');
  return out;
}`;

/** A figure drawn to SVG (text) and PNG (bytes). */
export interface Rendered {
  svg?: string;
  png?: Buffer;
}

/** A headless Chromium page with plotly loaded, drawing figures one after another until closed. */
export interface FigureRenderer {
  /** PNGs at `pngScale` times the figure's size (2 for the exports) */
  render(f: Figure, formats: ('svg' | 'png')[], pngScale?: number): Promise<Rendered>;
  close(): Promise<void>;
}

/** Start a renderer: most of a render's time is this (Chromium's start, plotly's 4.8 MB parsed), each figure after it
 * takes a fraction of a second. */
export async function openRenderer(): Promise<FigureRenderer> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setContent(`<html><body><div id="fig"></div><script>${plotlyJs()}</script></body></html>`);
    return {
      async render(f, formats, pngScale = 2) {
        const urls = (await page.evaluate(
          `(${RENDER})(${JSON.stringify({ data: f.data, layout: f.layout, ...size(f), formats, pngScale })})`,
        )) as Record<string, string>;
        return {
          svg: urls.svg ? decodeURIComponent(urls.svg.slice(urls.svg.indexOf(',') + 1)) : undefined,
          png: urls.png ? Buffer.from(urls.png.slice(urls.png.indexOf(',') + 1), 'base64') : undefined,
        };
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** Render figures to SVG (text) and PNG (bytes) in one browser session; PNGs at twice the figure's size by default. */
export async function renderFigures(
  figs: Figure[],
  formats: ('svg' | 'png')[] = ['svg', 'png'],
  pngScale = 2,
): Promise<Rendered[]> {
  if (figs.length === 0) return [];
  const r = await openRenderer();
  try {
    const out: Rendered[] = [];
    for (const f of figs) out.push(await r.render(f, formats, pngScale));
    return out;
  } finally {
    await r.close();
  }
}

/**
 * Write <name>.js, .html, .svg and .png for every figure into outDir (atomically, one browser for the batch) and keep
 * the shared bundle current. make-figures then redraws the folder's gallery (analysis/gallery.ts).
 */
export async function writeFigures(
  figs: Figure[],
  outDir: string,
  formats: Format[] = ['html', 'svg', 'png'],
): Promise<string[]> {
  const written: string[] = [];
  const images = formats.some((f) => f !== 'html')
    ? await renderFigures(
        figs,
        formats.filter((f): f is 'svg' | 'png' => f !== 'html'),
      )
    : [];
  if (formats.includes('html')) ensureBundle();
  figs.forEach((f, i) => {
    const file = (ext: string) => path.join(outDir, `${f.name}.${ext}`);
    if (formats.includes('html')) {
      writeFileAtomic(file('js'), figureScript(f));
      writeFileAtomic(file('html'), figureHtml(f, bundleFrom(outDir)));
      written.push(file('js'), file('html'));
    }
    if (images[i]?.svg) {
      writeFileAtomic(file('svg'), images[i].svg!);
      written.push(file('svg'));
    }
    if (images[i]?.png) {
      writeFileAtomic(file('png'), images[i].png!);
      written.push(file('png'));
    }
  });
  return written;
}
