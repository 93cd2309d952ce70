// Figure builders for CO-RL in the world, from results/corl/curves.csv (long format) and per-run p estimates.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import { mean } from '../src/util/stats.js';
import { CORL_METHODS } from '../src/methods/tables/table1.js';
import type { Figure } from './figures.js';

/** One colour per CO-RL method, in every CO-RL figure. */
const METHOD_COLORS: Record<string, string> = {
  gt_reward: '#000000',
  ttrl: '#1f77b4',
  intuitor: '#ff7f0e',
  rent: '#d62728',
  corl_same_family: '#9467bd',
  corl_diff_family: '#2ca02c',
  corl_diff_family_decoupled: '#17becf',
  corl_three_ring: '#8c564b',
};

/**
 * One metric over training: one panel per agent, one line per method (mean over seeds, the method's colour in every
 * CO-RL figure); `normalise` divides each line by its first step.
 */
function metricFigure(
  curves: Row[],
  metric: string,
  title: string,
  ytitle: string,
  source: string,
  what: string,
  normalise = false,
): Figure {
  const rows = curves.filter((r) => r.metric === metric);
  const agents = [...new Set(rows.map((r) => String(r.agent)))].sort();
  const methods = [...Object.keys(METHOD_COLORS), ...new Set(rows.map((r) => String(r.method)))].filter(
    (m, i, all) => all.indexOf(m) === i && rows.some((r) => r.method === m),
  );
  const gap = 0.05,
    w = (1 - gap * (agents.length - 1)) / Math.max(1, agents.length);
  const layout: Record<string, unknown> = {
    title: { text: title },
    legend: { orientation: 'h', y: -0.18 },
    annotations: agents.map((a, j) => ({
      text: a,
      x: j * (w + gap) + w / 2,
      y: 1.04,
      xref: 'paper',
      yref: 'paper',
      showarrow: false,
    })),
  };
  const data: Record<string, unknown>[] = [];
  agents.forEach((agent, j) => {
    const ax = j === 0 ? '' : String(j + 1);
    layout[`xaxis${ax}`] = { domain: [j * (w + gap), j * (w + gap) + w], anchor: `y${ax}`, title: { text: 'RL step' } };
    layout[`yaxis${ax}`] = { anchor: `x${ax}`, title: { text: j === 0 ? ytitle : '' } };
    for (const m of methods) {
      const rs = rows
        .filter((r) => r.method === m && r.agent === agent)
        .sort((a, b) => Number(a.step) - Number(b.step));
      if (!rs.length) continue;
      const first = normalise ? Number(rs[0].mean) || 1 : 1;
      data.push({
        type: 'scatter',
        mode: 'lines',
        name: CORL_METHODS[m]?.label ?? m,
        legendgroup: m,
        showlegend: !data.some((d) => d.legendgroup === m),
        x: rs.map((r) => Number(r.step)),
        y: rs.map((r) => Number(r.mean) / first),
        line: { color: METHOD_COLORS[m] },
        xaxis: `x${ax}`,
        yaxis: `y${ax}`,
      });
    }
  });
  return {
    name: `corl_${metric}${normalise ? '_normalised' : ''}`,
    width: Math.max(900, 420 * agents.length),
    height: 560,
    data,
    layout,
    table: source,
    caption: `${what} One panel per agent, one line per method: means over seeds, unsmoothed.`,
  };
}

/**
 * Co-training on the phase plane: each (agent, problem, seed) at (its initial p, its supervisor's initial p), grouped
 * into cells; marker size = problems in the cell, colour = share that ended correct. The theory: correct iff above
 * the separatrix pA + pB = 1.
 */
