// `make reproduce-rubicon`: every run of RUBICON_RUNS x seeds as its own process, two at a time, finished runs kept;
// then the tidy table and the hacking curves (analysis/rubicon.ts).
// Usage: tsx src/cli/rubicon.ts [--profile quick|full] [--jobs 2]
import { intArg, parseArgs, runMain } from './args.js';
import { ConfigError, RunFailure } from '../io/validate.js';
import { runJobs } from '../io/jobs.js';
import { RUBICON_PROFILES, RUBICON_RUNS } from '../methods/rubicon-train.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), { profile: 'quick (default) or full', jobs: 'parallel processes (default 2)' });
  const name = a.profile ?? 'quick', profile = RUBICON_PROFILES[name], jobs = intArg('jobs', a.jobs ?? '2', 1);
  if (!profile) throw new ConfigError(`unknown profile "${name}" (known: ${Object.keys(RUBICON_PROFILES).join(', ')})`);
  const evalArgs = ['--eval-problems', String(profile.evalPerCell), '--eval-samples', String(profile.evalSamples)];
  // per seed: the untrained cold start (the `base` row, zero steps), then every run
  const base = profile.seeds.map((seed) => ({ label: `base seed ${seed}`, dir: `runs/rubicon/${name}/none/base/seed-${seed}`,
    args: ['src/cli/rubicon-run.ts', '--steps', '0', '--seed', String(seed), ...evalArgs, '--out', `runs/rubicon/${name}/none/base/seed-${seed}`] }));
  const queue = profile.seeds.flatMap((seed) => RUBICON_RUNS.map((r) => ({ ...r, seed, dir: `runs/rubicon/${name}/${r.aggregator}/${r.schedule}${r.filter ? '-filtered' : ''}/seed-${seed}` })));
  const failed = await runJobs('rubicon', [...base, ...queue.map((j) => ({ label: `${j.aggregator} ${j.schedule}${j.filter ? ' filtered' : ''} seed ${j.seed}`, dir: j.dir,
    args: ['src/cli/rubicon-run.ts', '--aggregator', j.aggregator, '--schedule', j.schedule, '--filter', j.filter ? 'yes' : 'no', '--seed', String(j.seed),
      '--steps', String(profile.steps), ...evalArgs, '--out', j.dir] }))], jobs);
  if (failed) throw new RunFailure(`${failed} runs failed; rerun to retry them (finished runs are kept)`);
});
