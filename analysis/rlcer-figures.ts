// Figure builders for RLCER and Table 2, from results/rlcer/curves.csv (per-step metrics, long format) and
// results/table2.csv. Every curve is a mean over seeds with its 95% confidence band.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import { mean } from '../src/util/stats.js';
import { EVOLM_ABLATIONS, EVOLM_QUESTION, METHODS, TABLE2_ROWS } from '../src/methods/tables/table2.js';
import type { Figure } from './figures.js';
import { longFigure } from './long.js';
import { band, METHOD_COLORS } from './style.js';
import { FAMILIES, isHeldOut } from '../src/world/families.js';

const SMOOTH = 5;

/** A centred moving average over `window` points (shorter at the ends). */
export function smooth(y: number[], window = SMOOTH): number[] {
  return y.map((_, i) => {
    const lo = Math.max(0, i - (window >> 1)),
      hi = Math.min(y.length, i + (window >> 1) + 1);
    return mean(y.slice(lo, hi));
  });
}

/**
 * One line per method for a metric: the seed means smoothed over SMOOTH steps, under it the 95% band over seeds
 * (the per-step interval, smoothed the same way; no band for a single seed).
 */
function metricLines(curves: Row[], metric: string, methods: string[], size: string) {
  return methods.flatMap((m) => {
    const rs = curves
      .filter((r) => r.metric === metric && r.method === m && r.size === size)
      .sort((a, b) => Number(a.step) - Number(b.step));
    if (rs.length === 0) return [];
    const x = rs.map((r) => Number(r.step)),
      y = smooth(rs.map((r) => Number(r.mean)));
    const color = METHOD_COLORS[m] ?? '#333333',
      label = METHODS[m]?.label ?? m;
    const h = rs.every((r) => r.ci95 !== '') ? smooth(rs.map((r) => Number(r.ci95))) : undefined;
    const bands = h
      ? [
          band(
            x,
            y.map((v, i) => v - h[i]),
            y.map((v, i) => v + h[i]),
            color,
            label,
          ),
        ]
      : [];
    return [...bands, { type: 'scatter', mode: 'lines', name: label, x, y, line: { color } }];
  });
}

function lineFigure(
  name: string,
  title: string,
  ytitle: string,
  curves: Row[],
  metric: string,
  methods: string[],
  size: string,
  source: string,
  what: string,
): Figure {
  return {
    name,
    data: metricLines(curves, metric, methods, size),
    table: source,
    caption:
      `${what} Lines: means over seeds, smoothed by a centred ${SMOOTH}-step moving average; bands: 95% t-intervals ` +
      'over seeds, smoothed the same way.',
    layout: {
      title: { text: `${title} (${SMOOTH}-step moving average)` },
      xaxis: { title: { text: 'RL step' } },
      yaxis: { title: { text: ytitle } },
    },
  };
}

const EVOLM_SIDE = ['evolm', 'evolm_sequential', 'evolm_two_model', 'judge_teacher', 'judge_untrained'];

/**
 * EvoLM's label-free rows: the judge's score J the policy is trained on (left) beside the probe accuracy (right), per
 * step. J rising while accuracy falls is the policy learning what the judge rewards instead of the arithmetic.
 */
export function evolmJudgeFigure(curves: Row[], size: string, source: string): Figure {
  const panel = (metric: string, k: number) =>
    metricLines(curves, metric, EVOLM_SIDE, size).map((t) => ({
      ...t,
      xaxis: `x${k}`,
      yaxis: `y${k}`,
      ...(k === 2 ? { showlegend: false } : {}),
    }));
  return {
    name: 'evolm_judge_vs_accuracy',
    table: source,
    width: 1200,
    height: 560,
    caption:
      'The label-free rows (EvoLM co-evolving, sequential and two-model; judge-only training on fixed teacher and ' +
      "untrained rubrics): left, the mean judge score J of the policy's rollouts in its training steps; right, the " +
      `probe accuracy. Lines: means over seeds, smoothed by a centred ${SMOOTH}-step moving average; bands: 95% ` +
      't-intervals over seeds, smoothed the same way. A step is a policy or a generator step: the EvoLM rows take 60 ' +
      'of each (alternating; the sequential row all generator steps first), the judge-only rows 60 policy steps; ' +
      'generator steps log no J.',
    data: [...panel('judge_score', 1), ...panel('probe_accuracy', 2)],
    layout: {
      title: {
        text: `EvoLM's label-free rows: the judge's score rises, accuracy falls (${SMOOTH}-step moving average)`,
      },
      grid: { rows: 1, columns: 2, pattern: 'independent' },
      legend: { orientation: 'h', y: -0.2 },
      xaxis: { title: { text: 'step' } },
      xaxis2: { title: { text: 'step' } },
      yaxis: { title: { text: 'judge score J (policy steps)' }, range: [0, 1] },
      yaxis2: { title: { text: 'probe accuracy' }, range: [0, 1] },
    },
  };
}

