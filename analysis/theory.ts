// `make theory`, step 2: aggregate the theory runs into tidy tables under results/theory/.
// Exact tables are copied from the ODE run; seed tables get mean and 95% CI over seeds; checks.csv
// summarises the properties the theory predicts, as measured on the tables.
// Usage: tsx analysis/theory.ts [runs/theory] [results/theory]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { meanCi } from './aggregate.js';
import { runMain } from '../src/io/args.js';

export const EXACT_TABLES = [
  'self_reward_field',
  'saddle_eigenvalues',
  'worked_example',
  'phase_field',
  'phase_invariant',
  'phase_trajectories',
  'basin_grid',
  'conservation',
];

function seedDirs(runs: string): string[] {
  const dirs = fs
    .readdirSync(runs)
    .filter((d) => /^seed-\d+$/.test(d))
    .map((d) => path.join(runs, d));
  const done = dirs.filter((d) => fs.existsSync(path.join(d, 'done.json')));
  for (const d of dirs) if (!done.includes(d)) console.warn(`skipping ${d}: the run did not finish (no done.json)`);
  if (done.length === 0) throw new Error(`no finished seed runs under ${runs}; run tsx src/cli/theory.ts first`);
  return done;
}

/** Measured checks of the theory's claims, one row per check and K. */
export function theoryChecks(t: Record<string, Row[]>): Row[] {
  const rows: Row[] = [];
  const Ks = [...new Set(t.saddle_eigenvalues.map((r) => Number(r.K)))];
  for (const K of Ks) {
    const eig = t.saddle_eigenvalues.filter((r) => r.K === K);
    rows.push({
      K,
      check: 'saddle eigenvalues: max |numeric - closed form|',
      value: Math.max(...eig.map((r) => Math.abs(Number(r.numeric) - Number(r.closed_form)))),
    });
    for (const method of ['co_training', 'self_reward']) {
      const grid = t.basin_grid.filter((r) => r.K === K && r.method === method && r.near_separatrix === 'false');
      const ok = grid.filter(
        (r) =>
          Math.abs(Number(r.final_pA) - Number(r.predicted_pA)) < 1e-3 &&
          Math.abs(Number(r.final_pB) - Number(r.predicted_pB)) < 1e-3,
      );
      rows.push({
        K,
        check: `${method}: share of grid starts ending at the predicted sink`,
        value: ok.length / grid.length,
      });
    }
    const cons = t.conservation.filter((r) => r.K === K);
    rows.push({
      K,
      check: 'max |drift of F_K(pA) - F_K(pB)| along trajectories',
      value: Math.max(...cons.map((r) => Math.abs(Number(r.drift)))),
    });
    rows.push({
      K,
      check: 'max |pA + pB - 1| starting on the separatrix',
      value: Math.max(...cons.filter((r) => r.start === 'separatrix').map((r) => Math.abs(Number(r.sum) - 1))),
    });
    for (const r of t.worked_example.filter((r) => r.K === K))
      rows.push({ K, check: `worked example final accuracy, ${r.method}`, value: Number(r.final_accuracy) });
  }
  return rows;
}

export function aggregateTheory(runs: string, out: string): void {
  const exact: Record<string, Row[]> = {};
  for (const name of EXACT_TABLES) {
    exact[name] = readCsv(path.join(runs, 'ode', `${name}.csv`));
    writeCsv(path.join(out, `${name}.csv`), exact[name]);
  }
  writeCsv(path.join(out, 'checks.csv'), theoryChecks(exact));
  const seeds = seedDirs(runs);
  const gather = (name: string) => seeds.flatMap((d) => readCsv(path.join(d, `${name}.csv`)));
  writeCsv(
    path.join(out, 'stochastic_basin.csv'),
    meanCi(
      gather('stochastic_basin'),
      ['K', 'offset', 'pA0', 'pB0', 'theory_limit', 'ode_final_accuracy'],
      ['stochastic_share_correct', 'stochastic_final_accuracy'],
    ),
  );
  writeCsv(
    path.join(out, 'stochastic_paths.csv'),
    meanCi(gather('stochastic_paths'), ['K', 'offset', 'step', 't', 'ode_accuracy'], ['stochastic_accuracy']),
  );
  writeCsv(
    path.join(out, 'error_overlap.csv'),
    meanCi(
      gather('error_overlap'),
      ['base_logit', 'rho'],
      [
        'kappa',
        'complementarity',
        'wrong_agreement',
        'oracle',
        'initial_accuracy',
        'final_self_reward',
        'final_co_training',
        'predicted_self_reward',
        'predicted_co_training',
      ],
    ),
  );
  console.log(`theory tables -> ${out} (${seeds.length} seeds)`);
}

if (process.argv[1]?.endsWith('theory.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateTheory(process.argv[2] ?? 'runs/theory', process.argv[3] ?? 'results/theory'));
}
