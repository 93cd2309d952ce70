// `make reproduce-table2`: every (size, method, seed) run of a profile, two at a time (one per core: each core's runs
// in turn in one long-lived worker, or with --workers no each its own process), skipping runs already finished (a run
// directory with done.json), then the tidy table and the figures.
// An archived profile (full) also counts a run as finished when its committed record is in TABLE2_ARCHIVE, and
// archives each run it finishes; --archive no runs everything afresh in runs/ and archives nothing.
// Every run is planned and checked (src/cli/table2-plan.ts: method, profile, size, seed, the row's config, its
// checkpoints) before the first one starts. A comparison with options of your own: src/cli/sweep.ts
// (docs/experiments.md).
// Usage: tsx src/cli/table2.ts [--profile quick|full|long|...] [--jobs 2]
//   [--methods a,b|evolm-ablations|evolm-controls|kl-matched|positive-controls|evolm-oracle] [--sizes S,M]
//   [--seeds 0,1] [--archive no] [--executor local|slurm] [--sbatch-args "..."] [--concurrency K] [--poll-seconds 30]
//   [--squeue-patience 600]   (the executor options: src/cli/executor.ts; local is the job pool as before)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOW_DIRTY_HELP, allowDirtyIf, choiceListArg, intArg, intListArg, parseArgs, runMain } from '../io/args.js';
import { ConfigError, RunFailure } from '../util/validate.js';
import { SIZE_NAMES } from '../models/policy.js';
import { runLogged } from '../io/jobs.js';
import { refuseDirtyTree } from '../io/run.js';
import type { RunSpec } from '../io/sweep.js';
import { campaignRoot, EXECUTOR_FLAGS, executorName, runCampaign } from './executor.js';
import { checkRuns, TABLE2_RUN } from './run-checks.js';
import {
  coldStartCheckpoint,
  EVOLM_ABLATIONS,
  EVOLM_CONTROLS,
  EVOLM_QUESTION,
  KL_MATCHED,
  POSITIVE_CONTROLS,
  PROFILES,
  TABLE2_ARCHIVE,
  methodSpec,
  profileSpec,
  scalarRmCheckpoint,
  VERIFIER_CHECKPOINT,
} from '../methods/tables/table2.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    profile: { help: `${Object.keys(PROFILES).join(', ')} (docs/options.md, Profiles)`, default: 'quick' },
    jobs: { help: 'parallel processes', default: '2' },
    methods:
      'comma-separated method ids, or evolm-ablations, evolm-controls, evolm-question, kl-matched, ' +
      "positive-controls, evolm-oracle (default: the profile's)",
    sizes: "comma-separated sizes (default: the profile's)",
    seeds: "comma-separated seeds (default: the profile's)",
    archive: '"no" to ignore and not write the committed run archive',
    'allow-dirty': ALLOW_DIRTY_HELP,
    ...EXECUTOR_FLAGS,
  });
  allowDirtyIf(a['allow-dirty']);
  executorName(a);
  const name = a.profile,
    profile = profileSpec(name),
    jobs = intArg('jobs', a.jobs, 1);
  const methods =
    a.methods === 'evolm-ablations'
      ? ['evolm', ...EVOLM_ABLATIONS]
      : a.methods === 'evolm-controls'
        ? ['evolm', ...EVOLM_CONTROLS]
        : a.methods === 'evolm-question'
          ? EVOLM_QUESTION
          : a.methods === 'kl-matched'
            ? KL_MATCHED
            : a.methods === 'positive-controls'
              ? POSITIVE_CONTROLS
              : a.methods === 'evolm-oracle'
                ? ['judge_teacher_oracle', 'evolm_oracle_judge']
                : a.methods
                  ? a.methods.split(',')
                  : profile.methods;
  methods.forEach(methodSpec);
  const sizes = a.sizes ? choiceListArg('sizes', a.sizes, SIZE_NAMES) : profile.sizes;
  const seeds = a.seeds ? intListArg('seeds', a.seeds, 0) : profile.seeds;
  for (const size of sizes)
    if (!fs.existsSync(coldStartCheckpoint(size)))
      throw new ConfigError(
        `no cold start for size ${size}: run "make coldstart COLDSTART_MODELS=transformer-${size}"`,
      );
  for (const size of sizes) {
    for (const v of new Set(methods.map((m) => methodSpec(m).coldstart).filter((v) => v !== undefined))) {
      if (!fs.existsSync(coldStartCheckpoint(size, v))) {
        throw new ConfigError(
          `no cold start "${v}" for size ${size} (${coldStartCheckpoint(size, v)}): see docs/evolm.md`,
        );
      }
    }
  }
  if (!fs.existsSync(VERIFIER_CHECKPOINT)) throw new ConfigError('no verifier checkpoint: run "make verifier"');
  // seed-major order: an interrupted profile has every method at its first seeds
  const archived = profile.archived && a.archive !== 'no';
  const queue = sizes.flatMap((size) =>
    seeds.flatMap((seed) =>
      methods.map((method) => ({
        size,
        method,
        seed,
        dir: `runs/table2/${name}/${size}/${method}/seed-${seed}`,
        archive: archived ? path.join(TABLE2_ARCHIVE, name, size, method, `seed-${seed}`) : undefined,
      })),
    ),
  );
  refuseDirtyTree(queue.find((j) => j.archive)?.archive);
  console.log(`[table2] profile ${name}: ${profile.steps} steps per run`);
  const specs: RunSpec[] = queue.map((j, index) => ({
    index,
    label: `${j.size} ${j.method} seed ${j.seed}`,
    dir: j.dir,
    archive: j.archive,
    method: j.method,
    size: j.size,
    seed: j.seed,
    cell: 'baseline',
    args: [
      TABLE2_RUN,
      '--method',
      j.method,
      '--size',
      j.size,
      '--seed',
      String(j.seed),
      '--profile',
      name,
      '--out',
      j.dir,
    ],
  }));
  // every run built and checked before the first one starts (a typo or a bad value: one line, nothing trains)
  await checkRuns(specs, `profile ${name}`);
  // the static scalar RM is trained once per size, before any run that needs it
  for (const size of sizes) {
    if (methods.some((m) => methodSpec(m).kind === 'scalar_rm') && !fs.existsSync(scalarRmCheckpoint(size))) {
      console.log(`[table2] training the scalar RM for size ${size}`);
      if ((await runLogged(['src/cli/scalar-rm.ts', '--size', size], `runs/scalar-rm/${size}.log`)) !== 0)
        throw new RunFailure(`scalar RM training failed: see runs/scalar-rm/${size}.log`);
    }
  }
  // local: the job pool exactly as before; slurm: one array job over the unfinished runs, then wait for the queue (its
  // sweep files in one directory per run list: the profile and what selects its runs)
  const root = campaignRoot(
    'table2',
    name,
    a.methods,
    a.sizes && `sizes=${a.sizes}`,
    a.seeds && `seeds=${a.seeds}`,
    a.archive === 'no' ? 'unarchived' : undefined,
  );
  const failed = await runCampaign('table2', specs, a, { parallel: jobs, root });
  if (failed) throw new RunFailure(`${failed} runs failed; rerun to retry them (finished runs are kept)`);
});
