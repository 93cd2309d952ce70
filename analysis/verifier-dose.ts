// The verifier dose-response pilot (sweeps/verifier-dose-pilot.json; docs/verifier.md): RLVR, and RLCER, judge-only
// training on the teacher's rubrics and EvoLM at each verifier level (the learned verifier, the competent one, the
// exact verifier with symmetric label noise at 0.8, the exact one). Its claims, per level: RLCER - RLVR (RLVR reads no
// verifier: its runs pair with every level) and EvoLM - judge-only (both read the level's judge). Per level and claim,
// the paired differences on the endpoints (sensitivity.ts `pairedDifferences`), the seeds rule on their spread (never
// their means), and each level's verifier accuracy (the figure's x-axis) from the committed held-out tables.
// Usage: tsx analysis/verifier-dose.ts pilot [--config sweeps/verifier-dose-pilot.json] [--out results/verifier-dose]
//   [--root DIR]
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { loadJsonConfig, readMetrics } from '../src/io/run.js';
import { completeSweep, expandSweep, finishedDir, type SweepConfig, type SweepFile } from '../src/io/sweep.js';
import { PARITY_COLUMNS, updateParity } from './parity.js';
import { readCsv, writeCsv, writeFileAtomic, type Row } from '../src/io/table.js';
import { ConfigError } from '../src/util/validate.js';
import {
  MAX_SEEDS,
  MIN_SEEDS,
  PAIRED_COLUMNS,
  pairedDifferences,
  RECORD_COLUMNS,
  SEED_RULE_COLUMNS,
  seedRule,
  sensitivityRecords,
  TARGET_MDE,
} from './sensitivity.js';

/** The pre-registered comparisons of the dose-response campaign: arm minus reference at each verifier level. */
export const DOSE_CLAIMS: [string, string][] = [
  ['rlcer', 'rlvr'],
  ['evolm', 'judge_teacher'],
];
/** The arm that reads no verifier: its runs pair with every level's. */
export const NO_VERIFIER = 'rlvr';

/**
 * The records by verifier level: a knob method's baseline cell is its default level (`verifier=learned`), and the
 * runs of the arm that reads no verifier are copied into every level's cell, so each level pairs with them.
 */
export function doseCells(records: Row[], defaultLevel: string, levels: string[]): Row[] {
  const cellOf = (l: string) => `verifier=${l}`;
  return records.flatMap((r) =>
    r.method === NO_VERIFIER
      ? [defaultLevel, ...levels].map((l) => ({ ...r, cell: cellOf(l) }))
      : [{ ...r, cell: r.cell === 'baseline' ? cellOf(defaultLevel) : r.cell }],
  );
}

/**
 * Update parity per level (analysis/parity.ts): each arm's approx. KL per update, per role, against RLVR's on the same
 * seed (RLVR reads no verifier: its runs stand beside every level's).
 */
export function doseParity(c: SweepConfig, defaultLevel: string, levels: string[]): Row[] {
  const runs = expandSweep(c).flatMap((s) => {
    const dir = finishedDir(s);
    const cell = s.cell === 'baseline' ? `verifier=${defaultLevel}` : s.cell;
    return dir ? [{ cell, size: s.size, method: s.method, seed: s.seed, metrics: readMetrics(dir) }] : [];
  });
  return [defaultLevel, ...levels].flatMap((l) =>
    updateParity(runs.filter((r) => r.method === NO_VERIFIER || r.cell === `verifier=${l}`)).map((r) => ({
      cell: `verifier=${l}`,
      ...r,
    })),
  );
}

/**
 * Each level's held-out verifier accuracy: the learned and competent verifiers' example-weighted accuracy over the
 * criteria on the cold start's pairs (results/verifier/competent.csv), a noisy exact verifier its set accuracy
 * (`oracle@a`), the exact one 1.
 */
