// The executors that run a sweep behind one interface: local processes (the job pool of src/io/jobs.ts, or long-lived
// workers) and Slurm job arrays (sbatch --array=LIST%K, one log per task, status from squeue, sacct where it exists
// and the tasks' markers, resubmission of only the missing or failed indices). A run whose record exists
// (<dir>/done.json, or its archive's) is finished and skipped, so a resubmitted sweep runs only what is missing.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { ConfigError, RunFailure } from '../util/validate.js';
import { archiveRun, processAlive, runJobs, type PoolWorker } from './jobs.js';
import { writeFileAtomic } from './table.js';
import { type RunSpec, isFinished, readSpecs, readTaskStatus, sweepDir, writeSpecs } from './sweep.js';
import {
  FINAL_STATES,
  RUNNING_STATES,
  type Retry,
  SLURM_DEFAULTS,
  errorOf,
  fatalOf,
  lockHolder,
  outOf,
  releaseRunLock,
  retrying,
  sacctStates,
  slurmJobState,
  squeueOnce,
  takeRunLock,
} from './slurm.js';

export interface TaskOptions {
  /** the task's environment: Slurm's variables, the PATH that finds squeue and sacct, its run's (default: ours) */
  env?: NodeJS.ProcessEnv;
  /** how squeue is retried when checking a lock's holder (default patience SLURM_DEFAULTS.lockPatienceSeconds) */
  retry?: Partial<Retry>;
}

/**
 * Run one entry (a Slurm array task, or by hand): skipped when its record exists (in its directory or its archive);
 * else it takes the run's lock (takeRunLock: skipped while another live process or Slurm task holds it, or one
 * whose state cannot be known); with the lock it checks the record again, then runs its command with this process's
 * output (the task's log), archives its record when it has an archive, and writes <sweep>/status/<i>.json with the
 * exit code. A requeued or resubmitted task therefore never runs an index a second time while the first runs or
 * after it finished. Resolves to the exit code (0 when skipped).
 */
