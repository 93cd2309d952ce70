// `make rate-calibration`: the pre-registered choice of the rubricator's learning rate (results/rlcer/
// rate_calibration_rule.md), fixed before any comparison run and without looking at accuracy.
//
// Candidates: the reasoner's rate times {0.5, 1, 2, 5, 10}. Each candidate is one RLCER run (the fair defaults:
// one Adam per role, sign-aware validity) of 30 steps from the transformer-S cold start at seed 0; the reference
// is RLVR on the same seed and steps. A candidate passes when the reasoner role's approx. KL per update, averaged
// over the 30 steps, is at most 1.5x RLVR's, and the rubricator's format rate does not fall (mean of steps 21-30 >=
// mean of steps 1-10 - 0.02). The chosen rate is the largest passing candidate (the smallest, 0.5x, if none passes).
//
//   tsx src/cli/rate-calibration.ts --run rlvr|0.5|1|2|5|10   one run into runs/rate-calibration/<run>
//   tsx src/cli/rate-calibration.ts --report                  the table and the choice from the finished runs
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from './args.js';
import { findFinishedRuns, openRun, readMetrics } from '../io/run.js';
import { writeCsv, writeFileAtomic } from '../io/table.js';
import { ConfigError } from '../io/validate.js';
import { loadPolicy } from '../models/index.js';
import { loadVerifier } from '../models/verifier.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../methods/rlvr.js';
import { defaultRlcerConfig, makeRlcerTrainer } from '../methods/rlcer.js';
import { VERIFIER_CHECKPOINT } from '../methods/table2.js';
import { makeRng } from '../util/random.js';
import { mean } from '../util/stats.js';

export const CALIBRATION = {
  multipliers: [0.5, 1, 2, 5, 10], steps: 30, seed: 0, size: 'S', klRatioMax: 1.5, formatDrop: 0.02, window: 10,
  root: 'runs/rate-calibration', out: 'results/rlcer',
} as const;

const CHECKPOINT = `data/checkpoints/coldstart-transformer-${CALIBRATION.size}.json`;

async function runOne(id: string): Promise<void> {
  const c = CALIBRATION, dir = path.join(c.root, id);
  const multiplier = id === 'rlvr' ? null : Number(id);
  if (multiplier !== null && !(c.multipliers as readonly number[]).includes(multiplier)) {
    throw new ConfigError(`--run must be rlvr or one of ${c.multipliers.join(', ')} (got "${id}")`);
  }
  const reasonLr = defaultRlcerConfig.ppo.lr.reason;
  // the fair settings, explicitly: one Adam per role, sign-aware validity
  const rlcer = multiplier === null ? null : {
    ...defaultRlcerConfig, steps: c.steps, validityReading: 'sign_aware' as const,
    ppo: { ...defaultRlcerConfig.ppo, roleMixing: 'separate_adam' as const,
      lr: { ...defaultRlcerConfig.ppo.lr, rubric: reasonLr * multiplier } },
  };
  const rlvr = { ...defaultRlvrConfig, steps: c.steps };
  const run = await openRun(dir, { experiment: 'rate-calibration', run: id, multiplier, seed: c.seed, size: c.size,
    checkpoint: CHECKPOINT, ...(rlcer ? { rlcer, verifier: VERIFIER_CHECKPOINT } : { rlvr }) });
  const policy = loadPolicy(CHECKPOINT);
  const trainer = rlcer ? makeRlcerTrainer(policy, rlcer, { verifier: loadVerifier(VERIFIER_CHECKPOINT) })
    : makeRlvrTrainer(policy, rlvr);
  const t0 = Date.now();
  for (let step = 0; step < c.steps; step++) {
    const m = trainer.step(makeRng(c.seed * 1_000_003 + step)); // the per-step seeds of the Table 2 runs
    run.log({ step, ...m });
    const eta = ((Date.now() - t0) / (step + 1)) * (c.steps - step - 1) / 60000;
    console.log(`[rate-calibration ${id}] step ${step + 1}/${c.steps}  reason/approx_kl ${(m['reason/approx_kl'] ?? NaN).toExponential(2)}` +
      `  format ${(m.format_rate ?? NaN).toFixed(3)}  eta ${eta.toFixed(1)} min`);
  }
  run.finish({ seconds: (Date.now() - t0) / 1000 });
}

/** The calibration table from the finished runs, and the chosen multiplier (the rule in the header). */
export function calibrationTable(runs: { id: string; metrics: Record<string, unknown>[] }[]) {
  const c = CALIBRATION, num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : NaN);
  const col = (ms: Record<string, unknown>[], k: string) => ms.map((m) => num(m[k])).filter((x) => !Number.isNaN(x));
  const ref = runs.find((r) => r.id === 'rlvr');
  if (!ref) throw new Error('rate calibration: the RLVR reference run is missing (tsx src/cli/rate-calibration.ts --run rlvr)');
  const klRef = mean(col(ref.metrics, 'reason/approx_kl'));
  const rows = (c.multipliers as readonly number[]).map((m) => {
    const r = runs.find((x) => Number(x.id) === m && x.id !== 'rlvr');
    if (!r) throw new Error(`rate calibration: the run for multiplier ${m} is missing`);
    const kl = mean(col(r.metrics, 'reason/approx_kl')), fmt = col(r.metrics, 'format_rate');
    const first = mean(fmt.slice(0, c.window)), last = mean(fmt.slice(-c.window));
    const passes = kl <= c.klRatioMax * klRef && last >= first - c.formatDrop;
    return { multiplier: m, rubric_lr: defaultRlcerConfig.ppo.lr.reason * m, reason_approx_kl: kl, rlvr_approx_kl: klRef,
      kl_ratio: kl / klRef, format_first: first, format_last: last, passes: passes ? 'yes' : 'no' };
  });
  const passing = rows.filter((r) => r.passes === 'yes');
  const chosen = passing.length ? passing[passing.length - 1] : rows[0];
  return { rows, chosen: { multiplier: chosen.multiplier, rubric_lr: chosen.rubric_lr, anyPassed: passing.length > 0 } };
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), { run: 'rlvr or a multiplier of the reasoner\'s rate', report: 'yes: write the table' });
  if (a.run) return runOne(a.run);
  if (!a.report) throw new ConfigError('give --run <rlvr|multiplier> or --report yes');
  const runs = findFinishedRuns(CALIBRATION.root).map((dir) => ({ id: path.basename(dir), metrics: readMetrics(dir) }));
  const { rows, chosen } = calibrationTable(runs);
  fs.mkdirSync(CALIBRATION.out, { recursive: true });
  writeCsv(path.join(CALIBRATION.out, 'rate_calibration.csv'), rows);
  writeFileAtomic(path.join(CALIBRATION.out, 'rate_choice.json'), JSON.stringify({ rule: 'results/rlcer/rate_calibration_rule.md', ...chosen }, null, 2) + '\n');
  for (const r of rows) console.log(`x${r.multiplier}: kl ratio ${r.kl_ratio.toFixed(2)}, format ${r.format_first.toFixed(3)} -> ${r.format_last.toFixed(3)}: ${r.passes}`);
  console.log(`chosen: rubricator rate ${chosen.rubric_lr} (${chosen.multiplier}x the reasoner's)${chosen.anyPassed ? '' : ' (no candidate passed: the smallest)'}`);
});
