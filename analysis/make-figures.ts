// `make figures`: regenerate every figure from the committed tables in results/, without rerunning anything.
// Usage: tsx analysis/make-figures.ts [theme ...]   (themes: theory, rlvr, rlcer, corl, rubicon, regimes; default all)
import * as path from 'node:path';
import { writeFigures, type Figure } from './figures.js';
import { writeGallery } from './gallery.js';
import { theoryFigures } from './theory-figures.js';
import { rlvrFigures } from './rlvr-figures.js';
import { rlcerFigures } from './rlcer-figures.js';
import { corlFigures } from './corl-figures.js';
import { rubiconFigures } from './rubicon-figures.js';
import { regimeFigures } from './regimes-figures.js';
import { runMain } from '../src/cli/args.js';

const THEMES: Record<string, () => Figure[]> = {
  theory: () => theoryFigures('results/theory'),
  rlvr: () => rlvrFigures('results/rlvr'),
  rlcer: () => rlcerFigures(process.env.RESULTS ?? 'results'),
  corl: () => corlFigures(path.join(process.env.RESULTS ?? 'results', 'corl')),
  rubicon: () => rubiconFigures(path.join(process.env.RESULTS ?? 'results', 'rubicon')),
  regimes: () => regimeFigures(path.join(process.env.RESULTS ?? 'results', 'regimes')),
};

runMain(async () => {
  const asked = process.argv.slice(2);
  for (const a of asked) if (!(a in THEMES)) throw new Error(`unknown figure theme "${a}" (known: ${Object.keys(THEMES).join(', ')})`);
  const figs = (asked.length ? asked : Object.keys(THEMES)).flatMap((t) => THEMES[t]());
  const t0 = Date.now();
  const outDir = process.env.FIGURES ?? 'results/figures';
  const files = [...await writeFigures(figs, outDir), writeGallery(outDir)];
  console.log(`${figs.length} figures, ${files.length} files -> ${outDir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
});
