// The tensor engines against each other and against themselves: for both model families, the native TensorFlow
// backend and wasm give the same loss and weight gradients within a stated tolerance, and each backend gives
// bit-identical numbers (gradients, three PPO steps, final weights) in two separate processes with the same seed.
// The numbers come from test/fixtures/engine-probe.ts, run as a child process per backend (one backend per process).
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { engineInfo, initBackend } from '../src/models/backend.js';

interface ModelResult {
  loss: number;
  grads: Record<string, number[]>;
  steps: Record<string, number>[];
  weightHash: string;
  weightSum: number;
}
interface ProbeResult {
  backend: string;
  models: Record<string, ModelResult>;
}

const NOT_INSTALLED = 'native backend is not installed';
const FAMILIES = ['transformer', 'gru'];
// Measured on x86-64 (TensorFlow 2.21.0 CPU, 1 thread, oneDNN off, vs tfjs-wasm 4.22.0): loss relative difference
// 0.9e-7 (transformer) and 1.7e-7 (GRU); worst per-weight gradient difference, max |g_tf - g_wasm| / max |g_wasm|,
// 5.8e-7 (transformer, l0.ln1_g) and 5.8e-7 (GRU, att_q); after 3 PPO steps the statistics differ by <= 1.3e-6
// relative. Tolerances are about 50x above those: float32 summation order, not a wrong kernel.
const LOSS_TOL = 1e-5,
  GRAD_TOL = 3e-5,
  STEPS_TOL = 1e-4;

/** Run the probe on one backend; resolves to its result, or to null when the native backend is not installed. */
function probe(backend: 'wasm' | 'tensorflow', env: NodeJS.ProcessEnv = {}): Promise<ProbeResult | null> {
  return new Promise((resolve, reject) => {
    execFile(
      './node_modules/.bin/tsx',
      ['test/fixtures/engine-probe.ts'],
      { env: { ...process.env, ...env, TFJS_BACKEND: backend }, maxBuffer: 64 << 20, timeout: 60000 },
      (err, stdout, stderr) => {
        if (!err) return resolve(JSON.parse(stdout) as ProbeResult);
        if (backend === 'tensorflow' && stderr.includes(NOT_INSTALLED)) return resolve(null);
        reject(new Error(`engine probe on ${backend} failed: ${err.message}\n${stderr.slice(-2000)}`));
      },
    );
  });
}

// two processes per backend, started on first use and shared by the tests
const runs: Record<string, Promise<ProbeResult | null>[]> = { wasm: [], tensorflow: [] };
const run = (backend: 'wasm' | 'tensorflow', i: number) => (runs[backend][i] ??= probe(backend));

const describeEngine = (e: Record<string, string | number>) =>
  e.backend === 'tensorflow'
    ? `tensorflow (TensorFlow ${e.tensorflow}, ${e.intraOpThreads} intra-op / ${e.interOpThreads} inter-op thread` +
      `${Number(e.interOpThreads) > 1 ? 's' : ''})`
    : `${e.backend} (tfjs ${e.tfjs}, ${e.threads} thread)`;

/** Worst max |a - b| / max |a| over the weights, and which weight; every weight must have a non-zero gradient. */
function worstGradDiff(a: Record<string, number[]>, b: Record<string, number[]>, what: string) {
  assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort(), `${what}: the two backends name different weights`);
  let worst = 0,
    at = '';
  for (const [name, ga] of Object.entries(a)) {
    const gb = b[name];
    assert.equal(gb.length, ga.length, `${what}: gradient of ${name} has ${gb.length} entries, expected ${ga.length}`);
    let scale = 0,
      diff = 0;
    for (let i = 0; i < ga.length; i++) {
      scale = Math.max(scale, Math.abs(ga[i]));
      diff = Math.max(diff, Math.abs(ga[i] - gb[i]));
    }
    assert.ok(scale > 0, `${what}: the loss gives weight ${name} no gradient (the test would not cover it)`);
    if (diff / scale > worst) {
      worst = diff / scale;
      at = name;
    }
  }
  return { worst, at };
}

