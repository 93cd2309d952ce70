// A run directory: complete config.json (seed, backend, code version), metrics.jsonl (one JSON line per
// step, appended as it happens, so an interrupted run keeps every finished step), tidy CSV outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { writeFileAtomic, writeCsv, type Row } from './table.js';
import { ConfigError } from '../util/validate.js';
import { verifySums } from './checksums.js';
import { markStarted, noteRunFile, trackUnstarted } from './unstarted.js';

/**
 * git commit of the working tree, with "-dirty" when it has uncommitted changes: a tracked file changed, or a file
 * under src/, analysis/ or sweeps/ that git does not track yet (code a run may import or read).
 */
export function codeVersion(): string {
  const git = (args: string[]) =>
    execFileSync('git', args, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const head = git(['rev-parse', 'HEAD']);
    const dirty =
      git(['status', '--porcelain', '--untracked-files=no']) ||
      git(['ls-files', '--others', '--exclude-standard', '--', 'src', 'analysis', 'sweeps']);
    return dirty ? `${head}-dirty` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** WORKBENCH_ALLOW_DIRTY=1 (a CLI's --allow-dirty): archive records of a dirty tree under results/ anyway. */
const allowDirty = () => process.env.WORKBENCH_ALLOW_DIRTY === '1';
const DIRTY_HINT = 'committed records come from a clean commit (commit first, or pass --allow-dirty)';

/** `where` lies under the repository's results/, whose records are committed. */
function isCommitted(where: string): boolean {
  const rel = path.relative(path.resolve('results'), path.resolve(where));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Why the record in `dir` must not be archived at `archive` (null when it may): under results/, a record's
 * config.json must name a clean code version unless `allow` (--allow-dirty). Elsewhere anything goes.
 */
export function dirtyRecordProblem(dir: string, archive: string, allow = allowDirty()): string | null {
  if (allow || !isCommitted(archive)) return null;
  let version = 'none';
  try {
    version = String(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).codeVersion ?? 'none');
  } catch {}
  if (/^[0-9a-f]{40}$/.test(version)) return null;
  return `${dir}: its config.json names code version "${version}", not a clean commit; ${DIRTY_HINT}`;
}

/** Refuse to start runs whose records go under results/ (`archive`) from a tree with uncommitted changes. */
export function refuseDirtyTree(archive: string | undefined, allow = allowDirty()): void {
  if (allow || archive === undefined || !isCommitted(archive)) return;
  const v = codeVersion();
  if (!/^[0-9a-f]{40}$/.test(v))
    throw new ConfigError(`runs archived under ${archive} need a clean tree (code version ${v}); ${DIRTY_HINT}`);
}

/** The engine a run ran on, as its config records it: the backend's name and the engine's description. */
export interface EngineRecord {
  backend: string;
  engine: Record<string, string | number>;
}

export interface Run {
  dir: string;
  config: Record<string, unknown>;
  /** append one metrics line (a step's record) */
  log(record: Record<string, unknown>): void;
  /** write a tidy table atomically into the run directory */
  table(name: string, rows: Row[], columns?: string[]): void;
  /** mark the run complete (written last; a run without it was interrupted) */
  finish(summary?: Record<string, unknown>): void;
}

/**
 * Open a run directory. The config is recorded with the seed it must contain, the engine the caller started for this
 * process (`startEngine` in src/models/backend.ts: the tensor backend and its description), the code version, the Node
 * version and the start time. Until its first step is logged (or it finishes), a failing CLI removes it again
 * (src/io/unstarted.ts): check the input before.
 */
export async function openRun(
  dir: string,
  config: Record<string, unknown> & { seed: number },
  engine: EngineRecord,
): Promise<Run> {
  const createdRoot = fs.mkdirSync(dir, { recursive: true });
  for (const f of ['metrics.jsonl', 'done.json']) fs.rmSync(path.join(dir, f), { force: true });
  const full = {
    ...config,
    backend: engine.backend,
    engine: engine.engine,
    codeVersion: codeVersion(),
    node: process.version,
    startedAt: new Date().toISOString(),
  };
  writeFileAtomic(path.join(dir, 'config.json'), JSON.stringify(full, null, 2) + '\n');
  trackUnstarted(dir, createdRoot, ['config.json']);
  const metricsFile = path.join(dir, 'metrics.jsonl');
  return {
    dir,
    config: full,
    log(record) {
      fs.appendFileSync(metricsFile, JSON.stringify(record) + '\n');
      markStarted(dir);
    },
    table(name, rows, columns) {
      noteRunFile(dir, `${name}.csv`);
      writeCsv(path.join(dir, `${name}.csv`), rows, columns);
    },
    finish(summary = {}) {
      markStarted(dir);
      writeFileAtomic(
        path.join(dir, 'done.json'),
        JSON.stringify({ ...summary, finishedAt: new Date().toISOString() }, null, 2) + '\n',
      );
    },
  };
}

/**
 * A run resumes only under the kernel generation it started with (its `engine.kernels`; a record without one is
 * generation 1): the steps after the resume would otherwise come from other arithmetic than the steps before. `now` is
 * this process's generation (`engineSettings().kernels`, src/models/engine-settings.ts).
 */
export function checkResumeKernels(dir: string, was: Record<string, unknown>, now: number) {
  const recorded = Number((was.engine as { kernels?: number } | undefined)?.kernels ?? 1);
  if (recorded !== now) {
    throw new ConfigError(
      `${dir} was started with kernels ${recorded} and this process runs kernels ${now}: ` +
        `resume it with WORKBENCH_KERNELS=${recorded}, or pass another --out`,
    );
  }
}

/** Every run directory under `root` (at any depth) that finished (has done.json), sorted. */
export function findFinishedRuns(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    if (fs.existsSync(path.join(d, 'done.json'))) {
      verifySums(d);
      out.push(d);
      return;
    }
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(root);
  return out.sort();
}

/** Read metrics.jsonl, ignoring a torn last line left by an interrupted write (and any line that is no object). */
export function readMetrics(dir: string): Record<string, unknown>[] {
  const file = path.join(dir, 'metrics.jsonl');
  if (!fs.existsSync(file)) return [];
  const out: Record<string, unknown>[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; /* torn final line of an interrupted run */
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Record<string, unknown>);
  }
  return out;
}

/** Load and parse a JSON config file, naming the file in every error (a ConfigError: one line, exit 2). */
export function loadJsonConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`config file ${file} does not exist`);
    throw new ConfigError(`config file ${file} cannot be read: ${(e as Error).message}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  return v as Record<string, unknown>;
}
