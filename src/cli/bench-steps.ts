// `make bench-steps`: the wall time of one training step of every method the campaigns run, on the native backend
// (and wasm with --backends), one thread, one fresh process per run, runs one at a time. Per run and method: a warm-up
// step, then --reps timed steps from the transformer-S cold start (CO-RL: the transformer-S and GRU-S pair), each
// step's time split where its trainer logs it (sampling, the rubricator, the judge, the update; the rest is
// bookkeeping), after three untimed RLVR steps that build the process's graphs. Written to results/bench/steps.csv: per method the median step over all runs' timed steps, its
// min-max, and its ratio to RLVR's median step measured in the same runs; printed beside it, each run's own ratio and
// their median, and the load average at the start and the end. Speed only: the steps' numbers are the trainers' own,
// untouched.
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { choiceListArg, intArg, parseArgs, runMain } from '../io/args.js';
import { writeCsv, type Row } from '../io/table.js';
import { engineInfo, initBackend, tf } from '../models/backend.js';
import { createPolicy, loadPolicy } from '../models/index.js';
import { modelConfig, type Policy } from '../models/policy.js';
import { loadVerifier } from '../models/verifier.js';
import { defaultColdStartData, defaultSftConfig, sampleExample, sftStep } from '../methods/trainers/coldstart.js';
import { defaultLabelFreeConfig, makeLabelFreeTrainer } from '../methods/trainers/label-free.js';
import { coldStartCheckpoint, methodSpec, VERIFIER_CHECKPOINT, scalarRmCheckpoint } from '../methods/tables/table2.js';
import { BENCH_METHODS, table2Row } from '../methods/tables/table2-kinds.js';
import { agentCheckpoint } from '../methods/tables/table1.js';
import { makeRng, type Rng } from '../util/random.js';
import { median } from '../util/stats.js';

/** The parts of a step its trainer times (metrics `<part>_ms`); what the step spends beyond them is `other`. */
const PARTS = ['sample', 'rubric', 'judge', 'update'] as const;

/** One timed step: its method (EvoLM: with its phase), wall ms, and the parts its trainer timed. */
interface StepTime {
  method: string;
  ms: number;
  parts: Record<string, number>;
}

/** A method's trainer as the bench drives it: one step at global step `i` with its own stream. */
type Stepper = { step: (i: number, rng: Rng) => Record<string, number>; phaseOf?: (i: number) => string };

function stepper(method: string, steps: number): Stepper {
  const ck = coldStartCheckpoint('S');
  if (method === 'sft') {
    const policy = createPolicy(modelConfig('transformer', 'S', 0)),
      opt = tf.train.adam(defaultSftConfig.lr, 0.9, 0.98);
    return {
      step: (_, rng) => {
        const batch = Array.from({ length: defaultSftConfig.batch }, () => sampleExample(defaultColdStartData, rng));
        const t0 = Date.now();
        sftStep(policy, opt, batch, defaultSftConfig.clipNorm);
        return { update_ms: Date.now() - t0 };
      },
    };
  }
  if (method === 'corl_transformer_gru') {
    const agents: Policy[] = ['transformer-S', 'gru-S'].map((a) => loadPolicy(agentCheckpoint(a)));
    const t = makeLabelFreeTrainer(agents, { ...defaultLabelFreeConfig, method: 'corl', steps });
    return { step: (_, rng) => t.step(rng) };
  }
  const row = table2Row({
    spec: methodSpec(method),
    user: {},
    steps,
    klTarget: null,
    scalarRmCheckpoint: scalarRmCheckpoint('S'),
  });
  const t = row.trainer({
    policy: loadPolicy(ck),
    verifier: loadVerifier(VERIFIER_CHECKPOINT),
    coldStart: () => loadPolicy(ck),
    generator: row.needsGenerator ? loadPolicy(ck) : undefined,
    scalarRm: null,
    seed: 0,
    start: 0,
  });
  return { step: t.step, phaseOf: t.phaseOf };
}

/** The worker: every method's steps on the backend TFJS_BACKEND names; prints one JSON line. */
async function worker(methods: readonly string[], reps: number): Promise<void> {
  await initBackend();
  // untimed RLVR steps first: the native backend builds its graphs and kernels for the batch's shapes once per
  // process, which would otherwise fall on whichever method is timed first
  const warmup = stepper('rlvr', 3);
  for (let i = 0; i < 3; i++) warmup.step(i, makeRng(50 + i));
  const times: StepTime[] = [];
  for (const method of methods) {
    // EvoLM's schedule alternates policy and generator phases over the run: time a run long enough for both
    const warm = 1,
      total = method === 'evolm' ? 2 * (warm + reps) : warm + reps;
    const s = stepper(method, total);
    for (let i = 0; i < total; i++) {
      const t0 = performance.now();
      const m = s.step(i, makeRng(100 + i));
      const ms = performance.now() - t0;
      if (i < warm) continue;
      const parts = Object.fromEntries(PARTS.filter((p) => `${p}_ms` in m).map((p) => [p, m[`${p}_ms`]]));
      const phase = s.phaseOf?.(i);
      times.push({ method: phase && phase !== 'policy' ? `${method}/${phase}` : method, ms, parts });
    }
  }
  console.log(JSON.stringify({ engine: engineInfo(), times }));
}

