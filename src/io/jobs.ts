// A small process pool for independent runs (one tfjs process per core): each job is a tsx command whose output
// goes to <dir>/log.txt; jobs whose run directory already has done.json are skipped, so an interrupted batch
// resumes where it stopped. A job being run by another live pool (its <dir>/running.pid names a live process) is
// skipped too, so two pools may work through overlapping queues, one job each at a time. JOBS_DEADLINE (a date,
// e.g. 2026-11-29T20:40) stops a pool from starting jobs after it, so that a session ends with no run half done.
// A job with an `archive` directory has its finished run's record (everything but the checkpoint and the log)
// copied there, and counts as done when the archive holds done.json: a committed archive outlives runs/.
// With a PoolWorker, each slot of the pool runs the jobs of the worker's run scripts in one long-lived process (the
// worker's script, given as data) in turn instead of a process per job, replacing the process if it dies.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SUMS_FILE, writeSums } from './checksums.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { ConfigError } from '../util/validate.js';
import { dirtyRecordProblem } from './run.js';
import { drawsStatus, progressBar, statusLine, stepOf, tail, TerminalStatus } from './progress.js';

const TSX = './node_modules/.bin/tsx';

export interface Job {
  label: string;
  args: string[];
  dir: string;
  archive?: string;
}

/**
 * Files of a run directory left out of its archive: the weights (large, and rebuilt by rerunning: a policy's
 * checkpoint.json, a CO-RL run's agent-<n>.json), the raw log, the lock, a torn atomic write's temporary file.
 */
const NOT_ARCHIVED = new Set(['checkpoint.json', 'log.txt', 'running.pid']);
const notArchived = (name: string) => NOT_ARCHIVED.has(name) || /^agent-\d+\.json$/.test(name) || name.endsWith('.tmp');

/**
 * Copy a finished run's record (config, metrics, tables, done.json last) into `archive`, replacing what was there.
 * Refused under results/ when the record names a dirty code version (dirtyRecordProblem; --allow-dirty).
 */
export function archiveRun(dir: string, archive: string): void {
  const dirty = dirtyRecordProblem(dir, archive);
  if (dirty) throw new ConfigError(dirty);
  fs.rmSync(archive, { recursive: true, force: true });
  fs.mkdirSync(archive, { recursive: true });
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && !notArchived(e.name))
    .map((e) => e.name);
  // done.json goes last, so an archive interrupted mid-copy does not count as finished; SHA256SUMS (covering every
  // file, done.json too) just before it, so a record damaged later is named when it is read (findFinishedRuns)
  const data = files.filter((f) => f !== 'done.json' && f !== SUMS_FILE);
  for (const f of data) fs.copyFileSync(path.join(dir, f), path.join(archive, f));
  writeSums(
    archive,
    data,
    files.includes('done.json') ? { 'done.json': fs.readFileSync(path.join(dir, 'done.json')) } : {},
  );
  if (files.includes('done.json')) fs.copyFileSync(path.join(dir, 'done.json'), path.join(archive, 'done.json'));
}

const isDone = (j: Job) =>
  fs.existsSync(path.join(j.dir, 'done.json')) ||
  (j.archive !== undefined && fs.existsSync(path.join(j.archive, 'done.json')));

/** Run a tsx command with stdout and stderr to `log`; resolves to its exit code. */
export function runLogged(args: string[], log: string): Promise<number> {
  fs.mkdirSync(path.dirname(log), { recursive: true });
  const fd = fs.openSync(log, 'w');
  return new Promise((resolve) => {
    const child = spawn(TSX, args, { stdio: ['ignore', fd, fd] });
    child.on('close', (code) => {
      fs.closeSync(fd);
      resolve(code ?? 1);
    });
  });
}

/**
 * A long-lived process that runs jobs in turn: `script` (a tsx script, e.g. src/cli/worker.ts) takes
 * `{ args, log }` over its IPC channel and answers `{ code, bytes? }`; `runs` are the scripts (a job's args[0]) it
 * runs.
 */
export interface PoolWorker {
  script: string;
  runs: string[];
}

/**
 * One worker process (PoolWorker's script, under node with tsx's loader: an IPC channel reaches the script itself,
 * where the tsx command would hold it in its own wrapper process). `run` resolves to the job's exit code: the worker's
 * answer, or, where the worker ends during the job, its exit code (1 on a signal), as the job's own process would have
 * ended; undefined where the job never reached the worker (it had ended: the job goes to a fresh one). Output the
 * worker writes past its redirection (native libraries) is appended to the current job's log.
 */
export class RunWorker {
  private readonly child: ChildProcess;
  private log: string | undefined;
  private settle: ((code: number | undefined) => void) | undefined;
  /** the process has ended: start another for the next job */
  ended = false;
  /** the bytes of tensors the worker held after its last job, as it answered (none answered yet: undefined) */
  bytes: number | undefined;

