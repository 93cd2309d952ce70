// `make scalar-rm`: train the static scalar reward model once on the cold-start model's rollouts, then freeze it
// (data/checkpoints/scalar-rm-<size>.json); its held-out accuracy goes to results/scalar_rm/accuracy.csv.
import { choiceArg, intArg, parseArgs, runMain } from '../io/args.js';
import { openRun } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { writeCsv } from '../io/table.js';
import { mergeConfig } from '../io/config.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, saveCheckpoint, SIZE_NAMES } from '../models/policy.js';
import { defaultScalarRmConfig, trainScalarRm } from '../methods/trainers/scalar-rm.js';
import { makeRng } from '../util/random.js';
import { coldStartCheckpoint, scalarRmCheckpoint } from '../methods/tables/table2.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    size: { help: 'cold-start size S or M', default: 'S' },
    steps: "training steps (default: the config's)",
    seed: { help: 'seed', default: '0' },
    out: 'run directory (default runs/scalar-rm/<size>)',
  });
  const size = choiceArg('size', a.size, SIZE_NAMES),
    seed = intArg('seed', a.seed, 0);
  const cfg = mergeConfig(defaultScalarRmConfig, a.steps ? { steps: intArg('steps', a.steps, 0) } : {});
  const ckpt = coldStartCheckpoint(size);
  checkCheckpoints(ckpt);
  const run = await openRun(
    a.out ?? `runs/scalar-rm/${size}`,
    { experiment: 'scalar_rm', seed, size, checkpoint: ckpt, scalarRm: cfg },
    await startEngine(),
  );
  const t0 = Date.now();
  const { model, accuracy, positiveRate } = trainScalarRm(loadPolicy(ckpt), cfg, makeRng(seed), (m) => {
    run.log(m);
    if ((m.step + 1) % 100 === 0)
      console.log(`[scalar-rm ${size}] step ${m.step + 1}/${cfg.steps} loss ${m.loss.toFixed(4)}`);
  });
  const rows = [{ size, accuracy, majority_baseline: Math.max(positiveRate, 1 - positiveRate) }];
  writeCsv(`results/scalar_rm/accuracy-${size}.csv`, rows);
  saveCheckpoint(model, scalarRmCheckpoint(size), { size, seed, cfg, source: ckpt });
  run.finish({ seconds: (Date.now() - t0) / 1000, ...rows[0] });
  console.log(
    `[scalar-rm ${size}] held-out accuracy ${accuracy.toFixed(3)} (majority ${rows[0].majority_baseline.toFixed(3)})`,
  );
});
