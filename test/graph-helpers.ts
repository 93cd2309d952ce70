// Helpers of the graph tests (train-graph, gru-graph): the environment set for one call, a loss over every output
// and its gradients, and a relative difference.
import { strict as assert } from 'node:assert';
import { tf } from '../src/models/backend.js';
import { modelConfig, type ModelConfig, type Policy } from '../src/models/policy.js';
import { tokenLogProbs, type SequenceBatch } from '../src/models/logprobs.js';

/** Run f with the given environment settings, restoring them after. */
export function withEnv<T>(env: Record<string, string>, f: () => T): T {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return f();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The loss's value, the outputs and every weight's gradient (a loss over log-probs, role 1's values, entropy). */
export function lossAndGrads(m: Policy, sb: SequenceBatch) {
  return tf.tidy(() => {
    const out = m.forward(sb);
    const loss = () => {
      const o = tokenLogProbs(m, sb, 1, true);
      return o.logp.sum().add(o.values.square().sum().mul(0.3)).add(o.entropy.sum().mul(0.1)) as tf.Scalar;
    };
    const { value, grads } = tf.variableGrads(loss, Object.values(m.weights));
    return {
      loss: value.dataSync()[0],
      logits: Array.from(out.logits.dataSync()),
      values: Array.from(out.values.dataSync()),
      grads: Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, Array.from(g.dataSync())])),
    };
  });
}

/** max |a - b| / max |a| */
export const relDiff = (a: number[], b: number[]) =>
  Math.max(...a.map((x, i) => Math.abs(x - b[i]))) / Math.max(1e-30, ...a.map(Math.abs));

/**
 * A graph pass against the eager pass and autodiff: the loss within 1e-5, the outputs within 2e-6 and every weight's
 * gradient (each non-zero, so that the test covers it) within 1e-5, relative to the largest.
 */
export function assertWithinRounding(eager: ReturnType<typeof lossAndGrads>, graph: ReturnType<typeof lossAndGrads>) {
  assert.ok(Math.abs(graph.loss - eager.loss) <= 1e-5 * Math.abs(eager.loss), `loss ${graph.loss} vs ${eager.loss}`);
  assert.ok(relDiff(eager.logits, graph.logits) < 2e-6, 'logits');
  assert.ok(relDiff(eager.values, graph.values) < 2e-6, 'values');
  assert.deepEqual(Object.keys(graph.grads).sort(), Object.keys(eager.grads).sort());
  for (const [k, g] of Object.entries(eager.grads)) {
    assert.ok(Math.max(...g.map(Math.abs)) > 0, `${k}: no gradient from the loss (the test would not cover it)`);
    assert.ok(relDiff(g, graph.grads[k]) < 1e-5, `${k}: gradient differs by ${relDiff(g, graph.grads[k])}`);
  }
}

/** The decode paths' model variants: both transformer position schemes, the GRU with and without its recall read. */
export const DECODE_VARIANTS: [string, ModelConfig][] = [
  ['transformer, ALiBi', modelConfig('transformer', 'S', 3)],
  ['transformer, learned positions', { ...modelConfig('transformer', 'S', 3), positions: 'learned' }],
  ['GRU with the recall read', modelConfig('gru', 'S', 3)],
  ['GRU without it', { ...modelConfig('gru', 'S', 3), recallAttention: false }],
];
