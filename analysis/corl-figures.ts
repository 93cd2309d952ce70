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

/**
 * Co-training on the phase plane: each (agent, problem, seed) at (its initial p, its supervisor's initial p), grouped
 * into cells; marker size = problems in the cell, colour = share that ended correct. The theory: correct iff above
 * the separatrix pA + pB = 1.
 */
function phaseFigure(phase: Row[], method: string): Figure {
  const rows = phase.filter((r) => r.method === method && r.p_partner !== '');
  const cells = new Map<string, { x: number; y: number; n: number; correct: number }>();
  for (const r of rows) {
    const x = Number(r.p), y = Number(r.p_partner), key = `${x}|${y}`;
    const c = cells.get(key) ?? { x, y, n: 0, correct: 0 };
    c.n++; c.correct += Number(r.outcome); cells.set(key, c);
  }
  const cs = [...cells.values()];
  return { name: `corl_phase_${method}`, width: 760, height: 700,
    data: [
      { type: 'scatter', mode: 'markers', name: 'problems (size: count; colour: share ending correct)', x: cs.map((c) => c.x), y: cs.map((c) => c.y),
        text: cs.map((c) => `${c.correct}/${c.n} correct`),
        marker: { size: cs.map((c) => 6 + 3 * Math.sqrt(c.n)), color: cs.map((c) => c.correct / c.n), cmin: 0, cmax: 1, colorscale: [[0, '#d62728'], [0.5, '#f2c94c'], [1, '#2ca02c']], showscale: true, colorbar: { title: { text: 'ended correct' } } } },
      { type: 'scatter', mode: 'lines', name: 'theory: separatrix pA + pB = 1', x: [0, 1], y: [1, 0], line: { color: 'black', dash: 'dash' } },
    ],
    layout: { title: { text: `${CORL_METHODS[method]?.label ?? method}: trained outcome by initial (p, supervisor's p)` },
      xaxis: { title: { text: 'agent\'s initial p (held-out problem)' }, range: [-0.05, 1.05] }, yaxis: { title: { text: 'supervising agent\'s initial p' }, range: [-0.05, 1.05] }, legend: { y: -0.15, orientation: 'h' } } };
}

/** Self-rewarding's prediction (correct iff p > 1/2): share ending correct by initial p, one line per method and agent. */
function selfRewardOutcomeFigure(phase: Row[]): Figure | null {
  const rows = phase.filter((r) => r.p_partner === '' && r.method !== 'base');
  if (!rows.length) return null;
  const keys = [...new Set(rows.map((r) => `${r.method}|${r.agent}`))];
  return { name: 'corl_self_reward_outcome',
    data: [...keys.map((key) => {
      const [method, agent] = key.split('|'), rs = rows.filter((r) => r.method === method && r.agent === agent);
      const ps = [...new Set(rs.map((r) => Number(r.p)))].sort((a, b) => a - b);
      return { type: 'scatter', mode: 'lines+markers', name: `${CORL_METHODS[method]?.label ?? method} (${agent})`, x: ps,
        y: ps.map((p) => { const at = rs.filter((r) => Number(r.p) === p); return at.reduce((s, r) => s + Number(r.outcome), 0) / at.length; }) };
    }), { type: 'scatter', mode: 'lines', name: 'theory (self-rewarding): 1[p > 1/2]', x: [0, 0.5, 0.5, 1], y: [0, 0, 1, 1], line: { color: 'black', dash: 'dash' } }],
    layout: { title: { text: 'Share of held-out problems whose majority answer ends correct, by the initial p' }, xaxis: { title: { text: 'initial p (share of correct samples)' } }, yaxis: { title: { text: 'share ending correct' } } } };
}

const METHOD_COLORS: Record<string, string> = { gt_reward: '#000000', ttrl: '#1f77b4', intuitor: '#ff7f0e', rent: '#d62728', corl_same_family: '#9467bd',
  corl_diff_family: '#2ca02c', corl_diff_family_decoupled: '#17becf', corl_three_ring: '#8c564b' };

