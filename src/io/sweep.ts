// Sweeps: an indexed list of run specs expanded from one config (methods x seeds x sizes x knob levels, one knob at
// a time around a baseline), and the executors that run it behind one interface: local processes (the job pool of
// src/io/jobs.ts) and Slurm job arrays (sbatch --array=LIST%K, one log per task, status from squeue, sacct where it
// exists and the tasks' markers, resubmission of only the missing or failed indices). A run whose record exists
// (<dir>/done.json, or its archive's) is finished and skipped, so a resubmitted sweep runs only what is missing, and
// an array task takes the run's lock before it starts (a requeued or resubmitted task never runs an index twice); a
// failed squeue is "unknown", retried with backoff, never "nothing queued". Aggregation reads the records afterwards,
// so it does not matter which executor ran them. The frozen list lives in <root>/sweep/specs.json, which every array
// task reads (on a cluster: a shared filesystem). docs/sweeps.md describes both executors.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { ConfigError, RunFailure } from '../util/validate.js';
import { overlayConfig } from './config.js';
import { didYouMean } from '../util/names.js';
import { archiveRun, processAlive, runJobs, type PoolWorker } from './jobs.js';
import { readCsv, writeFileAtomic, type Row } from './table.js';
import { meanInterval } from '../util/stats.js';
import { POOLED_COLUMNS, pooledCells, POWER_COLUMNS, powerCells } from '../util/power.js';

/** One level of a knob: what it adds to a run's config (--overrides JSON) and to its command line. */
export interface KnobLevel {
  /** the level's name: its cell is "<knob>=<level>", its runs' folder <root>/<size>/<method>/<knob>=<level> */
  level: string;
  /** what the level sets in the run's config (docs/options.md), merged over the method's `overrides` */
  overrides?: Record<string, unknown>;
  /** flags the level adds to the run's command line (e.g. ["--steps", "20"]) */
  args?: string[];
}

export interface Knob {
  /** the knob's name (a column of table.csv and claims.csv; the figures' axis) */
  name: string;
  /** the name of the baseline's level of this knob: its runs are the baseline's (the options' own defaults) */
  default: string;
  /** the other levels, each a cell of its own */
  levels: KnobLevel[];
  /** the methods the knob reaches; the others reuse the baseline's runs at every level (default: all) */
  methods?: string[];
}

/** A paired comparison per cell: method a minus method b on `column`, paired by seed. */
export interface Comparison {
  /** its name in claims.csv, e.g. "rlcer_minus_rlvr" */
  claim: string;
  /** the method whose column is compared */
  a: string;
  /** the method it is compared with (a - b) */
  b: string;
  /** a column of each run's final.csv: average, add, sub, chain, chain_ood, rubric_quality */
  column: string;
}

/** A sweep as its JSON file holds it (sweeps/*.json): what may be left out is filled in by `completeSweep`. */
export interface SweepFile {
  /** the sweep's name: letters, digits, _ . - */
  name: string;
  /**
   * where the run directories go: <root>/<size>/<method>/<cell>/seed-<n> (and the sweep's own files, <root>/sweep);
   * default runs/sweeps/<name>
   */
  root?: string;
  /**
   * where each finished run's record (everything but weights and log) is copied, <archive>/<size>/<method>/<cell>/
   * seed-<n>, to be committed: a run whose archive holds done.json counts as finished, and the table reads it.
   * Under results/ only records of a clean commit are archived, and a dirty tree does not start (--allow-dirty)
   */
  archive?: string;
  /** the Table 2 profile every run takes (docs/options.md, Profiles), when `command` is left out; default quick */
  profile?: string;
  /**
   * tsx script and arguments; {method}, {size}, {seed} and {dir} are replaced per run. Default: src/cli/table2-run.ts
   * --method {method} --size {size} --seed {seed} --profile <profile> --out {dir}
   */
  command?: string[];
  /** the methods compared (docs/options.md, Methods) */
  methods: string[];
  /** the seeds of every cell */
  seeds: number[];
  /** model sizes (S, M); default ["S"] */
  sizes?: string[];
  /** options moved one at a time around the baseline, each a cell per level; default none: methods x seeds only */
  knobs?: Knob[];
  /**
   * per method, options every run of that method takes (docs/options.md), e.g. {"rlcer": {"prompts": 8}}; a knob's
   * level is merged over them
   */
  overrides?: Record<string, Record<string, unknown>>;
  /** the paired comparisons of claims.csv, power.csv and pooled.csv (none: table.csv only) */
  comparisons?: Comparison[];
  /** fewest seeds a claim needs for a verdict other than "unclear" (default 2: an interval exists) */
  minSeeds?: number;
  /** the campaign's regime (the sensitivity campaign's files; analysis/sensitivity.ts reads it, the runs do not) */
  regime?: string;
}

