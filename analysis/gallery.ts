// The gallery: one page, <folder>/index.html, showing every figure of a figure folder grouped by paper, each with
// its caption, the table it is drawn from and its PNG/SVG exports. It loads the shared plotly bundle once and every
// figure's <name>.js (no spec is copied into it), so it works offline from file:// and cannot drift from the
// figures. `checkGallery` opens it in Chromium and reports console errors, plots that drew nothing and plots wider
// than the page (a figure wider than the page is drawn at the page's width).
// Usage: tsx analysis/gallery.ts [folder] [--screenshot file.png]   (default results/figures; exits 1 on a problem;
//   the screenshot is for looking at, not for committing: a browser's fonts and rasterising differ by machine)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../src/io/table.js';
import { bundleFrom, escapeHtml, readFigureScript, withFilePage, type FigureSpec } from './figures.js';

/** Gallery sections, in order: a figure belongs to the first whose prefix its name starts with. */
export const GROUPS: { title: string; prefixes: string[] }[] = [
  { title: 'RLCER and Table 2 (with the RLVR baseline)', prefixes: ['table2_', 'rlcer_', 'rlvr_'] },
  { title: 'EvoLM', prefixes: ['evolm_'] },
  { title: 'CO-RL: experiments', prefixes: ['corl_'] },
  { title: 'CO-RL: theory', prefixes: ['theory_'] },
  { title: 'Rubicon', prefixes: ['rubicon_'] },
  { title: 'Regime map (where rubric rewards help)', prefixes: ['regime_'] },
  { title: 'Sensitivity (the positive control and the pilot)', prefixes: ['sensitivity_'] },
  { title: 'Other', prefixes: [''] },
];

export const groupOf = (name: string) => GROUPS.find((g) => g.prefixes.some((p) => name.startsWith(p)))!.title;

/** The figure specs of a folder (every <name>.js but the bundle), sorted by name. */
export function figureSpecs(dir: string): FigureSpec[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js') && f !== 'plotly.min.js')
    .sort()
    .map((f) => readFigureScript(path.join(dir, f)));
}

const titleOf = (s: FigureSpec) => {
  const t = (s.layout.title as { text?: string } | undefined)?.text;
  return t ? t.replace(/<br>/g, ' ').replace(/<[^>]+>/g, '') : s.name;
};

// Renders the figures one after another, a figure wider than the page at the page's width (plotly lays it out again:
// the wide Table 2 and regime charts keep their legends and last bars); sets window.galleryDone (and logs the error)
// when it stops.
const RENDER = `(async () => {
  for (const div of document.querySelectorAll('div.plot')) {
    const f = (window.FIGURES || {})[div.dataset.name];
    if (!f) throw new Error('no figure spec for ' + div.dataset.name);
    const w = div.clientWidth;
    await Plotly.newPlot(div, f.data, w > 0 && w < f.layout.width ? { ...f.layout, width: w } : f.layout,
      {responsive: true});
  }
})().catch((e) => console.error('gallery: ' + e)).finally(() => { window.galleryDone = true; });`;

