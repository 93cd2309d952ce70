// Sweeps from a config (src/io/sweep.ts): an indexed list of runs, executed locally or as a Slurm job array.
// Usage: tsx src/cli/sweep.ts <list|run|status|submit|table> [options]   (--help; <subcommand> --help)
//   list    --config F [--root DIR]                      the runs, one line each: index, state, label
//   run     --config F --index i | --sweep DIR --index i one entry (what each array task runs); skipped when finished
//                                                         or locked by a live process or Slurm task
//   status  --config F [--root DIR] [--executor local|slurm]   counts per state, and the failed runs (with sacct's
//                                                         final state where sacct exists)
//   submit  --config F [--root DIR] --executor local|slurm [--jobs 2] [--concurrency K] [--sbatch-args "..."]
//           [--wait yes] [--poll-seconds 30] [--squeue-patience 600]
//                                                         runs (local) or submits (slurm) only what is unfinished
//   table   --config F [--root DIR] --out DIR             table.csv, claims.csv, power.csv and pooled.csv from the
//                                                         run records (the last three with comparisons)
// The executor options are src/cli/executor.ts's (the same in every campaign CLI).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, parseCommand, runMain, type Command } from './args.js';
import { ConfigError, RunFailure } from '../io/validate.js';
import { loadJsonConfig } from '../io/run.js';
import { writeCsv } from '../io/table.js';
import { EXECUTOR_FLAGS, slurmOptions, type ExecutorArgs } from './executor.js';
import {
  aggregateSweep,
  CLAIM_COLUMNS,
  expandSweep,
  POOLED_COLUMNS_SWEEP,
  POWER_COLUMNS_SWEEP,
  localExecutor,
  makeExecutor,
  runIndex,
  sweepDir,
  TABLE_COLUMNS,
  writeSpecs,
  type Executor,
  type SweepConfig,
} from '../io/sweep.js';

const CONFIG = { config: 'sweep config (JSON)', root: "run directory root (default: the config's)" },
  JOBS = { jobs: { help: 'local: parallel processes', default: '2' } };

/** The subcommands and their flags (the executor options are src/cli/executor.ts's). */
const COMMANDS = {
  list: { help: 'the runs, one line each: index, state, label', flags: CONFIG },
  run: {
    help:
      'one entry (what each array task runs): --config F --index i, or --sweep DIR --index i; skipped when ' +
      'finished or locked by a live process or Slurm task',
    flags: { ...CONFIG, sweep: "a submitted sweep's directory (<root>/sweep)", index: 'entry to run' },
  },
  status: {
    help: "counts per state, and the failed runs (with sacct's final state where sacct exists)",
    flags: { ...CONFIG, ...EXECUTOR_FLAGS },
  },
  submit: {
    help: 'runs (local) or submits (slurm) only what is unfinished',
    flags: {
      ...CONFIG,
      ...EXECUTOR_FLAGS,
      ...JOBS,
      wait: '"yes" (slurm): wait until nothing is queued or running',
    },
  },
  table: {
    help: 'table.csv, claims.csv, power.csv and pooled.csv from the run records (the last three with comparisons)',
    flags: { ...CONFIG, out: 'output directory' },
  },
} satisfies Record<string, Command>;

function loadSweep(a: { config?: string; root?: string }): SweepConfig {
  if (!a.config) throw new ConfigError('--config is required');
  // untyped JSON until expandSweep checks it (checkSweepConfig in io/sweep.ts names the first bad field)
  const c = loadJsonConfig(a.config) as unknown as SweepConfig;
  return a.root ? { ...c, root: a.root } : c;
}

function executorFor(a: ExecutorArgs & { jobs?: string }): Executor {
  const name = a.executor ?? EXECUTOR_FLAGS.executor.default;
  return makeExecutor(name, {
    jobs: intArg('jobs', a.jobs ?? JOBS.jobs.default, 1),
    ...(name === 'slurm' ? slurmOptions(a) : {}),
  });
}