/** A sweep with everything filled in (`completeSweep`): what expansion, the executors and aggregation read. */
export type SweepConfig = SweepFile & { root: string; command: string[]; sizes: string[] };

/**
 * The command of a sweep that gives none: one Table 2 run of the profile per entry (`extra`: flags of every run, e.g.
 * the sensitivity campaign's --coldstart).
 */
export const defaultCommand = (profile = 'quick', extra: string[] = []) => [
  'src/cli/table2-run.ts',
  '--method',
  '{method}',
  '--size',
  '{size}',
  '--seed',
  '{seed}',
  '--profile',
  profile,
  ...extra,
  '--out',
  '{dir}',
];

const sameList = (a: unknown, b: string[]) => JSON.stringify(a) === JSON.stringify(b);

/** A sweep file checked (`checkSweepConfig`) and completed: root, command and sizes filled in where left out. */
export function completeSweep(f: SweepFile): SweepConfig {
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw new ConfigError('a sweep must be a JSON object');
  if (f.command !== undefined && f.profile !== undefined && !sameList(f.command, defaultCommand(f.profile)))
    throw new ConfigError('sweep profile is for the default command: with a command of your own, put --profile in it');
  if (f.profile !== undefined && (typeof f.profile !== 'string' || !f.profile))
    throw new ConfigError('sweep profile must be a profile name');
  const c: SweepConfig = {
    ...f,
    root: f.root ?? path.join('runs', 'sweeps', String(f.name)),
    command: f.command ?? defaultCommand(f.profile),
    sizes: f.sizes ?? ['S'],
  };
  checkSweepConfig(c);
  return c;
}

export interface RunSpec {
  index: number;
  /** "<size> <method> <cell> seed <n>" */
  label: string;
  dir: string;
  /** the tsx command of the run (script first) */
  args: string[];
  method: string;
  size: string;
  seed: number;
  /** "baseline" or "<knob>=<level>" */
  cell: string;
  /** where the finished run's record is copied (as the job pool does) */
  archive?: string;
}

const BASELINE = 'baseline';
const cellId = (knob: string, level: string) => `${knob}=${level}`;
const reaches = (k: Knob, method: string) => !k.methods || k.methods.includes(method);

/** The fields a sweep file may hold (any other is a typo: refused, with the nearest names). */
const SWEEP_FIELDS = [
  'name',
  'root',
  'archive',
  'profile',
  'command',
  'methods',
  'seeds',
  'sizes',
  'knobs',
  'overrides',
  'comparisons',
  'minSeeds',
  'regime',
];

