// What the notebooks show, from the same code as the reports and the gallery (a notebook re-implements nothing):
//   table(marker)   a Markdown table from committed CSVs, written like a docs marker (analysis/docs.ts), e.g.
//                   table('results/corl/claims.csv view=claims by=setting profile=full'); display it with
//                   tslab.display.markdown
//   reportTable(doc, csv)  the same, for the table a report (docs/*.md) draws from `csv`: the notebook shows what
//                   the report shows, without a copy of its marker
//   figurePng(name) a committed figure's PNG export (results/figures/<name>.png): static, so it survives
//                   nbconvert and GitHub; the interactive version is the figure's page in the gallery
//   verdicts(file, paper?)  one line counting a claims CSV's verdicts (of one paper), for the prose
//   sweepProgress(config)   a sweep's finished runs per cell and method (a Markdown table), for a map that is
//                   still running: which cells have all their seeds
//   finishNotebook(file)    `make notebooks` after nbconvert: code cells numbered, and the plotly bundle the live
//                   kernel inlined swapped for a script loading the shared results/figures/plotly.min.js
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv } from '../src/io/table.js';
import { markersOf, paperOf, parseSpec, renderDocument } from './docs.js';
import { expandSweep, isFinished, type SweepConfig } from '../src/io/sweep.js';
import { BUNDLE } from './figures.js';
import { META, sharedPlotlyLoaderHtml } from './notebook-view.js';

const FIGURES = 'results/figures';

/** The Markdown table of a docs-style marker, rendered from the CSVs under `root` (or a "not measured" line). */
export function table(marker: string, root = '.'): string {
  const block = renderDocument(`<!-- table: ${marker} -->\n<!-- /table -->`, root);
  return block.replace(/^<!-- table: [\s\S]*? -->\n/, '').replace(/<!-- \/table -->$/, '');
}

/** The `nth` table of report `doc` drawn from `csv` (the first by default), rendered like table(). */
export function reportTable(doc: string, csv: string, nth = 0, root = '.'): string {
  const found = markersOf(fs.readFileSync(path.join(root, doc), 'utf8')).filter((m) =>
    parseSpec(m).files.includes(csv),
  );
  if (!found[nth]) throw new Error(`${doc} has no table number ${nth + 1} drawn from ${csv}`);
  return table(found[nth], root);
}

/** A committed figure's PNG bytes; a clear error when it has not been drawn. */
export function figurePng(name: string, dir = FIGURES): Uint8Array {
  const file = path.join(dir, `${name}.png`);
  if (!fs.existsSync(file)) throw new Error(`no figure ${file}: run "make figures"`);
  return fs.readFileSync(file);
}

/**
 * "3 claims: 1 reproduced, 1 contradicted, 1 inconclusive" for a claims CSV (rows of one profile; of one paper when
 * `paper` is given, as the reports split Table 2's claims between RLCER and EvoLM).
 */
export function verdicts(file: string, paper?: string, profile = 'full'): string {
  if (!fs.existsSync(file)) return `${file}: not run yet`;
  const rows = readCsv(file).filter((r) => r.profile === profile && (!paper || paperOf(file, r) === paper));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(String(r.verdict), (counts.get(String(r.verdict)) ?? 0) + 1);
  return `${rows.length} claims: ${[...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([v, n]) => `${n} ${v}`)
    .join(', ')}`;
}

/**
 * The finished runs of a sweep (its record exists) per cell and method, as a Markdown table with a first line
 * "N of M runs finished"; a cell's entry is "done/planned" seeds, blank where the knob does not reach the method
 * (that cell reuses the baseline's runs).
 */
export function sweepProgress(configFile: string): string {
  const specs = expandSweep(JSON.parse(fs.readFileSync(configFile, 'utf8')) as SweepConfig);
  const cells = [...new Set(specs.map((s) => s.cell))],
    methods = [...new Set(specs.map((s) => s.method))];
  const count = (cell: string, method: string) => {
    const mine = specs.filter((s) => s.cell === cell && s.method === method);
    return mine.length ? `${mine.filter(isFinished).length}/${mine.length}` : '';
  };
  const done = specs.filter(isFinished).length;
  const lines = [
    `| cell | ${methods.join(' | ')} |`,
    `|---|${methods.map(() => '---|').join('')}`,
    ...cells.map((c) => `| ${c} | ${methods.map((m) => count(c, m)).join(' | ')} |`),
  ];
  return `${done} of ${specs.length} runs finished\n\n${lines.join('\n')}\n`;
}

interface Output {
  output_type: string;
  execution_count?: number | null;
  data?: Record<string, string | string[]>;
  metadata?: Record<string, unknown>;
}

interface Notebook {
  cells: {
    cell_type: string;
    execution_count?: number | null;
    outputs?: Output[];
  }[];
}

/**
 * Number an executed notebook's code cells 1, 2, ... in order (and their execute_result outputs). The tslab kernel
 * reports no execution counts, so nbconvert leaves every cell at `In [ ]`; nbconvert runs the cells top to bottom,
 * once each, so the numbers are the true execution order.
 */
export function numberCells<T extends Notebook>(nb: T): T {
  let n = 0;
  for (const c of nb.cells) {
    if (c.cell_type !== 'code') continue;
    c.execution_count = ++n;
    for (const o of c.outputs ?? []) if (o.output_type === 'execute_result') o.execution_count = n;
  }
  return nb;
}

/**
 * Swap the plotly bundle a live session inlines (the output analysis/notebook-view.ts tags `plotly: inline`) for a
 * script that loads the one shared bundle from `rel` (its path from the notebook's folder); returns how many were
 * swapped. An executed notebook then weighs its outputs, not 4.8 MB of plotly.
 */
export function sharePlotly<T extends Notebook>(nb: T, rel: string): number {
  let n = 0;
  for (const o of nb.cells.flatMap((c) => c.outputs ?? [])) {
    const meta = o.metadata?.[META] as { plotly?: string } | undefined;
    if (meta?.plotly !== 'inline' || !o.data) continue;
    o.data = { 'text/html': sharedPlotlyLoaderHtml(rel) };
    o.metadata = { ...o.metadata, [META]: { plotly: 'shared', src: rel } };
    n++;
  }
  return n;
}

/** `make notebooks`, after nbconvert: number the cells and point the charts at the shared plotly bundle. */
export function finishNotebook(file: string, bundle = BUNDLE): void {
  const nb = numberCells(JSON.parse(fs.readFileSync(file, 'utf8')) as Notebook);
  sharePlotly(nb, path.relative(path.dirname(file), bundle).split(path.sep).join('/'));
  fs.writeFileSync(file, `${JSON.stringify(nb, null, 1)}\n`);
}

// Usage (make notebooks, after nbconvert): tsx analysis/notebook.ts finish results/notebooks/*.ipynb
if (process.argv[1]?.endsWith('notebook.ts') && process.argv[2] === 'finish') {
  for (const f of process.argv.slice(3)) finishNotebook(f);
}
