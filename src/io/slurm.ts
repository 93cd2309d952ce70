// Slurm's clients and the run lock. squeue with retries and backoff (a failed squeue is "unknown", never "nothing
// queued"), sacct where it exists, and <run>/running.pid: an array task takes the run's lock before it starts, so a
// requeued or resubmitted task never runs an index twice; a lock whose holder is gone (a dead process, a Slurm task
// in a final state) is stale and taken over.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { processAlive } from './jobs.js';

// ---- Slurm's clients: squeue (a failure is "unknown", retried), sacct (final states, where it exists) ----

/** The Slurm executor's defaults, defined once (the CLIs' --help shows them: src/cli/executor.ts). */
export const SLURM_DEFAULTS = {
  /** seconds between squeue polls while waiting */
  pollSeconds: 30,
  /** seconds squeue may keep failing, retried with backoff, before a wait stops with an error */
  squeuePatienceSeconds: 600,
  /** the same for an array task asking whether a run lock's holder still runs (then it skips the run) */
  lockPatienceSeconds: 120,
  /** the first wait after a failed squeue, doubled after each failure up to maxBackoffSeconds */
  backoffSeconds: 2,
  maxBackoffSeconds: 60,
  /** one squeue or sacct call's time limit */
  callSeconds: 60,
};

/** How a Slurm client is retried: for how long, the waits between tries, one call's limit (all in seconds). */
export interface Retry {
  patienceSeconds: number;
  backoffSeconds: number;
  maxBackoffSeconds: number;
  callSeconds: number;
}

/** A client's output, or why there is none (`fatal`: not worth retrying, e.g. the command does not exist). */
export type SlurmAnswer = { ok: true; out: string } | { ok: false; error: string; fatal?: boolean };
/**
 * A failed answer's error ('' for a success). An `in` check, not `!a.ok`: the notebooks' kernel (tslab) compiles this
 * file without strictNullChecks, where a boolean discriminant does not narrow the union.
 */
export const errorOf = (a: SlurmAnswer): string => ('error' in a ? a.error : '');
export const outOf = (a: SlurmAnswer): string => ('out' in a ? a.out : '');
export const fatalOf = (a: SlurmAnswer): boolean => ('fatal' in a ? a.fatal === true : false);

/** One call of a Slurm client with a time limit: its standard output, or its exit status and last error line. */
export function slurmCall(
  cmd: string,
  args: string[],
  seconds: number,
  env: NodeJS.ProcessEnv = process.env,
): SlurmAnswer {
  const r = spawnSync(cmd, args, {
    env,
    encoding: 'utf8',
    timeout: Math.max(1, Math.round(seconds * 1000)),
    killSignal: 'SIGKILL',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20,
  });
  const said =
    String(r.stderr ?? '')
      .trim()
      .split('\n')
      .filter(Boolean)
      .pop() ?? '';
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, error: `${cmd} not found on PATH`, fatal: true };
    return { ok: false, error: code === 'ETIMEDOUT' ? `no answer within ${seconds} s` : r.error.message };
  }
  if (r.status !== 0) return { ok: false, error: `exit ${r.status ?? r.signal}${said ? `: ${said}` : ''}` };
  return { ok: true, out: String(r.stdout) };
}

/**
 * squeue's listing of these jobs' array tasks ("%i %T"). squeue asked about a single job id that the controller has
 * already forgotten says "Invalid job id specified" and exits 1: that is an answer (nothing queued), not a failure.
 */
export function squeueOnce(ids: string[], seconds: number, env: NodeJS.ProcessEnv = process.env): SlurmAnswer {
  const a = slurmCall('squeue', ['-h', '-r', '-j', ids.join(','), '-o', '%i %T'], seconds, env);
  return !a.ok && /Invalid job id/i.test(errorOf(a)) ? { ok: true, out: '' } : a;
}

/** Blocks this thread for `ms` (the retries of a synchronous status; a CLI process has nothing else to do). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Calls `once` until it answers: after each failure waits backoff, 2 backoff, 4 backoff, ... (at most
 * maxBackoffSeconds, and never past the patience), and gives up once failures have lasted patienceSeconds, with one
 * line saying how long it tried and the last error. A fatal failure is returned at once.
 */