/** Held-out accuracy on the fixed evaluation set, one panel per family, mean and 95% band over seeds (unsmoothed). */
export function evalFigure(rows: Row[], methods: string[], size: string, source: string): Figure {
  const families = [...new Set(rows.map((r) => String(r.family)))].sort(
    (a, b) => FAMILY_ORDER.indexOf(a) - FAMILY_ORDER.indexOf(b),
  );
  const data = families.flatMap((f, k) => {
    const axes = { xaxis: `x${k + 1}`, yaxis: `y${k + 1}` };
    return methods.flatMap((m) => {
      const rs = rows
        .filter((r) => r.size === size && r.method === m && r.family === f)
        .sort((a, b) => Number(a.step) - Number(b.step));
      if (rs.length === 0) return [];
      const x = rs.map((r) => Number(r.step)),
        y = rs.map((r) => Number(r.accuracy_mean));
      const color = METHOD_COLORS[m] ?? '#333333',
        label = METHODS[m]?.label ?? m;
      const h = rs.every((r) => r.accuracy_ci95 !== '') ? rs.map((r) => Number(r.accuracy_ci95)) : undefined;
      const bands = h
        ? [
            band(
              x,
              y.map((v, i) => v - h[i]),
              y.map((v, i) => v + h[i]),
              color,
              label,
              axes,
            ),
          ]
        : [];
      return [
        ...bands,
        {
          type: 'scatter',
          mode: 'lines+markers',
          name: label,
          legendgroup: m,
          showlegend: k === 0,
          x,
          y,
          line: { color },
          ...axes,
        },
      ];
    });
  });
  const layout: Record<string, unknown> = {
    title: { text: `Held-out accuracy during training (size ${size}), per family` },
    grid: { rows: Math.max(2, Math.ceil(families.length / 2)), columns: 2, pattern: 'independent' },
    height: 700,
    annotations: families.map((f, k) => ({
      text: isHeldOut(f) ? `${f} (held-out lengths)` : f,
      showarrow: false,
      xref: `x${k + 1} domain`,
      yref: `y${k + 1} domain`,
      x: 0.5,
      y: 1.08,
      font: { size: 13 },
    })),
  };
  families.forEach((_, k) => {
    layout[`xaxis${k ? k + 1 : ''}`] = { title: { text: k >= 2 ? 'RL step' : '' } };
    layout[`yaxis${k ? k + 1 : ''}`] = { title: { text: k % 2 === 0 ? 'accuracy' : '' }, range: [0, 1] };
  });
  return {
    name: 'rlcer_eval_accuracy',
    data,
    layout,
    height: 700,
    table: source,
    caption:
      'The main accuracy figure: accuracy on the fixed held-out evaluation set (several samples per problem) ' +
      'at the evaluation steps, one panel per problem family. Lines: means over seeds, unsmoothed; bands: 95% ' +
      't-intervals over seeds.',
  };
}

const FAMILY_ORDER: readonly string[] = FAMILIES;

/** The mix of criterion kinds the rubricator proposes over training (shares of proposed criteria, stacked). */
export function kindMixFigure(curves: Row[], method: string, size: string, source: string): Figure {
  const kinds = [
    ...new Set(
      curves.filter((r) => String(r.metric).startsWith('kind/') && r.method === method).map((r) => String(r.metric)),
    ),
  ].sort();
  const label = METHODS[method]?.label ?? method;
  return {
    name: `rlcer_kind_mix_${method}`,
    table: source,
    caption:
      `Shares of the criterion kinds among the criteria ${label}'s rubricator proposes at each step, stacked ` +
      '(means over seeds, unsmoothed).',
    data: kinds.map((k) => {
      const rs = curves
        .filter((r) => r.metric === k && r.method === method && r.size === size)
        .sort((a, b) => Number(a.step) - Number(b.step));
      return {
        type: 'scatter',
        mode: 'lines',
        stackgroup: 'one',
        name: k.replace('kind/', ''),
        x: rs.map((r) => Number(r.step)),
        y: rs.map((r) => Number(r.mean)),
      };
    }),
    layout: {
      title: { text: `Criterion kinds proposed over training (${label})` },
      xaxis: { title: { text: 'RL step' } },
      yaxis: { title: { text: 'share of proposed criteria' }, range: [0, 1] },
    },
  };
}