/** Throws a ConfigError naming the first malformed field of a sweep config. */
export function checkSweepConfig(c: SweepConfig): void {
  const list = (name: string, v: unknown) => {
    if (!Array.isArray(v) || v.length === 0) throw new ConfigError(`sweep ${name} must be a non-empty list`);
  };
  for (const k of Object.keys(c))
    if (!SWEEP_FIELDS.includes(k)) throw new ConfigError(`unknown sweep field "${k}"${didYouMean(k, SWEEP_FIELDS)}`);
  if (typeof c.name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(c.name))
    throw new ConfigError('sweep name must be letters, digits, _ . -');
  if (typeof c.root !== 'string' || !c.root) throw new ConfigError('sweep root must be a path');
  if (c.archive !== undefined && (typeof c.archive !== 'string' || !c.archive))
    throw new ConfigError('sweep archive must be a path');
  list('command', c.command);
  list('methods', c.methods);
  list('seeds', c.seeds);
  list('sizes', c.sizes);
  if (c.methods.some((m) => typeof m !== 'string')) throw new ConfigError('sweep methods must be method names');
  if (new Set(c.methods).size !== c.methods.length) throw new ConfigError('sweep methods must be distinct');
  if (c.seeds.some((s) => !Number.isInteger(s) || s < 0))
    throw new ConfigError(`sweep seeds must be integers >= 0 (got ${JSON.stringify(c.seeds)})`);
  if (c.minSeeds !== undefined && (!Number.isInteger(c.minSeeds) || c.minSeeds < 1))
    throw new ConfigError(`sweep minSeeds must be an integer >= 1 (got ${JSON.stringify(c.minSeeds)})`);
  const inSweep = (what: string, m: string) => {
    if (!c.methods.includes(m))
      throw new ConfigError(
        `${what}: method "${m}" is not in the sweep's methods (${c.methods.join(', ')})${didYouMean(m, c.methods)}`,
      );
  };
  if (c.overrides !== undefined) {
    if (typeof c.overrides !== 'object' || c.overrides === null || Array.isArray(c.overrides))
      throw new ConfigError('sweep overrides must be an object: method -> options');
    for (const [m, o] of Object.entries(c.overrides)) {
      inSweep('sweep overrides', m);
      if (typeof o !== 'object' || o === null || Array.isArray(o))
        throw new ConfigError(`sweep overrides of ${m} must be an object of options`);
    }
  }
  if (c.knobs !== undefined && !Array.isArray(c.knobs)) throw new ConfigError('sweep knobs must be a list');
  for (const k of c.knobs ?? []) {
    if (typeof k.name !== 'string' || !Array.isArray(k.levels))
      throw new ConfigError('each knob needs a name and a list of levels');
    if (typeof k.default !== 'string') throw new ConfigError(`knob ${k.name}: its default must be a level name`);
    const names = [k.default, ...k.levels.map((l) => l.level)];
    if (new Set(names).size !== names.length)
      throw new ConfigError(`knob ${k.name}: levels must be distinct (the default "${k.default}" included)`);
    for (const m of k.methods ?? []) inSweep(`knob ${k.name}`, m);
  }
  if (c.comparisons !== undefined && !Array.isArray(c.comparisons))
    throw new ConfigError('sweep comparisons must be a list');
  for (const cmp of c.comparisons ?? []) {
    if (typeof cmp.claim !== 'string' || typeof cmp.column !== 'string')
      throw new ConfigError('each comparison needs a claim, a, b and a column');
    for (const m of [cmp.a, cmp.b]) inSweep(`comparison ${cmp.claim}`, m);
  }
}

/**
 * The sweep's runs, indexed: seeds outermost (an interrupted sweep has every cell at its first seeds), then cells
 * (the baseline, then each knob's other levels), sizes and methods. A knob does not rerun a method it does not
 * reach: that method's cell is the baseline's run.
 */
export function expandSweep(file: SweepFile): RunSpec[] {
  const c = completeSweep(file);
  const cells: { cell: string; level: KnobLevel; knob: Knob | null }[] = [
    { cell: BASELINE, level: { level: BASELINE }, knob: null },
    ...(c.knobs ?? []).flatMap((k) => k.levels.map((l) => ({ cell: cellId(k.name, l.level), level: l, knob: k }))),
  ];
  const out: RunSpec[] = [];
  for (const seed of c.seeds)
    for (const { cell, level, knob } of cells)
      for (const size of c.sizes)
        for (const method of c.methods) {
          if (knob && !reaches(knob, method)) continue;
          const dir = path.join(c.root, size, method, cell, `seed-${seed}`);
          const sub = (a: string) =>
            a
              .replaceAll('{method}', method)
              .replaceAll('{size}', size)
              .replaceAll('{seed}', String(seed))
              .replaceAll('{dir}', dir);
          // the method's own options, then the level's over them
          const overrides = overlayConfig(c.overrides?.[method] ?? {}, level.overrides ?? {});
          const args = [
            ...c.command.map(sub),
            ...(level.args ?? []),
            ...(Object.keys(overrides).length ? ['--overrides', JSON.stringify(overrides)] : []),
          ];
          out.push({
            index: out.length,
            label: `${size} ${method} ${cell} seed ${seed}`,
            dir,
            args,
            method,
            size,
            seed,
            cell,
            ...(c.archive ? { archive: path.join(c.archive, size, method, cell, `seed-${seed}`) } : {}),
          });
        }
  return out;
}

/**
 * Where a table cell's runs are: the knob's own cell, or the baseline (its default level, or a method it does not
 * reach).
 */