export function retrying(
  what: string,
  once: () => SlurmAnswer,
  r: Retry,
  log: (s: string) => void = () => {},
  sleep: (ms: number) => void = sleepSync,
): SlurmAnswer {
  const t0 = Date.now();
  let delay = r.backoffSeconds;
  for (let tries = 1; ; tries++) {
    const a = once();
    if (a.ok || fatalOf(a)) return a;
    const spent = (Date.now() - t0) / 1000;
    if (spent >= r.patienceSeconds) {
      const n = tries === 1 ? '1 try' : `${tries} tries`;
      return { ok: false, error: `${what} failed for ${spent.toFixed(0)} s (${n}, the last: ${errorOf(a)})` };
    }
    const wait = Math.min(delay, r.maxBackoffSeconds, r.patienceSeconds - spent);
    log(
      `[sweep] ${what} failed (${errorOf(a)}); trying again in ${wait.toFixed(1)} s (state unknown until it answers)`,
    );
    sleep(wait * 1000);
    delay *= 2;
  }
}

/** Slurm states of a task that is running or about to (squeue lists them; a run lock's holder in one is alive). */
export const RUNNING_STATES = /^(RUNNING|COMPLETING|CONFIGURING|SUSPENDED|STOPPED|RESIZING|SIGNALING|STAGE_OUT)$/;
/** Slurm's final states (sacct; squeue shows them only for a while, with some options): the task ended. */
export const FINAL_STATES = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'REVOKED',
  'TIMEOUT',
]);

/**
 * sacct -n -P -X -o JobID,State lines -> "<job>_<index>" (or "<job>" for a job that is no array) -> state, its first
 * word ("CANCELLED by 1000" -> CANCELLED). A pending array not yet split ("12_[5-7%2]") is expanded.
 */
export function parseSacct(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [id, st] = line.trim().split('|');
    const state = (st ?? '').trim().split(/\s+/)[0]?.toUpperCase();
    if (!id || !state) continue;
    const m = /^(\d+)_(\d+|\[([^\]]*)\])$/.exec(id.trim());
    if (!m) {
      if (/^\d+$/.test(id.trim())) out.set(id.trim(), state);
      continue;
    }
    if (m[3] === undefined) {
      out.set(`${m[1]}_${m[2]}`, state);
      continue;
    }
    for (const part of m[3].split('%')[0].split(',')) {
      const [a, b] = part.split('-').map(Number);
      for (let i = a; i <= (Number.isFinite(b) ? b : a); i++) out.set(`${m[1]}_${i}`, state);
    }
  }
  return out;
}

/** sacct's states of these jobs' tasks (parseSacct), or null where sacct is missing or fails (no accounting). */
export function sacctStates(
  ids: string[],
  seconds: number,
  env: NodeJS.ProcessEnv = process.env,
): Map<string, string> | null {
  const a = slurmCall('sacct', ['-n', '-P', '-X', '-j', ids.join(','), '-o', 'JobID,State'], seconds, env);
  return a.ok ? parseSacct(outOf(a)) : null;
}

/**
 * Whether a Slurm job (one array task's own job id) still runs: squeue (retried), then sacct where squeue gives no
 * answer. A job that is pending again was requeued: the attempt that took a lock is gone. "unknown" when neither
 * answers.
 */
export function slurmJobState(
  jobId: string,
  r: Retry,
  env: NodeJS.ProcessEnv = process.env,
  log?: (s: string) => void,
): 'running' | 'ended' | 'unknown' {
  const q = retrying('squeue', () => squeueOnce([jobId], r.callSeconds, env), r, log);
  if (q.ok) {
    const states = q.out
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[1])
      .filter(Boolean);
    return states.some((s) => RUNNING_STATES.test(s)) ? 'running' : 'ended';
  }
  const acct = sacctStates([jobId], r.callSeconds, env);
  const states = acct ? [...acct.values()] : [];
  if (states.some((s) => RUNNING_STATES.test(s))) return 'running';
  return states.length ? 'ended' : 'unknown';
}

// ---- the run lock: <run>/running.pid ----

/**
 * Who holds a run: the job pool and a run by hand write their pid alone (src/io/jobs.ts's claimJob reads it); an
 * array task writes one JSON line with its host, pid and Slurm job (`job`: <array job>_<index>, `jobId`: the
 * task's own job id, `restart`: SLURM_RESTART_COUNT), since its pid means nothing on another node.
 */
export interface RunLock {
  pid: number;
  host?: string;
  job?: string;
  jobId?: string;
  restart?: string;
  at?: string;
}

export const lockFile = (dir: string) => path.join(dir, 'running.pid');

