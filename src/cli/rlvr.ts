// `make rlvr`: RLVR from a cold-start checkpoint, with a progress display, one metrics line per step,
// evaluations on the fixed sets, periodic checkpoints, and cold-start vs final accuracy per family.
// Usage: tsx src/cli/rlvr.ts [--checkpoint data/checkpoints/coldstart-transformer-S.json] [--seed 0] [--steps N] [--out DIR] [--config F]
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { openRun, loadJsonConfig } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, saveCheckpoint } from '../models/policy.js';
import { checkRlvrConfig, defaultRlvrConfig, makeRlvrTrainer } from '../methods/trainers/rlvr.js';
import { evalReport, familyAccuracy } from '../rl/evaluate.js';
import { mergeConfig } from '../io/config.js';
import { makeRng } from '../util/random.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    checkpoint: { help: 'cold-start checkpoint', default: 'data/checkpoints/coldstart-transformer-S.json' },
    seed: { help: 'seed', default: '0' },
    steps: "RL steps (default: the config's)",
    out: 'run directory (default runs/rlvr/seed-<seed>)',
    config: 'JSON overriding defaultRlvrConfig',
    'eval-problems': { help: 'problems per evaluation cell', default: '16' },
    'eval-samples': { help: 'samples per problem', default: '4' },
    'eval-every': { help: 'steps between evaluations', default: '50' },
  });
  const seed = intArg('seed', a.seed, 0);
  const ckpt = a.checkpoint;
  const cfg = mergeConfig(defaultRlvrConfig, {
    ...(a.config ? loadJsonConfig(a.config) : {}),
    ...(a.steps ? { steps: intArg('steps', a.steps, 0) } : {}),
  });
  checkRlvrConfig(cfg);
  const evalProblems = intArg('eval-problems', a['eval-problems'], 1);
  const evalSamples = intArg('eval-samples', a['eval-samples'], 1);
  const evalEvery = intArg('eval-every', a['eval-every'], 1);
  const out = a.out ?? `runs/rlvr/seed-${seed}`;
  checkCheckpoints(ckpt);
  const run = await openRun(
    out,
    { experiment: 'rlvr', seed, checkpoint: ckpt, rlvr: cfg, eval: { evalProblems, evalSamples, evalEvery } },
    await startEngine(),
  );
  const policy = loadPolicy(ckpt);
  const trainer = makeRlvrTrainer(policy, cfg);
  const evalRows: Record<string, string | number | boolean>[] = [];
  const evaluate = (step: number) => {
    const rows = evalReport(policy, evalProblems, evalSamples, makeRng(1_000_000 + seed)).map((r) => ({ step, ...r }));
    evalRows.push(...rows);
    run.table('eval', evalRows);
    const fam = familyAccuracy(rows);
    console.log(
      `[rlvr seed ${seed}] eval at step ${step}: ${Object.entries(fam)
        .map(([f, v]) => `${f} ${v.toFixed(3)}`)
        .join(', ')}`,
    );
    return fam;
  };
  const t0 = Date.now();
  const first = evaluate(0);
  for (let step = 0; step < cfg.steps; step++) {
    const m = trainer.step(makeRng(seed * 1_000_003 + step));
    run.log({ step, ...m });
    if ((step + 1) % 10 === 0) {
      const rate = (step + 1) / ((Date.now() - t0) / 1000);
      console.log(
        `[rlvr seed ${seed}] step ${step + 1}/${cfg.steps}  acc ${m.accuracy.toFixed(3)}  len ${m.response_length.toFixed(1)}  shortcut ${(m['style/shortcut'] ?? 0).toFixed(2)}  ${(m.sample_ms + m.update_ms).toFixed(0)} ms/step  eta ${((cfg.steps - step - 1) / rate / 60).toFixed(1)} min`,
      );
    }
    if ((step + 1) % evalEvery === 0 && step + 1 < cfg.steps) evaluate(step + 1);
    if ((step + 1) % 50 === 0) saveCheckpoint(policy, path.join(out, 'checkpoint.json'), { step: step + 1 });
  }
  const last = evaluate(cfg.steps);
  saveCheckpoint(policy, path.join(out, 'checkpoint.json'), { step: cfg.steps });
  run.table(
    'summary',
    Object.keys(first).map((family) => ({
      family,
      seed,
      coldstart_accuracy: first[family],
      final_accuracy: last[family],
    })),
  );
  run.finish({ seconds: (Date.now() - t0) / 1000 });
});