function phaseFigure(phase: Row[], method: string, source: string): Figure {
  const rows = phase.filter((r) => r.method === method && r.p_partner !== '');
  const cells = new Map<string, { x: number; y: number; n: number; correct: number }>();
  for (const r of rows) {
    const x = Number(r.p),
      y = Number(r.p_partner),
      key = `${x}|${y}`;
    const c = cells.get(key) ?? { x, y, n: 0, correct: 0 };
    c.n++;
    c.correct += Number(r.outcome);
    cells.set(key, c);
  }
  const cs = [...cells.values()];
  return {
    name: `corl_phase_${method}`,
    width: 760,
    height: 700,
    table: source,
    caption:
      "Each held-out problem of each agent and seed, placed at (its initial p, its supervising agent's initial p) " +
      'and grouped into cells (marker size: problems; colour: the share whose majority answer ended correct). The ' +
      'theory predicts correct above the separatrix pA + pB = 1 and wrong below.',
    data: [
      {
        type: 'scatter',
        mode: 'markers',
        name: 'problems (size: count; colour: share ending correct)',
        x: cs.map((c) => c.x),
        y: cs.map((c) => c.y),
        text: cs.map((c) => `${c.correct}/${c.n} correct`),
        marker: {
          size: cs.map((c) => 6 + 3 * Math.sqrt(c.n)),
          color: cs.map((c) => c.correct / c.n),
          cmin: 0,
          cmax: 1,
          colorscale: [
            [0, '#d62728'],
            [0.5, '#f2c94c'],
            [1, '#2ca02c'],
          ],
          showscale: true,
          colorbar: { title: { text: 'ended correct' } },
        },
      },
      {
        type: 'scatter',
        mode: 'lines',
        name: 'theory: separatrix pA + pB = 1',
        x: [0, 1],
        y: [1, 0],
        line: { color: 'black', dash: 'dash' },
      },
    ],
    layout: {
      title: {
        text: `${CORL_METHODS[method]?.label ?? method}<br><sup>trained outcome by initial (p, supervisor's p)</sup>`,
      },
      xaxis: { title: { text: "agent's initial p (held-out problem)" }, range: [-0.05, 1.05] },
      yaxis: { title: { text: "supervising agent's initial p" }, range: [-0.05, 1.05] },
      legend: { y: -0.15, orientation: 'h' },
    },
  };
}

/** Self-rewarding's prediction (correct iff p > 1/2): share ending correct by initial p, one line per method and agent. */
function selfRewardOutcomeFigure(phase: Row[], source: string): Figure | null {
  const rows = phase.filter((r) => r.p_partner === '' && r.method !== 'base');
  if (!rows.length) return null;
  const keys = [...new Set(rows.map((r) => `${r.method}|${r.agent}`))];
  return {
    name: 'corl_self_reward_outcome',
    table: source,
    caption:
      'Self-rewarding and the other label-free single-agent methods: the share of held-out problems whose ' +
      "majority answer ends correct, by the problem's initial p, one line per method and agent; the dashed step is the " +
      "theory's 1[p > 1/2].",
    data: [
      ...keys.map((key) => {
        const [method, agent] = key.split('|'),
          rs = rows.filter((r) => r.method === method && r.agent === agent);
        const ps = [...new Set(rs.map((r) => Number(r.p)))].sort((a, b) => a - b);
        return {
          type: 'scatter',
          mode: 'lines+markers',
          name: `${CORL_METHODS[method]?.label ?? method} (${agent})`,
          x: ps,
          y: ps.map((p) => {
            return mean(rs.filter((r) => Number(r.p) === p).map((r) => Number(r.outcome)));
          }),
        };
      }),
      {
        type: 'scatter',
        mode: 'lines',
        name: 'theory (self-rewarding): 1[p > 1/2]',
        x: [0, 0.5, 0.5, 1],
        y: [0, 0, 1, 1],
        line: { color: 'black', dash: 'dash' },
      },
    ],
    layout: {
      title: { text: 'Share of held-out problems whose majority answer ends correct, by the initial p' },
      xaxis: { title: { text: 'initial p (share of correct samples)' } },
      yaxis: { title: { text: 'share ending correct' } },
    },
  };
}

interface GridSpec {
  name: string;
  title: string;
  caption: string;
  rows: readonly (readonly [string, string])[];
  methods?: string[];
}

/**
 * A grid with one column per agent and one row per metric (reward std normalised to its first step), one line per
 * method, the same colour for a method throughout (means over seeds).
 */