/** A lock's text: the pid alone for a process outside Slurm, else one JSON line. */
export const lockText = (l: RunLock) => (l.jobId ? JSON.stringify(l) : String(l.pid));

/** The holder a lock names, or null for text that names none (a torn or foreign file: taken as stale). */
export function parseLock(text: string): RunLock | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t) };
  try {
    const l = JSON.parse(t) as RunLock;
    return typeof l.pid === 'number' ? l : null;
  } catch {
    return null;
  }
}

/** This process as a lock's holder: an array task names its node and job (SLURM_* variables of `env`). */
export function lockHolder(env: NodeJS.ProcessEnv = process.env): RunLock {
  if (!env.SLURM_JOB_ID) return { pid: process.pid };
  const array = env.SLURM_ARRAY_JOB_ID && env.SLURM_ARRAY_TASK_ID;
  return {
    pid: process.pid,
    host: os.hostname(),
    job: array ? `${env.SLURM_ARRAY_JOB_ID}_${env.SLURM_ARRAY_TASK_ID}` : env.SLURM_JOB_ID,
    jobId: env.SLURM_JOB_ID,
    restart: env.SLURM_RESTART_COUNT ?? '0',
    at: new Date().toISOString(),
  };
}

function describeLock(l: RunLock): string {
  const job = l.job ? `, Slurm job ${l.job}${l.jobId && l.jobId !== l.job ? ` (${l.jobId})` : ''}` : '';
  return `pid ${l.pid}${l.host ? ` on ${l.host}` : ''}${job}`;
}

/**
 * Whether a lock's holder still runs. The same Slurm job as `me`: an earlier attempt of this very task, requeued
 * (gone). On this host: its pid (a dead or zombie process is gone). A Slurm job: what Slurm says of it (squeue, else
 * sacct; alive while running). A pid on another host without a job cannot be checked from here: unknown.
 */
export function holderState(
  l: RunLock,
  me: RunLock,
  jobState: (jobId: string) => 'running' | 'ended' | 'unknown',
): 'alive' | 'gone' | 'unknown' {
  if (me.jobId && l.jobId === me.jobId) return 'gone';
  const here = !l.host || l.host === os.hostname();
  if (here && !processAlive(l.pid)) return 'gone';
  if (!l.jobId) return here ? 'alive' : 'unknown';
  const s = jobState(l.jobId);
  return s === 'running' ? 'alive' : s === 'ended' ? 'gone' : here ? 'alive' : 'unknown';
}

/**
 * Take a run's lock for `me`, or say who holds it. The lock is created exclusively; a stale one (holderState: gone,
 * or unreadable) is first moved aside under a name of this process's, and only a process that moved exactly the
 * lock it judged stale goes on (another that took it meanwhile keeps it).
 */
export function takeRunLock(
  dir: string,
  me: RunLock,
  jobState: (jobId: string) => 'running' | 'ended' | 'unknown',
): { taken: true } | { taken: false; why: string } {
  const file = lockFile(dir);
  fs.mkdirSync(dir, { recursive: true });
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, lockText(me), { flag: 'wx' });
      return { taken: true };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // released meanwhile
    }
    const l = parseLock(text);
    if (l) {
      const st = holderState(l, me, jobState);
      if (st === 'alive') return { taken: false, why: `running elsewhere: ${describeLock(l)}` };
      if (st === 'unknown') {
        return {
          taken: false,
          why: `locked by ${describeLock(l)}, which cannot be checked from here; remove ${file} if it is gone`,
        };
      }
    }
    const aside = `${file}.stale-${os.hostname()}-${process.pid}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue;
    }
    if (fs.readFileSync(aside, 'utf8') !== text) {
      // another process replaced the stale lock between our read and our move: give its lock back
      try {
        fs.linkSync(aside, file);
      } catch {
        /* a third holder since: it keeps the run */
      }
      fs.rmSync(aside, { force: true });
      return { taken: false, why: 'taken by another process meanwhile' };
    }
    fs.rmSync(aside, { force: true });
  }
  return { taken: false, why: 'the lock kept changing hands' };
}

/** Remove the run's lock if it is still `me`'s. */
export function releaseRunLock(dir: string, me: RunLock): void {
  try {
    if (fs.readFileSync(lockFile(dir), 'utf8') === lockText(me)) fs.rmSync(lockFile(dir), { force: true });
  } catch {
    /* gone already */
  }
}