  constructor(script: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const out = (d: Buffer) => {
      if (this.log) fs.appendFileSync(this.log, d);
    };
    this.child.stdout!.on('data', out);
    this.child.stderr!.on('data', out);
    this.child.on('message', (m: { code: number; bytes?: number }) => {
      this.bytes = m.bytes;
      this.done(m.code);
    });
    this.child.on('error', () => {}); // a send to a process that has just ended: its close settles the job
    this.child.on('close', (code) => {
      this.ended = true;
      this.done(code ?? 1);
    });
  }

  private done(code: number | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(code);
  }

  /** Run one job (`args`: its tsx command), its output to `log` (created afresh, as runLogged's). */
  run(args: string[], log: string): Promise<number | undefined> {
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(log, '');
    this.log = log;
    return new Promise((resolve) => {
      this.settle = resolve;
      if (!this.child.connected) return this.done(undefined);
      this.child.send({ args, log }, (e) => {
        if (e) this.done(undefined);
      });
    });
  }

  /** Let the worker end (after its job, if it has one). */
  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

/**
 * What a failed job's log says went wrong: its last `error: ...` line (runMain's one line, or the first line of a
 * bug's stack trace), else the message line of an uncaught exception (`TypeError: ...`), else its last line.
 */
export function failureLine(log: string): string {
  const lines = log
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .reverse();
  return lines.find((l) => l.startsWith('error: ')) ?? lines.find((l) => /^[A-Za-z]*Error\b/.test(l)) ?? lines[0] ?? '';
}

/**
 * Whether a process is alive: it exists and is not a zombie (a killed process whose parent died too stays a zombie
 * until init reaps it, and kill(pid, 0) still succeeds on it; seen on this VM after a SIGKILL to a pool's group).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", the state after the last ')'
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill's answer
  }
}
const alive = processAlive;

/** Claim a job's directory for this process; false when it is finished or another live process holds it. */
export function claimJob(dir: string): boolean {
  if (fs.existsSync(path.join(dir, 'done.json'))) return false;
  const lock = path.join(dir, 'running.pid');
  fs.mkdirSync(dir, { recursive: true });
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    const holder = Number(fs.readFileSync(lock, 'utf8'));
    if (holder !== process.pid && alive(holder)) return false;
    fs.writeFileSync(lock, String(process.pid)); // a stale lock from a pool that died
    return true;
  }
}

const minutes = (ms: number) => `${(ms / 60000).toFixed(1)} min`;

/**
 * The batch's progress: elapsed, and the remaining time at the rate so far, counting the running runs' share of
 * their steps (`partial`, in runs) beside the finished runs (none before any progress).
 */
export function batchProgress(elapsedMs: number, finished: number, total: number, partial = 0): string {
  const done = finished + partial;
  const eta = done > 0 && finished < total ? `, about ${minutes((elapsedMs / done) * (total - done))} left` : '';
  return `${minutes(elapsedMs)} elapsed${eta}`;
}

/** The share of its steps a run's progress line shows done (`step 30/120` -> 0.25; 0 before its first step). */
export function stepShare(line: string): number {
  const [step, total] = stepOf(line).split('/').map(Number);
  return total > 0 ? Math.min(1, step / total) : 0;
}

/** Metrics a run's step line shows, with their short names (a metric the method does not have is left out). */
const STEP_METRICS: [string, string][] = [
  ['accuracy', 'acc'],
  ['reward/cot', 'cot'],
  ['judge_score', 'judge'],
  ['format_rate', 'fmt'],
  ['approx_kl', 'kl'],
  ['reasoner/approx_kl', 'kl'],
];

/**
 * A run's line for one step: `[label] step 17/120 (policy)  acc 0.352  judge 0.531  valid 3/5  eta 4.9 min` (the
 * metrics it has; valid criteria over proposed when it has both). lastProgress reads it back.
 */
export function stepLine(
  label: string,
  step: number,
  total: number,
  phase: string,
  m: Record<string, number>,
  etaMinutes: number,
): string {
  const has = (k: string) => typeof m[k] === 'number' && Number.isFinite(m[k]);
  const parts = STEP_METRICS.filter(([k]) => has(k)).map(
    ([k, short]) => `${short} ${short === 'kl' ? m[k].toExponential(1) : m[k].toFixed(3)}`,
  );
  if (has('criteria_valid') && has('criteria_proposed'))
    parts.push(`valid ${m.criteria_valid.toFixed(2)}/${m.criteria_proposed.toFixed(2)}`);
  return `[${label}] step ${step}/${total} (${phase})  ${[...parts, `eta ${etaMinutes.toFixed(1)} min`].join('  ')}`;
}

/** A run's latest progress line in its log (`... step 17/120 ... eta 4.9 min`), or '' before its first step. */
export function lastProgress(log: string): string {
  const lines = log.split('\n').filter((l) => /\bstep \d+\/\d+/.test(l));
  return lines.length ? lines[lines.length - 1].trim() : '';
}

/** Seconds between the pool's lines on its running jobs (JOBS_PROGRESS_S; 0 turns them off). */
const progressEvery = () => Number(process.env.JOBS_PROGRESS_S ?? 60);