export function levelAccuracy(level: string, heldOut: Row[]): number {
  if (level === 'oracle') return 1;
  const noisy = /^oracle@([0-9.]+)$/.exec(level);
  if (noisy) return Number(noisy[1]);
  if (level !== 'learned' && level !== 'competent') throw new ConfigError(`no held-out accuracy for "${level}"`);
  const rows = heldOut.filter((r) => r.set === 'coldstart');
  const n = rows.reduce((a, r) => a + Number(r.examples), 0);
  return rows.reduce((a, r) => a + Number(r.examples) * Number(r[`${level}_accuracy`]), 0) / n;
}

/** The campaign's first seed: past the pilot's 0-2 and every other campaign's. */
export const DOSE_FIRST_SEED = 40;

/** Seeds per arm: the most any level's rule asks (levels the pilot could not spread: the cap), within [8, 20]. */
export function doseSeeds(rule: Row[]): number {
  const asks = rule.map((r) => (r.seeds === '' ? MAX_SEEDS : Number(r.seeds)));
  return Math.min(MAX_SEEDS, Math.max(MIN_SEEDS, ...asks));
}

/**
 * Per claim, the level whose 300-step runs the campaign adds: the level where the pilot's difference on the
 * in-distribution endpoint at 60 steps is farthest from the learned verifier's (where competence matters most).
 * This reads the pilot's means, as the issue asks; it chooses a horizon to add, and no verdict reads it.
 */
export function doseLevel300(paired: Row[], a: string, b: string, defaultLevel: string): string {
  const at = paired.filter(
    (r) => r.a === a && r.b === b && r.endpoint === 'in_distribution' && Number(r.horizon) === 60,
  );
  const base = at.find((r) => r.cell === `verifier=${defaultLevel}`);
  if (!base) throw new ConfigError(`the pilot has no ${a} - ${b} at the ${defaultLevel} verifier`);
  const far = at
    .filter((r) => r !== base)
    .map((r) => ({ cell: String(r.cell), gap: Math.abs(Number(r.delta) - Number(base.delta)) }))
    .sort((x, y) => y.gap - x.gap || x.cell.localeCompare(y.cell))[0];
  if (!far) throw new ConfigError(`the pilot has no other level for ${a} - ${b}`);
  return far.cell.replace(/^verifier=/, '');
}

/** The campaign's sweeps: every arm at every level for 60 steps, and each claim's chosen level for 300. */
export function doseSweeps(
  pilot: SweepFile,
  seeds: number,
  level300: Record<string, string>,
): Record<string, SweepFile> {
  const range = Array.from({ length: seeds }, (_, i) => DOSE_FIRST_SEED + i);
  const knob = pilot.knobs!.find((k) => k.name === 'verifier')!;
  const s60: SweepFile = {
    ...pilot,
    name: 'verifier-dose-S',
    root: 'runs/sweeps/verifier-dose-S',
    archive: 'results/runs/verifier-dose/S',
    seeds: range,
    minSeeds: MIN_SEEDS,
  };
  // 300 steps: RLVR, and each claim's two arms at its chosen level (the learned level needs no knob level)
  const methods300 = [NO_VERIFIER, ...DOSE_CLAIMS.flatMap(([x, y]) => [x, y].filter((m) => m !== NO_VERIFIER))];
  const s300: SweepFile = {
    ...s60,
    name: 'verifier-dose-S300',
    root: 'runs/sweeps/verifier-dose-S300',
    archive: 'results/runs/verifier-dose/S300',
    command: (pilot.command ?? []).map((x, i, all) => (all[i - 1] === '--steps' ? '300' : x)),
    methods: methods300,
    overrides: Object.fromEntries(
      DOSE_CLAIMS.flatMap(([x, y]) => {
        const lvl = knob.levels.find((l) => l.level === level300[`${x}_minus_${y}`]);
        return lvl ? [x, y].filter((m) => m !== NO_VERIFIER).map((m) => [m, lvl.overrides ?? {}]) : [];
      }),
    ),
    knobs: [],
  };
  return { 'verifier-dose-S.json': s60, 'verifier-dose-S300.json': s300 };
}