/**
 * CO-RL's training-dynamics figure: a grid with one column per agent and one row per metric (accuracy, reward std
 * normalised to its first step, response length), one line per method, the same colour for a method throughout.
 */
function dynamicsGrid(curves: Row[]): Figure | null {
  const agents = ['transformer-S', 'gru-S'].filter((a) => curves.some((r) => r.agent === a));
  const rows = [['accuracy', 'accuracy'], ['reward_std', 'reward std / step 0'], ['response_length', 'length (tokens)']] as const;
  if (!agents.length) return null;
  const methods = Object.keys(METHOD_COLORS).filter((m) => curves.some((r) => r.method === m));
  const gap = 0.06, w = (1 - gap * (agents.length - 1)) / agents.length, h = (1 - gap * 2) / 3;
  const layout: Record<string, unknown> = { title: { text: 'Training dynamics of label-free methods (mean over seeds)' }, legend: { orientation: 'h', y: -0.08 } };
  const data: Record<string, unknown>[] = [];
  rows.forEach(([metric, ytitle], i) => agents.forEach((agent, j) => {
    const k = i * agents.length + j + 1, ax = k === 1 ? '' : String(k);
    layout[`xaxis${ax}`] = { domain: [j * (w + gap), j * (w + gap) + w], anchor: `y${ax}`, title: i === rows.length - 1 ? { text: 'RL step' } : undefined };
    layout[`yaxis${ax}`] = { domain: [1 - i * (h + gap) - h, 1 - i * (h + gap)], anchor: `x${ax}`, title: { text: j === 0 ? ytitle : '' } };
    for (const m of methods) {
      const rs = curves.filter((r) => r.metric === metric && r.method === m && r.agent === agent).sort((a, b) => Number(a.step) - Number(b.step));
      if (!rs.length) continue;
      const first = metric === 'reward_std' ? Number(rs[0].mean) || 1 : 1;
      data.push({ type: 'scatter', mode: 'lines', name: CORL_METHODS[m]?.label ?? m, legendgroup: m, showlegend: k === 1 || !data.some((d) => d.legendgroup === m),
        x: rs.map((r) => Number(r.step)), y: rs.map((r) => Number(r.mean) / first), line: { color: METHOD_COLORS[m] }, xaxis: `x${ax}`, yaxis: `y${ax}` });
    }
  }));
  (layout as { annotations: unknown[] }).annotations = agents.map((agent, j) => ({ text: agent, x: j * (w + gap) + w / 2, y: 1.04, xref: 'paper', yref: 'paper', showarrow: false }));
  return { name: 'corl_dynamics_grid', width: 1000, height: 900, data, layout };
}

export function corlFigures(dir = 'results/corl'): Figure[] {
  const f = path.join(dir, 'curves.csv');
  if (!fs.existsSync(f)) return [];
  const c = readCsv(f);
  const phase = fs.existsSync(path.join(dir, 'phase.csv')) ? readCsv(path.join(dir, 'phase.csv')) : [];
  const corlMethods = [...new Set(phase.filter((r) => r.p_partner !== '').map((r) => String(r.method)))];
  const self = selfRewardOutcomeFigure(phase);
  const grid = dynamicsGrid(c);
  return [
    ...(grid ? [grid] : []),
    ...corlMethods.map((m) => phaseFigure(phase, m)),
    ...(self ? [self] : []),
    metricFigure(c, 'accuracy', 'Training accuracy per method and agent (label-free methods; GT-reward as reference)', 'accuracy on training prompts'),
    metricFigure(c, 'reward_std', 'Within-group reward std, normalised to its first step (collapse = 0)', 'reward std / first-step value', true),
    metricFigure(c, 'response_length', 'Response length', 'tokens'),
    metricFigure(c, 'agreement', 'Agreement between the agents\' majority votes', 'share of prompts'),
    metricFigure(c, 'pseudo_label_accuracy', 'Pseudo-label accuracy against the hidden truth (analysis only)', 'share of prompts'),
  ].filter((g) => g.data.length > 0);
}
