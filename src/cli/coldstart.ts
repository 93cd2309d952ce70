// `make coldstart`: supervised cold start of a policy on teacher data, with progress, per-step metrics,
// periodic checkpoints (resumable), and a final checkpoint under data/checkpoints/.
// A cold start longer than a working session outlives its machine through a committed partial state:
// --save-partial yes copies the run directory's resumable checkpoint (weights, Adam state, step) and its metrics
// to data/checkpoints/partial/<run>/, and --resume yes starts from there when the run directory has no checkpoint
// (a fresh clone); the partial state is removed once the cold start finishes.
// Usage: tsx src/cli/coldstart.ts --arch transformer|gru --size S|M [--steps N] [--seed S] [--out DIR] [--resume yes]
//   [--checkpoint-every N] [--save-partial yes] [--partial DIR] [--init CHECKPOINT] [--config JSON]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { checkResumeKernels, openRun, loadJsonConfig, readMetrics } from '../io/run.js';
import { engineSettings, startEngine, tf } from '../models/backend.js';
import { createPolicy } from '../models/index.js';
import {
  loadWeights,
  modelConfig,
  readCheckpoint,
  saveCheckpoint,
  type Architecture,
  type Size,
} from '../models/policy.js';
import {
  checkColdStartData,
  checkSftConfig,
  defaultColdStartData,
  defaultSftConfig,
  sampleExample,
  sftStep,
} from '../methods/trainers/coldstart.js';
import { mergeConfig } from '../io/config.js';
import { makeRng } from '../util/random.js';
import { optimizerState, restoreOptimizer, type OptimizerState } from '../rl/optim.js';
import { setRate } from '../rl/kl-adaptive.js';
import { ConfigError } from '../util/validate.js';
import { sha256Hex } from '../io/checksums.js';