const f3 = (v: unknown) => (v === '' || v === undefined ? '-' : Number(v).toFixed(3));

/** The pre-registration's text, every number from the committed pilot tables. */
export function dosePreregistrationText(o: {
  rule: Row[];
  levels: Row[];
  seeds: number;
  level300: Record<string, string>;
  sweeps: Record<string, SweepFile>;
}): string {
  const rows = o.rule
    .map(
      (r) =>
        `| ${r.cell} | ${r.pilot_seeds} | ${f3(r.sd_used)} | ` +
        `${r.seeds === '' ? '-' : r.seeds} | ${f3(r.mde_accuracy)} |`,
    )
    .join('\n');
  const acc = o.levels.map((r) => `${r.level} ${f3(r.verifier_accuracy)}`).join(', ');
  const first = DOSE_FIRST_SEED;
  const l300 = DOSE_CLAIMS.map(([x, y]) => `${x} - ${y}: ${o.level300[`${x}_minus_${y}`]}`).join('; ');
  return `# Pre-registration: the verifier dose-response campaign

Written by \`make verifier-dose-preregister\` (analysis/verifier-dose.ts) from the committed pilot tables
(results/verifier-dose/pilot.csv, power.csv, levels.csv; 39 runs in results/runs/verifier-dose/pilot/) and committed
before the campaign's first run; the campaign changes nothing fixed here.

## 1. Arms, levels, instrument

RLVR (reads no verifier); RLCER, judge-only training on the teacher's rubrics (\`judge_teacher\`) and EvoLM, each at
every verifier level: ${o.levels.map((r) => r.level).join(', ')} (held-out verifier accuracy ${acc};
results/verifier/competent.csv, example-weighted over the criteria on the cold start's pairs; the noisy level is the
exact verifier with symmetric label noise at that accuracy, drawn from the run's seed). S, profile \`confirm\`, 60
steps. PPO and GRPO as the clean instrument has them (separate critic, \`equalGroups: 'zero'\`): the defaults at
the pilot's commit. One kernel generation and one processor, as the pilot's records name them.

## 2. Claims and families

Per level, at 60 steps, on in_distribution and chain_ood (accuracy; trace_error reported): **RLCER - RLVR** and
**EvoLM - judge-only** (both read the level's judge), paired by seed. A family per (claim, endpoint) holds its four
levels' comparisons; Holm's adjustment within it; verdicts \`helps\` / \`hurts\` at Holm p < 0.05, \`no effect
larger than MDE\` when the 95% interval lies inside +-MDE, else \`inconclusive\`, each with its MDE.

**300 steps** for the level where the pilot's in-distribution difference is farthest from the learned verifier's
(the issue's "the level that the pilot shows matters most"; this reads the pilot's means to choose a horizon, and no
verdict reads it): ${l300}. Each 300-step comparison is a family of its own.

**The figure**: each claim's difference against the level's verifier accuracy, with 95% intervals (docs/verifier.md
reads it: at what accuracy RLCER's rubric reward starts to help, where EvoLM stops collapsing).

## 3. Seeds

The rule (analysis/sensitivity.ts \`seedRule\`): per level, the larger paired SD of the two accuracy endpoints over
both claims fixes the fewest seeds with MDE <= ${TARGET_MDE}, at most ${MAX_SEEDS}; a level whose pilot gave fewer
than two paired seeds takes the cap.

| level | pilot seeds | SD used | seeds for MDE <= ${TARGET_MDE} | MDE at those seeds |
|---|---|---|---|---|
${rows}

**Seeds per arm: ${o.seeds}** (the most any level asks, within [${MIN_SEEDS}, ${MAX_SEEDS}]), seeds ${first},
${first + 1}, ... (disjoint from the pilot's 0-2 and from the clean instrument's campaign, 20-39). Sweeps: ${Object.keys(
    o.sweeps,
  )
    .map((f) => `sweeps/${f}`)
    .join(', ')}.
`;
}

