// Sweeps from a config (src/io/sweep.ts): an indexed list of runs, executed locally or as a Slurm job array. Every run
// of a sweep is built and checked (methods, flags, option names, value types and ranges: src/cli/run-checks.ts)
// before list, submit or run starts anything; a bad sweep is refused in one line naming every bad run.
// A researcher's own comparison, from a JSON file or from the command line (init): docs/experiments.md.
// Usage: tsx src/cli/sweep.ts <init|list|run|status|submit|table> [options]   (--help; <subcommand> --help)
//   init    --name N --methods a,b [--seeds 0,1] [--profile quick] [--knob option=v1,v2;option2=v] [--overrides JSON]
//           [--compare a-b:column,...] --out F                  the sweep these flags describe, checked, written to F
//   list    --config F [--root DIR]                      the runs, one line each: index, state, label
//   run     --config F --index i | --sweep DIR --index i one entry (what each array task runs); skipped when finished
//                                                         or locked by a live process or Slurm task
//   status  --config F [--root DIR] [--executor local|slurm]   counts per state, and the failed runs (with sacct's
//                                                         final state where sacct exists)
//   submit  --config F [--root DIR] --executor local|slurm [--jobs 2] [--concurrency K] [--sbatch-args "..."]
//           [--wait yes] [--poll-seconds 30] [--squeue-patience 600]
//                                                         runs (local) or submits (slurm) only what is unfinished
//   table   --config F [--root DIR] --out DIR             table.csv, claims.csv, power.csv and pooled.csv from the
//                                                         run records (the last three with comparisons), and a
//                                                         README.md that says what each holds and what the verdicts mean
// The executor options are src/cli/executor.ts's (the same in every campaign CLI).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOW_DIRTY_HELP, allowDirtyIf, intArg, intListArg, parseCommand, runMain, type Command } from '../io/args.js';
import { ConfigError, RunFailure } from '../util/validate.js';
import { loadJsonConfig, refuseDirtyTree } from '../io/run.js';
import { writeCsv, writeFileAtomic } from '../io/table.js';
import { didYouMean } from '../util/names.js';
import { EXECUTOR_FLAGS, poolWorker, slurmOptions, type ExecutorArgs } from './executor.js';
import { checkRuns, methodsOf } from './run-checks.js';
import {
  aggregateSweep,
  CLAIM_COLUMNS,
  POOLED_COLUMNS_SWEEP,
  POWER_COLUMNS_SWEEP,
  TABLE_COLUMNS,
} from '../io/sweep-aggregate.js';
import {
  completeSweep,
  defaultCommand,
  expandSweep,
  readSpecs,
  sweepDir,
  writeSpecs,
  type Comparison,
  type Knob,
  type RunSpec,
  type SweepConfig,
  type SweepFile,
} from '../io/sweep.js';
import { localExecutor, makeExecutor, runIndex, type Executor } from '../io/executors.js';

const CONFIG = {
    config: 'sweep config (JSON; docs/experiments.md)',
    root: "run directory root (default: the config's)",
  },
  JOBS = { jobs: { help: 'local: parallel processes', default: '2' } };

