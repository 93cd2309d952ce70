// Figure builders for RLVR, from results/rlvr/eval_curve.csv.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import type { Figure } from './figures.js';
import { FAMILY_COLORS } from './style.js';
import { isHeldOut } from '../src/world/families.js';

/** Evaluation accuracy (avg@n) per family against the RL step, mean and 95% CI over seeds. */
export function rlvrAccuracyFigure(curve: Row[], source = 'results/rlvr/eval_curve.csv'): Figure {
  const fams = [...new Set(curve.map((r) => String(r.family)))];
  return {
    name: 'rlvr_accuracy',
    table: source,
    caption:
      'RLVR alone (make rlvr): accuracy on the fixed evaluation sets per family (avg@n), means over seeds with ' +
      '95% t-intervals as error bars; chain_ood has chain lengths never trained on.',
    data: fams.map((f) => {
      const rs = curve.filter((r) => r.family === f).sort((a, b) => Number(a.step) - Number(b.step));
      return {
        type: 'scatter',
        mode: 'lines+markers',
        name: isHeldOut(f) ? `${f} (held out)` : f,
        x: rs.map((r) => Number(r.step)),
        y: rs.map((r) => Number(r.accuracy_mean)),
        error_y: { type: 'data', array: rs.map((r) => Number(r.accuracy_ci95) || 0) },
        line: { color: FAMILY_COLORS[f], dash: isHeldOut(f) ? 'dot' : 'solid' },
      };
    }),
    layout: {
      title: { text: 'RLVR (outcome reward only, PPO) from the cold start: evaluation accuracy per family' },
      xaxis: { title: { text: 'RL step' } },
      yaxis: { title: { text: 'accuracy (avg@n on the fixed evaluation sets)' }, range: [0, 1] },
    },
  };
}

export function rlvrFigures(dir = 'results/rlvr'): Figure[] {
  const f = path.join(dir, 'eval_curve.csv');
  return fs.existsSync(f) ? [rlvrAccuracyFigure(readCsv(f), f)] : [];
}