runMain(async () => {
  if (process.argv[1] && !/verifier-dose\.ts$/.test(process.argv[1])) return; // imported, not run
  const [cmd, ...rest] = process.argv.slice(2);
  const a = parseArgs(rest, {
    config: { help: "the pilot's sweep", default: 'sweeps/verifier-dose-pilot.json' },
    out: { help: 'output directory', default: 'results/verifier-dose' },
    root: "run directory root instead of the sweep's (e.g. /nonexistent: read the committed archive only)",
    sweeps: { help: "where preregister writes the campaign's sweep configs", default: 'sweeps' },
  });
  if (cmd === 'preregister') {
    const pilot = loadJsonConfig(a.config) as unknown as SweepFile;
    const knob = pilot.knobs?.find((k) => k.name === 'verifier');
    if (!knob) throw new ConfigError(`${a.config} has no verifier knob`);
    const rule = readCsv(path.join(a.out, 'power.csv')),
      paired = readCsv(path.join(a.out, 'pilot.csv'));
    const seeds = doseSeeds(rule);
    const level300 = Object.fromEntries(
      DOSE_CLAIMS.map(([x, y]) => [`${x}_minus_${y}`, doseLevel300(paired, x, y, knob.default)]),
    );
    const sweeps = doseSweeps(pilot, seeds, level300);
    const text = dosePreregistrationText({
      rule,
      levels: readCsv(path.join(a.out, 'levels.csv')),
      seeds,
      level300,
      sweeps,
    });
    writeFileAtomic(path.join(a.out, 'preregistration.md'), text);
    for (const [f, c] of Object.entries(sweeps))
      writeFileAtomic(path.join(a.sweeps, f), JSON.stringify(c, null, 1) + '\n');
    console.log(
      `pre-registration -> ${a.out}/preregistration.md; seeds ${seeds}; 300 steps: ${JSON.stringify(level300)}`,
    );
    return;
  }
  if (cmd !== 'pilot')
    throw new ConfigError(`usage: tsx analysis/verifier-dose.ts pilot|preregister (got "${cmd ?? ''}")`);
  const file = loadJsonConfig(a.config) as unknown as SweepFile;
  const c = completeSweep(a.root ? { ...file, root: a.root } : file);
  const knob = c.knobs?.find((k) => k.name === 'verifier');
  if (!knob) throw new ConfigError(`${a.config} has no verifier knob`);
  const levels = knob.levels.map((l) => l.level);
  const records = doseCells(sensitivityRecords(c), knob.default, levels);
  const paired = DOSE_CLAIMS.flatMap(([x, y]) => pairedDifferences(records, x, y));
  const heldOut = readCsv('results/verifier/competent.csv');
  const accuracy = [knob.default, ...levels].map((l) => ({
    level: l,
    cell: `verifier=${l}`,
    verifier_accuracy: levelAccuracy(l, heldOut),
  }));
  writeCsv(path.join(a.out, 'pilot_records.csv'), records, RECORD_COLUMNS);
  writeCsv(path.join(a.out, 'pilot.csv'), paired, PAIRED_COLUMNS);
  writeCsv(path.join(a.out, 'power.csv'), seedRule(paired), SEED_RULE_COLUMNS);
  writeCsv(path.join(a.out, 'levels.csv'), accuracy, ['level', 'cell', 'verifier_accuracy']);
  writeCsv(path.join(a.out, 'parity.csv'), doseParity(c, knob.default, levels), ['cell', ...PARITY_COLUMNS]);
  console.log(`verifier dose pilot: ${records.length} endpoint values, ${paired.length} paired rows -> ${a.out}`);
});
