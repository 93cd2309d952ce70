// The long-horizon RLCER comparison (docs/rlcer.md, The long horizon): held-out accuracy every 20 steps over 300+
// steps, per method, as mean and 95% interval over seeds (results/rlcer/long.csv), and its figure with bands. Reads
// each run's curve.csv (the small held-out evaluation of table2-run: 8 problems per cell, 2 samples, the same problems
// for every run).
// Usage: tsx analysis/long.ts [runs/table2] [results]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { runMain } from '../src/io/args.js';
import {
  CLAIM_COLUMNS,
  CLAIM_POWER_COLUMNS,
  claimPowerRows,
  claimRows,
  interval,
  meanCi,
  withEndpoints,
} from './aggregate.js';
import { LONG_ROWS, METHODS, TABLE2_ARCHIVE } from '../src/methods/tables/table2.js';
import { mean } from '../src/util/stats.js';
import { checkSameInputs, FINAL_COLUMNS, finalTable, runScores, runsWithArchive, TABLE2_CLAIMS } from './table2.js';
import { PARITY_COLUMNS, updateParity } from './parity.js';
import { readMetrics } from '../src/io/run.js';
import type { Figure } from './figures.js';
import { band, METHOD_COLORS } from './style.js';

export const LONG_COLUMNS = ['method', 'step', 'column', 'mean', 'ci_low', 'ci_high', 'seeds'];

/**
 * Per (method, step, column) mean and 95% interval over seeds, where column is each family's accuracy and
 * `average`, the per-seed mean over the families evaluated at that step.
 */
export function longTable(curves: { method: string; seed: number; rows: Row[] }[]): Row[] {
  const perSeed = curves.flatMap((c) => {
    const steps = [...new Set(c.rows.map((r) => Number(r.step)))].sort((a, b) => a - b);
    return steps.flatMap((step) => {
      const at = c.rows.filter((r) => Number(r.step) === step);
      return [
        ...at.map((r) => ({
          method: c.method,
          seed: c.seed,
          step,
          column: String(r.family),
          value: Number(r.accuracy),
        })),
        { method: c.method, seed: c.seed, step, column: 'average', value: mean(at.map((r) => Number(r.accuracy))) },
      ];
    });
  });
  return meanCi(perSeed, ['method', 'step', 'column'], ['value'])
    .map((r) => ({
      method: r.method,
      step: r.step,
      column: r.column,
      mean: r.value_mean,
      ...interval(Number(r.value_mean), r.value_ci95),
      seeds: r.n,
    }))
    .sort(
      (a, b) =>
        String(a.method).localeCompare(String(b.method)) ||
        Number(a.step) - Number(b.step) ||
        String(a.column).localeCompare(String(b.column)),
    );
}

/**
 * The paper's curve, read from its evolving-ablation figure (quoted in docs/rlcer.md, The long horizon), for the long
 * figure's subtitle.
 */
export const PAPER_LONG = 'paper (8B, 1,500 steps): RLCER below RLVR until about step 800, then 0.52 against 0.49';

/**
 * Average held-out accuracy against RL steps, one line per method with its 95% band (no smoothing). With the final
 * evaluation's table (long_final.csv), the subtitle sets our RLCER and RLVR after the last step beside the paper's.
 */
export function longFigure(table: Row[], source = 'results/rlcer/long.csv', final: Row[] = []): Figure {
  const at = (m: string) => final.find((r) => r.method === m && r.column === 'average');
  const [rlcer, rlvr] = [at('rlcer'), at('rlvr')];
  const ours =
    rlcer && rlvr
      ? `ours after the last step: RLCER ${Number(rlcer.mean).toFixed(3)} against RLVR ` +
        `${Number(rlvr.mean).toFixed(3)} (${rlcer.seeds} seeds)`
      : '';
  const methods = [...new Set(table.map((r) => String(r.method)))];
  const data = methods.flatMap((m) => {
    const rs = table
      .filter((r) => r.method === m && r.column === 'average')
      .sort((a, b) => Number(a.step) - Number(b.step));
    const x = rs.map((r) => Number(r.step)),
      color = METHOD_COLORS[m] ?? '#333333',
      label = METHODS[m]?.label ?? m;
    const bands = rs.every((r) => r.ci_low !== '')
      ? [
          band(
            x,
            rs.map((r) => Number(r.ci_low)),
            rs.map((r) => Number(r.ci_high)),
            color,
            label,
          ),
        ]
      : [];
    return [
      ...bands,
      { type: 'scatter', mode: 'lines+markers', name: label, x, y: rs.map((r) => Number(r.mean)), line: { color } },
    ];
  });
  return {
    name: 'rlcer_long',
    data,
    table: source,
    caption:
      'Held-out accuracy (average of the four families, fixed evaluation set) every few steps over 300 RL steps; ' +
      'lines are means over seeds and bands 95% t-intervals over seeds, unsmoothed.',
    layout: {
      title: {
        text:
          'Held-out accuracy over a long horizon (size S): mean and 95% band over seeds, unsmoothed' +
          [ours, PAPER_LONG]
            .filter(Boolean)
            .map((x) => `<br><sup>${x}</sup>`)
            .join(''),
      },
      margin: { t: 130 },
      xaxis: { title: { text: 'RL step' } },
      yaxis: { title: { text: 'accuracy, average of 4 families' }, range: [0, 1] },
    },
  };
}