function metricGrid(curves: Row[], source: string, g: GridSpec): Figure | null {
  const agents = ['transformer-S', 'gru-S'].filter((a) => curves.some((r) => r.agent === a));
  if (!agents.length) return null;
  const methods = (g.methods ?? Object.keys(METHOD_COLORS)).filter((m) => curves.some((r) => r.method === m));
  const n = g.rows.length,
    gap = 0.06,
    w = (1 - gap * (agents.length - 1)) / agents.length,
    h = (1 - gap * (n - 1)) / n;
  const layout: Record<string, unknown> = { title: { text: g.title }, legend: { orientation: 'h', y: -0.08 } };
  const data: Record<string, unknown>[] = [];
  g.rows.forEach(([metric, ytitle], i) =>
    agents.forEach((agent, j) => {
      const k = i * agents.length + j + 1,
        ax = k === 1 ? '' : String(k);
      layout[`xaxis${ax}`] = {
        domain: [j * (w + gap), j * (w + gap) + w],
        anchor: `y${ax}`,
        title: i === n - 1 ? { text: 'RL step' } : undefined,
      };
      layout[`yaxis${ax}`] = {
        domain: [1 - i * (h + gap) - h, 1 - i * (h + gap)],
        anchor: `x${ax}`,
        title: { text: j === 0 ? ytitle : '' },
      };
      for (const m of methods) {
        const rs = curves
          .filter((r) => r.metric === metric && r.method === m && r.agent === agent)
          .sort((a, b) => Number(a.step) - Number(b.step));
        if (!rs.length) continue;
        const first = metric === 'reward_std' ? Number(rs[0].mean) || 1 : 1;
        data.push({
          type: 'scatter',
          mode: 'lines',
          name: CORL_METHODS[m]?.label ?? m,
          legendgroup: m,
          showlegend: !data.some((d) => d.legendgroup === m),
          x: rs.map((r) => Number(r.step)),
          y: rs.map((r) => Number(r.mean) / first),
          line: { color: METHOD_COLORS[m] },
          xaxis: `x${ax}`,
          yaxis: `y${ax}`,
        });
      }
    }),
  );
  layout.annotations = agents.map((agent, j) => ({
    text: agent,
    x: j * (w + gap) + w / 2,
    y: 1.04,
    xref: 'paper',
    yref: 'paper',
    showarrow: false,
  }));
  return { name: g.name, width: 1000, height: 300 * n, data, layout, table: source, caption: g.caption };
}

/** CO-RL's training-dynamics figure (its Fig. 4): accuracy, normalised reward std and response length. */
const DYNAMICS: GridSpec = {
  name: 'corl_dynamics_grid',
  title: 'Training dynamics of label-free methods (mean over seeds)',
  rows: [
    ['accuracy', 'accuracy'],
    ['reward_std', 'reward std / step 0'],
    ['response_length', 'length (tokens)'],
  ],
  caption:
    'Training dynamics of the label-free methods: accuracy, within-group reward std (normalised to step 0) and ' +
    'response length, one column per agent, one line per method (means over seeds, unsmoothed).',
};

/** CO-RL's Fig. 2 (a)-(c) in one figure: agreement, pseudo-label accuracy and accuracy of the co-training runs. */
const AGREEMENT: GridSpec = {
  name: 'corl_agreement_grid',
  title: 'Co-training: agreement, pseudo-label accuracy and accuracy',
  rows: [
    ['agreement', 'agreement'],
    ['pseudo_label_accuracy', 'pseudo-label acc.'],
    ['accuracy', 'accuracy'],
  ],
  methods: ['ttrl', 'corl_same_family', 'corl_diff_family', 'corl_diff_family_decoupled', 'corl_three_ring'],
  caption:
    "The counterpart of CO-RL's Fig. 2 (a)-(c): per step, the share of prompts on which the agents' majority " +
    'answers agree, the accuracy of the pseudo-labels against the hidden truth (analysis only, never trained on) and ' +
    'the accuracy on training prompts; TTRL (self-voting) as the single-agent reference. One column per agent, ' +
    'means over seeds, unsmoothed.',
};

/**
 * The paper's Fig. 2(d) ranges of kappa by pair type (CO-RL, Fig. 2(d); docs/corl.md quotes them), drawn as bands
 * behind ours.
 */
const PAPER_KAPPA = [
  { what: 'paper: different family', lo: 0.31, hi: 0.42, color: '#9467bd' },
  { what: 'paper: same family', lo: 0.51, hi: 0.52, color: '#1f77b4' },
  { what: 'paper: seed only', lo: 0.51, hi: 0.58, color: '#bcbd22' },
];

/**
 * CO-RL's Fig. 2(d) analogue: the error overlap kappa of each agent pair before training (bars per protocol, 95%
 * t-interval over seeds), with the paper's ranges by pair type as shaded bands.
 */
