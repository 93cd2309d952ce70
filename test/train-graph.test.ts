// Kernel generation 2's training graphs (src/models/train-graph.ts) against tfjs's eager pass and autodiff on the
// native backend: the transformer's logits and values, and every weight's gradient of a loss that reads the
// log-probabilities, the values of a role and the entropy, within float32 rounding, for ALiBi and learned positions,
// left padding included; the same bits on every call; no tensor left behind; kernels 1 never runs them.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import {
  backwardInputs,
  backwardOutputs,
  forwardInputs,
  forwardOutputs,
  savedNames,
  trainWeights,
} from '../src/models/train-graph.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig, type Policy } from '../src/models/policy.js';
import { disposeSequenceBatch, makeSequenceBatch, tokenLogProbs, type SequenceBatch } from '../src/models/logprobs.js';
import { assertWithinRounding, lossAndGrads, withEnv } from './graph-helpers.js';
import { makeRng } from '../src/util/random.js';
import { V } from '../src/world/vocab.js';

const GRAPH = { WORKBENCH_KERNELS: '2', WORKBENCH_DECODE_GRAPH: '1' };
const EAGER = { WORKBENCH_KERNELS: '2', WORKBENCH_DECODE_GRAPH: '0' };

describe('the training graphs (kernels 2, native backend)', function () {
  this.timeout(60000);
  before(async () => {
    await initBackend();
  });

  it('name every weight once, and hand each saved activation from the forward to the backward graph', () => {
    for (const alibi of [true, false]) {
      const s = { layers: 2, heads: 4, dModel: 64, alibi, eps: 1e-5, vocab: V, context: 192 };
      const ws = trainWeights(s);
      assert.equal(new Set(ws).size, ws.length);
      assert.equal(ws.length, (alibi ? 1 : 2) + 2 * 12 + 2);
      assert.equal(backwardOutputs(s).length, ws.length);
      assert.deepEqual(forwardOutputs(s).slice(1), savedNames(s));
      assert.deepEqual(backwardInputs(s).slice(-savedNames(s).length), savedNames(s));
      assert.equal(new Set(forwardInputs(s)).size, forwardInputs(s).length);
      assert.equal(forwardInputs(s).includes('positions'), !alibi);
    }
  });

  for (const positions of ['alibi', 'learned'] as const) {
    it(
      `give the eager pass's outputs and autodiff's gradients within float32 rounding (${positions}), ` +
        'the same bits on every call, and leave no tensor behind',
      function () {
        if (tf.getBackend() !== 'tensorflow') {
          this.test!.title += ' (skipped: native backend only)';
          this.skip();
        }
        const m = createPolicy({ ...modelConfig('transformer', 'S', 5), positions });
        // every weight moved off its initial value (a dropped bias or gain would pass at 0 and 1)
        Object.values(m.weights).forEach((w, i) =>
          tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.05, 'float32', i)))),
        );
        const rng = makeRng(3);
        const prompts = Array.from({ length: 6 }, (_, i) =>
          Array.from({ length: 2 + i * 3 }, () => 3 + rng.int(V - 3)),
        );
        const sb = makeSequenceBatch(
          prompts,
          prompts.map((_, i) => Array.from({ length: 3 + (i % 4) }, () => 3 + rng.int(V - 3))),
        );
        const eager = withEnv(EAGER, () => lossAndGrads(m, sb));
        const before = tf.memory().numTensors;
        const graph = withEnv(GRAPH, () => lossAndGrads(m, sb)),
          again = withEnv(GRAPH, () => lossAndGrads(m, sb));
        assert.equal(tf.memory().numTensors, before, 'tensors left behind');
        assertWithinRounding(eager, graph);
        assert.equal(Object.keys(graph.grads).length, Object.keys(m.weights).length, 'a gradient for every weight');
        assert.deepEqual(again, graph, 'a second call');
        disposeSequenceBatch(sb);
        for (const w of Object.values(m.weights)) w.dispose();
      },
    );
  }

  /** A small transformer-S and batch for f, disposed after; skipped off the native backend. */
  function onSmallModel(ctx: Mocha.Context, seed: number, f: (m: Policy, sb: SequenceBatch) => void) {
    if (tf.getBackend() !== 'tensorflow') {
      ctx.test!.title += ' (skipped: native backend only)';
      ctx.skip();
    }
    const m = createPolicy(modelConfig('transformer', 'S', seed));
    const sb = makeSequenceBatch(
      [
        [2, 14, 15],
        [2, 16],
      ],
      [
        [20, 21],
        [22, 23, 24],
      ],
    );
    try {
      f(m, sb);
    } finally {
      disposeSequenceBatch(sb);
      for (const w of Object.values(m.weights)) w.dispose();
    }
  }

  it('leave the read-out a loss does not read without a gradient, as autodiff does', function () {
    onSmallModel(this, 7, (m, sb) => {
      const names = (env: Record<string, string>) =>
        withEnv(env, () =>
          tf.tidy(() =>
            Object.keys(
              tf.variableGrads(() => tokenLogProbs(m, sb, 0, false).logp.sum() as tf.Scalar, Object.values(m.weights))
                .grads,
            ).sort(),
          ),
        );
      const eager = names(EAGER);
      assert.equal(eager.length, Object.keys(m.weights).length - 2, 'eagerly, the value head gets no gradient');
      assert.deepEqual(names(GRAPH), eager);
    });
  });

  it('are not used by kernels 1 (its records rerun on the eager pass, bit for bit)', function () {
    onSmallModel(this, 6, (m, sb) => {
      const on = withEnv({ WORKBENCH_KERNELS: '1', WORKBENCH_DECODE_GRAPH: '1' }, () => lossAndGrads(m, sb));
      const off = withEnv({ WORKBENCH_KERNELS: '1', WORKBENCH_DECODE_GRAPH: '0' }, () => lossAndGrads(m, sb));
      assert.deepEqual(on, off);
    });
  });
});
