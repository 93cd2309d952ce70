// The engine's kernel generations (WORKBENCH_KERNELS, src/models/backend.ts): generation 2's closed-form backward
// passes of layer norm and GELU against hand-computed values and against generation 1's autodiff, the forward
// passes they leave unchanged, and the generation every run records.
import { strict as assert } from 'node:assert';
import { engineInfo, initBackend, kernelVersion, KERNEL_VERSIONS, tf } from '../src/models/backend.js';
import { gelu, layerNorm } from '../src/models/layers.js';
import { createPolicy } from '../src/models/index.js';
import { makeBatch, modelConfig } from '../src/models/policy.js';
import { makeSequenceBatch, tokenLogProbs } from '../src/models/logprobs.js';
import { makeRng } from '../src/util/random.js';
import { checkResumeKernels } from '../src/io/run.js';

/** Run f with WORKBENCH_KERNELS set to v, restoring the environment after. */
function under<T>(v: number, f: () => T): T {
  const was = process.env.WORKBENCH_KERNELS;
  process.env.WORKBENCH_KERNELS = String(v);
  try {
    return f();
  } finally {
    if (was === undefined) delete process.env.WORKBENCH_KERNELS;
    else process.env.WORKBENCH_KERNELS = was;
  }
}

const close = (got: number[], want: number[], tol: number, what: string) => {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((g, i) =>
    assert.ok(Math.abs(g - want[i]) <= tol, `${what}[${i}]: ${g}, expected ${want[i]} (tol ${tol})`),
  );
};

const ln = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
  layerNorm(a as tf.Tensor2D, b as tf.Tensor1D, c as tf.Tensor1D);