export async function runIndex(
  dir: string,
  index: number,
  log: (s: string) => void = console.log,
  o: TaskOptions = {},
): Promise<number> {
  const env = o.env ?? process.env;
  const specs = readSpecs(dir),
    spec = specs[index];
  if (!spec) throw new ConfigError(`index ${index} is outside the sweep (0..${specs.length - 1})`);
  const statusFile = path.join(dir, 'status', `${index}.json`);
  const write = (exit: number) =>
    writeFileAtomic(
      statusFile,
      JSON.stringify({
        index,
        exit,
        host: os.hostname(),
        job: env.SLURM_JOB_ID ?? null,
        at: new Date().toISOString(),
      }) + '\n',
    );
  if (isFinished(spec)) {
    log(`[sweep] ${index} skipped: ${spec.label} (finished)`);
    write(0);
    return 0;
  }
  const retry: Retry = {
    patienceSeconds: SLURM_DEFAULTS.lockPatienceSeconds,
    backoffSeconds: SLURM_DEFAULTS.backoffSeconds,
    maxBackoffSeconds: SLURM_DEFAULTS.maxBackoffSeconds,
    callSeconds: SLURM_DEFAULTS.callSeconds,
    ...o.retry,
  };
  const me = lockHolder(env);
  const lock = takeRunLock(spec.dir, me, (job) => slurmJobState(job, retry, env, log));
  if (!lock.taken) {
    log(`[sweep] ${index} skipped: ${spec.label} (${'why' in lock ? lock.why : ''})`);
    return 0;
  }
  if (isFinished(spec)) {
    // finished by the lock's previous holder just before it let go
    releaseRunLock(spec.dir, me);
    log(`[sweep] ${index} skipped: ${spec.label} (finished)`);
    write(0);
    return 0;
  }
  fs.rmSync(statusFile, { force: true }); // an earlier attempt's
  log(`[sweep] ${index} start: ${spec.label} on ${os.hostname()}${me.job ? ` (Slurm job ${me.job})` : ''}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(TSX_BIN, spec.args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    child.on('close', (c) => resolve(c ?? 1));
  });
  releaseRunLock(spec.dir, me);
  if (code === 0 && spec.archive) archiveRun(spec.dir, spec.archive);
  write(code);
  log(`[sweep] ${index} ${code === 0 ? 'done' : `FAILED (exit ${code})`}: ${spec.label}`);
  return code;
}

const TSX_BIN = './node_modules/.bin/tsx';

// ---- executors ----

/** A run's state. "unknown": submitted to Slurm, not finished, and squeue gave no answer (never taken as ended). */
export type TaskState = 'done' | 'pending' | 'running' | 'failed' | 'missing' | 'unknown';

export interface Executor {
  readonly name: string;
  /** start the unfinished runs among `indices` (default: all); local runs them to the end, Slurm submits an array */
  submit(root: string, specs: RunSpec[], indices?: number[]): Promise<{ submitted: number[]; job?: string }>;
  /** each run's state, in index order */
  status(root: string, specs: RunSpec[]): TaskState[];
  /** resolves when nothing of the sweep is queued or running any more */
  wait(root: string): Promise<void>;
  /** Slurm: each run's final state in sacct (its latest submission's), where sacct exists; else null */
  finalStates?(root: string): Map<number, string> | null;
}

/** The indices to (re)submit: neither finished nor queued or running, nor in an unknown state. */
export const toSubmit = (states: TaskState[], indices?: number[]) =>
  (indices ?? states.map((_, i) => i)).filter((i) => states[i] === 'failed' || states[i] === 'missing');

/**
 * Local processes: the job pool of src/io/jobs.ts (`parallel` at a time, logs in <run>/log.txt; one run per process,
 * or with `worker` the runs of its scripts in one long-lived process per slot).
 */
export function localExecutor(parallel = 2, log?: (s: string) => void, worker?: PoolWorker): Executor {
  const alive = processAlive;
  return {
    name: 'local',
    async submit(root, specs, indices) {
      writeSpecs(root, specs);
      const todo = toSubmit(this.status(root, specs), indices);
      await runJobs(
        'sweep',
        todo.map((i) => ({ label: specs[i].label, dir: specs[i].dir, args: specs[i].args, archive: specs[i].archive })),
        parallel,
        log,
        worker,
      );
      return { submitted: todo };
    },
    status(root, specs) {
      return specs.map((s) => {
        if (isFinished(s)) return 'done';
        const lock = path.join(s.dir, 'running.pid');
        if (fs.existsSync(lock) && alive(Number(fs.readFileSync(lock, 'utf8')))) return 'running';
        // the pool's log in the run directory, or the exit code a run by index wrote (sweep.ts run: a run that
        // failed before it made its directory leaves no log)
        const exit = readTaskStatus(sweepDir(root), s.index)?.exit;
        return fs.existsSync(path.join(s.dir, 'log.txt')) || (exit !== undefined && exit !== 0) ? 'failed' : 'missing';
      });
    },
    async wait() {
      /* submit runs to the end */
    },
  };
}

/** "0-3,5,7-8" from [0, 1, 2, 3, 5, 7, 8] (sbatch's --array list; sorted, duplicates dropped). */
export function rangeList(indices: number[]): string {
  const xs = [...new Set(indices)].sort((a, b) => a - b),
    parts: string[] = [];
  for (let i = 0; i < xs.length; i++) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    parts.push(i === j ? String(xs[i]) : `${xs[i]}-${xs[j]}`);
    i = j;
  }
  return parts.join(',');
}

/**
 * squeue -h -r -o "%i %T" lines -> array task index -> state, for the given array job ids. A pending array not yet
 * split shows as "<job>_[3-5%2]"; its ranges are expanded. A task in a final state (which squeue lists for a while
 * under some options) is not queued.
 */
export function parseSqueue(text: string, jobs: string[]): Map<number, 'pending' | 'running'> {
  const out = new Map<number, 'pending' | 'running'>();
  for (const line of text.split('\n')) {
    const m = /^(\d+)_(\d+|\[([^\]]*)\])\s+(\S+)/.exec(line.trim());
    if (!m || !jobs.includes(m[1]) || FINAL_STATES.has(m[4])) continue;
    const state = RUNNING_STATES.test(m[4]) ? 'running' : 'pending';
    if (m[3] === undefined) {
      out.set(Number(m[2]), state);
      continue;
    }
    for (const part of m[3].split('%')[0].split(',')) {
      const [a, b] = part.split('-').map(Number);
      for (let i = a; i <= (Number.isFinite(b) ? b : a); i++) out.set(i, state);
    }
  }
  return out;
}

export interface SlurmOptions {
  /** most array tasks running at once (the %K of --array) */
  concurrency?: number;
  /** flags passed through to sbatch (partition, time, account, gres, ...) */
  sbatchArgs?: string[];
  /** seconds between squeue polls while waiting (default SLURM_DEFAULTS.pollSeconds) */
  pollSeconds?: number;
  /** seconds squeue may keep failing, retried with backoff, before a wait stops with an error (default 600) */
  squeuePatienceSeconds?: number;
  /** the first wait after a failed squeue, doubled after each failure (default 2; at most 60) */
  backoffSeconds?: number;
  /** one squeue or sacct call's limit (default 60) */
  callSeconds?: number;
  /** the environment of sbatch, squeue and sacct (default this process's: its PATH finds them) */
  env?: NodeJS.ProcessEnv;
  log?: (s: string) => void;
}

/** The array script every task runs: `sweep run --sweep <dir> --index $SLURM_ARRAY_TASK_ID` in this checkout. */
export function arrayScript(dir: string, name: string, repo = process.cwd()): string {
  const abs = path.resolve(dir);
  return [
    '#!/bin/bash',
    `#SBATCH --job-name=sweep-${name}`,
    `#SBATCH --output=${abs}/logs/task-%a-job-%A.out`,
    '#SBATCH --cpus-per-task=1',
    '# one sweep entry per array task; a finished run (its done.json) or one locked by a live task is skipped',
    'set -euo pipefail',
    `cd ${JSON.stringify(path.resolve(repo))}`,
    `exec ${TSX_BIN} src/cli/sweep.ts run --sweep ${JSON.stringify(abs)} --index "$SLURM_ARRAY_TASK_ID"`,
    '',
  ].join('\n');
}

