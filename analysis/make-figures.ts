// `make figures`: regenerate every figure from the committed tables in results/, without rerunning anything.
// Usage: tsx analysis/make-figures.ts [theme ...]   (themes: theory, rlvr, rlcer, corl, rubicon, regimes,
//   sensitivity; default all)
import { writeFigures } from './figures.js';
import { writeGallery } from './gallery.js';
import { figureThemes } from './figure-themes.js';
import { runMain } from '../src/cli/args.js';

runMain(async () => {
  const THEMES = figureThemes(process.env.RESULTS ?? 'results');
  const asked = process.argv.slice(2);
  for (const a of asked)
    if (!(a in THEMES)) throw new Error(`unknown figure theme "${a}" (known: ${Object.keys(THEMES).join(', ')})`);
  const figs = (asked.length ? asked : Object.keys(THEMES)).flatMap((t) => THEMES[t]());
  const t0 = Date.now();
  const outDir = process.env.FIGURES ?? 'results/figures';
  const files = [...(await writeFigures(figs, outDir)), writeGallery(outDir)];
  console.log(
    `${figs.length} figures, ${files.length} files -> ${outDir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
});