export function cellOf(knob: Knob, level: string, method: string): string {
  return level === knob.default || !reaches(knob, method) ? BASELINE : cellId(knob.name, level);
}

// ---- the sweep's own files: <root>/sweep/{specs.json, status/<i>.json, logs/, slurm/} ----

export const sweepDir = (root: string) => path.join(root, 'sweep');

/**
 * Freeze the run list for the executors (every array task reads it). A different list drops the exit codes of the old
 * one (status/<index>.json: its indices name other runs).
 */
export function writeSpecs(root: string, specs: RunSpec[]): void {
  const file = path.join(sweepDir(root), 'specs.json'),
    text = JSON.stringify(specs, null, 1) + '\n';
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') !== text)
    fs.rmSync(path.join(sweepDir(root), 'status'), { recursive: true, force: true });
  fs.mkdirSync(sweepDir(root), { recursive: true });
  writeFileAtomic(file, text);
}

export function readSpecs(dir: string): RunSpec[] {
  const f = path.join(dir, 'specs.json');
  if (!fs.existsSync(f)) throw new ConfigError(`no sweep at ${dir} (no specs.json: list or submit it first)`);
  return JSON.parse(fs.readFileSync(f, 'utf8')) as RunSpec[];
}

export const isFinished = (s: RunSpec) =>
  fs.existsSync(path.join(s.dir, 'done.json')) ||
  (s.archive !== undefined && fs.existsSync(path.join(s.archive, 'done.json')));

/** What a task wrote when it ended: its exit code (a task killed by the scheduler writes nothing). */
export function readTaskStatus(dir: string, index: number): { exit: number } | null {
  const f = path.join(dir, 'status', `${index}.json`);
  try {
    return JSON.parse(fs.readFileSync(f, 'utf8')) as { exit: number };
  } catch {
    return null;
  }
}

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
const errorOf = (a: SlurmAnswer): string => ('error' in a ? a.error : '');
const outOf = (a: SlurmAnswer): string => ('out' in a ? a.out : '');
const fatalOf = (a: SlurmAnswer): boolean => ('fatal' in a ? a.fatal === true : false);

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
const RUNNING_STATES = /^(RUNNING|COMPLETING|CONFIGURING|SUSPENDED|STOPPED|RESIZING|SIGNALING|STAGE_OUT)$/;
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

// ---- aggregation: from the run records, whichever executor ran them ----

