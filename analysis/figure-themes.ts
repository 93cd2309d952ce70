// Every figure of results/figures/, by theme, from the committed tables: the builders `make figures` draws the
// static PNG/SVG exports with (analysis/make-figures.ts) and the notebooks draw their interactive charts with
// (analysis/notebook-view.ts), so a chart in a notebook and its export are one spec.
import * as path from 'node:path';
import type { Figure } from './figures.js';
import { theoryFigures } from './theory-figures.js';
import { rlvrFigures } from './rlvr-figures.js';
import { rlcerFigures } from './rlcer-figures.js';
import { corlFigures } from './corl-figures.js';
import { rubiconFigures } from './rubicon-figures.js';
import { regimeFigures } from './regimes-figures.js';
import { sensitivityFigures } from './sensitivity-figures.js';

/**
 * Theme -> the figures it draws from the tables under `results` (make-figures' argument names: theory, rlvr, rlcer,
 * corl, rubicon, regimes, sensitivity); the theory and RLVR figures always read results/.
 */
export function figureThemes(results = 'results'): Record<string, () => Figure[]> {
  return {
    theory: () => theoryFigures('results/theory'),
    rlvr: () => rlvrFigures('results/rlvr'),
    rlcer: () => rlcerFigures(results),
    corl: () => corlFigures(path.join(results, 'corl')),
    rubicon: () => rubiconFigures(path.join(results, 'rubicon')),
    regimes: () => regimeFigures(path.join(results, 'regimes')),
    sensitivity: () => sensitivityFigures(results),
  };
}

/** The theme that draws a figure, from its name's prefix (table2_, rlcer_ and evolm_ figures are the rlcer theme's). */
export function themeOf(name: string): string {
  const prefix = name.split('_')[0];
  const byPrefix: Record<string, string> = {
    theory: 'theory',
    rlvr: 'rlvr',
    rlcer: 'rlcer',
    table2: 'rlcer',
    evolm: 'rlcer',
    corl: 'corl',
    rubicon: 'rubicon',
    regime: 'regimes',
    sensitivity: 'sensitivity',
  };
  const theme = byPrefix[prefix];
  if (!theme) throw new Error(`no figure theme draws "${name}" (prefixes: ${Object.keys(byPrefix).join(', ')})`);
  return theme;
}