runMain(async () => {
  const { cmd, a } = parseCommand(process.argv.slice(2), COMMANDS);
  if (cmd === 'run') {
    if (a.index === undefined) throw new ConfigError('run needs --index');
    let dir = a.sweep;
    if (!dir) {
      const c = loadSweep(a);
      writeSpecs(c.root, expandSweep(c));
      dir = sweepDir(c.root);
    }
    const code = await runIndex(dir, intArg('index', a.index, 0));
    if (code !== 0) throw new RunFailure(`run ${a.index} failed (exit ${code})`);
    return;
  }
  const c = loadSweep(a),
    specs = expandSweep(c);
  if (cmd === 'list') {
    const st = localExecutor().status(c.root, specs);
    for (const s of specs) console.log(`${String(s.index).padStart(4)}  ${st[s.index].padEnd(7)}  ${s.label}`);
    console.log(`${specs.length} runs`);
  } else if (cmd === 'status') {
    const ex = executorFor(a),
      st = ex.status(c.root, specs),
      final = ex.finalStates?.(c.root) ?? null;
    const counts = Object.entries(
      st.reduce<Record<string, number>>((m, s) => {
        m[s] = (m[s] ?? 0) + 1;
        return m;
      }, {}),
    );
    console.log(`[sweep ${c.name}] ${specs.length} runs: ${counts.map(([k, v]) => `${v} ${k}`).join(', ')}`);
    for (const s of specs)
      if (st[s.index] === 'failed') {
        const log = fs.existsSync(path.join(s.dir, 'log.txt'))
          ? path.join(s.dir, 'log.txt')
          : path.join(sweepDir(c.root), 'logs');
        const slurm = final?.get(s.index);
        console.log(`  failed ${s.index}: ${s.label} (${slurm ? `sacct: ${slurm}; ` : ''}log: ${log})`);
      }
    if (st.includes('unknown'))
      console.log('  unknown: squeue gave no answer; these runs may still be queued or running (ask again later)');
  } else if (cmd === 'submit') {
    const ex = executorFor(a);
    await ex.submit(c.root, specs);
    if (a.wait === 'yes' || ex.name === 'local') {
      await ex.wait(c.root);
      const st = ex.status(c.root, specs),
        failed = st.filter((s) => s !== 'done').length,
        unknown = st.filter((s) => s === 'unknown').length;
      const why = unknown ? ` (${unknown} unknown: squeue gave no answer, they are not resubmitted)` : '';
      if (failed)
        throw new RunFailure(`${failed} of ${specs.length} runs unfinished${why}; submit again to retry only those`);
      console.log(`[sweep ${c.name}] all ${specs.length} runs finished`);
    }
  } else if (cmd === 'table') {
    if (!a.out) throw new ConfigError('table needs --out');
    const { table, claims, power, pooled } = aggregateSweep(c, specs);
    const sized = c.sizes.length > 1,
      cols = (xs: string[]) => (sized ? [...xs.slice(0, 2), 'size', ...xs.slice(2)] : xs);
    writeCsv(path.join(a.out, 'table.csv'), table, cols(TABLE_COLUMNS));
    if (c.comparisons?.length) {
      writeCsv(path.join(a.out, 'claims.csv'), claims, cols(CLAIM_COLUMNS));
      // each claim's power (same per-seed differences), and each comparison pooled across its distinct cells
      writeCsv(path.join(a.out, 'power.csv'), power, cols(POWER_COLUMNS_SWEEP));
      const pooledColumns = sized ? ['size', ...POOLED_COLUMNS_SWEEP] : POOLED_COLUMNS_SWEEP;
      writeCsv(path.join(a.out, 'pooled.csv'), pooled, pooledColumns);
    }
    console.log(`[sweep ${c.name}] ${table.length} table rows, ${claims.length} claims -> ${a.out}`);
  }
});
