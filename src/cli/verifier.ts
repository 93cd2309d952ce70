// `make verifier`: distil the verifier from the teacher's judgements on cold-start rollouts; report its accuracy
// per criterion kind on held-out rollouts (results/verifier/accuracy.csv); save data/checkpoints/verifier-S.json.
import { intArg, parseArgs, runMain } from '../io/args.js';
import { openRun } from '../io/run.js';
import { startEngine, tf } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { createTransformer } from '../models/transformer.js';
import { checkCheckpoints, saveCheckpoint } from '../models/policy.js';
import { verifierConfig } from '../models/verifier.js';
import { distillationData, verifierAccuracy, verifierStep } from '../methods/trainers/verifier.js';
import { writeCsv } from '../io/table.js';
import { makeRng } from '../util/random.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    checkpoint: { help: 'cold-start policy', default: 'data/checkpoints/coldstart-transformer-S.json' },
    steps: { help: 'training steps', default: '1000' },
    seed: { help: 'seed', default: '0' },
    out: { help: 'run directory', default: 'runs/verifier' },
    prompts: { help: 'training prompts (held out: a quarter)', default: '768' },
    results: { help: 'accuracy CSV', default: 'results/verifier/accuracy.csv' },
    save: { help: 'verifier checkpoint', default: 'data/checkpoints/verifier-S.json' },
  });
  const seed = intArg('seed', a.seed, 0),
    steps = intArg('steps', a.steps, 0),
    batch = 64;
  const P = intArg('prompts', a.prompts, 1);
  const policyFile = a.checkpoint;
  checkCheckpoints(policyFile);
  const run = await openRun(
    a.out,
    { experiment: 'verifier', seed, steps, batch, lr: 1e-3, policy: policyFile },
    await startEngine(),
  );
  const policy = loadPolicy(String(run.config.policy));
  const rng = makeRng(seed);
  const t0 = Date.now();
  const train = distillationData(policy, P, 4, 6, rng),
    held = distillationData(policy, Math.ceil(P / 4), 4, 6, makeRng(seed + 1_000_000));
  console.log(
    `[verifier] ${train.length} training and ${held.length} held-out examples in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  const model = createTransformer(verifierConfig(seed));
  const opt = tf.train.adam(1e-3);
  for (let s = 0; s < steps; s++) {
    const mb = Array.from({ length: batch }, () => train[rng.int(train.length)]);
    const loss = verifierStep(model, opt, mb);
    run.log({ step: s, loss });
    if ((s + 1) % 100 === 0) console.log(`[verifier] step ${s + 1}/${steps} loss ${loss.toFixed(4)}`);
  }
  const acc = verifierAccuracy(model, held);
  writeCsv(a.results, acc);
  run.table('accuracy', acc);
  saveCheckpoint(model, a.save, { steps, seed, policy: run.config.policy });
  run.finish();
  for (const r of acc)
    console.log(
      `${r.criterion.padEnd(8)} n=${r.examples} positive ${r.positive_rate.toFixed(3)} accuracy ${r.accuracy.toFixed(3)}`,
    );
});
