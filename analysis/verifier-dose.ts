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
import { loadJsonConfig } from '../src/io/run.js';
import { completeSweep, type SweepFile } from '../src/io/sweep.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { ConfigError } from '../src/util/validate.js';
import {
  PAIRED_COLUMNS,
  pairedDifferences,
  RECORD_COLUMNS,
  SEED_RULE_COLUMNS,
  seedRule,
  sensitivityRecords,
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

runMain(async () => {
  if (process.argv[1] && !/verifier-dose\.ts$/.test(process.argv[1])) return; // imported, not run
  const [cmd, ...rest] = process.argv.slice(2);
  const a = parseArgs(rest, {
    config: { help: "the pilot's sweep", default: 'sweeps/verifier-dose-pilot.json' },
    out: { help: 'output directory', default: 'results/verifier-dose' },
    root: "run directory root instead of the sweep's (e.g. /nonexistent: read the committed archive only)",
  });
  if (cmd !== 'pilot') throw new ConfigError(`usage: tsx analysis/verifier-dose.ts pilot (got "${cmd ?? ''}")`);
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
  console.log(`verifier dose pilot: ${records.length} endpoint values, ${paired.length} paired rows -> ${a.out}`);
});
