// `make reproduce-corl`: every (method, agent group, seed) run of a profile as its own process, two at a time,
// finished runs kept; then the tidy Table 1 analogue, the error-overlap table and the theory-vs-experiment table.
// An archived profile (full) copies each run's record (config, metrics, tables, samples; not the agents' weights)
// to results/runs/corl/<profile>/<method>/<agents>/seed-<n> when it finishes, and counts a run whose record is there
// as finished; --archive no runs everything afresh in runs/ and archives nothing.
// Usage: tsx src/cli/corl.ts [--profile quick|full|table8] [--jobs 2] [--methods a,b] [--available yes] [--archive no]
//   [--executor local|slurm] [--sbatch-args "..."] [--concurrency K] [--poll-seconds 30] [--squeue-patience 600]
//   (the executor options: src/cli/executor.ts; local is the job pool as before)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { ConfigError, RunFailure } from '../util/validate.js';
import { campaignRoot, EXECUTOR_FLAGS, executorName, runCampaign } from './executor.js';
import { agentCheckpoint, CORL_ARCHIVE, corlMethodSpec, corlProfile, profileGroups } from '../methods/tables/table1.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    profile: { help: 'quick, full or table8', default: 'quick' },
    jobs: { help: 'parallel processes', default: '2' },
    methods: "comma-separated method ids (default: the profile's)",
    available: '"yes": run the agent groups whose cold starts exist, skip the others',
    archive: '"no" to ignore and not write the committed run archive',
    ...EXECUTOR_FLAGS,
  });
  executorName(a);
  const name = a.profile,
    profile = corlProfile(name),
    jobs = intArg('jobs', a.jobs, 1);
  const own = profileGroups(name);
  const methods = a.methods ? a.methods.split(',') : Object.keys(own);
  methods.forEach(corlMethodSpec);
  let groups = methods.flatMap((m) => (own[m] ?? []).map((agents) => ({ method: m, agents })));
  if (!groups.length) throw new ConfigError(`profile ${name} trains none of ${methods.join(', ')}`);
  const missing = [...new Set(groups.flatMap((g) => g.agents))].filter((n) => !fs.existsSync(agentCheckpoint(n)));
  if (missing.length && a.available !== 'yes')
    throw new ConfigError(
      `missing cold starts for ${missing.join(', ')}: run "make corl-agents" (or pass --available yes)`,
    );
  if (missing.length) {
    const skipped = groups.filter((g) => g.agents.some((n) => missing.includes(n)));
    console.log(
      `[corl] no cold start for ${missing.join(', ')}: skipping ${skipped.map((g) => `${g.method} ${g.agents.join('+')}`).join(', ')}`,
    );
    groups = groups.filter((g) => !skipped.includes(g));
    if (!groups.length) throw new ConfigError('no agent group has all its cold starts');
  }
  const archived = profile.archived && a.archive !== 'no';
  const rel = (g: { method: string; agents: string[] }, seed: number) =>
    path.join(g.method, g.agents.join('+'), `seed-${seed}`);
  const queue = profile.seeds.flatMap((seed) =>
    groups.map((g) => ({
      ...g,
      seed,
      dir: path.join('runs/corl', name, rel(g, seed)),
      archive: archived ? path.join(CORL_ARCHIVE, name, rel(g, seed)) : undefined,
    })),
  );
  const root = campaignRoot(
    'corl',
    name,
    a.methods,
    a.available === 'yes' ? 'available' : undefined,
    a.archive === 'no' ? 'unarchived' : undefined,
  );
  const failed = await runCampaign(
    'corl',
    queue.map((j) => ({
      label: `${j.method} ${j.agents.join('+')} seed ${j.seed}`,
      dir: j.dir,
      archive: j.archive,
      method: j.method,
      seed: j.seed,
      args: [
        'src/cli/corl-run.ts',
        '--method',
        j.method,
        '--agents',
        j.agents.join(','),
        '--seed',
        String(j.seed),
        '--steps',
        String(profile.steps),
        '--out',
        j.dir,
        '--eval-problems',
        String(profile.evalPerCell),
        '--eval-samples',
        String(profile.evalSamples),
        '--theory-samples',
        String(profile.theorySamples),
      ],
    })),
    a,
    { parallel: jobs, root },
  );
  if (failed) throw new RunFailure(`${failed} runs failed; rerun to retry them (finished runs are kept)`);
});
