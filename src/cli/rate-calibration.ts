// `make rate-calibration`: the pre-registered choice of the rubricator's learning rate (results/rlcer/
// rate_calibration_rule.md), fixed before any comparison run and without looking at accuracy.
//
// Candidates: the reasoner's rate times {0.5, 1, 2, 5, 10}. Each candidate is one RLCER run (the fair defaults:
// one Adam per role, sign-aware validity) of 30 steps from the transformer-S cold start at seed 0; the reference
// is RLVR on the same seed and steps. A candidate passes when the reasoner role's approx. KL per update, averaged
// over the 30 steps, is at most 1.5x RLVR's, and the rubricator's format rate does not fall (mean of steps 21-30 >=
// mean of steps 1-10 - 0.02). The chosen rate is the largest passing candidate (the smallest, 0.5x, if none passes).
//
// EvoLM's generator (results/evolm/generator_rate_rule.md): the same candidates for the generator's rate over the
// policy's, each one EvoLM co-evolving run (30 policy steps alternating with 30 generator steps, seed 0, S) by the
// Table 2 runner; the reference is the two-model variant, whose generator updates never touch the policy. A candidate
// passes when the policy's approx. KL per update is at most 1.5x the reference's and the generator's format rate
// does not fall (last 10 generator steps against the first 10, 0.02 slack). The largest passing candidate is chosen.
//
//   tsx src/cli/rate-calibration.ts --run rlvr|0.5|1|2|5|10   one run into results/runs/rate-calibration/<run> (committed)
//   tsx src/cli/rate-calibration.ts --run evolm-ref|evolm-0.5|...|evolm-10   the generator's runs, likewise
//   tsx src/cli/rate-calibration.ts --report yes              both tables and choices from the finished runs
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOW_DIRTY_HELP, allowDirtyIf, parseArgs, runMain } from '../io/args.js';
import { findFinishedRuns, openRun, readMetrics } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { archiveRun } from '../io/jobs.js';
import { writeCsv, writeFileAtomic } from '../io/table.js';
import { ConfigError } from '../util/validate.js';
import { loadPolicy } from '../models/index.js';
import { loadVerifier } from '../models/verifier.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../methods/trainers/rlvr.js';
import { defaultRlcerConfig, makeRlcerTrainer } from '../methods/trainers/rlcer.js';
import { VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { makeRng } from '../util/random.js';
import {
  CALIBRATION,
  calibrationTable,
  GENERATOR_CALIBRATION,
  generatorCalibrationTable,
} from '../methods/tables/rate-calibration.js';
import { defaultEvolmConfig } from '../methods/trainers/evolm.js';

const CHECKPOINT = `data/checkpoints/coldstart-transformer-${CALIBRATION.size}.json`;

/**
 * One generator run ("evolm-ref" or "evolm-<multiplier>") by the Table 2 runner under runs/rate-calibration/, its
 * record (config, metrics, tables; no weights) archived into the calibration root, where it counts as done.
 */
function runGenerator(id: string): void {
  const g = GENERATOR_CALIBRATION,
    tag = id.slice('evolm-'.length),
    multiplier = tag === 'ref' ? 1 : Number(tag);
  if (tag !== 'ref' && !(g.multipliers as readonly number[]).includes(multiplier)) {
    throw new ConfigError(`--run evolm-<m>: m must be ref or one of ${g.multipliers.join(', ')} (got "${tag}")`);
  }
  const args = [
    ...process.execArgv,
    'src/cli/table2-run.ts',
    '--method',
    tag === 'ref' ? g.reference : g.method,
    '--size',
    g.size,
    '--seed',
    String(g.seed),
    '--profile',
    'full',
    '--steps',
    String(g.steps),
    '--out',
    path.join('runs/rate-calibration', id),
    '--overrides',
    JSON.stringify({ generatorLr: defaultEvolmConfig.policyLr * multiplier }),
  ];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`generator rate calibration: run ${id} failed (exit ${r.status ?? r.signal})`);
  archiveRun(path.join('runs/rate-calibration', id), path.join(CALIBRATION.root, id)); // the record, without weights
}

