// Plotly figures: a figure is plain JSON (data + layout). Each is written as a self-contained HTML file
// (the plotly bundle inlined, works offline) and exported to SVG and PNG by one headless Chromium page
// per batch. Node never imports plotly: the bundle needs a DOM, so it only runs inside the browser.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { writeFileAtomic } from '../src/io/table.js';

export interface Figure {
  /** file stem: results/figures/<name>.{html,svg,png} */
  name: string;
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
  width?: number;
  height?: number;
}

export type Format = 'html' | 'svg' | 'png';

// Resolved from the working directory (the project root for make targets and the tslab kernel).
const req = createRequire(path.join(process.cwd(), 'noop.js'));
let plotlySource: string | undefined;
function plotlyJs(): string {
  plotlySource ??= fs.readFileSync(req.resolve('plotly.js-basic-dist-min'), 'utf8');
  return plotlySource;
}

const size = (f: Figure) => ({ width: f.width ?? 900, height: f.height ?? 600 });

/** A self-contained HTML page showing the figure. */
export function figureHtml(f: Figure): string {
  const spec = JSON.stringify({ data: f.data, layout: { ...size(f), ...f.layout } }).replace(/</g, '\\u003c');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${f.name}</title></head><body>` +
    `<div id="fig"></div><script>${plotlyJs()}</script>` +
    `<script>const spec = ${spec}; Plotly.newPlot('fig', spec.data, spec.layout, {responsive: true});</script></body></html>`;
}

export function chromiumPath(): string {
  const p = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(p)) throw new Error(`Chromium not found at ${p}: run "make setup" (Debian package chromium) or set CHROMIUM_PATH`);
  return p;
}

// Runs in the page. A string, not a function, so that no transpiler helper leaks into the browser. Plotly names
// its SVG definitions and traces from Math.random: a seeded generator (mulberry32), reset for every figure, makes
// the files of unchanged inputs byte-identical, so regenerating figures leaves git clean.
const RENDER = `async ({ data, layout, width, height, formats }) => {
  let s = 20261201;
  Math.random = () => {
    s = (s + 0x6D2B79F5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  await Plotly.newPlot('fig', data, { ...layout, width, height }, { staticPlot: true });
  const out = {};
  for (const format of formats) out[format] = await Plotly.toImage('fig', { format, width, height, scale: format === 'png' ? 2 : 1 });
  Plotly.purge('fig');
  return out;
}`;

/** Render figures to SVG (text) and PNG (bytes) in one browser session. */
export async function renderFigures(figs: Figure[], formats: ('svg' | 'png')[] = ['svg', 'png']): Promise<{ svg?: string; png?: Buffer }[]> {
  if (figs.length === 0) return [];
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent(`<html><body><div id="fig"></div><script>${plotlyJs()}</script></body></html>`);
    const out: { svg?: string; png?: Buffer }[] = [];
    for (const f of figs) {
      const urls = await page.evaluate(`(${RENDER})(${JSON.stringify({ data: f.data, layout: f.layout, ...size(f), formats })})`) as Record<string, string>;
      out.push({
        svg: urls.svg ? decodeURIComponent(urls.svg.slice(urls.svg.indexOf(',') + 1)) : undefined,
        png: urls.png ? Buffer.from(urls.png.slice(urls.png.indexOf(',') + 1), 'base64') : undefined,
      });
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** Write <name>.html, .svg and .png for every figure into outDir (atomically, one browser for the batch). */
export async function writeFigures(figs: Figure[], outDir: string, formats: Format[] = ['html', 'svg', 'png']): Promise<string[]> {
  const written: string[] = [];
  const images = formats.some((f) => f !== 'html') ? await renderFigures(figs, formats.filter((f): f is 'svg' | 'png' => f !== 'html')) : [];
  figs.forEach((f, i) => {
    const file = (ext: string) => path.join(outDir, `${f.name}.${ext}`);
    if (formats.includes('html')) { writeFileAtomic(file('html'), figureHtml(f)); written.push(file('html')); }
    if (images[i]?.svg) { writeFileAtomic(file('svg'), images[i].svg!); written.push(file('svg')); }
    if (images[i]?.png) { writeFileAtomic(file('png'), images[i].png!); written.push(file('png')); }
  });
  return written;
}
