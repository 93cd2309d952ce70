// Sweeps: an indexed list of run specs expanded from one config (methods x seeds x sizes x knob levels, one knob at
// a time around a baseline), and the executors that run it behind one interface: local processes (the job pool of
// src/io/jobs.ts) and Slurm job arrays (sbatch --array=LIST%K, one log per task, status from squeue and the tasks'
// markers, resubmission of only the missing or failed indices). A run whose record exists (<dir>/done.json) is
// finished and skipped, so a resubmitted sweep runs only what is missing; aggregation reads the records afterwards,
// so it does not matter which executor ran them. The frozen list lives in <root>/sweep/specs.json, which every
// array task reads (on a cluster: a shared filesystem).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { ConfigError } from './validate.js';
import { archiveRun, claimJob, processAlive, runJobs } from './jobs.js';
import { readCsv, writeFileAtomic, type Row } from './table.js';
import { meanInterval } from '../util/stats.js';
import { POOLED_COLUMNS, pooledCells, POWER_COLUMNS, powerCells } from '../util/power.js';

/** One level of a knob: what it adds to a run's config (--overrides JSON) and to its command line. */
export interface KnobLevel {
  level: string;
  overrides?: Record<string, unknown>;
  args?: string[];
}

export interface Knob {
  name: string;
  /** the name of the baseline's level of this knob (its runs are the baseline's) */
  default: string;
  /** the other levels, each a cell of its own */
  levels: KnobLevel[];
  /** the methods the knob reaches; the others reuse the baseline's runs at every level (default: all) */
  methods?: string[];
}

/** A paired comparison per cell: method a minus method b on `column`, paired by seed. */
export interface Comparison {
  claim: string;
  a: string;
  b: string;
  column: string;
}

