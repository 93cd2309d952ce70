// `make bench`: every tfjs backend present (native 'tensorflow' when installed, and 'wasm') against the PyTorch
// reference (bench/torch_ref.py; TORCH_PYTHON, which `make bench` takes from bin/setup-torch), at the same model
// size and batch: PPO update step time, cached sampling throughput, their ratios, one full RLVR step, peak memory.
// Each run of each contender is a fresh child process with one thread (a backend is chosen once per process):
// this file again with `--worker` and TFJS_BACKEND set, or python. The primary backend's runs alternate with
// PyTorch's (round robin, --runs rounds), so slow phases of a shared machine hit both; the other backends' runs follow
// in their own rounds. Figures are medians, with min-max.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parseArgs, runMain } from '../io/args.js';
import { ConfigError } from '../util/validate.js';
import { engineInfo, engineSettings, initBackend, tf } from '../models/backend.js';
import { createPolicy, loadPolicy } from '../models/index.js';
import { modelConfig, sample, type Size } from '../models/policy.js';
import { makeSequenceBatch } from '../models/logprobs.js';
import { defaultPpoConfig, makeRoleOptimizers, ppoGradientStep } from '../rl/ppo.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../methods/trainers/rlvr.js';
import { makeRng } from '../util/random.js';
import { V } from '../world/vocab.js';
import { median } from '../util/stats.js';
import { transformerFlops } from '../models/flops.js';
import { cpuMhz, fmaPeakGflops, thisProcessor } from '../util/machine.js';

const Tp = 16,
  Tc = 64;
/** One run of one contender, as its worker prints it (one JSON line). */
type Figures = {
  update_ms: number;
  sampling_tokens_per_s: number;
  peak_rss_mb: number;
  rlvr_step_ms?: number;
  engine?: Record<string, string | number>;
  torch?: string;
  threads?: number;
  interop_threads?: number;
  blas?: string;
};

const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const ckpt = (size: Size) => `data/checkpoints/coldstart-transformer-${size}.json`;

/** Worker: time the backend TFJS_BACKEND names (a warm-up, then `reps` timed repetitions); print one JSON line. */
async function worker(size: Size, B: number, reps: number): Promise<void> {
  await initBackend();
  const mc = modelConfig('transformer', size, 0);
  const rng = makeRng(0);
  const rand = (n: number) => Array.from({ length: n }, () => 3 + rng.int(V - 3));
  const timed = (f: () => void) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  const repeat = (f: () => void) => {
    f();
    return median(Array.from({ length: reps }, () => timed(f)));
  };

  // PPO update step on B sequences of Tp + Tc tokens (forward, clipped surrogate + value loss, backward, Adam)
  const policy = createPolicy(mc),
    opts = makeRoleOptimizers(defaultPpoConfig.lr);
  const prompts = Array.from({ length: B }, () => rand(Tp));
  const sb = makeSequenceBatch(
    prompts,
    prompts.map(() => rand(Tc)),
  );
  const d = {
    oldLp: tf.randomNormal([B, sb.T], -3, 0.1),
    oldV: tf.randomNormal([B, sb.T], 0, 0.1),
    A: tf.randomNormal([B, sb.T]),
    R: tf.randomNormal([B, sb.T]),
  };
  const update = repeat(() => ppoGradientStep(policy, opts.reason, sb, d, 'reason', defaultPpoConfig));
  // cached sampling of Tc tokens for B prompts
  let tokens = 0;
  const samplingMs = repeat(() => {
    tokens = sample(policy, prompts, { maxNew: Tc, temperature: 1, topP: 1, ignoreEos: true }, rng).reduce(
      (s, o) => s + o.length,
      0,
    );
  });
  // one full RLVR step (sampling 16 x 8 rollouts, outcome reward, PPO update), from the cold start if present
  const rlPolicy = fs.existsSync(ckpt(size)) ? loadPolicy(ckpt(size)) : createPolicy(mc);
  const trainer = makeRlvrTrainer(rlPolicy, defaultRlvrConfig);
  let seed = 1;
  const rlvr = repeat(() => trainer.step(makeRng(seed++)));
  const out: Figures = {
    update_ms: update,
    sampling_tokens_per_s: tokens / (samplingMs / 1000),
    rlvr_step_ms: rlvr,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    engine: engineInfo(),
  };
  console.log(JSON.stringify(out));
}

