// Figure builders for Rubicon, from results/rubicon/table.csv, seesaw.csv, reported.csv and hacking.csv.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Row } from '../src/io/table.js';
import type { Figure } from './figures.js';

/** A run's label: aggregator / schedule, the defence rubric and the task pair where the table has them. */
const withDefence = (r: Row) => `${r.aggregator}${r.defence === 'yes' ? ' + defence' : ''}`;
const label = (r: Row) => `${withDefence(r)} / ${r.schedule}${r.tasks === 'competing' ? ' (competing)' : ''}`;
/** One colour per rubric family, the paper's benchmarks of a type and our dimensions of it alike. */
const FAMILY: Record<string, string> = { quality: '#1f77b4', constraints: '#ff7f0e' };
const HACK_MEASURES = /(hack_rate|check_rate|dishonest_share|stamp_share|mismatch_rate)$/;

export function rubiconFigures(dir = 'results/rubicon'): Figure[] {
  const figs: Figure[] = [];
  const t = path.join(dir, 'table.csv'),
    h = path.join(dir, 'hacking.csv'),
    d = path.join(dir, 'seesaw.csv'),
    rep = path.join(dir, 'reported.csv');
  if (fs.existsSync(t)) {
    const rows = readCsv(t);
    const runs = [...new Set(rows.map(label))];
    const dims = [...new Set(rows.map((r) => String(r.column)))].filter((c) => !HACK_MEASURES.test(c));
    figs.push({
      name: 'rubicon_seesaw',
      table: t,
      caption:
        'Every rubric dimension and the accuracy after training, one bar group per dimension and one bar per ' +
        'aggregator and schedule (means over seeds; the CIs are in the table).',
      data: runs.map((run) => ({
        type: 'bar',
        name: run,
        x: dims,
        y: dims.map((d) => {
          const r = rows.find((x) => label(x) === run && x.column === d);
          return r ? Number(r.mean) : null;
        }),
      })),
      layout: {
        title: { text: 'Every dimension and accuracy after training, per aggregator and schedule (the seesaw)' },
        barmode: 'group',
        yaxis: { range: [0, 1] },
        margin: { b: 190 },
      },
    });
  }
  if (fs.existsSync(d)) {
    const rows = readCsv(d);
    const runs = [...new Set(rows.map(label))];
    figs.push({
      name: 'rubicon_seesaw_delta',
      table: d,
      caption:
        'Change over the cold start, paired by seed, of the mean constraint-dimension score, the mean ' +
        'quality-dimension score and accuracy, per aggregator and schedule; error bars are 95% t-intervals.',
      data: ['constraints', 'quality', 'accuracy'].map((m) => {
        const rs = runs.map((run) => rows.find((x) => label(x) === run && x.measure === m));
        return {
          type: 'bar',
          name: m,
          x: runs,
          y: rs.map((r) => (r ? Number(r.delta) : null)),
          error_y: {
            type: 'data',
            symmetric: false,
            array: rs.map((r) => (r && r.ci_high !== '' ? Number(r.ci_high) - Number(r.delta) : 0)),
            arrayminus: rs.map((r) => (r && r.ci_low !== '' ? Number(r.delta) - Number(r.ci_low) : 0)),
          },
        };
      }),
      layout: {
        title: { text: 'Change over the cold start (paired by seed, 95% CI)' },
        barmode: 'group',
        yaxis: { title: { text: 'trained - cold start' } },
        margin: { b: 190 },
      },
    });
  }
  if (fs.existsSync(d)) {
    // the paper's Fig. 2 analogue: each run a point at (change of constraints, change of quality); a seesaw puts the
    // points in the upper-left and lower-right quadrants, a free lunch in the upper right
    const rows = readCsv(d);
    const runs = [...new Set(rows.map(label))];
    const at = (run: string, m: string) => rows.find((x) => label(x) === run && x.measure === m);
    const bar = (r: Row | undefined, side: 'hi' | 'lo') => {
      if (!r || r.ci_high === '') return 0;
      return side === 'hi' ? Number(r.ci_high) - Number(r.delta) : Number(r.delta) - Number(r.ci_low);
    };
    figs.push({
      name: 'rubicon_tradeoff_scatter',
      table: d,
      caption:
        "Constraints against quality (the analogue of the paper's Fig. 2): one point per aggregator and " +
        'schedule, the change over the cold start, paired by seed, of the mean constraint-dimension score (x) and the ' +
        'mean quality-dimension score (y); error bars are 95% t-intervals. Colour: the schedule; circles: the ' +
        'standard task pair, diamonds (labelled): the competing pair. Most aggregators under the joint schedule ' +
        'overlap in one cluster (the hover text names each point; the per-run values are in the table). Points left ' +
        'of or below zero lost on that axis.',
      // one series per schedule (its colour), the task pair as the marker; every joint aggregator lands in one
      // cluster, so only the competing pair's points carry a text label (the full label is the hover text)
      data: [...new Set(rows.map((r) => String(r.schedule)))].map((schedule) => {
        const rs = runs.filter((run) => rows.some((x) => label(x) === run && x.schedule === schedule));
        const competing = rs.map((run) => run.endsWith('(competing)'));
        const cx = rs.map((run) => at(run, 'constraints')),
          qy = rs.map((run) => at(run, 'quality'));
        return {
          type: 'scatter',
          mode: 'markers+text',
          name: schedule,
          hovertext: rs,
          text: competing.map((c) => (c ? 'competing' : '')),
          textposition: 'top center',
          textfont: { size: 10 },
          marker: { size: 10, symbol: competing.map((c) => (c ? 'diamond' : 'circle')) },
          x: cx.map((r) => (r ? Number(r.delta) : null)),
          y: qy.map((r) => (r ? Number(r.delta) : null)),
          error_x: {
            type: 'data',
            symmetric: false,
            array: cx.map((r) => bar(r, 'hi')),
            arrayminus: cx.map((r) => bar(r, 'lo')),
            thickness: 1,
          },
          error_y: {
            type: 'data',
            symmetric: false,
            array: qy.map((r) => bar(r, 'hi')),
            arrayminus: qy.map((r) => bar(r, 'lo')),
            thickness: 1,
          },
        };
      }),
      layout: {
        title: { text: 'Constraints vs quality: change over the cold start per run (95% CI)' },
        xaxis: { title: { text: 'change of the mean constraint-dimension score' }, zeroline: true },
        yaxis: { title: { text: 'change of the mean quality-dimension score' }, zeroline: true },
        legend: { orientation: 'h', y: -0.18, title: { text: 'schedule (colour):' } },
      },
      width: 1000,
      height: 700,
    });
  }
  if (fs.existsSync(d) && fs.existsSync(rep)) {
    // the seesaw side by side: the paper's single-type ablation (benchmark points, as reported) and ours (change of
    // the mean dimension score, x100), each on its own axis because the units differ
    const ours = readCsv(d),
      paper = readCsv(rep).filter((r) => r.experiment === 'quality_only' || r.experiment === 'constraints_only');
    figs.push({
      name: 'rubicon_seesaw_reported',
      table: rep,
      caption:
        "Single-type training, side by side: left, the paper's reported benchmark changes for its quality-only " +
        'and constraints-only runs; right, ours (weighted sum), the change of the mean dimension score x 100. The ' +
        'units differ, so each has its own axis; our numbers are in results/rubicon/seesaw.csv.',
      data: [
        ...['quality', 'constraints'].map((a) => {
          const rs = paper.filter((r) => r.analogue === a);
          // a two-level axis (experiment, then benchmark): the labels stay horizontal and apart
          return {
            type: 'bar',
            name: `paper: ${a}-type benchmarks`,
            x: [rs.map((r) => r.experiment), rs.map((r) => r.benchmark)],
            y: rs.map((r) => Number(r.delta)),
            marker: { color: FAMILY[a] },
            xaxis: 'x',
            yaxis: 'y',
          };
        }),
        ...['quality', 'constraints'].map((m) => ({
          type: 'bar',
          name: `ours: ${m} dimensions (x100)`,
          x: ['quality_only', 'constraints_only'],
          marker: { color: FAMILY[m], pattern: { shape: '/' } },
          y: ['quality_only', 'constraints_only'].map((sch) => {
            const r = ours.find((x) => label(x) === `weighted_sum / ${sch}` && x.measure === m);
            return r ? 100 * Number(r.delta) : null;
          }),
          xaxis: 'x2',
          yaxis: 'y2',
        })),
      ],
      layout: {
        title: { text: "Single-type training: the paper's seesaw (reported) and ours, change over the base model" },
        yaxis: { title: { text: 'paper: benchmark points (reported)' } },
        barmode: 'group',
        margin: { b: 120 },
        xaxis: { domain: [0, 0.62], tickangle: 0, tickfont: { size: 10 } },
        xaxis2: { domain: [0.72, 1], anchor: 'y2' },
        yaxis2: { anchor: 'x2', title: { text: 'ours: dimension score x 100' } },
        legend: { orientation: 'h', y: -0.25 },
      },
      width: 1200,
    });
  }
  if (fs.existsSync(h)) {
    const rows = readCsv(h);
    for (const k of ['hack_rate', 'judge_score', 'accuracy']) {
      figs.push({
        name: `rubicon_hacking_${k}`,
        table: h,
        caption:
          `The reward-hacking probe under the joint schedule: ${k.replace('_', ' ')} at each RL step, one line per ` +
          'aggregator (with and without the defence rubric), means over seeds, unsmoothed.',
        data: [...new Set(rows.map(withDefence))].map((agg) => {
          const rs = rows.filter((r) => withDefence(r) === agg).sort((a, b) => Number(a.step) - Number(b.step));
          return {
            type: 'scatter',
            mode: 'lines',
            name: agg,
            x: rs.map((r) => Number(r.step)),
            y: rs.map((r) => Number(r[k])),
          };
        }),
        layout: {
          title: { text: `Reward-hacking probe, joint schedule: ${k.replace('_', ' ')} over training` },
          xaxis: { title: { text: 'RL step' } },
          yaxis: { title: { text: k.replace('_', ' ') } },
        },
      });
    }
  }
  return figs;
}