export const TABLE_COLUMNS = ['knob', 'level', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds'];
/** A claim's endpoint is the column it compares (docs/sensitivity.md: every claims table names its endpoint). */
export const CLAIM_COLUMNS = ['knob', 'level', 'claim', 'endpoint', 'delta', 'ci_low', 'ci_high', 'seeds', 'verdict'];
/** Columns of power.csv: each claim row's key and verdict, then the power of its paired comparison. */
export const POWER_COLUMNS_SWEEP = ['knob', 'level', 'claim', 'endpoint', 'verdict', ...POWER_COLUMNS];
/** Columns of pooled.csv: one row per comparison pooled across its distinct cells (`pooledCells`). */
export const POOLED_COLUMNS_SWEEP = ['claim', ...POOLED_COLUMNS];

/** The knob of a sweep without knobs (methods x seeds): its one level is the baseline. */
export const NO_KNOB: Knob = { name: 'none', default: BASELINE, levels: [] };

/** A finished run's final.csv as column -> value (null when the run has no record). */
export function readFinal(s: RunSpec): Map<string, number> | null {
  const dir = isFinished(s) && !fs.existsSync(path.join(s.dir, 'done.json')) ? s.archive! : s.dir;
  const f = path.join(dir, 'final.csv');
  if (!fs.existsSync(path.join(dir, 'done.json')) || !fs.existsSync(f)) return null;
  return new Map(readCsv(f).map((r) => [String(r.column), Number(r.value)]));
}

/** `helps` when the interval lies above 0, `hurts` below 0, else `unclear` (also with fewer than minSeeds seeds). */
export function verdictOf(ci_low: number | null, ci_high: number | null, seeds: number, minSeeds: number): string {
  if (ci_low === null || ci_high === null || seeds < minSeeds) return 'unclear';
  return ci_low > 0 ? 'helps' : ci_high < 0 ? 'hurts' : 'unclear';
}

const num = (x: number | null) => (x === null ? '' : x);

/**
 * The tidy table (mean and 95% interval over seeds per knob, level, method and column; the baseline's runs under
 * every knob's default level; a sweep without knobs: knob "none", level "baseline") and the claims (each comparison's
 * paired difference per knob and level). With more
 * than one size the rows carry a size column after the level. `power` gives each claim row the power of its
 * comparison from the same per-seed differences (src/util/power.ts: MDE, power at a difference of 0.03); `pooled`
 * each comparison (per size) across its distinct cells: a random-effects mean and a sign test. A cell is distinct
 * by the runs it compares: the baseline, repeated under every knob's default level, counts once, and so does a
 * level that reaches neither method.
 */
export function aggregateSweep(
  file: SweepFile,
  specs: RunSpec[],
  read: (s: RunSpec) => Map<string, number> | null = readFinal,
): { table: Row[]; claims: Row[]; power: Row[]; pooled: Row[] } {
  const c = completeSweep(file);
  const byKey = new Map<string, RunSpec>(specs.map((s) => [`${s.size}|${s.method}|${s.cell}|${s.seed}`, s]));
  const finals = new Map<RunSpec, Map<string, number> | null>();
  const final = (s: RunSpec | undefined) => {
    if (!s) return null;
    if (!finals.has(s)) finals.set(s, read(s));
    return finals.get(s)!;
  };
  const sized = c.sizes.length > 1,
    table: Row[] = [],
    claims: Row[] = [],
    power: Row[] = [];
  // per size and comparison: the per-seed differences of each distinct cell (keyed by the two cells it compares)
  const cells = new Map<string, { size: string; claim: string; diffs: Map<string, number[]> }>();
  for (const knob of c.knobs?.length ? c.knobs : [NO_KNOB])
    for (const level of [knob.default, ...knob.levels.map((l) => l.level)])
      for (const size of c.sizes) {
        const head = { knob: knob.name, level, ...(sized ? { size } : {}) };
        const values = (method: string, column: string) =>
          new Map(
            c.seeds
              .map(
                (seed) =>
                  [
                    seed,
                    final(byKey.get(`${size}|${method}|${cellOf(knob, level, method)}|${seed}`))?.get(column),
                  ] as const,
              )
              .filter((e): e is readonly [number, number] => e[1] !== undefined && Number.isFinite(e[1])),
          );
        for (const method of c.methods) {
          const columns = [
            ...new Set(
              c.seeds.flatMap((seed) => [
                ...(final(byKey.get(`${size}|${method}|${cellOf(knob, level, method)}|${seed}`))?.keys() ?? []),
              ]),
            ),
          ];
          for (const column of columns) {
            const v = meanInterval([...values(method, column).values()]);
            table.push({
              ...head,
              method,
              column,
              mean: v.mean,
              ci_low: num(v.ci_low),
              ci_high: num(v.ci_high),
              seeds: v.n,
            });
          }
        }
        for (const cmp of c.comparisons ?? []) {
          const A = values(cmp.a, cmp.column),
            B = values(cmp.b, cmp.column);
          const diffs = [...A.keys()].filter((s) => B.has(s)).map((s) => A.get(s)! - B.get(s)!);
          const d = meanInterval(diffs),
            verdict = verdictOf(d.ci_low, d.ci_high, d.n, c.minSeeds ?? 2);
          claims.push({
            ...head,
            claim: cmp.claim,
            endpoint: cmp.column,
            delta: d.n ? d.mean : '',
            ci_low: num(d.ci_low),
            ci_high: num(d.ci_high),
            seeds: d.n,
            verdict,
          });
          power.push({ ...head, claim: cmp.claim, endpoint: cmp.column, verdict, ...powerCells(diffs) });
          const key = `${size}|${cmp.claim}`;
          if (!cells.has(key)) cells.set(key, { size, claim: cmp.claim, diffs: new Map() });
          const cell = `${cellOf(knob, level, cmp.a)}|${cellOf(knob, level, cmp.b)}`,
            seen = cells.get(key)!.diffs;
          if (!seen.has(cell)) seen.set(cell, diffs);
        }
      }
  const pooled = [...cells.values()].map((p) => ({
    ...(sized ? { size: p.size } : {}),
    claim: p.claim,
    ...pooledCells([...p.diffs.values()]),
  }));
  return { table, claims, power, pooled };
}