/**
 * Run the unfinished jobs, `parallel` at a time, printing one progress line per finished job (with the batch's
 * elapsed and estimated remaining time) through `log`, and every JOBS_PROGRESS_S seconds the latest step line of
 * each running job; returns the failures. With the default `log` on a terminal (src/io/progress.ts), a status line
 * at the bottom, redrawn every second, takes the place of the periodic lines.
 */
export async function runJobs(
  name: string,
  jobs: Job[],
  parallel: number,
  log?: (line: string) => void,
  worker?: PoolWorker,
): Promise<number> {
  const status = log === undefined && drawsStatus(process.stdout.isTTY) ? new TerminalStatus() : undefined;
  const print = log ?? (status ? (line: string) => status.print(line) : console.log);
  try {
    return await pool(name, jobs, parallel, print, status, worker);
  } finally {
    status?.clear();
  }
}

async function pool(
  name: string,
  jobs: Job[],
  parallel: number,
  log: (line: string) => void,
  status: TerminalStatus | undefined,
  worker: PoolWorker | undefined,
): Promise<number> {
  // runs finished before they had an archive (or by a pool without one) are archived now
  for (const j of jobs)
    if (j.archive && fs.existsSync(path.join(j.dir, 'done.json')) && !fs.existsSync(path.join(j.archive, 'done.json')))
      archiveRun(j.dir, j.archive);
  const t0 = Date.now(),
    todo = jobs.filter((j) => !isDone(j)),
    total = todo.length;
  log(
    `[${name}] ${jobs.length} runs (${jobs.length - total} already done), ${parallel} at a time; logs in <run>/log.txt`,
  );
  let finished = 0,
    failed = 0;
  const running = new Set<Job>();
  const every = progressEvery();
  const latest = (j: Job) => lastProgress(tail(path.join(j.dir, 'log.txt')));
  const progress = () =>
    batchProgress(
      Date.now() - t0,
      finished,
      total,
      [...running].reduce((s, j) => s + stepShare(latest(j)), 0),
    );
  const redraw = () =>
    status?.draw(
      statusLine(
        name,
        progressBar(finished, total),
        progress(),
        [...running].map((j) => ({ label: j.label, step: stepOf(latest(j)) })),
        process.stdout.columns || 100,
      ),
    );
  const ticker = status
    ? setInterval(redraw, 1000)
    : every > 0
      ? setInterval(() => {
          for (const j of running) {
            log(
              `[${name}] running ${j.label}: ${latest(j) || 'starting'} (batch: ${finished}/${total}, ${progress()})`,
            );
          }
        }, every * 1000)
      : undefined;
  ticker?.unref();
  const deadline = process.env.JOBS_DEADLINE ? Date.parse(process.env.JOBS_DEADLINE) : null;
  if (deadline !== null && Number.isNaN(deadline))
    throw new ConfigError(`JOBS_DEADLINE must be a date such as 2026-11-29T20:40 (got "${process.env.JOBS_DEADLINE}")`);
  const slot = async () => {
    // this slot's worker process, started for its first job of the worker's scripts and replaced when it ends
    let w: RunWorker | undefined;
    const run = async (j: Job) => {
      const log = path.join(j.dir, 'log.txt');
      if (!worker?.runs.includes(j.args[0])) return runLogged(j.args, log);
      for (;;) {
        if (!w || w.ended) w = new RunWorker(worker.script);
        const code = await w.run(j.args, log);
        if (code !== undefined) return code;
        w.ended = true;
      }
    };
    try {
      await jobsOfSlot(run);
    } finally {
      w?.close();
    }
  };
  const jobsOfSlot = async (run: (j: Job) => Promise<number>) => {
    for (let j = todo.shift(); j; j = todo.shift()) {
      if (deadline !== null && Date.now() > deadline) {
        log(`[${name}] JOBS_DEADLINE passed: not starting ${j.label} or the ${todo.length} after it`);
        todo.length = 0;
        break;
      }
      if (!claimJob(j.dir)) {
        finished++;
        log(`[${name}] ${finished}/${total} skipped: ${j.label} (finished or running in another pool)`);
        continue;
      }
      running.add(j);
      const code = await run(j);
      running.delete(j);
      fs.rmSync(path.join(j.dir, 'running.pid'), { force: true });
      finished++;
      if (code !== 0) failed++;
      if (code === 0 && j.archive) archiveRun(j.dir, j.archive);
      const last = code === 0 ? '' : failureLine(fs.readFileSync(path.join(j.dir, 'log.txt'), 'utf8'));
      log(
        `[${name}] ${finished}/${total} ${code === 0 ? 'done' : `FAILED (exit ${code})`}: ${j.label} ` +
          `(${progress()})  ${last}`,
      );
      redraw();
    }
  };
  await Promise.all(Array.from({ length: parallel }, slot)).finally(() => clearInterval(ticker));
  log(`[${name}] finished in ${minutes(Date.now() - t0)}${failed ? `, ${failed} failed (rerun to retry them)` : ''}`);
  return failed;
}