/**
 * The sbatch command line of a submission (flags passed through before the script, so they override its #SBATCH
 * lines).
 */
export function sbatchCommand(script: string, indices: number[], o: SlurmOptions = {}): string[] {
  const k = o.concurrency ? `%${o.concurrency}` : '';
  return ['--parsable', `--array=${rangeList(indices)}${k}`, ...(o.sbatchArgs ?? []), script];
}

/** The submissions of a sweep so far (<sweep>/slurm/jobs.jsonl), oldest first. */
export function submissions(root: string): { job: string; indices: number[] }[] {
  const f = path.join(sweepDir(root), 'slurm', 'jobs.jsonl');
  if (!fs.existsSync(f)) return [];
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { job: string | number; indices?: number[] })
    .map((j) => ({ job: String(j.job), indices: j.indices ?? [] }));
}

/**
 * Slurm job arrays: each submission's job id is kept in <sweep>/slurm/jobs.jsonl, with the indices it covers.
 * squeue says what is queued or running; a failed squeue (non-zero exit, no answer in time, a busy controller) is
 * retried with backoff and, until it answers, leaves every submitted unfinished run "unknown": never finished,
 * failed or resubmitted. A wait stops with a one-line RunFailure once squeue has failed for the patience.
 */
export function slurmExecutor(o: SlurmOptions = {}): Executor {
  const log = o.log ?? console.log;
  const env = o.env ?? process.env;
  const retry: Retry = {
    patienceSeconds: o.squeuePatienceSeconds ?? SLURM_DEFAULTS.squeuePatienceSeconds,
    backoffSeconds: o.backoffSeconds ?? SLURM_DEFAULTS.backoffSeconds,
    maxBackoffSeconds: SLURM_DEFAULTS.maxBackoffSeconds,
    callSeconds: o.callSeconds ?? SLURM_DEFAULTS.callSeconds,
  };
  const jobIds = (root: string) => submissions(root).map((s) => s.job);
  /** the queued and running tasks, or the error once squeue has failed for the patience */
  const queued = (root: string): Map<number, 'pending' | 'running'> | { error: string } => {
    const ids = jobIds(root);
    if (!ids.length) return new Map();
    const a = retrying('squeue', () => squeueOnce(ids, retry.callSeconds, env), retry, log);
    if (!a.ok && fatalOf(a)) throw new ConfigError(`the slurm executor needs Slurm's clients: ${errorOf(a)}`);
    return a.ok ? parseSqueue(outOf(a), ids) : { error: errorOf(a) };
  };
  const unknownState = (error: string) =>
    `${error}: the sweep's tasks are in an unknown state (none taken as finished or failed) and may still be ` +
    'running; run the same command again later, or give squeue more time (--squeue-patience)';
  /** per index, the sacct state of the latest submission that covered it */
  const finalStates = (root: string): Map<number, string> | null => {
    const subs = submissions(root);
    if (!subs.length) return null;
    const acct = sacctStates(
      subs.map((s) => s.job),
      retry.callSeconds,
      env,
    );
    if (!acct) return null;
    const latest = new Map<number, string>();
    for (const s of subs) for (const i of s.indices) latest.set(i, s.job);
    const out = new Map<number, string>();
    for (const [i, job] of latest) {
      const st = acct.get(`${job}_${i}`);
      if (st) out.set(i, st);
    }
    return out;
  };
  return {
    name: 'slurm',
    async submit(root, specs, indices) {
      const dir = sweepDir(root),
        specsFile = path.join(dir, 'specs.json');
      // array tasks read their entry from specs.json by index: never swap the list under queued tasks
      if (fs.existsSync(specsFile) && fs.readFileSync(specsFile, 'utf8') !== JSON.stringify(specs, null, 1) + '\n') {
        const q = queued(root);
        if (!(q instanceof Map)) throw new RunFailure(unknownState(q.error));
        if (q.size)
          throw new ConfigError(
            `${dir} holds another run list whose array tasks are still queued or running (${q.size}): wait for ` +
              'them, or submit this one to another root',
          );
        // the old list's submissions, exit markers and logs name its indices: set aside
        const until = new Date().toISOString().replace(/[:.]/g, '-');
        for (const [from, to] of [
          [path.join(dir, 'slurm', 'jobs.jsonl'), path.join(dir, 'slurm', `jobs-until-${until}.jsonl`)],
          [path.join(dir, 'logs'), path.join(dir, `logs-until-${until}`)],
        ])
          if (fs.existsSync(from)) fs.renameSync(from, to);
        fs.rmSync(path.join(dir, 'status'), { recursive: true, force: true });
      }
      writeSpecs(root, specs);
      const states = this.status(root, specs);
      const unknown = states.filter((s) => s === 'unknown').length;
      if (unknown) log(`[sweep] ${unknown} submitted runs are in an unknown state (squeue failed): not resubmitted`);
      const todo = toSubmit(states, indices);
      if (!todo.length) {
        log(`[sweep] nothing to submit: ${specs.length} runs finished, queued or unknown`);
        return { submitted: [] };
      }
      const script = path.join(dir, 'slurm', 'array.sh');
      fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
      for (const i of todo) fs.rmSync(path.join(dir, 'status', `${i}.json`), { force: true });
      writeFileAtomic(script, arrayScript(dir, path.basename(path.resolve(root))));
      fs.chmodSync(script, 0o755);
      const args = sbatchCommand(script, todo, o);
      const job = execFileSync('sbatch', args, { stdio: ['ignore', 'pipe', 'inherit'], env })
        .toString()
        .trim()
        .split(';')[0];
      if (!/^\d+$/.test(job)) throw new Error(`sbatch printed no job id (got "${job}")`);
      fs.mkdirSync(path.join(dir, 'slurm'), { recursive: true });
      fs.appendFileSync(
        path.join(dir, 'slurm', 'jobs.jsonl'),
        JSON.stringify({ job, indices: todo, at: new Date().toISOString(), sbatch: args }) + '\n',
      );
      log(
        `[sweep] submitted array job ${job}: ${todo.length} of ${specs.length} runs (${rangeList(todo)}); ` +
          `logs in ${path.join(dir, 'logs')}`,
      );
      return { submitted: todo, job };
    },
    status(root, specs) {
      const q = queued(root),
        dir = sweepDir(root),
        known = q instanceof Map;
      if (!known) log(`[sweep] ${q.error}: submitted runs without a record are "unknown"`);
      const subs = submissions(root),
        submitted = new Set(subs.flatMap((s) => s.indices));
      const acct = subs.length ? finalStates(root) : null;
      const ended = (i: number) =>
        // its exit marker, or a final state in sacct: the task ended (without a record)
        readTaskStatus(dir, i) !== null || FINAL_STATES.has(acct?.get(i) ?? '');
      return specs.map((s, i) => {
        if (isFinished(s)) return 'done';
        if (!known) return ended(i) ? 'failed' : submitted.has(i) ? 'unknown' : 'missing';
        const inQueue = q.get(i);
        if (inQueue) return inQueue;
        // ended without a record: a non-zero exit, or killed before writing one (time limit, node failure)
        if (ended(i)) return 'failed';
        return fs.existsSync(path.join(dir, 'logs')) &&
          fs.readdirSync(path.join(dir, 'logs')).some((f) => f.startsWith(`task-${i}-`))
          ? 'failed'
          : 'missing';
      });
    },
    async wait(root) {
      for (;;) {
        const q = queued(root);
        if (!(q instanceof Map)) throw new RunFailure(unknownState(q.error));
        if (q.size === 0) return;
        await new Promise((r) => setTimeout(r, (o.pollSeconds ?? SLURM_DEFAULTS.pollSeconds) * 1000));
      }
    },
    finalStates,
  };
}

/** An executor by name: "local" (`jobs` processes) or "slurm" (the options passed through). */
export function makeExecutor(name: string, o: SlurmOptions & { jobs?: number; worker?: PoolWorker } = {}): Executor {
  if (name === 'local') return localExecutor(o.jobs ?? 2, o.log, o.worker);
  if (name === 'slurm') return slurmExecutor(o);
  throw new ConfigError(`executor must be "local" or "slurm" (got "${name}")`);
}

/**
 * Run `specs` with the executor to the end (Slurm: submit, then wait for the queue); returns how many are unfinished.
 * What a make target calls: the runs are the same whichever executor runs them.
 */
export async function runToEnd(ex: Executor, root: string, specs: RunSpec[]): Promise<number> {
  await ex.submit(root, specs);
  await ex.wait(root);
  return ex.status(root, specs).filter((s) => s !== 'done').length;
}
