// The executor options every campaign CLI takes, defined once: Table 2 (with it EvoLM's ablations and controls and the
// long horizon), CO-RL, Rubicon, the cold starts and the sweeps (docs/sweeps.md). `--executor local` is the job pool
// of src/io/jobs.ts exactly as each CLI ran it before; `--executor slurm` is one array job over the unfinished runs,
// then a wait for the queue (makeExecutor and runToEnd of src/io/sweep.ts), its sweep files under runs/sweeps/<name>.
// The local pool runs Table 2's runs in long-lived workers, one per slot (src/cli/worker.ts), each keeping its graphs
// from one run to the next, with records byte for byte a fresh process's; `--workers no` runs a process per run.
import { intArg, type Flags } from '../io/args.js';
import { ConfigError } from '../util/validate.js';
import { TABLE2_RUN } from './run-checks.js';
import { runJobs, type Job, type PoolWorker } from '../io/jobs.js';
import { makeExecutor, runToEnd, type SlurmOptions } from '../io/executors.js';
import { SLURM_DEFAULTS } from '../io/slurm.js';
import type { RunSpec } from '../io/sweep.js';

/** The options, with their help and defaults (each CLI adds its own --jobs: the local pool's parallel processes). */
export const EXECUTOR_FLAGS = {
  executor: {
    help: 'local (the job pool) or slurm (one array job over the unfinished runs, then wait for it)',
    default: 'local',
  },
  'sbatch-args': 'slurm: flags passed to sbatch, space-separated (partition, time, account, memory, ...)',
  concurrency: 'slurm: most array tasks at once (%K)',
  'poll-seconds': {
    help: 'slurm: seconds between squeue polls while waiting',
    default: String(SLURM_DEFAULTS.pollSeconds),
  },
  'squeue-patience': {
    help: 'slurm: seconds squeue may keep failing (retried with backoff) before the wait stops with an error',
    default: String(SLURM_DEFAULTS.squeuePatienceSeconds),
  },
  workers: {
    help: 'local: "yes" runs Table 2 runs in one long-lived process per slot (src/cli/worker.ts); "no" one per run',
    default: 'yes',
  },
} satisfies Flags;

/** The local pool's long-lived worker and the run scripts it runs in-process (other scripts: a process per run). */
export const WORKER: PoolWorker = { script: 'src/cli/worker.ts', runs: [TABLE2_RUN] };

/** The local pool's worker by --workers (yes, the default: WORKER; no: none, a fresh process per run). */
export function poolWorker(a: ExecutorArgs): PoolWorker | undefined {
  const v = a.workers ?? EXECUTOR_FLAGS.workers.default;
  if (v !== 'yes' && v !== 'no') throw new ConfigError(`--workers must be yes or no (got "${v}")`);
  return v === 'yes' ? WORKER : undefined;
}

/** The executor options as parsed (a flag not given: its default in EXECUTOR_FLAGS). */
export type ExecutorArgs = Partial<Record<keyof typeof EXECUTOR_FLAGS, string>>;

/** The executor named by --executor (default local); anything else is refused before any work. */
export function executorName(a: ExecutorArgs): 'local' | 'slurm' {
  poolWorker(a);
  const name = a.executor ?? EXECUTOR_FLAGS.executor.default;
  if (name !== 'local' && name !== 'slurm') throw new ConfigError(`--executor must be local or slurm (got "${name}")`);
  return name;
}

/** The Slurm executor's options from the parsed arguments. */
export function slurmOptions(a: ExecutorArgs): SlurmOptions {
  const F = EXECUTOR_FLAGS;
  return {
    concurrency: a.concurrency ? intArg('concurrency', a.concurrency, 1) : undefined,
    sbatchArgs: (a['sbatch-args'] ?? '').split(/\s+/).filter(Boolean),
    pollSeconds: intArg('poll-seconds', a['poll-seconds'] ?? F['poll-seconds'].default, 1),
    squeuePatienceSeconds: intArg('squeue-patience', a['squeue-patience'] ?? F['squeue-patience'].default, 0),
  };
}

/** Where a campaign's Slurm sweep files go: one directory per run list (its name and the arguments that select it). */
export function campaignRoot(name: string, ...parts: (string | undefined)[]): string {
  const id = [name, ...parts.filter((p) => p)].join('-').replace(/[^A-Za-z0-9_.=+-]/g, '+');
  return `runs/sweeps/${id}`;
}

/** A campaign's run: the pool's job, with what a sweep spec records of it where the campaign has it. */
export interface CampaignJob extends Job {
  method?: string;
  size?: string;
  seed?: number;
}

/** A campaign's jobs as a sweep's run list (index order = the pool's order). */
export function campaignSpecs(name: string, jobs: CampaignJob[]): RunSpec[] {
  return jobs.map((j, index) => ({
    index,
    label: j.label,
    dir: j.dir,
    args: j.args,
    method: j.method ?? name,
    size: j.size ?? '',
    seed: j.seed ?? 0,
    cell: 'baseline',
    ...(j.archive ? { archive: j.archive } : {}),
  }));
}

/**
 * Run a campaign's jobs with the executor of --executor: local, the job pool (`parallel` at a time; Table 2's runs
 * in workers unless --workers no); slurm, one array job over the unfinished runs (sweep files under `root`), then a
 * wait. Resolves to the number of runs that failed (local) or are unfinished (slurm).
 */
export async function runCampaign(
  name: string,
  jobs: CampaignJob[],
  a: ExecutorArgs,
  o: { parallel: number; root: string },
): Promise<number> {
  if (executorName(a) === 'local') return runJobs(name, jobs, o.parallel, undefined, poolWorker(a));
  return runToEnd(makeExecutor('slurm', slurmOptions(a)), o.root, campaignSpecs(name, jobs));
}