export function errorOverlapFigure(rows: Row[], source: string): Figure {
  const pairs = [...new Set(rows.map((r) => String(r.pair)))];
  const family = (pair: string) =>
    new Set(pair.split('|').map((a) => a.split('-')[0])).size === 1 ? 'same family' : 'cross-family';
  const data = ['paper', 'multi_sample'].map((protocol) => {
    const rs = pairs.map((p) => rows.find((r) => r.pair === p && r.protocol === protocol));
    return {
      type: 'bar',
      name: protocol === 'paper' ? "ours, the paper's protocol (1 sample, T = 0.8)" : 'ours, 16 samples at T = 1',
      x: pairs.map((p) => `${p.replace('|', ' × ')}<br>(${family(p)})`),
      y: rs.map((r) => (r ? Number(r.kappa) : null)),
      error_y: { type: 'data', array: rs.map((r) => (r && r.kappa_ci95 !== '' ? Number(r.kappa_ci95) : 0)) },
    };
  });
  return {
    name: 'corl_error_overlap',
    table: source,
    width: 1100,
    height: 600,
    caption:
      "Error overlap (Cohen's kappa of the two agents' correctness, lower = more decoupled) of each agent pair " +
      "before training, under the paper's protocol and the earlier multi-sample one, means over seeds with 95% " +
      "t-intervals. Shaded: the paper's Fig. 2(d) values by pair type (different family 0.31-0.42, same family " +
      '0.51-0.52, seed only 0.51-0.58); ours are far lower, and our cross-family pairs overlap less than the ' +
      'same-family (same size, another seed) pair.',
    data,
    layout: {
      title: { text: "Error overlap before training: our agent pairs against the paper's ranges (Fig. 2(d))" },
      barmode: 'group',
      yaxis: { title: { text: "Cohen's kappa" }, range: [0, 0.65] },
      margin: { b: 140 },
      legend: { orientation: 'h', y: -0.3 },
      shapes: PAPER_KAPPA.map((b) => ({
        type: 'rect',
        xref: 'paper',
        x0: 0,
        x1: 1,
        y0: b.lo,
        y1: Math.max(b.hi, b.lo + 0.005),
        fillcolor: b.color,
        opacity: 0.18,
        line: { width: 0 },
        layer: 'below',
      })),
      annotations: PAPER_KAPPA.map((b, i) => ({
        text: `${b.what} ${b.lo}-${b.hi}`,
        xref: 'paper',
        x: 0.02 + 0.33 * i,
        y: b.hi + 0.02,
        showarrow: false,
        xanchor: 'left',
        font: { size: 11, color: b.color },
      })),
    },
  };
}

/**
 * CO-RL's Table 8 analogue at size M: per agent (column), the average accuracy of every method with its 95% interval
 * over seeds (top row) and the paper's reported 7-benchmark average for the model it plays (bottom row, points).
 */