/** The table: per backend and method, the median step over every run's timed steps, min-max, ratio to RLVR's. */
export function stepsTable(byBackend: { backend: string; engine: string; times: StepTime[] }[]): Row[] {
  const rows: Row[] = [];
  for (const { backend, engine, times } of byBackend) {
    const methods = [...new Set(times.map((t) => t.method))];
    const med = (m: string) => median(times.filter((t) => t.method === m).map((t) => t.ms));
    const rlvr = methods.includes('rlvr') ? med('rlvr') : NaN;
    for (const method of methods) {
      const ts = times.filter((t) => t.method === method),
        ms = ts.map((t) => t.ms);
      const part = (p: string) => (ts.some((t) => p in t.parts) ? median(ts.map((t) => t.parts[p] ?? 0)) : null);
      const parts = Object.fromEntries(PARTS.map((p) => [`${p}_ms`, part(p) ?? '']));
      const timed = PARTS.map((p) => part(p) ?? 0).reduce((a, b) => a + b, 0);
      rows.push({
        backend,
        method,
        steps: ts.length,
        step_ms: med(method),
        min_ms: Math.min(...ms),
        max_ms: Math.max(...ms),
        ratio_to_rlvr: med(method) / rlvr,
        ...parts,
        other_ms: Math.max(0, med(method) - timed),
        engine,
      });
    }
  }
  return rows;
}

/** The runs' own ratios to RLVR and their median, for the printed table (empty for RLVR and without runs). */
const runRatios = (xs: number[] | undefined) =>
  xs?.length ? `; per run ${xs.map((x) => `x${x.toFixed(2)}`).join(' ')}, their median x${median(xs).toFixed(2)}` : '';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    reps: { help: 'timed steps per method and run (EvoLM: per phase)', default: '5' },
    runs: { help: 'fresh worker processes per backend, one after another', default: '3' },
    methods: { help: `comma-separated, among ${BENCH_METHODS.join(', ')}`, default: BENCH_METHODS.join(',') },
    backends: { help: 'comma-separated: tensorflow, wasm', default: 'tensorflow' },
    out: { help: 'the table', default: 'results/bench/steps.csv' },
    worker: { help: 'internal: time the backend TFJS_BACKEND names, print one JSON line', boolean: true },
  });
  const reps = intArg('reps', a.reps, 1),
    runs = intArg('runs', a.runs, 1);
  const methods = choiceListArg('methods', a.methods, BENCH_METHODS);
  if (a.worker) return worker(methods, reps);
  const loadAtStart = os.loadavg().map((x) => x.toFixed(2));
  const measured: { backend: string; engine: string; times: StepTime[] }[] = [];
  // each run's own ratios to RLVR (its medians), printed as the run ends and beside the table's line
  const perRun = new Map<string, number[]>();
  for (const backend of choiceListArg('backends', a.backends, ['tensorflow', 'wasm'] as const)) {
    const times: StepTime[] = [];
    let engine = '';
    for (let run = 0; run < runs; run++) {
      const args = [...process.execArgv, process.argv[1], '--worker', '--reps', String(reps), '--methods', a.methods];
      const r = spawnSync(process.execPath, args, {
        env: { ...process.env, TFJS_BACKEND: backend, WORKBENCH_THREADS: '1' },
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      const last = r.stdout.trim().split('\n').pop() ?? '';
      if (r.status !== 0 || !last.startsWith('{')) {
        const why =
          r.stderr
            .trim()
            .split('\n')
            .find((l) => /error/i.test(l)) ?? `exit ${r.status}`;
        console.log(`${backend}: unavailable (${why.slice(0, 200)})`);
        break;
      }
      const m = JSON.parse(last) as { engine: Record<string, unknown>; times: StepTime[] };
      engine = Object.entries(m.engine)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      times.push(...m.times);
      const set = stepsTable([{ backend, engine, times: m.times }]).filter((r) => r.method !== 'rlvr');
      for (const r of set)
        perRun.set(`${backend} ${r.method}`, [
          ...(perRun.get(`${backend} ${r.method}`) ?? []),
          Number(r.ratio_to_rlvr),
        ]);
      const ratios = set.map((r) => `${r.method} x${Number(r.ratio_to_rlvr).toFixed(2)}`).join(', ');
      console.log(`[bench-steps] ${backend} run ${run + 1}/${runs} done; its ratios to RLVR: ${ratios}`);
    }
    if (times.length) measured.push({ backend, engine, times });
  }
  const rows = stepsTable(measured);
  writeCsv(a.out, rows);
  for (const r of rows)
    console.log(
      `${r.backend} ${String(r.method).padEnd(22)} ${Number(r.step_ms).toFixed(0).padStart(6)} ms ` +
        `(${Number(r.min_ms).toFixed(0)}-${Number(r.max_ms).toFixed(0)}), x${Number(r.ratio_to_rlvr).toFixed(2)} RLVR` +
        runRatios(perRun.get(`${r.backend} ${r.method}`)),
    );
  const load = os.loadavg().map((x) => x.toFixed(2));
  console.log(
    `${a.out}: ${rows.length} rows; cpus ${os.cpus().length}, load average ${load.join(' ')} ` +
      `(at the start ${loadAtStart.join(' ')})`,
  );
});