/** The subcommands and their flags (the executor options are src/cli/executor.ts's). */
const COMMANDS = {
  init: {
    help: 'write the sweep these flags describe to --out, after checking every run (docs/experiments.md)',
    flags: {
      name: "the sweep's name (letters, digits, _ . -); its runs go to runs/sweeps/<name>",
      methods: 'comma-separated method ids (docs/options.md, Methods)',
      seeds: { help: 'comma-separated seeds', default: '0,1' },
      sizes: { help: 'comma-separated sizes', default: 'S' },
      profile: { help: 'the Table 2 profile of every run (docs/options.md, Profiles)', default: 'quick' },
      knob:
        'options moved one at a time, each "option=level,level" (levels besides the default; ";" between knobs), ' +
        'e.g. "threshold=0.4" or "world.labelNoise=0.1,0.25"; each reaches the methods that have the option',
      overrides: 'JSON: per method, options every run of it takes, e.g. \'{"rlcer": {"prompts": 8}}\'',
      compare:
        'comma-separated comparisons "a-b" or "a-b:column" (default: every other method minus the first, on average)',
      'min-seeds': 'fewest seeds a claim needs for a verdict other than unclear (default 2)',
      root: 'run directory root (default runs/sweeps/<name>)',
      out: 'where to write the sweep config (JSON)',
    },
  },
  list: { help: 'the runs, one line each: index, state, label (every run checked first)', flags: CONFIG },
  run: {
    help:
      'one entry (what each array task runs): --config F --index i, or --sweep DIR --index i; skipped when ' +
      'finished or locked by a live process or Slurm task',
    flags: {
      ...CONFIG,
      sweep: "a submitted sweep's directory (<root>/sweep)",
      index: 'entry to run',
      'allow-dirty': ALLOW_DIRTY_HELP,
    },
  },
  status: {
    help: "counts per state, and the failed runs (with sacct's final state where sacct exists)",
    flags: { ...CONFIG, ...EXECUTOR_FLAGS },
  },
  submit: {
    help: 'runs (local) or submits (slurm) only what is unfinished (every run checked first)',
    flags: {
      ...CONFIG,
      ...EXECUTOR_FLAGS,
      ...JOBS,
      wait: '"yes" (slurm): wait until nothing is queued or running',
      'allow-dirty': ALLOW_DIRTY_HELP,
    },
  },
  table: {
    help:
      'table.csv, claims.csv, power.csv and pooled.csv from the run records (the last three with comparisons), and ' +
      'a README.md saying what each holds and what its verdicts mean',
    flags: { ...CONFIG, out: 'output directory' },
  },
} satisfies Record<string, Command>;

/** The script of a sweep's runs (its command's first word, or the default command's). */
const scriptOf = (f: SweepFile) => (Array.isArray(f.command) ? String(f.command[0]) : defaultCommand()[0]);

/**
 * Every method of a sweep known to its runs' CLI, before anything else is read of the sweep (a typo in `methods` is
 * named as such, not as a comparison's method missing from the sweep): one error naming every unknown method.
 */
function checkMethodNames(f: SweepFile): void {
  const known = methodsOf(scriptOf(f));
  if (!known || !Array.isArray(f.methods)) return;
  const bad = f.methods.filter((m) => !known.includes(m));
  if (bad.length)
    throw new ConfigError(
      `sweep ${f.name}: ${bad.map((m) => `unknown method "${m}"${didYouMean(m, known)}`).join('; ')} ` +
        '(docs/options.md lists the methods)',
    );
}

/** A sweep file, its methods checked, completed (src/io/sweep.ts) and expanded into its runs. */
function loadSweep(a: { config?: string; root?: string }): { c: SweepConfig; specs: RunSpec[] } {
  if (!a.config) throw new ConfigError('--config is required');
  const f = loadJsonConfig(a.config) as unknown as SweepFile;
  checkMethodNames(f);
  const c = completeSweep(a.root ? { ...f, root: a.root } : f);
  return { c, specs: expandSweep(c) };
}

function executorFor(a: ExecutorArgs & { jobs?: string }): Executor {
  const name = a.executor ?? EXECUTOR_FLAGS.executor.default;
  return makeExecutor(name, {
    jobs: intArg('jobs', a.jobs ?? JOBS.jobs.default, 1),
    worker: poolWorker(a),
    ...(name === 'slurm' ? slurmOptions(a) : {}),
  });
}

/** A knob level's value as typed: JSON where it parses (0.4, true, null, [1, 2]), else the text itself. */
function levelValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `{"a": {"b": v}}` from "a.b" and v. */
const nested = (option: string, v: unknown): Record<string, unknown> =>
  option
    .split('.')
    .reverse()
    .reduce<unknown>((inner, k) => ({ [k]: inner }), v) as Record<string, unknown>;