export function table8Figure(rows: Row[], reported: Row[], source: string): Figure | null {
  const agents = ['transformer-M', 'gru-M'],
    order = ['base', ...Object.keys(METHOD_COLORS)];
  const ours = rows.filter((r) => r.column === 'average' && agents.includes(String(r.agent)));
  if (!ours.length) return null;
  const methods = order.filter((m) => ours.some((r) => r.method === m));
  const label = (m: string) => CORL_METHODS[m]?.label ?? m,
    gap = 0.08,
    w = (1 - gap) / 2;
  const model = (agent: string) => String(reported.find((r) => r.analogue === agent)?.model ?? agent);
  const layout: Record<string, unknown> = {
    title: { text: "CO-RL Table 8 at size M: ours (top) and the paper's (bottom)" },
    showlegend: false,
    margin: { b: 170 },
    annotations: agents.map((a, j) => ({
      text: `${a} (plays ${model(a)})`,
      x: j * (w + gap) + w / 2,
      xanchor: 'center',
      y: 1.04,
      xref: 'paper',
      yref: 'paper',
      showarrow: false,
    })),
  };
  const data: Record<string, unknown>[] = [];
  agents.forEach((agent, j) =>
    [0, 1].forEach((row) => {
      const k = row * 2 + j + 1,
        ax = k === 1 ? '' : String(k);
      layout[`xaxis${ax}`] = {
        domain: [j * (w + gap), j * (w + gap) + w],
        anchor: `y${ax}`,
        tickangle: -35,
        showticklabels: row === 1,
      };
      layout[`yaxis${ax}`] = {
        anchor: `x${ax}`,
        domain: row === 0 ? [0.55, 1] : [0, 0.42],
        range: row === 0 ? [0, 1] : [0, 60],
        title: { text: j > 0 ? '' : row === 0 ? 'ours: average accuracy' : 'paper: average (points)' },
      };
      const src = row === 0 ? ours.filter((r) => r.agent === agent) : reported.filter((r) => r.analogue === agent);
      const at = methods.map((m) => src.find((r) => r.method === m));
      data.push({
        type: 'bar',
        x: methods.map(label),
        y: at.map((r) => (r ? Number(row === 0 ? r.mean : r.average) : null)),
        marker: { color: methods.map((m) => METHOD_COLORS[m] ?? '#7f7f7f') },
        xaxis: `x${ax}`,
        yaxis: `y${ax}`,
        ...(row === 0
          ? {
              error_y: {
                type: 'data',
                symmetric: false,
                array: at.map((r) => (r ? Number(r.ci_high) - Number(r.mean) : 0)),
                arrayminus: at.map((r) => (r ? Number(r.mean) - Number(r.ci_low) : 0)),
              },
            }
          : {}),
      });
    }),
  );
  return {
    name: 'corl_table8',
    table: source,
    width: 1200,
    height: 760,
    data,
    layout,
    caption:
      "CO-RL's Table 8 at size M: transformer-M plays Qwen2.5-7B and gru-M Llama-3.1-8B-Instruct. Top: our " +
      'average accuracy (held-out evaluation, all four families) per method, means over seeds with 95% t-intervals; ' +
      "the same-family partner is the S model of the agent's family. Bottom: the paper's reported 7-benchmark " +
      'average for the model each agent plays (results/corl/table8/table8_reported.csv); compare orderings, not values.',
  };
}

export function corlFigures(dir = 'results/corl'): Figure[] {
  const f = path.join(dir, 'curves.csv'),
    pf = path.join(dir, 'phase.csv');
  if (!fs.existsSync(f)) return [];
  const c = readCsv(f);
  const phase = fs.existsSync(pf) ? readCsv(pf) : [];
  const corlMethods = [...new Set(phase.filter((r) => r.p_partner !== '').map((r) => String(r.method)))];
  const self = selfRewardOutcomeFigure(phase, pf);
  const grids = [DYNAMICS, AGREEMENT].map((g) => metricGrid(c, f, g)).filter((g): g is Figure => g !== null);
  const metric = (name: string, title: string, ytitle: string, what: string, normalise = false) =>
    metricFigure(c, name, title, ytitle, f, what, normalise);
  const ov = path.join(dir, 'error_overlap.csv');
  const t8 = path.join(dir, 'table8', 'table1.csv'),
    t8r = path.join(dir, 'table8', 'table8_reported.csv');
  const table8 = fs.existsSync(t8) && fs.existsSync(t8r) ? table8Figure(readCsv(t8), readCsv(t8r), t8) : null;
  return [
    ...(table8 ? [table8] : []),
    ...grids,
    ...(fs.existsSync(ov) ? [errorOverlapFigure(readCsv(ov), ov)] : []),
    ...corlMethods.map((m) => phaseFigure(phase, m, pf)),
    ...(self ? [self] : []),
    metric(
      'accuracy',
      'Training accuracy (label-free methods; GT-reward as reference)',
      'accuracy on training prompts',
      'Accuracy on the training prompts at each step.',
    ),
    metric(
      'reward_std',
      'Within-group reward std, normalised to its first step (collapse = 0)',
      'reward std / first step',
      "The standard deviation of rewards within a prompt's group, divided by its value at the first step.",
      true,
    ),
    metric('response_length', 'Response length', 'tokens', 'Mean response length.'),
    metric(
      'agreement',
      "Agreement between the agents' majority votes",
      'share of prompts',
      "The share of prompts on which the agents' majority answers agree.",
    ),
    metric(
      'pseudo_label_accuracy',
      'Pseudo-label accuracy against the hidden truth (analysis only)',
      'share of prompts',
      'The share of prompts whose pseudo-label (the supervising majority vote) equals the hidden answer; never used in training.',
    ),
  ].filter((g) => g.data.length > 0);
}
