// One Table 2 run, planned and checked without training: its flags (table2-run.ts's, defined here once), the method,
// profile, size, seed and steps, the user's config (--config, then --overrides over it), the row's RL config built
// and checked (names, types and ranges) and the checkpoints it reads. src/cli/table2-run.ts plans its run with it
// before opening the run directory; src/cli/sweep.ts and src/cli/table2.ts check every run of a sweep or profile with
// it before the first one starts (checking: a KL-matched row's target need not exist yet, checkpoints only exist).
import * as fs from 'node:fs';
import { choiceArg, intArg, intListArg, parseArgs, type Args } from '../io/args.js';
import { loadJsonConfig } from '../io/run.js';
import { overlayConfig } from '../io/config.js';
import { ConfigError } from '../util/validate.js';
import { checkCheckpoints, SIZE_NAMES } from '../models/policy.js';
import { KINDS, table2Row, type Row } from '../methods/tables/table2-kinds.js';
import {
  coldStartCheckpoint,
  methodSpec,
  PROFILES,
  profileSpec,
  rlvrKlTarget,
  scalarRmCheckpoint,
  VERIFIER_CHECKPOINT,
  type MethodSpec,
  type Profile,
} from '../methods/tables/table2.js';

/** The flags of src/cli/table2-run.ts (a sweep's command line is read with them too). */
export const TABLE2_RUN_FLAGS = {
  method: { help: 'method id (docs/options.md, Methods)', default: 'rlcer' },
  size: { help: 'S or M', default: 'S' },
  seed: { help: 'seed', default: '0' },
  profile: { help: `a profile: ${Object.keys(PROFILES).join(', ')} (docs/options.md, Profiles)`, default: 'quick' },
  steps: "override the profile's steps (default: the profile's)",
  out: 'run directory (default: runs/table2/<profile>/<size>/<method>/seed-<seed>)',
  config: "JSON file overriding the method's RL config (docs/options.md)",
  'checkpoint-every': { help: 'steps between resumable checkpoints', default: '10' },
  overrides: "inline JSON overriding the method's RL config, over --config (docs/options.md)",
  horizons:
    "comma-separated steps before the last after which the full final evaluation is also written (default: the profile's)",
  coldstart:
    "the cold start variant to start from (data/checkpoints/coldstart-transformer-<size>-<variant>.json; default the row's)",
};

export type Table2RunArgs = Args<typeof TABLE2_RUN_FLAGS>;