/**
 * The knobs of init's --knob: each "option=level,level" reaches the methods whose config has the option (the cold
 * start's row only where the option is a world setting); its default level is named by the option's default value.
 */
async function knobsOf(text: string, methods: string[]): Promise<Knob[]> {
  const { methodConfig, optionAt, optionPaths } = await import('./table2-plan.js');
  const configs = new Map(methods.map((m) => [m, methodConfig(m)]));
  return text
    .split(';')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => {
      const eq = k.indexOf('=');
      if (eq <= 0 || eq === k.length - 1)
        throw new ConfigError(`--knob "${k}" must be "option=level,level" (e.g. "threshold=0.4")`);
      const option = k.slice(0, eq).trim(),
        levels = k
          .slice(eq + 1)
          .split(',')
          .map((l) => l.trim());
      const reached = methods.filter((m) => {
        const { config, trains } = configs.get(m)!;
        return optionAt(config, option) !== undefined && (trains || option.startsWith('world.'));
      });
      if (!reached.length) {
        const all = [...new Set([...configs.values()].flatMap(({ config }) => optionPaths(config)))];
        throw new ConfigError(
          `--knob: no method of the sweep (${methods.join(', ')}) has option "${option}"${didYouMean(option, all)} ` +
            '(docs/options.md lists every option)',
        );
      }
      const defaults = new Set(reached.map((m) => JSON.stringify(optionAt(configs.get(m)!.config, option))));
      const dflt = defaults.size === 1 ? String(levelValue([...defaults][0])) : 'default';
      if (levels.includes(dflt))
        throw new ConfigError(
          `--knob ${option}: "${dflt}" is the default (the baseline's level); give the other levels only`,
        );
      return {
        name: option,
        default: dflt,
        ...(reached.length < methods.length ? { methods: reached } : {}),
        levels: levels.map((l) => ({ level: l, overrides: nested(option, levelValue(l)) })),
      };
    });
}

/** init's --compare: "a-b[:column]" each (default: every other method minus the first, on average). */
function comparisonsOf(text: string | undefined, methods: string[]): Comparison[] {
  const pairs = text
    ? text
        .split(',')
        .map((t) => t.trim())
        .map((t) => {
          const m = /^([A-Za-z0-9_]+)-([A-Za-z0-9_]+)(?::([A-Za-z0-9_]+))?$/.exec(t);
          if (!m) throw new ConfigError(`--compare "${t}" must be "a-b" or "a-b:column" (e.g. "rlcer-rlvr:average")`);
          return { a: m[1], b: m[2], column: m[3] ?? 'average' };
        })
    : methods.slice(1).map((a) => ({ a, b: methods[0], column: 'average' }));
  return pairs.map((p) => ({
    claim: `${p.a}_minus_${p.b}${p.column === 'average' ? '' : `_${p.column}`}`,
    ...p,
  }));
}

/** What `table` writes beside the tables: what each file holds and what its verdicts mean (docs/verdicts.md). */
function tablesReadme(c: SweepConfig, config: string, out: string): string {
  const verdicts = path.relative(out, 'docs/verdicts.md').split(path.sep).join('/');
  const min = c.minSeeds ?? 2;
  return [
    `# Sweep ${c.name}: its tables`,
    '',
    `Written by \`tsx src/cli/sweep.ts table --config ${config} --out <this folder>\` from the run records; the ` +
      'sweep config and every field of it: docs/experiments.md.',
    '',
    "- `table.csv`: per knob, level, method and column of the runs' `final.csv`, the mean over seeds, its 95% " +
      "t-interval (`ci_low`, `ci_high`) and the number of seeds. The baseline's runs stand under every knob's " +
      'default level (knob `none` in a sweep without knobs).',
    ...(c.comparisons?.length
      ? [
          '- `claims.csv`: per knob and level, each comparison `a - b` (`claim`, on `endpoint`) as the mean paired ' +
            'difference over seeds (`delta`), its 95% t-interval and its `verdict`.',
          "- `power.csv`: the same comparisons' power: the smallest difference their seeds detect (`mde`) and the " +
            'power at a difference of 0.03.',
          '- `pooled.csv`: each comparison over its distinct cells: a sign test and a random-effects mean.',
          '',
          `Verdicts: \`helps\` when the 95% interval of a - b lies above 0, \`hurts\` when it lies below 0, ` +
            `\`unclear\` when it covers 0 or fewer than ${min} seeds are paired. The same words in every table: ` +
            `[verdicts](${verdicts}).`,
        ]
      : []),
    '',
  ].join('\n');
}

