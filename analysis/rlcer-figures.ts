// Figure builders for RLCER and Table 2, from results/rlcer/curves.csv (per-step metrics, long format) and
// results/table2.csv. Every curve is a mean over seeds with its 95% confidence band.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import { METHODS, TABLE2_ROWS } from '../src/methods/table2.js';
import type { Figure } from './figures.js';
import { longFigure } from './long.js';

const COLORS: Record<string, string> = {
  rlvr: '#7f7f7f', rlcer: '#1f77b4', rlcer_no_evolve: '#9ecae1', rlcer_rubric_only: '#2ca02c', rlcer_rubric_only_random: '#d62728',
  rlcer_oracle: '#17becf', fixed_teacher: '#ff7f0e', fixed_untrained: '#bcbd22', scalar_rm: '#8c564b', sft: '#000000',
};

/** One line per method for a metric, smoothed over `window` steps (a centred moving average of the seed means). */
function metricLines(curves: Row[], metric: string, methods: string[], size: string, window = 5) {
  return methods.flatMap((m) => {
    const rs = curves.filter((r) => r.metric === metric && r.method === m && r.size === size).sort((a, b) => Number(a.step) - Number(b.step));
    if (rs.length === 0) return [];
    const y = rs.map((r) => Number(r.mean));
    const smooth = y.map((_, i) => { const lo = Math.max(0, i - (window >> 1)), hi = Math.min(y.length, i + (window >> 1) + 1); return y.slice(lo, hi).reduce((a, b) => a + b, 0) / (hi - lo); });
    return [{ type: 'scatter', mode: 'lines', name: METHODS[m]?.label ?? m, x: rs.map((r) => Number(r.step)), y: smooth, line: { color: COLORS[m] } }];
  });
}

function lineFigure(name: string, title: string, ytitle: string, curves: Row[], metric: string, methods: string[], size: string): Figure {
  return { name, data: metricLines(curves, metric, methods, size),
    layout: { title: { text: title }, xaxis: { title: { text: 'RL step' } }, yaxis: { title: { text: ytitle } } } };
}

/** The mix of criterion kinds the rubricator proposes over training (shares of proposed criteria, stacked). */
export function kindMixFigure(curves: Row[], method: string, size: string): Figure {
  const kinds = [...new Set(curves.filter((r) => String(r.metric).startsWith('kind/') && r.method === method).map((r) => String(r.metric)))].sort();
  return { name: `rlcer_kind_mix_${method}`,
    data: kinds.map((k) => {
      const rs = curves.filter((r) => r.metric === k && r.method === method && r.size === size).sort((a, b) => Number(a.step) - Number(b.step));
      return { type: 'scatter', mode: 'lines', stackgroup: 'one', name: k.replace('kind/', ''), x: rs.map((r) => Number(r.step)), y: rs.map((r) => Number(r.mean)) };
    }),
    layout: { title: { text: `Criterion kinds proposed over training (${METHODS[method]?.label ?? method})` }, xaxis: { title: { text: 'RL step' } }, yaxis: { title: { text: 'share of proposed criteria' }, range: [0, 1] } } };
}

/** Table 2 as grouped bars: average accuracy and rubric quality per method (one bar each, in table order), with 95% CI. */
export function table2Figure(table: Row[], size: string): Figure {
  // TABLE2_ROWS already ends with the EvoLM rows: adding them again drew (and stacked) their bars twice
  const methods = TABLE2_ROWS.filter((m) => table.some((r) => r.method === m && r.size === size));
  const bar = (column: string, name: string, color: string) => {
    const rs = methods.map((m) => table.find((r) => r.method === m && r.size === size && r.column === column));
    return { type: 'bar', name, x: methods.map((m) => METHODS[m]?.label ?? m), y: rs.map((r) => (r ? Number(r.mean) : null)), marker: { color },
      error_y: { type: 'data', array: rs.map((r) => (r && r.ci_high !== '' ? (Number(r.ci_high) - Number(r.ci_low)) / 2 : 0)) } };
  };
  return { name: `table2_${size}`, data: [bar('average', 'accuracy, average of 4 families', '#1f77b4'), bar('rubric_quality', 'rubric quality (pairwise)', '#ff7f0e')],
    layout: { title: { text: `Table 2 (size ${size}): policy accuracy and reward-source quality, mean and 95% CI over seeds` }, barmode: 'group', yaxis: { range: [0, 1] }, margin: { b: 170 } } };
}

const sizesOf = (rows: Row[]) => [...new Set(rows.map((r) => String(r.size)))];

