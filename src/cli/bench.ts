// `make bench`: tfjs against the PyTorch reference (bench/torch_ref.py), side by side in one invocation, at the
// same model size and batch: PPO update step time, cached sampling throughput, their ratios; then the wall time
// of one full RLVR step and this process's peak memory.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { parseArgs, runMain } from './args.js';
import { initBackend, tf } from '../models/backend.js';
import { createPolicy, loadPolicy } from '../models/index.js';
import { modelConfig, sample, type Size } from '../models/policy.js';
import { makeSequenceBatch } from '../models/logprobs.js';
import { defaultPpoConfig, makeRoleOptimizers, ppoGradientStep } from '../rl/ppo.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../methods/rlvr.js';
import { makeRng } from '../util/random.js';
import { V } from '../world/vocab.js';

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), { size: 'S or M (default S)', batch: 'sequences (default 128)', reps: 'timed repetitions (default 3)' });
  const size = (a.size ?? 'S') as Size, B = Number(a.batch ?? 128), reps = Number(a.reps ?? 3), Tp = 16, Tc = 64;
  const backend = await initBackend();
  const mc = modelConfig('transformer', size, 0);
  const rng = makeRng(0);
  const rand = (n: number) => Array.from({ length: n }, () => 3 + rng.int(V - 3));

  // tfjs: PPO update step on B sequences of Tp + Tc tokens (forward, clipped surrogate + value loss, backward, Adam)
  const policy = createPolicy(mc), opts = makeRoleOptimizers(defaultPpoConfig.lr);
  const prompts = Array.from({ length: B }, () => rand(Tp));
  const sb = makeSequenceBatch(prompts, prompts.map(() => rand(Tc)));
  const g = (f: () => tf.Tensor) => f();
  const d = { oldLp: g(() => tf.randomNormal([B, sb.T], -3, 0.1)), oldV: g(() => tf.randomNormal([B, sb.T], 0, 0.1)), A: g(() => tf.randomNormal([B, sb.T])), R: g(() => tf.randomNormal([B, sb.T])) };
  const update: number[] = [];
  for (let i = 0; i <= reps; i++) {
    const t0 = performance.now();
    ppoGradientStep(policy, opts.reason, sb, d, 'reason', defaultPpoConfig);
    if (i > 0) update.push(performance.now() - t0); // the first step warms up
  }
  // tfjs: cached sampling of Tc tokens for B prompts
  sample(policy, prompts.slice(0, 8), { maxNew: 4, temperature: 1, topP: 1 }, rng);
  const tps: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const outs = sample(policy, prompts, { maxNew: Tc, temperature: 1, topP: 1, ignoreEos: true }, rng);
    tps.push(outs.reduce((s, o) => s + o.length, 0) / ((performance.now() - t0) / 1000));
  }
  // PyTorch reference, same sizes, one thread (the tfjs wasm backend is single-threaded in Node)
  const torchCfg = { vocab: V, context: mc.context, d: mc.dModel, layers: mc.layers, heads: mc.heads, batch: B, prompt: Tp, completion: Tc, reps, threads: 1 };
  let torch: { update_ms: number; sampling_tokens_per_s: number; torch: string; peak_rss_mb: number } | null = null;
  try {
    torch = JSON.parse(execFileSync(process.env.TORCH_PYTHON ?? '/usr/bin/python3', ['bench/torch_ref.py', JSON.stringify(torchCfg)], { env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } }).toString());
  } catch (e) {
    console.error(`PyTorch reference unavailable (${(e as Error).message.split('\n')[0]}); install python3-torch and libopenblas0-pthread`);
  }
  // one full RLVR step (sampling 16 x 8 rollouts, outcome reward, PPO update) from the cold-start checkpoint if present
  const ck = `data/checkpoints/coldstart-transformer-${size}.json`;
  const rlPolicy = fs.existsSync(ck) ? loadPolicy(ck) : createPolicy(mc);
  const trainer = makeRlvrTrainer(rlPolicy, defaultRlvrConfig);
  trainer.step(makeRng(1));
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) trainer.step(makeRng(2 + i));
  const rlvrStep = (performance.now() - t0) / reps;

  const u = median(update), s = median(tps);
  const lines: [string, string | number][] = [
    ['backend', backend], ['model', `transformer-${size} d=${mc.dModel} layers=${mc.layers} heads=${mc.heads} vocab=${V}`],
    ['batch', `${B} sequences x (${Tp} prompt + ${Tc} completion) tokens`],
    ['update_ms_tfjs', u.toFixed(0)], ['update_ms_torch', torch ? torch.update_ms.toFixed(0) : 'n/a'],
    ['update_time_ratio_tfjs_over_torch', torch ? (u / torch.update_ms).toFixed(2) : 'n/a'],
    ['sampling_tokens_per_s_tfjs', s.toFixed(0)], ['sampling_tokens_per_s_torch', torch ? torch.sampling_tokens_per_s.toFixed(0) : 'n/a'],
    ['sampling_tokens_per_s_ratio_tfjs_over_torch', torch ? (s / torch.sampling_tokens_per_s).toFixed(2) : 'n/a'],
    ['rlvr_step_ms_tfjs', `${rlvrStep.toFixed(0)} (${fs.existsSync(ck) ? 'cold-start checkpoint' : 'untrained model'}, 16 prompts x 8 rollouts, PPO 1 epoch x 2 minibatches)`],
    ['peak_rss_mb_tfjs', (process.resourceUsage().maxRSS / 1024).toFixed(0)], ['peak_rss_mb_torch', torch ? torch.peak_rss_mb.toFixed(0) : 'n/a'],
    ['torch', torch ? `${torch.torch}, 1 thread, OPENBLAS_NUM_THREADS=1` : 'n/a'], ['load_average', (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')],
  ];
  for (const [k, v] of lines) console.log(`${k}: ${v}`);
});
