// Kernel generation 3's GRU recurrence graphs (src/models/gru-graph.ts) against tfjs's eager recurrence and autodiff
// on the native backend: the GRU's logits and values, and every weight's gradient of a loss that reads the
// log-probabilities, the values of a role and the entropy, within float32 rounding, with and without the recall
// read, left padding and lengths off the unrolling bucket included; the same bits on every call; no tensor left
// behind; generation 2 never runs them.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import {
  GRU_STEP_BUCKET,
  gruBackwardInputs,
  gruBackwardOutputs,
  gruForwardInputs,
  gruForwardOutputs,
  unrolledSteps,
} from '../src/models/gru-graph.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig } from '../src/models/policy.js';
import { disposeSequenceBatch, makeSequenceBatch } from '../src/models/logprobs.js';
import { assertWithinRounding, lossAndGrads, relDiff, withEnv } from './graph-helpers.js';
import { makeRng } from '../src/util/random.js';
import { V } from '../src/world/vocab.js';

describe('the GRU recurrence graphs (kernels 3, native backend)', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });

  it('unroll lengths padded to the bucket, and hand each saved activation from the forward to the backward graph', () => {
    assert.equal(unrolledSteps(1), GRU_STEP_BUCKET);
    assert.equal(unrolledSteps(GRU_STEP_BUCKET), GRU_STEP_BUCKET);
    assert.equal(unrolledSteps(GRU_STEP_BUCKET + 1), 2 * GRU_STEP_BUCKET);
    assert.deepEqual(gruBackwardInputs().slice(3), gruForwardOutputs().slice(1));
    assert.deepEqual(gruForwardInputs(), ['xp', 'wh', 'valid']);
    assert.deepEqual(gruBackwardOutputs(), ['dxp', 'dwh']);
  });

  for (const recall of [false, true]) {
    for (const long of [false, true]) {
      it(
        `give the eager recurrence's outputs and autodiff's gradients within float32 rounding (recall read ` +
          `${recall ? 'on' : 'off'}, ${long ? 'two buckets' : 'one bucket'}), the same bits on every call, ` +
          'no tensor left behind',
        function () {
          if (tf.getBackend() !== 'tensorflow') {
            this.test!.title += ' (skipped: native backend only)';
            this.skip();
          }
          const m = createPolicy({ ...modelConfig('gru', 'S', 5), recallAttention: recall, layers: 2 });
          // every weight moved off its initial value (a dropped bias or gate would pass at 0)
          Object.values(m.weights).forEach((w, i) =>
            tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.1, 'float32', i)))),
          );
          const rng = makeRng(3);
          const prompts = Array.from({ length: 6 }, (_, i) =>
            Array.from({ length: 1 + i * (long ? 5 : 2) }, () => 3 + rng.int(V - 3)),
          );
          const sb = makeSequenceBatch(
            prompts,
            prompts.map((_, i) => Array.from({ length: 3 + (i % 4) }, () => 3 + rng.int(V - 3))),
          );
          const T = sb.tokens.shape[1];
          assert.ok(T % GRU_STEP_BUCKET !== 0 && T > GRU_STEP_BUCKET === long, `length ${T}`);
          const eager = withEnv({ WORKBENCH_KERNELS: '2' }, () => lossAndGrads(m, sb));
          const before = tf.memory().numTensors;
          const graph = withEnv({ WORKBENCH_KERNELS: '3' }, () => lossAndGrads(m, sb)),
            again = withEnv({ WORKBENCH_KERNELS: '3' }, () => lossAndGrads(m, sb));
          assert.equal(tf.memory().numTensors, before, 'tensors left behind');
          assertWithinRounding(eager, graph);
          // the forward graph computes the eager ops in their order (the same bits here); the backward graph sums
          // otherwise (Wh's gradient: one product over every step's rows, not a sum of per-step products)
          const moved = Object.keys(eager.grads).filter((k) => relDiff(eager.grads[k], graph.grads[k]) > 0);
          assert.ok(moved.length > 0, 'the backward graph ran');
          assert.deepEqual(again, graph, 'a second call');
          disposeSequenceBatch(sb);
          for (const w of Object.values(m.weights)) w.dispose();
        },
      );
    }
  }

  it('carry the gradient through invalid steps anywhere in a row, for a loss that reads every position', function () {
    if (tf.getBackend() !== 'tensorflow') this.skip();
    // padding is left padding in every batch the workbench makes, where the carried gradient reaches nothing; the
    // recurrence holds its state over any invalid step, so the backward pass must carry it over one too
    const m = createPolicy({ ...modelConfig('gru', 'S', 8), layers: 2 });
    Object.values(m.weights).forEach((w, i) =>
      tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.1, 'float32', 50 + i)))),
    );
    const B = 3,
      T = 21,
      rng = makeRng(4);
    const valid = Array.from({ length: B * T }, (_, i) => +(i % 5 !== 2 && i % 7 !== 3));
    const batch = {
      tokens: tf.tensor2d(
        Array.from({ length: B * T }, () => 3 + rng.int(V - 3)),
        [B, T],
        'int32',
      ),
      positions: tf.tensor2d(
        Array.from({ length: B * T }, (_, i) => i % T),
        [B, T],
        'int32',
      ),
      valid: tf.tensor2d(valid, [B, T]),
      pad: [0, 0, 0],
      lengths: [T, T, T],
      T,
    };
    const probe = tf.randomNormal([B, T, V], 0, 1, 'float32', 9);
    const grads = (k: string) =>
      withEnv({ WORKBENCH_KERNELS: k }, () =>
        tf.tidy(() => {
          const { grads: g } = tf.variableGrads(
            () => m.forward(batch).logits.mul(probe).sum() as tf.Scalar,
            Object.values(m.weights),
          );
          return Object.fromEntries(Object.entries(g).map(([n, t]) => [n, Array.from(t.dataSync())]));
        }),
      );
    const eager = grads('2'),
      graph = grads('3');
    for (const [k, g] of Object.entries(eager))
      assert.ok(relDiff(g, graph[k]) < 1e-5, `${k}: gradient differs by ${relDiff(g, graph[k])}`);
    tf.dispose([batch.tokens, batch.positions, batch.valid, probe]);
    for (const w of Object.values(m.weights)) w.dispose();
  });

  it('are not used by kernels 2 (its records rerun on the eager recurrence, bit for bit)', function () {
    if (tf.getBackend() !== 'tensorflow') this.skip();
    const m = createPolicy(modelConfig('gru', 'S', 6));
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
    const on = withEnv({ WORKBENCH_KERNELS: '2', WORKBENCH_DECODE_GRAPH: '1' }, () => lossAndGrads(m, sb));
    const off = withEnv({ WORKBENCH_KERNELS: '2', WORKBENCH_DECODE_GRAPH: '0' }, () => lossAndGrads(m, sb));
    assert.deepEqual(on, off);
    disposeSequenceBatch(sb);
    for (const w of Object.values(m.weights)) w.dispose();
  });
});