/** Figures are drawn once per size: the S figure keeps its plain name, other sizes get a suffix and a title note. */
function named(g: Figure, size: string): Figure {
  return size === 'S' ? g : { ...g, name: `${g.name}_${size}`, layout: { ...g.layout, title: { text: `${(g.layout.title as { text: string }).text} (size ${size})` } } };
}

export function rlcerFigures(dir = 'results'): Figure[] {
  const f = path.join(dir, 'rlcer', 'curves.csv'), t = path.join(dir, 'table2.csv');
  const figs: Figure[] = [];
  if (fs.existsSync(f)) {
    const c = readCsv(f);
    for (const size of sizesOf(c)) {
      figs.push(...[
        lineFigure('rlcer_accuracy', 'Probe accuracy during training: RLVR, RLCER, RLCER without evolving', 'probe accuracy (1 sample per problem)', c, 'probe_accuracy', ['rlvr', 'rlcer', 'rlcer_no_evolve'], size),
        lineFigure('rlcer_cot_reward', 'CoT reward during training, with and without self-evolution', 'mean CoT reward', c, 'reward/cot', ['rlcer', 'rlcer_no_evolve'], size),
        lineFigure('rlcer_correlation', 'Mean correlation of proposed criteria with correctness', 'mean Pearson corr(v, z)', c, 'corr_proposed', ['rlcer', 'rlcer_no_evolve'], size),
        lineFigure('rlcer_rubric_only', 'Rubric-only training (no outcome reward): filtered vs random rubrics', 'probe accuracy', c, 'probe_accuracy', ['rlcer_rubric_only', 'rlcer_rubric_only_random'], size),
        lineFigure('rlcer_valid_fraction', 'Share of proposed criteria that are valid', 'valid / proposed', c, 'valid_fraction', ['rlcer', 'rlcer_no_evolve'], size),
        kindMixFigure(c, 'rlcer', size), kindMixFigure(c, 'rlcer_no_evolve', size),
        lineFigure('rlcer_concrete_share', 'Share of concrete-value criteria (criteria with arguments) in the rubrics', 'concrete share', c, 'concrete_share', ['rlcer', 'rlcer_no_evolve'], size),
      ].map((g) => named(g, size)));
    }
  }
  const hintsFile = path.join(dir, 'rlcer', 'hints.csv');
  if (fs.existsSync(hintsFile)) {
    const all = readCsv(hintsFile);
    for (const size of sizesOf(all)) {
      const h = all.filter((r) => r.size === size);
      const methods = [...new Set(h.map((r) => String(r.method)))].sort((a, b) => TABLE2_ROWS.indexOf(a) - TABLE2_ROWS.indexOf(b));
      const avg = (m: string, k: string) => { const rs = h.filter((r) => r.method === m); return rs.reduce((a, r) => a + Number(r[`${k}_mean`]), 0) / rs.length; };
      figs.push(named({ name: 'rlcer_hints',
        data: (['plain', 'hinted'] as const).map((k) => ({ type: 'bar', name: k === 'plain' ? 'plain prompt' : 'own rubric as in-prompt hint', x: methods.map((m) => METHODS[m]?.label ?? m), y: methods.map((m) => avg(m, k)) })),
        layout: { title: { text: 'Rubrics as in-prompt hints at inference: accuracy averaged over the four families' }, barmode: 'group', yaxis: { range: [0, 1] }, margin: { b: 170 } } }, size));
    }
  }
  const evo = path.join(dir, 'evolm', 'rubric_evolution.csv');
  if (fs.existsSync(evo)) {
    const all = readCsv(evo);
    for (const size of sizesOf(all)) {
      const rows = all.filter((r) => r.size === size).sort((a, b) => Number(a.step) - Number(b.step));
      figs.push(named({ name: 'evolm_rubric_evolution',
        data: ['concrete_share', 'format_rate'].map((k) => ({ type: 'scatter', mode: 'lines', name: k.replace('_', ' '), x: rows.map((r) => Number(r.step)), y: rows.map((r) => (r[k] === '' ? null : Number(r[k]))) })),
        layout: { title: { text: 'EvoLM (co-evolving): concrete-value criteria and format validity of the generated rubrics' }, xaxis: { title: { text: 'step (policy and generator phases)' } }, yaxis: { title: { text: 'share' }, range: [0, 1] } } }, size));
    }
  }
  if (fs.existsSync(t)) {
    const table = readCsv(t);
    for (const size of sizesOf(table)) figs.push(table2Figure(table, size));
  }
  const long = path.join(dir, 'rlcer', 'long.csv');
  if (fs.existsSync(long)) figs.push(longFigure(readCsv(long)));
  return figs.filter((g) => g.data.length > 0);
}
