// `make reproduce-rubicon`: every run of RUBICON_RUNS x seeds as its own process, two at a time, finished runs kept;
// then the tidy table and the hacking curves (analysis/rubicon.ts). An archived profile (full) copies each finished
// run's record (config, metrics, tables; no weights, no log) to results/runs/rubicon/<profile>/..., the same
// relative place as under runs/rubicon/<profile>/, and counts a run whose record is there as finished;
// --archive no runs everything afresh in runs/ and archives nothing.
// Usage: tsx src/cli/rubicon.ts [--profile quick|full] [--jobs 2] [--archive no] [--executor local|slurm]
//   [--sbatch-args "..."] [--concurrency K] [--poll-seconds 30] [--squeue-patience 600]
//   (the executor options: src/cli/executor.ts; local is the job pool as before)
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { ConfigError, RunFailure } from '../util/validate.js';
import type { Job } from '../io/jobs.js';
import { campaignRoot, EXECUTOR_FLAGS, executorName, runCampaign } from './executor.js';
import { RUBICON_ARCHIVE, RUBICON_PROFILES, RUBICON_RUNS, rubiconRunDir } from '../methods/trainers/rubicon-train.js';

/** The jobs of a profile: per seed and task pair the untrained cold start (the `base` row), then every run. */
export function rubiconJobs(name: string, archived: boolean): Job[] {
  const profile = RUBICON_PROFILES[name];
  if (!profile) throw new ConfigError(`unknown profile "${name}" (known: ${Object.keys(RUBICON_PROFILES).join(', ')})`);
  const evalArgs = ['--eval-problems', String(profile.evalPerCell), '--eval-samples', String(profile.evalSamples)];
  const job = (label: string, rel: string, args: string[]): Job => ({
    label,
    dir: path.join('runs/rubicon', name, rel),
    archive: archived ? path.join(RUBICON_ARCHIVE, name, rel) : undefined,
    args: ['src/cli/rubicon-run.ts', ...args, ...evalArgs, '--out', path.join('runs/rubicon', name, rel)],
  });
  const pairs = [...new Set(RUBICON_RUNS.map((r) => r.tasks))];
  const base = profile.seeds.flatMap((seed) =>
    pairs.map((tasks) =>
      job(`${tasks} base seed ${seed}`, `${tasks}/none/base/seed-${seed}`, [
        '--steps',
        '0',
        '--tasks',
        tasks,
        '--seed',
        String(seed),
      ]),
    ),
  );
  const runs = profile.seeds.flatMap((seed) =>
    RUBICON_RUNS.map((r) =>
      job(
        `${r.tasks} ${r.aggregator} ${r.schedule}${r.filter ? ' filtered' : ''} defence ${r.defence} seed ${seed}`,
        rubiconRunDir(r, seed),
        [
          '--aggregator',
          r.aggregator,
          '--schedule',
          r.schedule,
          '--filter',
          r.filter ? 'yes' : 'no',
          '--defence',
          r.defence,
          '--tasks',
          r.tasks,
          '--seed',
          String(seed),
          '--steps',
          String(profile.steps),
        ],
      ),
    ),
  );
  return [...base, ...runs];
}

if (process.argv[1]?.endsWith('rubicon.ts') && process.argv[1].includes('cli')) {
  runMain(async () => {
    const a = parseArgs(process.argv.slice(2), {
      profile: { help: 'quick or full', default: 'quick' },
      jobs: { help: 'parallel processes', default: '2' },
      archive: '"no" to ignore and not write the committed run archive',
      ...EXECUTOR_FLAGS,
    });
    executorName(a);
    const name = a.profile,
      jobs = intArg('jobs', a.jobs, 1);
    const archived = (RUBICON_PROFILES[name]?.archived ?? false) && a.archive !== 'no';
    const root = campaignRoot('rubicon', name, a.archive === 'no' ? 'unarchived' : undefined);
    const failed = await runCampaign('rubicon', rubiconJobs(name, archived), a, { parallel: jobs, root });
    if (failed) throw new RunFailure(`${failed} runs failed; rerun to retry them (finished runs are kept)`);
  });
}