const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`;

/** The paper's claims and our verdicts, one line each, for the figure's subtitle (rows of table2_claims.csv). */
export function claimLines(claims: Row[], size: string, max = 3): string[] {
  return claims
    .filter((c) => String(c.run).startsWith(`${size}|`) && c.delta !== '')
    .slice(0, max)
    .map(
      (c) =>
        `paper: ${c.claim} · ours: ${signed(Number(c.delta))} [${signed(Number(c.ci_low))}, ` +
        `${signed(Number(c.ci_high))}], ${c.verdict}`,
    );
}

/**
 * Table 2 as grouped bars: average accuracy and rubric quality per method (one bar each, in table order), with 95%
 * CI; under the title, the first claims with our deltas and verdicts.
 */
export function table2Figure(table: Row[], size: string, claims: Row[] = [], source = 'results/table2.csv'): Figure {
  // TABLE2_ROWS already ends with the EvoLM rows: adding them again drew (and stacked) their bars twice
  const methods = TABLE2_ROWS.filter((m) => table.some((r) => r.method === m && r.size === size));
  const lines = claimLines(claims, size);
  return {
    name: `table2_${size}`,
    table: source,
    width: 1200,
    height: 680 + 24 * lines.length,
    caption:
      "Every Table 2 row run at this size: the policy's held-out accuracy (average of the four families) and the " +
      'pairwise quality of its reward source, means over seeds with 95% t-intervals. Bars are capped at 1 (the axis ' +
      "range); under the title, the paper's first claims with our deltas and verdicts (all in results/table2_claims.csv).",
    data: accuracyQualityBars(table, methods, size),
    layout: {
      title: {
        text:
          `Table 2 (size ${size}): policy accuracy and reward-source quality, mean and 95% CI over seeds` +
          lines.map((l) => `<br><sup>${l}</sup>`).join(''),
      },
      barmode: 'group',
      yaxis: { range: [0, 1], title: { text: 'accuracy / quality' } },
      margin: { b: 250, t: 110 + 24 * lines.length },
      shapes: [
        { type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0.5, y1: 0.5, line: { dash: 'dot', color: '#999', width: 1 } },
      ],
    },
  };
}

/** Two bars per method (in the given order): average accuracy and rubric quality, means with 95% CI half-widths. */
export function accuracyQualityBars(table: Row[], methods: string[], size: string): Figure['data'] {
  const bar = (column: string, name: string, color: string) => {
    const rs = methods.map((m) => table.find((r) => r.method === m && r.size === size && r.column === column));
    return {
      type: 'bar',
      name,
      x: methods.map((m) => METHODS[m]?.label ?? m),
      y: rs.map((r) => (r ? Number(r.mean) : null)),
      marker: { color },
      error_y: {
        type: 'data',
        array: rs.map((r) => (r && r.ci_high !== '' ? (Number(r.ci_high) - Number(r.ci_low)) / 2 : 0)),
      },
    };
  };
  return [
    bar('average', 'accuracy, average of 4 families', '#1f77b4'),
    bar('rubric_quality', 'rubric quality (pairwise)', '#ff7f0e'),
  ];
}

/**
 * EvoLM's ablations (its Table 7): the co-evolving row beside each ablation, and the question-reading rows beside
 * their own cold start, as table2Figure's bars. Rows with fewer seeds than the others say so in their label.
 */
export function evolmAblationFigure(rows: Row[], size: string, source: string): Figure {
  const wanted = ['sft', 'evolm', ...EVOLM_ABLATIONS, ...EVOLM_QUESTION];
  const methods = wanted.filter((m) => rows.some((r) => r.method === m && r.size === size));
  const seeds = (m: string) =>
    Number(rows.find((r) => r.method === m && r.size === size && r.column === 'average')?.seeds ?? 0);
  const most = Math.max(0, ...methods.map(seeds));
  const data = accuracyQualityBars(rows, methods, size).map((d) => ({
    ...d,
    x: methods.map((m) => wrap(`${METHODS[m]?.label ?? m}${seeds(m) < most ? ` (${seeds(m)} seeds)` : ''}`)),
  }));
  return {
    name: 'evolm_ablations',
    table: source,
    width: 1700,
    height: 720,
    caption:
      "EvoLM's ablations (the paper's Table 7) at this size (results/ablations.csv, the cold-start and EvoLM " +
      'rows from results/table2.csv): held-out average accuracy and the pairwise ' +
      'quality of the generated rubrics, means over seeds with 95% t-intervals. The last rows start from the cold ' +
      'start fine-tuned to also write rubrics from the question alone (results/coldstart/question-preregistration.md), ' +
      "beside that cold start's own row; every other row starts from the committed cold start.",
    data,
    layout: {
      title: { text: `EvoLM ablations (size ${size}): policy accuracy and rubric quality, mean and 95% CI` },
      barmode: 'group',
      yaxis: { range: [0, 1], title: { text: 'accuracy / quality' } },
      xaxis: { tickangle: 0 },
      margin: { b: 160 },
      legend: { orientation: 'h', y: 1.08 },
      shapes: [
        { type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0.5, y1: 0.5, line: { dash: 'dot', color: '#999', width: 1 } },
      ],
      annotations: [
        {
          text: 'chance for rubric quality',
          xref: 'paper',
          x: 1,
          y: 0.5,
          yanchor: 'bottom',
          xanchor: 'right',
          showarrow: false,
          font: { size: 11, color: '#777' },
        },
      ],
    },
  };
}

/** A label broken into lines of about `width` characters at spaces (plotly's <br>), for category axes. */
export function wrap(label: string, width = 18): string {
  const lines: string[] = [];
  for (const w of label.split(' ')) {
    if (lines.length && `${lines[lines.length - 1]} ${w}`.length <= width) lines[lines.length - 1] += ` ${w}`;
    else lines.push(w);
  }
  return lines.join('<br>');
}

const sizesOf = (rows: Row[]) => [...new Set(rows.map((r) => String(r.size)))];

/** Figures are drawn once per size: the S figure keeps its plain name, other sizes get a suffix and a title note. */
function named(g: Figure, size: string): Figure {
  return size === 'S'
    ? g
    : {
        ...g,
        name: `${g.name}_${size}`,
        layout: { ...g.layout, title: { text: `${(g.layout.title as { text: string }).text} (size ${size})` } },
      };
}

export function rlcerFigures(dir = 'results'): Figure[] {
  const f = path.join(dir, 'rlcer', 'curves.csv'),
    t = path.join(dir, 'table2.csv');
  const figs: Figure[] = [];
  if (fs.existsSync(f)) {
    const c = readCsv(f);
    const line = (
      name: string,
      title: string,
      ytitle: string,
      metric: string,
      methods: string[],
      size: string,
      what: string,
    ) => lineFigure(name, title, ytitle, c, metric, methods, size, f, what);
    for (const size of sizesOf(c)) {
      figs.push(
        ...[
          line(
            'rlcer_accuracy',
            'Probe accuracy during training: RLVR, RLCER, RLCER without evolving',
            'probe accuracy (1 sample per problem)',
            'probe_accuracy',
            ['rlvr', 'rlcer', 'rlcer_no_evolve'],
            size,
            'Training-time probe: one sample at temperature 1 per probe problem (4 per evaluation cell) at every ' +
              'step, noisier than the held-out curve in rlcer_eval_accuracy.',
          ),
          line(
            'rlcer_cot_reward',
            'CoT reward during training, with and without self-evolution',
            'mean CoT reward',
            'reward/cot',
            ['rlcer', 'rlcer_no_evolve'],
            size,
            "The reasoner's CoT reward per step: the points of the " +
              "valid criteria its chain of thought satisfies, min-max normalised over the rubric's point range.",
          ),
          line(
            'rlcer_correlation',
            'Mean correlation of proposed criteria with correctness',
            'mean Pearson corr(v, z)',
            'corr_proposed',
            ['rlcer', 'rlcer_no_evolve'],
            size,
            "Pearson correlation, over a group's rollouts, between " +
              'satisfying a proposed criterion and being correct, averaged over the proposed criteria of each step.',
          ),
          line(
            'rlcer_rubric_only',
            'Rubric-only training (no outcome reward): filtered vs random rubrics',
            'probe accuracy',
            'probe_accuracy',
            ['rlcer_rubric_only', 'rlcer_rubric_only_random'],
            size,
            'Probe accuracy when the reasoner is ' +
              'rewarded by rubrics alone: valid (filtered) rubrics against random ones.',
          ),
          line(
            'rlcer_valid_fraction',
            'Share of proposed criteria that are valid',
            'valid / proposed',
            'valid_fraction',
            ['rlcer', 'rlcer_no_evolve'],
            size,
            "The share of the rubricator's proposed criteria that pass the validity " + 'test (see docs/rlcer.md).',
          ),
          kindMixFigure(c, 'rlcer', size, f),
          kindMixFigure(c, 'rlcer_no_evolve', size, f),
          evolmJudgeFigure(c, size, f),
          line(
            'rlcer_concrete_share',
            'Share of concrete-value criteria (criteria with arguments) in the rubrics',
            'concrete share',
            'concrete_share',
            ['rlcer', 'rlcer_no_evolve'],
            size,
            'The share of proposed criteria that ' + 'name a concrete value (an argument), per step.',
          ),
        ].map((g) => named(g, size)),
      );
    }
  }
  const e = path.join(dir, 'rlcer', 'eval_curves.csv');
  if (fs.existsSync(e)) {
    const rows = readCsv(e);
    for (const size of sizesOf(rows))
      figs.push(named(evalFigure(rows, ['rlvr', 'rlcer', 'rlcer_no_evolve'], size, e), size));
  }
  const hintsFile = path.join(dir, 'rlcer', 'hints.csv');
  if (fs.existsSync(hintsFile)) {
    const all = readCsv(hintsFile);
    for (const size of sizesOf(all)) {
      const h = all.filter((r) => r.size === size);
      const methods = [...new Set(h.map((r) => String(r.method)))].sort(
        (a, b) => TABLE2_ROWS.indexOf(a) - TABLE2_ROWS.indexOf(b),
      );
      const avg = (m: string, k: string) => {
        return mean(h.filter((r) => r.method === m).map((r) => Number(r[`${k}_mean`])));
      };
      figs.push(
        named(
          {
            name: 'rlcer_hints',
            table: hintsFile,
            caption:
              "Accuracy at inference with a plain prompt and with the model's own rubric given as an in-prompt hint, " +
              "averaged over the four families (means over seeds of each family's accuracy).",
            data: (['plain', 'hinted'] as const).map((k) => ({
              type: 'bar',
              name: k === 'plain' ? 'plain prompt' : 'own rubric as in-prompt hint',
              x: methods.map((m) => METHODS[m]?.label ?? m),
              y: methods.map((m) => avg(m, k)),
            })),
            layout: {
              title: { text: 'Rubrics as in-prompt hints at inference: accuracy averaged over the four families' },
              barmode: 'group',
              yaxis: { range: [0, 1], title: { text: 'accuracy' } },
              margin: { b: 170 },
            },
          },
          size,
        ),
      );
    }
  }
  const evo = path.join(dir, 'evolm', 'rubric_evolution.csv');
  if (fs.existsSync(evo)) {
    const all = readCsv(evo);
    for (const size of sizesOf(all)) {
      const rows = all.filter((r) => r.size === size).sort((a, b) => Number(a.step) - Number(b.step));
      figs.push(
        named(
          {
            name: 'evolm_rubric_evolution',
            table: evo,
            caption:
              "EvoLM's generated rubrics over training: the share of concrete-value criteria and the share of " +
              'rubrics in the required format (means over seeds, unsmoothed).',
            data: ['concrete_share', 'format_rate'].map((k) => ({
              type: 'scatter',
              mode: 'lines',
              name: k.replace('_', ' '),
              x: rows.map((r) => Number(r.step)),
              y: rows.map((r) => (r[k] === '' ? null : Number(r[k]))),
            })),
            layout: {
              title: {
                text: 'EvoLM (co-evolving): concrete-value criteria and format validity of the generated rubrics',
              },
              xaxis: { title: { text: 'step (policy and generator phases)' } },
              yaxis: { title: { text: 'share' }, range: [0, 1] },
            },
          },
          size,
        ),
      );
    }
  }
  if (fs.existsSync(t)) {
    const table = readCsv(t),
      cf = path.join(dir, 'table2_claims.csv');
    const claims = fs.existsSync(cf) ? readCsv(cf) : [];
    for (const size of sizesOf(table)) figs.push(table2Figure(table, size, claims, t));
    const ab = path.join(dir, 'ablations.csv');
    if (fs.existsSync(ab)) {
      const both = [...table, ...readCsv(ab)];
      const sizes = sizesOf(both).filter((z) =>
        both.some((r) => r.size === z && EVOLM_ABLATIONS.includes(String(r.method))),
      );
      for (const size of sizes) figs.push(named(evolmAblationFigure(both, size, ab), size));
    }
  }
  const long = path.join(dir, 'rlcer', 'long.csv');
  const longFinal = path.join(dir, 'rlcer', 'long_final.csv');
  if (fs.existsSync(long)) {
    figs.push(longFigure(readCsv(long), long, fs.existsSync(longFinal) ? readCsv(longFinal) : []));
  }
  return figs.filter((g) => g.data.length > 0);
}