/** Run one worker process; its last stdout line is its JSON. A failure ends the bench with a one-line error. */
function spawnWorker(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv, fixed = false): Figures {
  // --layout fixed: the worker without address-space randomization (setarch -R), the same layout in every run
  const r = fixed
    ? spawnSync('setarch', ['-R', cmd, ...args], { env, encoding: 'utf8', maxBuffer: 64 << 20 })
    : spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const err = (r.stderr ?? '').trim().split('\n');
  const errLine = err.find((l) => /^(config )?error: /.test(l)) ?? err.at(-1);
  let why = r.error?.message ?? (r.status !== 0 ? `exit ${r.status ?? r.signal}: ${errLine}` : '');
  if (!why) {
    try {
      return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      why = 'no JSON line on stdout';
    }
  }
  const hint = name === 'torch' ? ` (interpreter ${cmd}; \`bash bin/setup-torch\` prints one with PyTorch)` : '';
  console.error(`bench: the ${name} worker failed (${why})${hint}`);
  process.exit(1);
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    size: { help: 'S or M', default: 'S' },
    batch: { help: 'sequences', default: '128' },
    runs: { help: 'runs per contender, alternating', default: '5' },
    reps: { help: 'timed repetitions inside each run, after a warm-up; each figure is their median', default: '3' },
    worker: { help: 'internal: one run of the backend TFJS_BACKEND names, one JSON line', boolean: true },
    layout: {
      help: 'random (every worker as the system starts it) or fixed (every worker, PyTorch too, under setarch -R)',
      default: 'random',
    },
  });
  if (a.layout !== 'random' && a.layout !== 'fixed')
    throw new ConfigError(`--layout must be random or fixed (got "${a.layout}")`);
  const fixed = a.layout === 'fixed';
  const size = a.size as Size,
    B = Number(a.batch);
  const runs = Number(a.runs),
    reps = Number(a.reps);
  for (const [k, v] of [
    ['batch', B],
    ['runs', runs],
    ['reps', reps],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new ConfigError(`--${k} must be a positive integer (got "${a[k]}")`);
  }
  if (a.worker) return worker(size, B, reps);

  const env0 = { ...process.env }; // before initBackend pins TensorFlow's settings in process.env
  const engine = engineSettings();
  const primary = await initBackend(engine); // native when installed, unless TFJS_BACKEND names one backend
  const backends = !engine.backend && primary === 'tensorflow' ? ['tensorflow', 'wasm'] : [primary];
  const mc = modelConfig('transformer', size, 0);
  const python = process.env.TORCH_PYTHON ?? '/usr/bin/python3';
  const torchCfg = {
    vocab: V,
    context: mc.context,
    d: mc.dModel,
    layers: mc.layers,
    heads: mc.heads,
    batch: B,
    prompt: Tp,
    completion: Tc,
    reps,
    threads: 1,
  };
  const common = ['--size', size, '--batch', String(B), '--reps', String(reps)];
  const torchEnv = { OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const tfEnv = { WORKBENCH_THREADS: '1', TF_NUM_INTRAOP_THREADS: '1', TF_NUM_INTEROP_THREADS: '1' };
  const contenders = [...backends, 'torch'];
  const res: Record<string, Figures[]> = Object.fromEntries(contenders.map((c) => [c, []]));
  const load0 = os.loadavg(),
    t0 = performance.now();
  // the primary backend and PyTorch alternate (round robin, so a slow phase of the machine hits both); the other
  // backends (wasm) run after them in their own rounds: with wasm workers in the rounds, 7 of 30 native runs
  // sampled 20-30% slower, none of 40 without (docs/engine.md)
  const passes = [[backends[0], 'torch'], ...(backends.length > 1 ? [backends.slice(1)] : [])];
  const run1 = (c: string) =>
    c === 'torch'
      ? spawnWorker(c, python, ['bench/torch_ref.py', JSON.stringify(torchCfg)], { ...env0, ...torchEnv }, fixed)
      : spawnWorker(
          c,
          process.execPath,
          [...process.execArgv, process.argv[1], '--worker', ...common],
          { ...env0, ...tfEnv, TFJS_BACKEND: c },
          fixed,
        );
  console.error(
    `bench: ${runs} runs of ${passes.map((p) => p.join(', ')).join(', then ')}, alternating, ` +
      'each a fresh process with one thread',
  );
  for (const pass of passes)
    for (let r = 1; r <= runs; r++)
      for (const c of pass) {
        const f = run1(c);
        res[c].push(f);
        const rlvr = f.rlvr_step_ms ? `, rlvr step ${f.rlvr_step_ms.toFixed(0)} ms` : '';
        console.error(
          `bench: run ${r}/${runs} ${c.padEnd(10)} update ${f.update_ms.toFixed(0)} ms, ` +
            `sampling ${f.sampling_tokens_per_s.toFixed(0)} tok/s${rlvr}`,
        );
      }

  const pick = (c: string, k: 'update_ms' | 'sampling_tokens_per_s' | 'rlvr_step_ms' | 'peak_rss_mb') =>
    res[c].map((f) => f[k] ?? NaN);
  const range = (xs: number[], dp = 0) => `${Math.min(...xs).toFixed(dp)}-${Math.max(...xs).toFixed(dp)}`;
  const stat = (xs: number[]) => `${median(xs).toFixed(0)} (min-max ${range(xs)})`;
  const ratio = (c: string, k: 'update_ms' | 'sampling_tokens_per_s') => {
    const x = pick(c, k),
      y = pick('torch', k),
      per = x.map((v, i) => v / y[i]);
    return [(median(x) / median(y)).toFixed(2), range(per, 2)];
  };
  const p = backends[0],
    tv = res.torch[0];
  const [ur, urRange] = ratio(p, 'update_ms'),
    [sr, srRange] = ratio(p, 'sampling_tokens_per_s');
  const rlvrNote =
    `${fs.existsSync(ckpt(size)) ? 'cold-start checkpoint' : 'untrained model'}, ` +
    '16 prompts x 8 rollouts, PPO 1 epoch x 2 minibatches';
  // distance to the limit: the update's products counted from the shapes, against one core's FMA peak
  const fl = transformerFlops(mc, B, Tp + Tc),
    G = (x: number) => (x / 1e9).toFixed(2);
  const flopsLine =
    `${G(fl.update)} GFLOP (forward ${G(fl.forward)}: projections ${G(fl.projections)}, MLP ${G(fl.mlp)}, ` +
    `attention ${G(fl.attention)}, embedding ${G(fl.embedding)}, heads ${G(fl.heads)}; backward 2x the forward's ` +
    'products; matrix products only, src/models/flops.ts)';
  const proc = thisProcessor(),
    mhz = cpuMhz(),
    peak = fmaPeakGflops(proc.isa, mhz);
  const achieved = (c: string) => {
    const g = fl.update / 1e9 / (median(pick(c, 'update_ms')) / 1000);
    return `${g.toFixed(1)} (${((100 * g) / peak.gflops).toFixed(0)}% of one core's FMA peak)`;
  };
  const peakLine =
    `${peak.gflops.toFixed(1)} GFLOP/s (${peak.lanes} fp32 lanes x 2 flops per FMA x ${peak.units} FMA units, ` +
    `assumed, x ${(mhz / 1000).toFixed(2)} GHz from /proc/cpuinfo; ${proc.isa}, ${proc.key})`;
  const lines: [string, string | number][] = [
    ['backend', p],
    ['model', `transformer-${size} d=${mc.dModel} layers=${mc.layers} heads=${mc.heads} vocab=${V}`],
    ['batch', `${B} sequences x (${Tp} prompt + ${Tc} completion) tokens`],
    [
      'runs',
      `${runs} per contender, alternating ${passes.map((p) => p.join(', ')).join(', then ')}, ` +
        'each a fresh process with one thread' +
        `${fixed ? ' and a fixed address layout (setarch -R)' : ''}, ` +
        `${reps} timed repetition(s) after a warm-up; figures are medians over runs (min-max), ratios of medians`,
    ],
    ['update_ms_tfjs', stat(pick(p, 'update_ms'))],
    ['update_ms_torch', stat(pick('torch', 'update_ms'))],
    ['update_time_ratio_tfjs_over_torch', `${ur} (per-run min-max ${urRange})`],
    ['sampling_tokens_per_s_tfjs', stat(pick(p, 'sampling_tokens_per_s'))],
    ['sampling_tokens_per_s_torch', stat(pick('torch', 'sampling_tokens_per_s'))],
    ['sampling_tokens_per_s_ratio_tfjs_over_torch', `${sr} (per-run min-max ${srRange})`],
    ['rlvr_step_ms_tfjs', `${stat(pick(p, 'rlvr_step_ms'))}; ${rlvrNote}`],
    ['update_arithmetic', flopsLine],
    ['update_gflop_per_s_tfjs', achieved(p)],
    ['update_gflop_per_s_torch', achieved('torch')],
    ['fma_peak_one_core', peakLine],
    ['peak_rss_mb_tfjs', stat(pick(p, 'peak_rss_mb'))],
    ['peak_rss_mb_torch', stat(pick('torch', 'peak_rss_mb'))],
    ...backends.map((c): [string, string] => [
      `backend_${c}`,
      `update_ms ${stat(pick(c, 'update_ms'))}, sampling_tok_s ${stat(pick(c, 'sampling_tokens_per_s'))}, ` +
        `update_ratio ${ratio(c, 'update_ms')[0]}, sampling_ratio ${ratio(c, 'sampling_tokens_per_s')[0]}, ` +
        `rlvr_step_ms ${stat(pick(c, 'rlvr_step_ms'))}, peak_rss_mb ${median(pick(c, 'peak_rss_mb')).toFixed(0)}`,
    ]),
    ...backends.map((c): [string, string] => [
      `engine_${c}`,
      Object.entries(res[c][0].engine ?? {})
        .filter(([k]) => k !== 'backend')
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ]),
    [
      'torch',
      `${tv.torch}, ${tv.threads} thread${tv.threads === 1 ? '' : 's'} (inter-op ${tv.interop_threads}), ` +
        `BLAS ${tv.blas}, OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1, ${python}`,
    ],
    ['cpus', `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`],
    ['load_average', `${fmtLoad(os.loadavg())} (at start ${fmtLoad(load0)})`],
    ['bench_wall_s', ((performance.now() - t0) / 1000).toFixed(0)],
  ];
  for (const [k, v] of lines) console.log(`${k}: ${v}`);
});