runMain(async () => {
  const { cmd, a } = parseCommand(process.argv.slice(2), COMMANDS);
  if (cmd === 'init') {
    if (!a.name) throw new ConfigError('init needs --name');
    if (!a.methods) throw new ConfigError('init needs --methods');
    if (!a.out) throw new ConfigError('init needs --out (the sweep config to write)');
    const methods = a.methods.split(',').map((m) => m.trim());
    let overrides: SweepFile['overrides'];
    if (a.overrides) {
      try {
        overrides = JSON.parse(a.overrides);
      } catch (e) {
        throw new ConfigError(`--overrides is not valid JSON: ${(e as Error).message}`);
      }
    }
    const f: SweepFile = {
      name: a.name,
      ...(a.root ? { root: a.root } : {}),
      profile: a.profile,
      methods,
      seeds: intListArg('seeds', a.seeds, 0),
      sizes: a.sizes.split(',').map((s) => s.trim()),
      ...(a['min-seeds'] ? { minSeeds: intArg('min-seeds', a['min-seeds'], 1) } : {}),
      ...(overrides ? { overrides } : {}),
    };
    checkMethodNames(f);
    f.knobs = a.knob ? await knobsOf(a.knob, methods) : [];
    if (!f.knobs.length) delete f.knobs;
    const comparisons = comparisonsOf(a.compare, methods);
    if (comparisons.length) f.comparisons = comparisons;
    const specs = expandSweep(f);
    await checkRuns(specs, `sweep ${f.name}`);
    fs.mkdirSync(path.dirname(path.resolve(a.out)), { recursive: true });
    writeFileAtomic(a.out, JSON.stringify(f, null, 1) + '\n');
    console.log(`[sweep ${f.name}] ${specs.length} runs, every one checked -> ${a.out}`);
    return;
  }
  if (cmd === 'run') {
    if (a.index === undefined) throw new ConfigError('run needs --index');
    allowDirtyIf(a['allow-dirty']);
    const index = intArg('index', a.index, 0);
    let dir = a.sweep;
    if (dir) {
      const spec = readSpecs(dir)[index];
      if (spec) await checkRuns([spec], `sweep entry ${index}`);
      refuseDirtyTree(spec?.archive);
    } else {
      const { c, specs } = loadSweep(a);
      if (specs[index]) await checkRuns([specs[index]], `sweep ${c.name}`);
      refuseDirtyTree(specs[index]?.archive);
      writeSpecs(c.root, specs);
      dir = sweepDir(c.root);
    }
    const code = await runIndex(dir, index);
    if (code !== 0) throw new RunFailure(`run ${a.index} failed (exit ${code})`);
    return;
  }
  const { c, specs } = loadSweep(a);
  if (cmd === 'list') {
    await checkRuns(specs, `sweep ${c.name}`);
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
    allowDirtyIf(a['allow-dirty']);
    const ex = executorFor(a);
    await checkRuns(specs, `sweep ${c.name}`);
    refuseDirtyTree(specs.find((s) => s.archive)?.archive);
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
    writeFileAtomic(path.join(a.out, 'README.md'), tablesReadme(c, a.config ?? '', a.out));
    console.log(`[sweep ${c.name}] ${table.length} table rows, ${claims.length} claims -> ${a.out}`);
    if (c.comparisons?.length)
      console.log('  verdicts: helps / hurts (the 95% interval above / below 0), unclear (docs/verdicts.md)');
  }
});
