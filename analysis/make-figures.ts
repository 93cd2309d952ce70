// `make figures`: regenerate every figure from the committed tables in results/, without rerunning anything; or the
// figures of a sweep of your own from its tables (src/cli/sweep.ts table; docs/experiments.md).
// Usage: tsx analysis/make-figures.ts [theme ...] [--results DIR] [--figures DIR]   (themes: theory, rlvr, rlcer,
//          corl, rubicon, regimes, sensitivity; default all)
//        tsx analysis/make-figures.ts --sweep DIR [--config F] [--figures DIR]
// The folders' defaults: the environment's RESULTS and FIGURES (docs/settings.md), else results and results/figures;
// a sweep's figures go to <DIR>/figures. Each folder gets a gallery (index.html).
import * as path from 'node:path';
import { writeFigures, type Figure } from './figures.js';
import { writeGallery } from './gallery.js';
import { figureThemes } from './figure-themes.js';
import { sweepFigures, worldKnobs } from './regimes-figures.js';
import { parseArgsWithPositionals, runMain } from '../src/io/args.js';
import { loadJsonConfig } from '../src/io/run.js';
import { ConfigError } from '../src/util/validate.js';
import type { SweepFile } from '../src/io/sweep.js';

runMain(async () => {
  const THEMES = figureThemes('results');
  const { args: a, positionals: asked } = parseArgsWithPositionals(
    process.argv.slice(2),
    {
      results: { help: 'the folder the themes read their tables from', default: process.env.RESULTS ?? 'results' },
      figures: {
        help: 'the folder the figures and their gallery are written to (with --sweep: <sweep>/figures)',
        default: process.env.FIGURES ?? '',
      },
      sweep: "a sweep's table folder (tsx src/cli/sweep.ts table --out DIR): its figures from DIR/claims.csv",
      config: "with --sweep: the sweep's config (its axes then say which knobs are world settings)",
    },
    ['[theme ...]'],
    {
      program: 'tsx analysis/make-figures.ts',
      about: `Figures from committed tables by theme (${Object.keys(THEMES).join(', ')}; default all), or a sweep's.`,
    },
  );
  for (const t of asked)
    if (!(t in THEMES)) throw new ConfigError(`unknown figure theme "${t}" (known: ${Object.keys(THEMES).join(', ')})`);
  let figs: Figure[], outDir: string;
  if (a.sweep) {
    if (asked.length) throw new ConfigError("--sweep draws one sweep's figures: give no theme with it");
    const config = a.config ? (loadJsonConfig(a.config) as unknown as SweepFile) : undefined;
    const name = config?.name ?? path.basename(path.resolve(a.sweep));
    figs = sweepFigures(a.sweep, {
      prefix: `sweep_${name}`,
      title: `Sweep ${name}`,
      ...(config ? { worldKnobs: worldKnobs(config) } : {}),
    });
    if (!figs.length)
      throw new ConfigError(
        `${path.join(a.sweep, 'claims.csv')} does not exist: run sweep.ts table first (with comparisons)`,
      );
    outDir = a.figures || path.join(a.sweep, 'figures');
  } else {
    const themes = figureThemes(a.results);
    figs = (asked.length ? asked : Object.keys(themes)).flatMap((t) => themes[t]());
    outDir = a.figures || 'results/figures';
  }
  const t0 = Date.now();
  const files = [...(await writeFigures(figs, outDir)), writeGallery(outDir)];
  console.log(
    `${figs.length} figures, ${files.length} files -> ${outDir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
});