/** Table 2's claims between the long profile's rows (RLCER against RLVR and without evolving, the dynamics). */
export const LONG_CLAIMS = [
  ...TABLE2_CLAIMS.filter((c) => LONG_ROWS.includes(c.a) && LONG_ROWS.includes(c.b)),
  // a control, as in the regime map: the rubric reward from a fixed, good rubric source against the outcome alone
  ...withEndpoints([
    {
      claim: 'fixed teacher rubrics beat RLVR (average accuracy; a control, no paper claim)',
      a: 'fixed_teacher',
      b: 'rlvr',
      measure: 'average',
      sign: 1 as const,
    },
  ]),
].map((c) => ({ ...c, claim: `${c.claim}, after 300 steps`, a: `S|${c.a}`, b: `S|${c.b}` }));

/**
 * Runs of the long profile (runs/ and the committed archive) -> results/rlcer/long.csv, and Table 2's claims between
 * its rows on the final evaluation (24 problems per cell, 8 samples) after the last step (long_final.csv and
 * long_claims.csv, their power in long_power.csv), and each
 * role's approx. KL per update against RLVR's at the same seed (long_parity.csv, as update_parity.csv for Table 2).
 */
export function aggregateLong(root = 'runs/table2', out = 'results'): Row[] {
  const runs = runsWithArchive(root, TABLE2_ARCHIVE, 'long');
  if (runs.length === 0)
    throw new Error(
      `no finished long-profile runs under ${path.join(root, 'long')} or ${path.join(TABLE2_ARCHIVE, 'long')}`,
    );
  checkSameInputs(runs);
  const table = longTable(
    runs
      .filter((r) => fs.existsSync(path.join(r.dir, 'curve.csv')))
      .map((r) => ({ method: r.method, seed: r.seed, rows: readCsv(path.join(r.dir, 'curve.csv')) })),
  );
  writeCsv(path.join(out, 'rlcer', 'long.csv'), table, LONG_COLUMNS);
  const finals = runs
    .filter((r) => fs.existsSync(path.join(r.dir, 'final.csv')))
    .flatMap((r) => readCsv(path.join(r.dir, 'final.csv')));
  writeCsv(
    path.join(out, 'rlcer', 'long_final.csv'),
    finalTable('long', finals).sort(
      (a, b) =>
        LONG_ROWS.indexOf(String(a.method)) - LONG_ROWS.indexOf(String(b.method)) ||
        String(a.column).localeCompare(String(b.column)),
    ),
    FINAL_COLUMNS,
  );
  const scores = runScores(finals, runs);
  writeCsv(path.join(out, 'rlcer', 'long_claims.csv'), claimRows(scores, LONG_CLAIMS, 'long'), CLAIM_COLUMNS);
  writeCsv(path.join(out, 'rlcer', 'long_power.csv'), claimPowerRows(scores, LONG_CLAIMS, 'long'), CLAIM_POWER_COLUMNS);
  writeCsv(
    path.join(out, 'rlcer', 'long_parity.csv'),
    updateParity(runs.map((r) => ({ ...r, metrics: readMetrics(r.dir) }))),
    PARITY_COLUMNS,
  );
  console.log(`long profile: ${runs.length} runs -> ${path.join(out, 'rlcer', 'long.csv')}`);
  return table;
}

if (process.argv[1]?.endsWith('long.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => {
    aggregateLong(process.argv[2], process.argv[3]);
  });
}
