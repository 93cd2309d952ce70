// Figure builders for CO-RL in the world, from results/corl/curves.csv (long format) and per-run p estimates.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import { CORL_METHODS } from '../src/methods/table1.js';
import type { Figure } from './figures.js';

/** One panel per metric: a line per (method, agent), mean over seeds. */
function metricFigure(curves: Row[], metric: string, title: string, ytitle: string, normalise = false): Figure {
  const keys = [...new Set(curves.filter((r) => r.metric === metric).map((r) => `${r.method}|${r.agent}`))];
  return { name: `corl_${metric}${normalise ? '_normalised' : ''}`,
    data: keys.map((key) => {
      const [method, agent] = key.split('|');
      const rs = curves.filter((r) => r.metric === metric && r.method === method && r.agent === agent).sort((a, b) => Number(a.step) - Number(b.step));
      const first = Number(rs[0]?.mean) || 1;
      return { type: 'scatter', mode: 'lines', name: `${CORL_METHODS[method]?.label ?? method} (${agent})`, x: rs.map((r) => Number(r.step)), y: rs.map((r) => Number(r.mean) / (normalise ? first : 1)) };
    }),
    layout: { title: { text: title }, xaxis: { title: { text: 'RL step' } }, yaxis: { title: { text: ytitle } } } };
}

export function corlFigures(dir = 'results/corl'): Figure[] {
  const f = path.join(dir, 'curves.csv');
  if (!fs.existsSync(f)) return [];
  const c = readCsv(f);
  return [
    metricFigure(c, 'accuracy', 'Training accuracy per method and agent (label-free methods; GT-reward as reference)', 'accuracy on training prompts'),
    metricFigure(c, 'reward_std', 'Within-group reward std, normalised to its first step (collapse = 0)', 'reward std / first-step value', true),
    metricFigure(c, 'response_length', 'Response length', 'tokens'),
    metricFigure(c, 'agreement', 'Agreement between the agents\' majority votes', 'share of prompts'),
    metricFigure(c, 'pseudo_label_accuracy', 'Pseudo-label accuracy against the hidden truth (analysis only)', 'share of prompts'),
  ].filter((g) => g.data.length > 0);
}