/** Gradients of sum(f(inputs) * w) for fixed random weights w: the upstream gradient is w. */
function grads(f: (...xs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[], w: tf.Tensor): number[][] {
  return tf.tidy(() =>
    tf
      .grads((...xs: tf.Tensor[]) =>
        f(...xs)
          .mul(w)
          .sum(),
      )(inputs)
      .map((g) => Array.from(g.dataSync())),
  );
}

describe('kernel generations', function () {
  this.timeout(60000);
  before(async () => {
    await initBackend();
  });

  it('default to the newest generation, read WORKBENCH_KERNELS, refuse others in one line, and are recorded', () => {
    assert.equal(kernelVersion({}), 4);
    assert.equal(KERNEL_VERSIONS.at(-1), 4);
    assert.equal(kernelVersion({ WORKBENCH_KERNELS: '1' }), 1);
    assert.equal(kernelVersion({ WORKBENCH_KERNELS: '2' }), 2);
    assert.throws(
      () => kernelVersion({ WORKBENCH_KERNELS: '5' }),
      /^Error: WORKBENCH_KERNELS must be one of 1, 2, 3, 4 \(got "5"\)$/,
    );
    assert.equal(
      under(1, () => engineInfo().kernels),
      1,
    );
    assert.equal(
      under(2, () => engineInfo().kernels),
      2,
    );
    assert.equal(
      under(3, () => engineInfo().kernels),
      3,
    );
    assert.equal(
      under(4, () => engineInfo().kernels),
      4,
    );
  });

  it('a run resumes only under the generation it started with (a record without one is generation 1)', () => {
    const v2 = kernelVersion({ WORKBENCH_KERNELS: '2' }),
      v1 = kernelVersion({ WORKBENCH_KERNELS: '1' });
    assert.doesNotThrow(() => checkResumeKernels('r', { engine: { kernels: 2 } }, v2));
    assert.doesNotThrow(() => checkResumeKernels('r', { engine: { backend: 'tensorflow' } }, v1));
    assert.throws(
      () => checkResumeKernels('runs/x', { engine: { backend: 'tensorflow' } }, v2),
      /^ConfigError: runs\/x was started with kernels 1 and this process runs kernels 2: resume it with WORKBENCH_KERNELS=1,/,
    );
    assert.throws(() => checkResumeKernels('r', { engine: { kernels: 2 } }, v1), /WORKBENCH_KERNELS=2/);
  });

  it("generation 2: layer norm's backward pass gives hand-computed gradients", () => {
    // x = [1, 2, 3], gain [2, 1, 1], dy = [1, 0, 0]: xhat = [-1, 0, 1] * rstd, rstd = (2/3 + 1e-5)^-1/2 = 1.2247357;
    // g = dy * gain = [2, 0, 0], mean(g) = 2/3, mean(g * xhat) = -2 rstd / 3, dx = rstd (g - 2/3 - xhat mean(g xhat))
    const x = tf.tensor2d([[1, 2, 3]]),
      gain = tf.tensor1d([2, 1, 1]),
      bias = tf.tensor1d([0.5, 0, 0]);
    const [dx, dg, db] = under(2, () => grads(ln, [x, gain, bias], tf.tensor2d([[1, 0, 0]])));
    close(dx, [0.4082636, -0.8164905, 0.4082269], 2e-6, 'dx');
    close(dg, [-1.2247357, 0, 0], 2e-6, 'dgain');
    close(db, [1, 0, 0], 0, 'dbias');
  });

  it("generation 2: layer norm's gradients equal autodiff's (generation 1); the same output bit for bit", () => {
    const rng = makeRng(4),
      rand = (n: number, s = 1) => Array.from({ length: n }, () => s * rng.normal());
    const x = tf.tensor2d(rand(6 * 9, 3), [6, 9]),
      gain = tf.tensor1d(rand(9)),
      bias = tf.tensor1d(rand(9));
    const w = tf.tensor2d(rand(6 * 9), [6, 9]);
    const [g1, g2] = [1, 2].map((v) => under(v, () => grads(ln, [x, gain, bias], w)));
    g1.forEach((g, i) => close(g2[i], g, 1e-5 * Math.max(...g.map(Math.abs)), ['dx', 'dgain', 'dbias'][i]));
    const [y1, y2] = [1, 2].map((v) => under(v, () => tf.tidy(() => Array.from(ln(x, gain, bias).dataSync()))));
    assert.deepEqual(y2, y1);
  });

  it("generation 2: GELU's derivative is s (1 + 1.702 x (1 - s)), hand-computed, and autodiff's", () => {
    const x = tf.tensor1d([0, 1, -2]);
    const [d2] = under(2, () => grads((a) => gelu(a), [x], tf.ones([3])));
    close(d2, [0.5, 1.0677796, -0.0738154], 2e-6, 'dgelu');
    const rng = makeRng(8),
      xs = tf.tensor1d(Array.from({ length: 50 }, () => 4 * rng.normal()));
    const w = tf.tensor1d(Array.from({ length: 50 }, () => rng.normal()));
    const [a1, a2] = [1, 2].map((v) => under(v, () => grads((a) => gelu(a), [xs], w)[0]));
    close(a2, a1, 1e-6, 'dgelu vs autodiff');
    const [y1, y2] = [1, 2].map((v) => under(v, () => tf.tidy(() => Array.from(gelu(xs).dataSync()))));
    assert.deepEqual(y2, y1);
  });

  it(
    'the eager transformer-S forward pass is the same bit for bit in both generations (queries scaled by 1/4, ' +
      "exact; the native backend's training graphs round otherwise: test/train-graph.test.ts)",
    () => {
      const m = createPolicy(modelConfig('transformer', 'S', 2));
      const b = makeBatch([
        [2, 14, 15, 16, 17],
        [2, 19, 20],
      ]);
      const was = process.env.WORKBENCH_DECODE_GRAPH;
      process.env.WORKBENCH_DECODE_GRAPH = '0';
      try {
        const [l1, l2] = [1, 2].map((v) => under(v, () => tf.tidy(() => Array.from(m.forward(b).logits.dataSync()))));
        assert.deepEqual(l2, l1);
      } finally {
        if (was === undefined) delete process.env.WORKBENCH_DECODE_GRAPH;
        else process.env.WORKBENCH_DECODE_GRAPH = was;
      }
    },
  );

  for (const arch of ['transformer', 'gru'] as const) {
    it(`${arch}: the whole model's weight gradients agree between the generations (float32 rounding only)`, () => {
      const m = createPolicy(modelConfig(arch, 'S', 5));
      const sb = makeSequenceBatch(
        [
          [2, 14, 15, 16],
          [2, 17],
        ],
        [
          [20, 21, 22],
          [23, 24, 25, 26],
        ],
      );
      const loss = () => tokenLogProbs(m, sb, 0, false).logp.sum() as tf.Scalar;
      const [g1, g2] = [1, 2].map((v) =>
        under(v, () =>
          tf.tidy(() => {
            const { grads: gs } = tf.variableGrads(loss, Object.values(m.weights));
            return Object.fromEntries(Object.entries(gs).map(([k, g]) => [k, Array.from(g.dataSync())]));
          }),
        ),
      );
      assert.deepEqual(Object.keys(g2).sort(), Object.keys(g1).sort());
      let worst = 0;
      for (const [k, g] of Object.entries(g1)) {
        const scale = Math.max(...g.map(Math.abs));
        if (scale > 0) worst = Math.max(worst, ...g.map((v, i) => Math.abs(v - g2[k][i]) / scale));
      }
      assert.ok(worst < 1e-4, `worst relative gradient difference ${worst}`);
    });
  }
});
