// `make bench-steps`: the wall time of the workbench's real steps on every tensor backend present, one thread
// each, one backend per fresh process, one process at a time: a cold-start SFT step (transformer-S, batch 64),
// one RLVR step and one RLCER step (both from the transformer-S cold start, 16 prompts x 8 rollouts, sampling,
// rewards and the PPO update). Medians over the timed repetitions, after warm-up steps.
import { spawnSync } from 'node:child_process';
import { intArg, parseArgs, runMain } from './args.js';
import { engineInfo, initBackend, tf } from '../models/backend.js';
import { createPolicy, loadPolicy } from '../models/index.js';
import { modelConfig } from '../models/policy.js';
import { loadVerifier } from '../models/verifier.js';
import { defaultColdStartData, defaultSftConfig, sampleExample, sftStep } from '../methods/trainers/coldstart.js';
import { defaultRlvrConfig, makeRlvrTrainer } from '../methods/trainers/rlvr.js';
import { defaultRlcerConfig, makeRlcerTrainer } from '../methods/trainers/rlcer.js';
import { VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { makeRng } from '../util/random.js';
import { median } from '../util/stats.js';

/** Time `reps` calls of f after `warm` untimed ones; the median in ms. */
function time(warm: number, reps: number, f: (i: number) => void): number {
  for (let i = 0; i < warm; i++) f(i);
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    f(warm + i);
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

async function worker(reps: number): Promise<void> {
  await initBackend();
  const ck = 'data/checkpoints/coldstart-transformer-S.json';
  const sftPolicy = createPolicy(modelConfig('transformer', 'S', 0)),
    opt = tf.train.adam(defaultSftConfig.lr, 0.9, 0.98);
  const rng = makeRng(0);
  const sft = time(2, reps * 2, () => {
    const batch = Array.from({ length: defaultSftConfig.batch }, () => sampleExample(defaultColdStartData, rng));
    sftStep(sftPolicy, opt, batch, defaultSftConfig.clipNorm);
  });
  const rlvr = makeRlvrTrainer(loadPolicy(ck), defaultRlvrConfig);
  const rlvrMs = time(2, reps, (i) => rlvr.step(makeRng(10 + i)));
  const rlcer = makeRlcerTrainer(loadPolicy(ck), defaultRlcerConfig, { verifier: loadVerifier(VERIFIER_CHECKPOINT) });
  const rlcerMs = time(1, reps, (i) => rlcer.step(makeRng(20 + i)));
  console.log(JSON.stringify({ engine: engineInfo(), sft_step_ms: sft, rlvr_step_ms: rlvrMs, rlcer_step_ms: rlcerMs }));
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    reps: { help: 'timed RL steps per backend (SFT: twice that)', default: '5' },
    worker: { help: 'internal: time the backend TFJS_BACKEND names, print one JSON line', boolean: true },
  });
  const reps = intArg('reps', a.reps, 1);
  if (a.worker) return worker(reps);
  const backends = ['tensorflow', 'wasm'];
  for (const backend of backends) {
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], '--worker', '--reps', String(reps)], {
      env: { ...process.env, TFJS_BACKEND: backend, WORKBENCH_THREADS: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 || !last.startsWith('{')) {
      const why = (
        r.stderr
          .trim()
          .split('\n')
          .find((l) => /error/i.test(l)) ?? `exit ${r.status}`
      ).slice(0, 200);
      console.log(`${backend}: unavailable (${why})`);
      continue;
    }
    const m = JSON.parse(last) as Record<string, number | Record<string, unknown>>;
    const f = (k: string) => (m[k] as number).toFixed(0);
    console.log(
      `${backend}: sft_step_ms ${f('sft_step_ms')}, rlvr_step_ms ${f('rlvr_step_ms')}, rlcer_step_ms ${f('rlcer_step_ms')}` +
        ` (${Object.entries(m.engine as Record<string, unknown>)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')})`,
    );
  }
});