export interface SweepConfig {
  name: string;
  /** where the run directories go: <root>/<size>/<method>/<cell>/seed-<n> (and the sweep's own files, <root>/sweep) */
  root: string;
  /**
   * where each finished run's record (everything but weights and log) is copied, <archive>/<size>/<method>/<cell>/
   * seed-<n>, to be committed: a run whose archive holds done.json counts as finished, and the table reads it
   */
  archive?: string;
  /** tsx script and arguments; {method}, {size}, {seed} and {dir} are replaced per run */
  command: string[];
  methods: string[];
  seeds: number[];
  sizes: string[];
  knobs: Knob[];
  comparisons?: Comparison[];
  /** fewest seeds a claim needs for a verdict other than "unclear" (default 2: an interval exists) */
  minSeeds?: number;
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

/** Throws a ConfigError naming the first malformed field of a sweep config. */
export function checkSweepConfig(c: SweepConfig): void {
  const list = (name: string, v: unknown) => {
    if (!Array.isArray(v) || v.length === 0) throw new ConfigError(`sweep ${name} must be a non-empty list`);
  };
  if (typeof c.name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(c.name))
    throw new ConfigError('sweep name must be letters, digits, _ . -');
  if (typeof c.root !== 'string' || !c.root) throw new ConfigError('sweep root must be a path');
  if (c.archive !== undefined && (typeof c.archive !== 'string' || !c.archive))
    throw new ConfigError('sweep archive must be a path');
  list('command', c.command);
  list('methods', c.methods);
  list('seeds', c.seeds);
  list('sizes', c.sizes);
  if (!Array.isArray(c.knobs)) throw new ConfigError('sweep knobs must be a list');
  for (const k of c.knobs) {
    if (typeof k.name !== 'string' || !Array.isArray(k.levels))
      throw new ConfigError('each knob needs a name and a list of levels');
    const names = [k.default, ...k.levels.map((l) => l.level)];
    if (new Set(names).size !== names.length)
      throw new ConfigError(`knob ${k.name}: levels must be distinct (the default "${k.default}" included)`);
    for (const m of k.methods ?? [])
      if (!c.methods.includes(m)) throw new ConfigError(`knob ${k.name}: method "${m}" is not in the sweep`);
  }
  for (const cmp of c.comparisons ?? [])
    for (const m of [cmp.a, cmp.b])
      if (!c.methods.includes(m)) throw new ConfigError(`comparison ${cmp.claim}: method "${m}" is not in the sweep`);
}

/**
 * The sweep's runs, indexed: seeds outermost (an interrupted sweep has every cell at its first seeds), then cells
 * (the baseline, then each knob's other levels), sizes and methods. A knob does not rerun a method it does not
 * reach: that method's cell is the baseline's run.
 */
export function expandSweep(c: SweepConfig): RunSpec[] {
  checkSweepConfig(c);
  const cells: { cell: string; level: KnobLevel; knob: Knob | null }[] = [
    { cell: BASELINE, level: { level: BASELINE }, knob: null },
    ...c.knobs.flatMap((k) => k.levels.map((l) => ({ cell: cellId(k.name, l.level), level: l, knob: k }))),
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
          const args = [
            ...c.command.map(sub),
            ...(level.args ?? []),
            ...(level.overrides && Object.keys(level.overrides).length
              ? ['--overrides', JSON.stringify(level.overrides)]
              : []),
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

/** Where a table cell's runs are: the knob's own cell, or the baseline (its default level, or a method it does not reach). */
export function cellOf(c: SweepConfig, knob: Knob, level: string, method: string): string {
  return level === knob.default || !reaches(knob, method) ? BASELINE : cellId(knob.name, level);
}

// ---- the sweep's own files: <root>/sweep/{specs.json, status/<i>.json, logs/, slurm/} ----

export const sweepDir = (root: string) => path.join(root, 'sweep');

/** Freeze the run list for the executors (every array task reads it). */
export function writeSpecs(root: string, specs: RunSpec[]): void {
  fs.mkdirSync(sweepDir(root), { recursive: true });
  writeFileAtomic(path.join(sweepDir(root), 'specs.json'), JSON.stringify(specs, null, 1) + '\n');
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

/**
 * Run one entry (a Slurm array task, or by hand): skipped when its record exists or another live process holds it;
 * else its command runs with this process's output (the task's log), its record is archived when it has an archive,
 * and <sweep>/status/<i>.json records the exit code. Resolves to the exit code.
 */
export async function runIndex(dir: string, index: number, log: (s: string) => void = console.log): Promise<number> {
  const specs = readSpecs(dir),
    spec = specs[index];
  if (!spec) throw new ConfigError(`index ${index} is outside the sweep (0..${specs.length - 1})`);
  const write = (exit: number) =>
    writeFileAtomic(
      path.join(dir, 'status', `${index}.json`),
      JSON.stringify({
        index,
        exit,
        host: os.hostname(),
        job: process.env.SLURM_JOB_ID ?? null,
        at: new Date().toISOString(),
      }) + '\n',
    );
  if (isFinished(spec)) {
    log(`[sweep] ${index} skipped: ${spec.label} (finished)`);
    write(0);
    return 0;
  }
  // under Slurm the array gives each index one task (a lock left by a killed task names a pid of another node)
  if (process.env.SLURM_JOB_ID) {
    fs.mkdirSync(spec.dir, { recursive: true });
    fs.writeFileSync(path.join(spec.dir, 'running.pid'), String(process.pid));
  } else if (!claimJob(spec.dir)) {
    log(`[sweep] ${index} skipped: ${spec.label} (running elsewhere)`);
    return 0;
  }
  log(`[sweep] ${index} start: ${spec.label} on ${os.hostname()}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(TSX_BIN, spec.args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (c) => resolve(c ?? 1));
  });
  fs.rmSync(path.join(spec.dir, 'running.pid'), { force: true });
  if (code === 0 && spec.archive) archiveRun(spec.dir, spec.archive);
  write(code);
  log(`[sweep] ${index} ${code === 0 ? 'done' : `FAILED (exit ${code})`}: ${spec.label}`);
  return code;
}

const TSX_BIN = './node_modules/.bin/tsx';

// ---- executors ----

export type TaskState = 'done' | 'pending' | 'running' | 'failed' | 'missing';

export interface Executor {
  readonly name: string;
  /** start the unfinished runs among `indices` (default: all); local runs them to the end, Slurm submits an array */
  submit(root: string, specs: RunSpec[], indices?: number[]): Promise<{ submitted: number[]; job?: string }>;
  /** each run's state, in index order */
  status(root: string, specs: RunSpec[]): TaskState[];
  /** resolves when nothing of the sweep is queued or running any more */
  wait(root: string): Promise<void>;
}

/** The indices to (re)submit: neither finished nor queued or running. */
export const toSubmit = (states: TaskState[], indices?: number[]) =>
  (indices ?? states.map((_, i) => i)).filter((i) => states[i] === 'failed' || states[i] === 'missing');

/** Local processes: the job pool of src/io/jobs.ts (one run per process, `parallel` at a time, logs in <run>/log.txt). */
export function localExecutor(parallel = 2, log?: (s: string) => void): Executor {
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
      );
      return { submitted: todo };
    },
    status(_root, specs) {
      return specs.map((s) => {
        if (isFinished(s)) return 'done';
        const lock = path.join(s.dir, 'running.pid');
        if (fs.existsSync(lock) && alive(Number(fs.readFileSync(lock, 'utf8')))) return 'running';
        return fs.existsSync(path.join(s.dir, 'log.txt')) ? 'failed' : 'missing';
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
 * split shows as "<job>_[3-5%2]"; its ranges are expanded.
 */
export function parseSqueue(text: string, jobs: string[]): Map<number, 'pending' | 'running'> {
  const out = new Map<number, 'pending' | 'running'>();
  for (const line of text.split('\n')) {
    const m = /^(\d+)_(\d+|\[([^\]]*)\])\s+(\S+)/.exec(line.trim());
    if (!m || !jobs.includes(m[1])) continue;
    const state = /^(RUNNING|COMPLETING|CONFIGURING)$/.test(m[4]) ? 'running' : 'pending';
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
  /** seconds between squeue polls while waiting */
  pollSeconds?: number;
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
    '# one sweep entry per array task; a finished run (its done.json) is skipped',
    'set -euo pipefail',
    `cd ${JSON.stringify(path.resolve(repo))}`,
    `exec ${TSX_BIN} src/cli/sweep.ts run --sweep ${JSON.stringify(abs)} --index "$SLURM_ARRAY_TASK_ID"`,
    '',
  ].join('\n');
}

/** The sbatch command line of a submission (flags passed through before the script, so they override its #SBATCH lines). */
export function sbatchCommand(script: string, indices: number[], o: SlurmOptions = {}): string[] {
  const k = o.concurrency ? `%${o.concurrency}` : '';
  return ['--parsable', `--array=${rangeList(indices)}${k}`, ...(o.sbatchArgs ?? []), script];
}

/** Slurm job arrays: each submission's job id is kept in <sweep>/slurm/jobs.jsonl, with the indices it covers. */
export function slurmExecutor(o: SlurmOptions = {}): Executor {
  const log = o.log ?? console.log;
  const jobsFile = (root: string) => path.join(sweepDir(root), 'slurm', 'jobs.jsonl');
  const jobIds = (root: string) =>
    fs.existsSync(jobsFile(root))
      ? fs
          .readFileSync(jobsFile(root), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => String(JSON.parse(l).job))
      : [];
  const queued = (root: string) => {
    const ids = jobIds(root);
    if (!ids.length) return new Map<number, 'pending' | 'running'>();
    let text = '';
    try {
      text = execFileSync('squeue', ['-h', '-r', '-j', ids.join(','), '-o', '%i %T'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      }).toString();
    } catch {
      /* jobs gone from the queue */
    }
    return parseSqueue(text, ids);
  };
  return {
    name: 'slurm',
    async submit(root, specs, indices) {
      writeSpecs(root, specs);
      const todo = toSubmit(this.status(root, specs), indices);
      if (!todo.length) {
        log(`[sweep] nothing to submit: ${specs.length} runs finished or queued`);
        return { submitted: [] };
      }
      const dir = sweepDir(root),
        script = path.join(dir, 'slurm', 'array.sh');
      fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
      for (const i of todo) fs.rmSync(path.join(dir, 'status', `${i}.json`), { force: true });
      writeFileAtomic(script, arrayScript(dir, path.basename(path.resolve(root))));
      fs.chmodSync(script, 0o755);
      const args = sbatchCommand(script, todo, o);
      const job = execFileSync('sbatch', args, { stdio: ['ignore', 'pipe', 'inherit'] })
        .toString()
        .trim()
        .split(';')[0];
      if (!/^\d+$/.test(job)) throw new Error(`sbatch printed no job id (got "${job}")`);
      fs.appendFileSync(
        jobsFile(root),
        JSON.stringify({ job, indices: todo, at: new Date().toISOString(), sbatch: args }) + '\n',
      );
      log(
        `[sweep] submitted array job ${job}: ${todo.length} of ${specs.length} runs (${rangeList(todo)}); logs in ${path.join(dir, 'logs')}`,
      );
      return { submitted: todo, job };
    },
    status(root, specs) {
      const q = queued(root),
        dir = sweepDir(root);
      return specs.map((s, i) => {
        if (isFinished(s)) return 'done';
        const inQueue = q.get(i);
        if (inQueue) return inQueue;
        // ended without a record: a non-zero exit, or killed before writing one (time limit, node failure)
        const st = readTaskStatus(dir, i);
        if (st) return 'failed';
        return fs.existsSync(path.join(dir, 'logs')) &&
          fs.readdirSync(path.join(dir, 'logs')).some((f) => f.startsWith(`task-${i}-`))
          ? 'failed'
          : 'missing';
      });
    },
    async wait(root) {
      while (queued(root).size > 0) await new Promise((r) => setTimeout(r, (o.pollSeconds ?? 1) * 1000));
    },
  };
}

/** An executor by name: "local" (`jobs` processes) or "slurm" (the options passed through). */
export function makeExecutor(name: string, o: SlurmOptions & { jobs?: number } = {}): Executor {
  if (name === 'local') return localExecutor(o.jobs ?? 2, o.log);
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
export const CLAIM_COLUMNS = ['knob', 'level', 'claim', 'delta', 'ci_low', 'ci_high', 'seeds', 'verdict'];
/** Columns of power.csv: each claim row's key and verdict, then the power of its paired comparison. */
export const POWER_COLUMNS_SWEEP = ['knob', 'level', 'claim', 'verdict', ...POWER_COLUMNS];
/** Columns of pooled.csv: one row per comparison pooled across its distinct cells (`pooledCells`). */
export const POOLED_COLUMNS_SWEEP = ['claim', ...POOLED_COLUMNS];

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
 * every knob's default level) and the claims (each comparison's paired difference per knob and level). With more
 * than one size the rows carry a size column after the level. `power` gives each claim row the power of its
 * comparison from the same per-seed differences (src/util/power.ts: MDE, power at a difference of 0.03); `pooled`
 * each comparison (per size) across its distinct cells: a random-effects mean and a sign test. A cell is distinct
 * by the runs it compares: the baseline, repeated under every knob's default level, counts once, and so does a
 * level that reaches neither method.
 */
export function aggregateSweep(
  c: SweepConfig,
  specs: RunSpec[],
  read: (s: RunSpec) => Map<string, number> | null = readFinal,
): { table: Row[]; claims: Row[]; power: Row[]; pooled: Row[] } {
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
  for (const knob of c.knobs)
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
                    final(byKey.get(`${size}|${method}|${cellOf(c, knob, level, method)}|${seed}`))?.get(column),
                  ] as const,
              )
              .filter((e): e is readonly [number, number] => e[1] !== undefined && Number.isFinite(e[1])),
          );
        for (const method of c.methods) {
          const columns = [
            ...new Set(
              c.seeds.flatMap((seed) => [
                ...(final(byKey.get(`${size}|${method}|${cellOf(c, knob, level, method)}|${seed}`))?.keys() ?? []),
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
            delta: d.n ? d.mean : '',
            ci_low: num(d.ci_low),
            ci_high: num(d.ci_high),
            seeds: d.n,
            verdict,
          });
          power.push({ ...head, claim: cmp.claim, verdict, ...powerCells(diffs) });
          const key = `${size}|${cmp.claim}`;
          if (!cells.has(key)) cells.set(key, { size, claim: cmp.claim, diffs: new Map() });
          const cell = `${cellOf(c, knob, level, cmp.a)}|${cellOf(c, knob, level, cmp.b)}`,
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