/** The gallery page of a folder, from the figure specs in it (a pure function of the folder's *.js files). */
export function galleryHtml(dir: string): string {
  const specs = figureSpecs(dir);
  const link = (file: string) => escapeHtml(path.relative(dir, file).split(path.sep).join('/'));
  // within a section: by the prefix's place in its group (Table 2 first), then by name
  const rank = (g: (typeof GROUPS)[number], name: string) => g.prefixes.findIndex((p) => name.startsWith(p));
  const sections = GROUPS.map((g) => ({
    g,
    specs: specs
      .filter((s) => groupOf(s.name) === g.title)
      .sort((a, b) => rank(g, a.name) - rank(g, b.name) || a.name.localeCompare(b.name)),
  })).filter((x) => x.specs.length);
  const anchor = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const figure = (s: FigureSpec) => {
    const table = s.table ? ` Drawn from <a href="${link(s.table)}">${escapeHtml(s.table)}</a>.` : '';
    return (
      `<figure id="${escapeHtml(s.name)}"><h3>${escapeHtml(titleOf(s))}</h3><div class="plot" data-name="${escapeHtml(s.name)}"></div>\n` +
      `<figcaption>${escapeHtml(s.caption)}${table} <a href="${escapeHtml(s.name)}.png">PNG</a> · ` +
      `<a href="${escapeHtml(s.name)}.svg">SVG</a> · <a href="${escapeHtml(s.name)}.html">page</a> · <code>${escapeHtml(s.name)}</code></figcaption></figure>\n`
    );
  };
  return (
    '<!doctype html><html><head><meta charset="utf-8"><title>Workbench figures</title>\n' +
    '<style>body{font-family:sans-serif;max-width:960px;margin:auto;padding:0 1em}figure{margin:2em 0}' +
    'figcaption{max-width:900px;color:#333}h3{margin-bottom:0.2em}</style>\n' +
    `<script src="${escapeHtml(bundleFrom(dir))}"></script>\n` +
    specs.map((s) => `<script src="${escapeHtml(s.name)}.js"></script>\n`).join('') +
    `</head><body><h1>Figures (${specs.length})</h1>\n<p>Every figure of this folder, grouped by paper, drawn from ` +
    'the committed tables named under it (regenerate with <code>make figures</code>).</p>\n<ul>' +
    sections
      .map(({ g, specs: ss }) => `<li><a href="#${anchor(g.title)}">${escapeHtml(g.title)}</a> (${ss.length})</li>`)
      .join('') +
    '</ul>\n' +
    sections
      .map(({ g, specs: ss }) => `<h2 id="${anchor(g.title)}">${escapeHtml(g.title)}</h2>\n${ss.map(figure).join('')}`)
      .join('') +
    `<script>${RENDER}</script></body></html>\n`
  );
}

/** Write <dir>/index.html (only when it changed); returns its path. */
export function writeGallery(dir: string): string {
  const file = path.join(dir, 'index.html'),
    html = galleryHtml(dir);
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== html) writeFileAtomic(file, html);
  return file;
}

export interface GalleryCheck {
  /** console errors, uncaught page errors and failed requests, in order */
  errors: string[];
  /** per plot div: the figure, its trace count, whether plotly drew an SVG for it and whether that fits the page */
  plots: { name: string; traces: number; drawn: boolean; fits: boolean }[];
}

/**
 * Open a gallery in Chromium from file:// and report what went wrong; optionally screenshot its top (a picture for
 * a person to look at: it is not committed, since fonts and rasterising differ by machine; docs/notebooks.md).
 */
export async function checkGallery(index: string, screenshot?: string): Promise<GalleryCheck> {
  return withFilePage(index, { width: 1000, height: 800 }, {}, async (page, errors) => {
    await page.waitForFunction('window.galleryDone === true', undefined, { timeout: 120000 });
    const plots = (await page.evaluate(`[...document.querySelectorAll('div.plot')].map((d) => ({ name: d.dataset.name,
      traces: (d.data || []).length, drawn: d.querySelectorAll('svg.main-svg').length > 0,
      fits: [...d.querySelectorAll('svg.main-svg')].every((g) => g.getBoundingClientRect().right <=
        document.documentElement.clientWidth + 1) }))`)) as GalleryCheck['plots'];
    // the top of the page (the section list and the first figures): a whole-page PNG of every figure is ~4 MB
    if (screenshot)
      await page.screenshot({ path: screenshot, fullPage: true, clip: { x: 0, y: 0, width: 1000, height: 2400 } });
    return { errors, plots };
  });
}

/** Problems of a check, one line each: errors, plots with no trace or no drawing, plots wider than the page. */
export const galleryProblems = (c: GalleryCheck) => [
  ...c.errors,
  ...c.plots
    .filter((p) => p.traces === 0 || !p.drawn)
    .map((p) => `${p.name}: ${p.traces} traces, ${p.drawn ? 'drawn' : 'not drawn'}`),
  ...c.plots.filter((p) => !p.fits).map((p) => `${p.name}: wider than the page`),
];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--screenshot');
  const shot = at >= 0 ? args[at + 1] : undefined;
  const dir = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1))[0] ?? 'results/figures';
  const index = writeGallery(dir);
  const c = await checkGallery(index, shot);
  const problems = galleryProblems(c);
  console.log(
    `gallery ${index}: ${c.plots.length} plots, ${problems.length} problems${shot ? `, screenshot ${shot}` : ''}`,
  );
  for (const p of problems) console.log(`  ${p}`);
  process.exit(problems.length ? 1 : 0);
}
