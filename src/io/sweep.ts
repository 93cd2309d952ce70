// Sweeps: an indexed list of run specs expanded from one config (methods x seeds x sizes x knob levels, one knob at
// a time around a baseline), and the sweep's own files (<root>/sweep/specs.json, status/<i>.json, logs/, slurm/). The
// frozen list in specs.json is what every array task reads (on a cluster: a shared filesystem). Running a sweep:
// src/io/executors.ts; Slurm's clients and the run lock: src/io/slurm.ts; aggregating its records:
// src/io/sweep-aggregate.ts. docs/sweeps.md describes both executors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../util/validate.js';
import { overlayConfig } from './config.js';
import { didYouMean } from '../util/names.js';
import { writeFileAtomic } from './table.js';

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

export const BASELINE = 'baseline';
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

/** Where a finished run's record is: its archive when that holds one, else its directory; undefined if unfinished. */
export const finishedDir = (s: RunSpec): string | undefined =>
  [s.archive, s.dir].find((d): d is string => d !== undefined && fs.existsSync(path.join(d, 'done.json')));

/** What a task wrote when it ended: its exit code (a task killed by the scheduler writes nothing). */
export function readTaskStatus(dir: string, index: number): { exit: number } | null {
  const f = path.join(dir, 'status', `${index}.json`);
  try {
    return JSON.parse(fs.readFileSync(f, 'utf8')) as { exit: number };
  } catch {
    return null;
  }
}