/** Where unfinished cold starts keep their resumable state between machines (committed). */
const PARTIAL_DIR = 'data/checkpoints/partial';
/** What resuming needs: the run's configuration (checked on resume), its metrics so far, the checkpoint. */
const RESUME_FILES = ['config.json', 'metrics.jsonl', 'checkpoint.json'];
function copyFiles(from: string, to: string, files: string[]): void {
  fs.mkdirSync(to, { recursive: true });
  for (const f of files) fs.copyFileSync(path.join(from, f), path.join(to, f));
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    arch: { help: 'transformer or gru', default: 'transformer' },
    size: { help: 'S or M', default: 'S' },
    steps: "SFT steps (default: the sft config's)",
    seed: { help: 'seed', default: '0' },
    out: 'run directory (default runs/coldstart/<arch>-<size>-seed<seed>)',
    config: 'JSON overriding {data, sft}',
    resume: '"yes" to continue from the run directory\'s checkpoint',
    checkpoint: 'where to write the final checkpoint (default data/checkpoints/coldstart-<arch>-<size>.json)',
    'checkpoint-every': { help: 'steps between resumable checkpoints', default: '250' },
    'save-partial': '"yes" to copy the run directory\'s resumable state to the partial directory (to commit) and exit',
    partial: 'the partial directory (default data/checkpoints/partial/<run directory name>)',
    init: 'a checkpoint of the same model to start from (fine-tuning; fresh Adam moments), recorded by content',
  });
  const arch = a.arch as Architecture,
    size = a.size as Size;
  const seed = intArg('seed', a.seed, 0),
    every = intArg('checkpoint-every', a['checkpoint-every'], 1);
  const user = a.config ? loadJsonConfig(a.config) : {};
  const data = mergeConfig(defaultColdStartData, user.data, 'data');
  const sft = mergeConfig(
    defaultSftConfig,
    { ...(user.sft as object), ...(a.steps ? { steps: intArg('steps', a.steps, 0) } : {}) },
    'sft',
  );
  checkColdStartData(data);
  checkSftConfig(sft);
  const mc = modelConfig(arch, size, seed);
  const out = a.out ?? `runs/coldstart/${arch}-${size}-seed${seed}`;
  const final = a.checkpoint ?? `data/checkpoints/coldstart-${arch}-${size}.json`;
  const ckFile = path.join(out, 'checkpoint.json');
  const partial = a.partial ?? path.join(PARTIAL_DIR, path.basename(out));
  if (a['save-partial'] === 'yes') {
    if (!fs.existsSync(ckFile) || fs.existsSync(path.join(out, 'done.json'))) {
      console.log(`${out}: no unfinished run with a checkpoint, nothing to save`);
      return;
    }
    copyFiles(out, partial, RESUME_FILES);
    console.log(
      `${out} (step ${readCheckpoint(path.join(partial, 'checkpoint.json')).meta.step}) -> ${partial}: commit it, and --resume yes continues from it on another machine`,
    );
    return;
  }
  if (a.resume === 'yes' && !fs.existsSync(ckFile) && fs.existsSync(path.join(partial, 'checkpoint.json'))) {
    console.log(`${out} has no checkpoint: starting from the committed partial state in ${partial}`);
    copyFiles(partial, out, RESUME_FILES);
  }
  const resume = a.resume === 'yes' && fs.existsSync(ckFile);
  // what resuming reads is read before openRun (which starts a fresh metrics.jsonl): a bad file loses nothing
  const ck = resume ? readCheckpoint(ckFile) : null,
    start = ck ? Number(ck.meta.step) : 0;
  // a checkpoint past the budget asked for would be written out as that budget's model
  if (start > sft.steps)
    throw new ConfigError(`${out} is at step ${start}, past --steps ${sft.steps}: pass another --out, or more steps`);
  if (resume && !fs.existsSync(path.join(out, 'metrics.jsonl'))) {
    throw new ConfigError(`${out} has a checkpoint but no metrics.jsonl to resume: pass another --out, or remove it`);
  }
  // the finished steps' metrics, kept
  const prior = resume ? readMetrics(out).filter((m) => (m.step as number) < start) : [];
  const engine = engineSettings();
  if (resume) {
    // a run resumes only under the configuration it started with (its step count may grow: the rate schedule is
    // warm-up then constant, so more steps do not change the steps already taken)
    const was = loadJsonConfig(path.join(out, 'config.json')) as {
      model?: unknown;
      data?: unknown;
      sft?: object;
      engine?: unknown;
    };
    const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
    for (const [k, now, then] of [
      ['model', mc, was.model],
      ['data', data, was.data],
      ['sft', { ...sft, steps: 0 }, { ...was.sft, steps: 0 }],
    ] as const) {
      if (!same(now, then))
        throw new ConfigError(
          `${out} was started with another ${k} configuration (${JSON.stringify(then)}, now ${JSON.stringify(now)}): pass another --out, or remove the run directory`,
        );
    }
    checkResumeKernels(out, was, engine.kernels);
  }

  if (a.init && !fs.existsSync(a.init)) throw new ConfigError(`--init: no checkpoint at ${a.init}`);
  const init = a.init ? { file: a.init, sha256: sha256Hex(fs.readFileSync(a.init)) } : null;
  const run = await openRun(
    out,
    { experiment: 'coldstart', seed, model: mc, data, sft, resumed: resume, ...(init ? { init } : {}) },
    await startEngine(engine),
  );
  for (const m of prior) run.log(m); // first, so that a failure from here on keeps them
  const policy = createPolicy(mc);
  const opt = tf.train.adam(sft.lr, 0.9, 0.98);
  if (init && !ck) {
    loadWeights(policy, readCheckpoint(init.file), init.file);
    console.log(`starting from ${init.file} (fine-tuning, fresh Adam moments)`);
  }
  if (ck) {
    const state = ck.meta.optimizer as OptimizerState | undefined;
    loadWeights(policy, ck, ckFile);
    if (state) await restoreOptimizer(opt, state, Object.values(policy.weights));
    console.log(
      `resuming ${out} at step ${start} (${state ? `Adam state restored at its step ${state.iterations}` : 'the checkpoint has no Adam state: moments restart'})`,
    );
  }
  // run-directory checkpoints carry Adam's state for an exact resume; the final checkpoint carries the weights only
  const checkpoint = async (step: number) =>
    saveCheckpoint(policy, ckFile, { step, optimizer: await optimizerState(opt) });
  const t0 = Date.now();
  let avg = 0;
  for (let step = start; step < sft.steps; step++) {
    // the data stream depends only on (seed, step), so a resumed run sees the same examples
    const rng = makeRng(seed * 1_000_003 + step);
    const batch = Array.from({ length: sft.batch }, () => sampleExample(data, rng));
    const lr = sft.lr * Math.min(1, (step + 1) / Math.max(1, sft.warmup));
    setRate(opt, lr);
    const ts = Date.now();
    const { loss, gradNorm } = sftStep(policy, opt, batch, sft.clipNorm);
    const ms = Date.now() - ts;
    run.log({ step, loss, grad_norm: gradNorm, lr, ms });
    avg = step === start ? loss : 0.98 * avg + 0.02 * loss;
    if ((step + 1) % 50 === 0 || step === sft.steps - 1) {
      const rate = (step + 1 - start) / ((Date.now() - t0) / 1000);
      console.log(
        `[coldstart ${arch}-${size}] step ${step + 1}/${sft.steps}  loss ${avg.toFixed(4)}  ${ms} ms/step  eta ${((sft.steps - step - 1) / rate / 60).toFixed(1)} min`,
      );
    }
    if ((step + 1) % every === 0) await checkpoint(step + 1);
  }
  await checkpoint(sft.steps);
  saveCheckpoint(policy, final, { step: sft.steps, seed, data, sft, source: out });
  run.finish({ checkpoint: final, seconds: (Date.now() - t0) / 1000 });
  fs.rmSync(partial, { recursive: true, force: true });
  console.log(`cold-start checkpoint -> ${final}`);
});