async function runOne(id: string): Promise<void> {
  if (id.startsWith('evolm-')) return runGenerator(id);
  const c = CALIBRATION,
    dir = path.join(c.root, id);
  const multiplier = id === 'rlvr' ? null : Number(id);
  if (multiplier !== null && !(c.multipliers as readonly number[]).includes(multiplier)) {
    throw new ConfigError(`--run must be rlvr or one of ${c.multipliers.join(', ')} (got "${id}")`);
  }
  const reasonLr = defaultRlcerConfig.ppo.lr.reason;
  // the fair settings, explicitly: one Adam per role, sign-aware validity
  const rlcer =
    multiplier === null
      ? null
      : {
          ...defaultRlcerConfig,
          steps: c.steps,
          validityReading: 'sign_aware' as const,
          ppo: {
            ...defaultRlcerConfig.ppo,
            roleMixing: 'separate_adam' as const,
            lr: { ...defaultRlcerConfig.ppo.lr, rubric: reasonLr * multiplier },
          },
        };
  const rlvr = { ...defaultRlvrConfig, steps: c.steps };
  const run = await openRun(
    dir,
    {
      experiment: 'rate-calibration',
      run: id,
      multiplier,
      seed: c.seed,
      size: c.size,
      checkpoint: CHECKPOINT,
      ...(rlcer ? { rlcer, verifier: VERIFIER_CHECKPOINT } : { rlvr }),
    },
    await startEngine(),
  );
  const policy = loadPolicy(CHECKPOINT);
  const trainer = rlcer
    ? makeRlcerTrainer(policy, rlcer, { verifier: loadVerifier(VERIFIER_CHECKPOINT) })
    : makeRlvrTrainer(policy, rlvr);
  const t0 = Date.now();
  for (let step = 0; step < c.steps; step++) {
    const m = trainer.step(makeRng(c.seed * 1_000_003 + step)); // the per-step seeds of the Table 2 runs
    run.log({ step, ...m });
    const eta = (((Date.now() - t0) / (step + 1)) * (c.steps - step - 1)) / 60000;
    console.log(
      `[rate-calibration ${id}] step ${step + 1}/${c.steps}  reason/approx_kl ${(m['reason/approx_kl'] ?? NaN).toExponential(2)}` +
        `  format ${(m.format_rate ?? NaN).toFixed(3)}  eta ${eta.toFixed(1)} min`,
    );
  }
  run.finish({ seconds: (Date.now() - t0) / 1000 });
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    run: "rlvr or a multiplier of the reasoner's rate",
    report: 'yes: write the table',
    out: `where the report goes (default ${CALIBRATION.out}; the generator's: ${GENERATOR_CALIBRATION.out})`,
    'allow-dirty': ALLOW_DIRTY_HELP,
  });
  allowDirtyIf(a['allow-dirty']);
  if (a.run) return runOne(a.run);
  if (!a.report) throw new ConfigError('give --run <rlvr|multiplier> or --report yes');
  const runs = findFinishedRuns(CALIBRATION.root).map((dir) => ({ id: path.basename(dir), metrics: readMetrics(dir) }));
  const { rows, chosen } = calibrationTable(runs);
  const out = a.out ?? CALIBRATION.out;
  fs.mkdirSync(out, { recursive: true });
  writeCsv(path.join(out, 'rate_calibration.csv'), rows);
  writeFileAtomic(
    path.join(out, 'rate_choice.json'),
    JSON.stringify({ rule: 'results/rlcer/rate_calibration_rule.md', ...chosen }, null, 2) + '\n',
  );
  for (const r of rows)
    console.log(
      `x${r.multiplier}: kl ratio ${r.kl_ratio.toFixed(2)}, format ${r.format_first.toFixed(3)} -> ${r.format_last.toFixed(3)}: ${r.passes}`,
    );
  console.log(
    `chosen: rubricator rate ${chosen.rubric_lr} (${chosen.multiplier}x the reasoner's)${chosen.anyPassed ? '' : ' (no candidate passed: the smallest)'}`,
  );
  const gen = runs.filter((r) => r.id.startsWith('evolm-'));
  if (!gen.length) return; // the generator's runs are optional for the rubricator's report
  const g = generatorCalibrationTable(gen),
    gOut = a.out ?? GENERATOR_CALIBRATION.out;
  fs.mkdirSync(gOut, { recursive: true });
  writeCsv(path.join(gOut, 'generator_rate_calibration.csv'), g.rows);
  writeFileAtomic(
    path.join(gOut, 'generator_rate_choice.json'),
    JSON.stringify({ rule: 'results/evolm/generator_rate_rule.md', ...g.chosen }, null, 2) + '\n',
  );
  for (const r of g.rows)
    console.log(
      `generator x${r.multiplier}: kl ratio ${r.kl_ratio.toFixed(2)}, format ${r.format_first.toFixed(3)} -> ${r.format_last.toFixed(3)}: ${r.passes}`,
    );
  console.log(
    `chosen: generator rate ${g.chosen.generator_lr} (${g.chosen.multiplier}x the policy's)${g.chosen.anyPassed ? '' : ' (no candidate passed: the smallest)'}`,
  );
});