/** --overrides: an inline JSON object (a sweep's knob level), read like a config file. */
export function parseOverrides(text: string): Record<string, unknown> {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`--overrides is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o))
    throw new ConfigError('--overrides must be a JSON object');
  return o as Record<string, unknown>;
}

/** A run as planned: everything table2-run.ts reads of its arguments, the row's config built and checked. */
export interface Table2Plan {
  method: string;
  spec: MethodSpec;
  profileName: string;
  profile: Profile;
  size: (typeof SIZE_NAMES)[number];
  seed: number;
  steps: number;
  /** the user's overrides (--config, then --overrides over it) */
  user: Record<string, unknown>;
  out: string;
  /** a KL-matched row's target, and the record it was read from */
  klMatch: { target: number; from: string } | null;
  row: Row;
  /** the cold start the run starts from */
  coldstart: string;
  /** the row reads the static scalar RM */
  needsRm: boolean;
  /** every checkpoint the run reads */
  checkpoints: string[];
  checkpointEvery: number;
  horizons: number[];
}

/**
 * Plan a run from table2-run.ts's parsed flags, checking every argument and the row's config (ConfigError naming the
 * first bad one). `checking`: a sweep's or profile's check before anything trains, where a KL-matched row's target
 * (RLVR's record of the same seed) may not exist yet (a stand-in target is checked instead) and each checkpoint is
 * only required to exist (table2-run reads them whole).
 */
export function planTable2Run(a: Table2RunArgs, checking = false): Table2Plan {
  const method = a.method,
    spec = methodSpec(method),
    profile = profileSpec(a.profile);
  const size = choiceArg('size', a.size, SIZE_NAMES),
    seed = intArg('seed', a.seed, 0);
  const steps = KINDS[spec.kind].trains
    ? intArg('steps', a.steps ?? String(profile.stepsByMethod?.[method] ?? profile.steps), 0)
    : 0;
  const user = overlayConfig(a.config ? loadJsonConfig(a.config) : {}, a.overrides ? parseOverrides(a.overrides) : {});
  const out = a.out ?? `runs/table2/${a.profile}/${size}/${method}/seed-${seed}`;
  // a KL-matched row's target: RLVR's update size at the same profile, size and seed (recorded in the config)
  const klMatch = spec.klMatch ? klTarget(a.profile, size, seed, checking) : null;
  // the row's config, of its kind (src/methods/tables/table2-kinds.ts); the user's overrides apply to it only
  const row = table2Row({
    spec,
    user,
    steps,
    klTarget: klMatch?.target ?? null,
    scalarRmCheckpoint: scalarRmCheckpoint(size),
  });
  row.check();
  // --coldstart: another cold start of the size for this run (the sparse regime's wide cold start, amendment 1)
  const coldstart = coldStartCheckpoint(size, a.coldstart ?? spec.coldstart);
  const needsRm = row.scalarRm || spec.quality === 'scalar_rm';
  const checkpoints = [coldstart, VERIFIER_CHECKPOINT, ...(needsRm ? [scalarRmCheckpoint(size)] : [])];
  const checkpointEvery = intArg('checkpoint-every', a['checkpoint-every'], 1);
  const horizons = a.horizons !== undefined ? intListArg('horizons', a.horizons, 1) : (profile.horizons ?? []);
  if (!row.horizons && horizons.some((h) => h < steps)) {
    throw new ConfigError(
      "horizons before the last step are for rows whose steps do not depend on the run's length (not EvoLM)",
    );
  }
  if (checking) {
    const missing = checkpoints.filter((f) => !fs.existsSync(f) && f !== scalarRmCheckpoint(size));
    if (missing.length)
      throw new ConfigError(
        `missing checkpoint ${missing.join(', ')} (committed under data/checkpoints/: see docs/world.md)`,
      );
  } else checkCheckpoints(...checkpoints);
  return {
    method,
    spec,
    profileName: a.profile,
    profile,
    size,
    seed,
    steps,
    user,
    out,
    klMatch,
    row,
    coldstart,
    needsRm,
    checkpoints,
    checkpointEvery,
    horizons,
  };
}

/** RLVR's target, or (checking, before RLVR has run) a stand-in that checks like one. */
function klTarget(profile: string, size: string, seed: number, checking: boolean) {
  try {
    return rlvrKlTarget(profile, size, seed);
  } catch (e) {
    if (checking && e instanceof ConfigError) return { target: 1, from: '(checked before RLVR has run)' };
    throw e;
  }
}

/** Check one run given as table2-run.ts's arguments (a sweep entry's command line after the script). */
export function checkTable2RunArgs(args: string[]): void {
  planTable2Run(parseArgs(args, TABLE2_RUN_FLAGS, { program: 'tsx src/cli/table2-run.ts' }), true);
}

/** The kinds' configs as a row records them (`Row.record`): the first of these keys it holds. */
const CONFIG_KEYS = ['rlcer', 'evolm', 'rlvr'];

/**
 * A method's RL config as its runs take it with no overrides of the user (its kind's defaults, the method's own
 * settings), and whether its runs read options beyond the world (the cold start's row trains nothing: only `world`,
 * where its endpoint is measured, reaches it).
 */
export function methodConfig(method: string): { config: Record<string, unknown>; trains: boolean } {
  const spec = methodSpec(method),
    row = table2Row({ spec, user: {}, steps: 1, klTarget: 1, scalarRmCheckpoint: scalarRmCheckpoint('S') });
  const key = CONFIG_KEYS.find((k) => k in row.record)!;
  return { config: row.record[key] as Record<string, unknown>, trains: KINDS[spec.kind].trains };
}

/** Every option path of a config ("threshold", "ppo.lr.reason", "world.labelNoise"), objects descended. */
export function optionPaths(config: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(config).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? [`${prefix}${k}`, ...optionPaths(v as Record<string, unknown>, `${prefix}${k}.`)]
      : [`${prefix}${k}`],
  );
}

/** The value at an option path of a config, or undefined where the config has no such option. */
export function optionAt(config: Record<string, unknown>, option: string): unknown {
  let v: unknown = config;
  for (const part of option.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}