/** Skip a native-backend test, saying why in its title (mocha's skip takes no message). */
function skip(ctx: Mocha.Context): never {
  ctx.test!.title += ` (skipped: ${NOT_INSTALLED}; \`make setup\` builds it)`;
  ctx.skip();
}

/** Bit-for-bit comparison of two runs of the probe on the same backend. */
function assertIdentical(a: ProbeResult, b: ProbeResult) {
  for (const arch of FAMILIES) {
    const x = a.models[arch],
      y = b.models[arch],
      what = `${a.backend} ${arch}`;
    assert.equal(y.loss, x.loss, `${what}: loss differs between two processes`);
    for (const [name, g] of Object.entries(x.grads)) {
      const differing = g.filter((v, i) => v !== y.grads[name][i]).length;
      assert.equal(
        differing,
        0,
        `${what}: ${differing} of ${g.length} gradient entries of ${name} differ between runs`,
      );
    }
    assert.deepEqual(y.steps, x.steps, `${what}: the 3 PPO steps' statistics differ between processes`);
    assert.equal(
      y.weightHash,
      x.weightHash,
      `${what}: final weights differ between processes (sums ${x.weightSum} and ${y.weightSum})`,
    );
  }
}

describe('tensor engines: native TensorFlow vs wasm, and determinism', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
    console.log(`    engine: ${describeEngine(engineInfo())}`);
  });

  it('wasm and native TensorFlow agree on the loss and every weight gradient (transformer-S, GRU-S)', async function () {
    const [wasm, native] = await Promise.all([run('wasm', 0), run('tensorflow', 0)]);
    if (!native) skip(this);
    assert.equal(wasm!.backend, 'wasm');
    assert.equal(native.backend, 'tensorflow');
    for (const arch of FAMILIES) {
      const w = wasm!.models[arch],
        n = native.models[arch];
      const lossRel = Math.abs(n.loss - w.loss) / Math.abs(w.loss);
      assert.ok(
        lossRel <= LOSS_TOL,
        `${arch}: loss ${n.loss} (tensorflow) vs ${w.loss} (wasm), relative difference ${lossRel} > ${LOSS_TOL}`,
      );
      const { worst, at } = worstGradDiff(w.grads, n.grads, arch);
      assert.ok(worst <= GRAD_TOL, `${arch}: gradient of ${at} differs by ${worst} of its max |g| (> ${GRAD_TOL})`);
      w.steps.forEach((s, i) => {
        for (const k of ['pg', 'v', 'gradNorm']) {
          const rel = Math.abs(n.steps[i][k] - s[k]) / Math.max(Math.abs(s[k]), 1e-3);
          assert.ok(rel <= STEPS_TOL, `${arch}: PPO step ${i} ${k} ${n.steps[i][k]} (tensorflow) vs ${s[k]} (wasm)`);
        }
      });
    }
  });

  it('native TensorFlow is deterministic: two processes, same seed, identical numbers', async function () {
    const [a, b] = await Promise.all([run('tensorflow', 0), run('tensorflow', 1)]);
    if (!a || !b) skip(this);
    assertIdentical(a, b);
  });

  it("the BFC allocator changes no number: the probe with TensorFlow's default CPU allocator is identical", async function () {
    const [a, b] = await Promise.all([
      run('tensorflow', 0),
      probe('tensorflow', { TF_CPU_ALLOCATOR_USE_BFC: 'false' }),
    ]);
    if (!a || !b) skip(this);
    assertIdentical(a, b);
  });

  it('wasm is deterministic: two processes, same seed, identical numbers', async () => {
    const [a, b] = await Promise.all([run('wasm', 0), run('wasm', 1)]);
    assert.ok(a && b);
    assertIdentical(a, b);
  });
});
