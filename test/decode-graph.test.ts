// The decode steps as one TensorFlow graph (src/models/decode-graph.ts) against the eager steps they replace on the
// native backend: from the same prefilled state, the same logits and decode state (the transformer's key mask and
// caches, the GRU's states and read cache), bit for bit, step after step (rows leaving the batch included), for
// both families and their variants, at these shapes (12 rows, up to 37 cached positions; at 128 rows and longer
// caches the graph's softmax differs in the last bit now and then: docs/engine.md). Kernel generation 2's prefill
// graph rounds otherwise than the eager prefill (TensorFlow's softmax, the last layer for the last position only):
// within 1e-6 of it, the same bits on every call.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import {
  decodeGraph,
  decodeInputs,
  decodeOutputs,
  gruDecodeGraph,
  gruInputs,
  gruOutputs,
  lastInputs,
  lastOutputs,
  prefillInputs,
  prefillOutputs,
  roomFor,
} from '../src/models/decode-graph.js';
import { createPolicy } from '../src/models/index.js';
import { disposeBatch, makeBatch, modelConfig, type Policy, sample } from '../src/models/policy.js';
import { makeRng } from '../src/util/random.js';
import { V } from '../src/world/vocab.js';
import { DECODE_VARIANTS } from './graph-helpers.js';

/**
 * A decode state's tensors by name (the transformer's key mask and caches; the GRU's states and read cache); the
 * transformer's caches cut to their written columns (the graph's have room past them).
 */
function stateTensors(state: unknown): Record<string, tf.Tensor> {
  const out: Record<string, tf.Tensor> = {};
  const st = state as { keyMask?: tf.Tensor; layers?: { k: tf.Tensor }[] };
  if (st.layers && st.keyMask) {
    const T = st.keyMask.shape[3]!;
    st.layers.forEach((c, l) => assert.ok(c.k.shape[2]! >= T, `layer ${l}: a cache narrower than the key mask`));
    const written = (t: tf.Tensor) => (t as tf.Tensor4D).slice([0, 0, 0, 0], [-1, -1, T, -1]);
    return {
      keyMask: st.keyMask,
      ...Object.fromEntries(
        st.layers.flatMap((c, l) => Object.entries(c).map(([k, t]) => [`l${l}.${k}`, written(t as tf.Tensor)])),
      ),
    };
  }
  const gru = state as { h: tf.Tensor[]; kv: { k: tf.Tensor3D; v: tf.Tensor3D; keyMask: tf.Tensor3D } | null };
  if (gru.kv) {
    // the GRU's read cache, cut likewise
    const T = gru.kv.keyMask.shape[2];
    assert.ok(gru.kv.k.shape[1] >= T, 'a read cache narrower than its key mask');
    const written = (t: tf.Tensor3D) => t.slice([0, 0, 0], [-1, T, -1]);
    return {
      ...Object.fromEntries(gru.h.map((h, l) => [`h${l}`, h])),
      keyMask: gru.kv.keyMask,
      k: written(gru.kv.k),
      v: written(gru.kv.v),
    };
  }
  const walk = (x: unknown, name: string) => {
    if (x instanceof tf.Tensor) out[name] = x;
    else if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) if (k !== 'wqkv') walk(v, `${name}.${k}`); // wqkv: weights, not state
    }
  };
  walk(state, 'state');
  return out;
}
const skipOffNative = (ctx: Mocha.Context) => {
  if (tf.getBackend() === 'tensorflow') return;
  ctx.test!.title += ' (skipped: runs on the native backend only)';
  ctx.skip();
};
const withGraph = <T>(on: boolean, f: () => T): T => {
  const before = process.env.WORKBENCH_DECODE_GRAPH;
  process.env.WORKBENCH_DECODE_GRAPH = on ? '1' : '0';
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env.WORKBENCH_DECODE_GRAPH;
    else process.env.WORKBENCH_DECODE_GRAPH = before;
  }
};
const withKernels = <T>(v: string, f: () => T): T => {
  const before = process.env.WORKBENCH_KERNELS;
  process.env.WORKBENCH_KERNELS = v;
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env.WORKBENCH_KERNELS;
    else process.env.WORKBENCH_KERNELS = before;
  }
};
/** Where two tensors differ: '' when bit for bit equal, else the count and the largest difference. */
function differ(a: tf.Tensor, b: tf.Tensor): string {
  const x = a.dataSync() as Float32Array,
    y = b.dataSync() as Float32Array;
  if (x.length !== y.length) return `${x.length} against ${y.length} entries`;
  let n = 0,
    worst = 0;
  for (let i = 0; i < x.length; i++) {
    if (!Object.is(x[i], y[i])) {
      n++;
      worst = Math.max(worst, Math.abs(x[i] - y[i]));
    }
  }
  return n ? `${n} of ${x.length} entries differ, by up to ${worst.toExponential(2)}` : '';
}

describe('the decode step as one graph (native backend)', () => {
  before(async () => {
    await initBackend();
  });

  it('names every input and output once (weights, caches, the ALiBi slopes or the learned positions)', () => {
    const alibi = decodeInputs({ layers: 2, heads: 4, dModel: 64, alibi: true, eps: 1e-5 });
    const learned = decodeInputs({ layers: 2, heads: 4, dModel: 64, alibi: false, eps: 1e-5 });
    assert.equal(new Set(alibi).size, alibi.length);
    assert.equal(alibi.length, 2 + 2 + 2 * 12 + 3 + 1);
    assert.equal(alibi.at(-1), 'temperature');
    assert.ok(alibi.includes('slopes') && !alibi.includes('pos_emb') && learned.includes('pos_emb'));
    assert.deepEqual(decodeOutputs(), ['logits', 'probs', 'key_mask_out']); // the caches are written in place
    const gru = { layers: 1, dModel: 96, vocab: V, attend: true, eps: 1e-5 };
    assert.equal(new Set(gruInputs(gru)).size, gruInputs(gru).length);
    assert.equal(gruInputs(gru).length, 2 + 4 + 7 + 3 + 1);
    assert.equal(gruInputs({ ...gru, attend: false }).length, 2 + 4 + 3 + 1);
    assert.deepEqual(gruOutputs(gru), ['logits', 'probs', 'l0_h_out', 'key_mask_out']);
    const prefill = prefillInputs({ layers: 2, heads: 4, dModel: 64, alibi: false, eps: 1e-5 });
    assert.equal(new Set(prefill).size, prefill.length);
    assert.equal(prefill.length, 2 + 2 + 2 + 2 * 10 + 3 + 1);
    assert.ok(prefill.includes('pos_emb') && prefill.includes('positions') && prefill.at(-1) === 'temperature');
    // the last-position graph: the prefill's inputs without the cache pads, the head and the temperature
    const last = lastInputs({ layers: 2, heads: 4, dModel: 64, alibi: true, eps: 1e-5 });
    assert.equal(new Set(last).size, last.length);
    assert.equal(last.length, 2 + 1 + 2 * 10 + 2);
    assert.ok(!last.includes('head') && !last.includes('cache_pads') && last.at(-1) === 'lnf_b');
    assert.deepEqual(lastOutputs(), ['hf']);
    assert.deepEqual(prefillOutputs({ layers: 2, heads: 4, dModel: 64, alibi: true, eps: 1e-5 }), [
      'logits',
      'probs',
      'l0_k_out',
      'l0_v_out',
      'l1_k_out',
      'l1_v_out',
    ]);
  });

  for (const [what, config] of DECODE_VARIANTS) {
    it(`gives the eager step's logits and state bit for bit (${what}; rows leaving the batch)`, function () {
      skipOffNative(this);
      const policy: Policy = createPolicy(config);
      // every weight moved off its initial value (biases start at 0, gains at 1: a dropped bias would pass)
      Object.values(policy.weights).forEach((w, i) =>
        tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.05, 'float32', i)))),
      );
      const rng = makeRng(11);
      // prompts of 3 to 31 tokens: the graph's caches (32 columns) grow during the steps
      const prompts = Array.from({ length: 12 }, (_, b) =>
        Array.from({ length: 3 + ((b * 7) % 29) }, () => 1 + rng.int(V - 1)),
      );
      const c = policy.config,
        graphOf =
          c.arch === 'transformer'
            ? decodeGraph({
                layers: c.layers,
                heads: c.heads,
                dModel: c.dModel,
                alibi: c.positions === 'alibi',
                eps: 1e-5,
              })
            : gruDecodeGraph({
                layers: c.layers,
                dModel: c.dModel,
                vocab: c.vocab,
                attend: c.recallAttention === true,
                eps: 1e-5,
              });
      assert.ok(graphOf, 'the graph loads (else both sides would run eagerly)');
      const open = () => {
        const batch = makeBatch(prompts),
          r = policy.prefill(batch);
        disposeBatch(batch);
        return r;
      };
      const eager = open(),
        graph = open();
      let rows = prompts.map((_, b) => b);
      for (let s = 0; s < 6; s++) {
        if (s === 3) {
          // a third of the rows leave the batch, as sample() drops finished rows
          const keep = rows.map((_, r) => r).filter((r) => r % 3 !== 0);
          for (const x of [eager, graph]) x.state.select(keep);
          rows = keep.map((r) => rows[r]);
        }
        const ids = rows.map((b) => 1 + ((b * 7 + s) % (V - 1)));
        const tok = tf.tensor1d(ids, 'int32'),
          pos = tf.tensor1d(
            rows.map((b) => prompts[b].length + s),
            'int32',
          );
        // odd steps return the next token's probabilities at a temperature (computed inside the graph)
        const t = s % 2 ? [0.7, 1, 1.3][(s - 1) / 2] : undefined;
        const le = withGraph(false, () => policy.step(eager.state, tok, pos, t));
        const lg = withGraph(true, () => policy.step(graph.state, tok, pos, t));
        tf.tidy(() => {
          const [te, tg] = [stateTensors(eager.state), stateTensors(graph.state)];
          assert.deepEqual(Object.keys(tg), Object.keys(te));
          assert.ok(Object.keys(te).length >= 1, 'the state holds tensors');
          for (const k of Object.keys(te)) assert.equal(differ(tg[k], te[k]), '', `step ${s}: ${k}`);
        });
        assert.equal(differ(lg, le), '', `step ${s}: ${t ? `probabilities at temperature ${t}` : 'logits'}`);
        if (t) assert.ok(Math.abs((lg.sum(1).dataSync() as Float32Array)[0] - 1) < 1e-5, 'the probabilities sum to 1');
        tf.dispose([tok, pos, le, lg]);
      }
      for (const x of [eager, graph]) {
        x.state.dispose();
        x.logits.dispose();
      }
      for (const w of Object.values(policy.weights)) w.dispose();
    });
  }

  for (const positions of ['alibi', 'learned'] as const) {
    it(
      `kernels 2: the prefill graph gives the eager prefill's logits and caches within 1e-6 (${positions}), ` +
        'its caches padded with zero room, the same bits on every call; kernels 1 prefills eagerly',
      function () {
        skipOffNative(this);
        const policy = createPolicy({ ...modelConfig('transformer', 'S', 4), positions });
        Object.values(policy.weights).forEach((w, i) =>
          tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.05, 'float32', 100 + i)))),
        );
        const rng = makeRng(12);
        const batch = makeBatch(
          Array.from({ length: 12 }, (_, b) => Array.from({ length: 3 + ((b * 7) % 29) }, () => 1 + rng.int(V - 1))),
        );
        const T = batch.T;
        const prefill = (kernels: string, graph: boolean) =>
          withKernels(kernels, () =>
            withGraph(graph, () => {
              const { state, logits } = policy.prefill(batch);
              const st = state as unknown as { layers: { k: tf.Tensor4D; v: tf.Tensor4D }[]; keyMask: tf.Tensor };
              const out = { logits, caches: st.layers.flatMap((c) => [c.k, c.v]), keyMask: st.keyMask };
              return {
                ...out,
                dispose: () => {
                  state.dispose();
                  logits.dispose();
                },
              };
            }),
          );
        const eager = prefill('2', false),
          g = prefill('2', true),
          again = prefill('2', true),
          v1 = prefill('1', true);
        const scale = Math.max(...(eager.logits.dataSync() as Float32Array).map(Math.abs));
        const within = (a: tf.Tensor, b: tf.Tensor, what: string) => {
          const x = a.dataSync(),
            y = b.dataSync();
          assert.equal(x.length, y.length, what);
          const worst = Math.max(...Array.from(x, (v, i) => Math.abs(v - y[i])));
          assert.ok(worst <= 1e-6 * Math.max(1, scale), `${what}: differs by ${worst}`);
        };
        within(g.logits, eager.logits, 'logits');
        assert.equal(differ(g.keyMask, eager.keyMask), '', 'key mask');
        g.caches.forEach((c, i) => {
          assert.equal(c.shape[2], T + roomFor(T, T + 1), `cache ${i}: room for the next column`);
          tf.tidy(() => {
            within(c.slice([0, 0, 0, 0], [-1, -1, T, -1]), eager.caches[i], `cache ${i}`);
            const room = c.slice([0, 0, T, 0], [-1, -1, -1, -1]).abs().max().dataSync()[0];
            assert.equal(room, 0, `cache ${i}: room is zeros`);
          });
          assert.equal(differ(again.caches[i], c), '', `cache ${i}: a second call`);
          assert.equal(v1.caches[i].shape[2], T, `kernels 1: cache ${i} is the eager prefill's`);
          assert.equal(differ(v1.caches[i], eager.caches[i]), '', `kernels 1: cache ${i}`);
        });
        assert.equal(differ(again.logits, g.logits), '', 'logits: a second call');
        assert.equal(differ(v1.logits, eager.logits), '', 'kernels 1: logits');
        for (const x of [eager, g, again, v1]) x.dispose();
        disposeBatch(batch);
        for (const w of Object.values(policy.weights)) w.dispose();
      },
    );
  }

  for (const positions of ['alibi', 'learned'] as const) {
    it(
      `kernels 3: the last-position graph gives the eager forwardLast's logits and values within 1e-6 ` +
        `(${positions}), the same bits on every call; kernels 2 reads them eagerly; under a gradient tape the eager ` +
        'pass runs (every weight trains)',
      function () {
        skipOffNative(this);
        // the verifier's shape (verifier.ts): 2 layers of 64, one value head
        const policy = createPolicy({ ...modelConfig('transformer', 'S', 6), positions, layers: 2, roles: 1 });
        Object.values(policy.weights).forEach((w, i) =>
          tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.05, 'float32', 200 + i)))),
        );
        const rng = makeRng(13);
        const batch = makeBatch(
          Array.from({ length: 12 }, (_, b) => Array.from({ length: 3 + ((b * 7) % 29) }, () => 1 + rng.int(V - 1))),
        );
        const last = (kernels: string, graph: boolean) =>
          withKernels(kernels, () => withGraph(graph, () => policy.forwardLast!(batch)));
        const eager = last('3', false),
          g = last('3', true),
          again = last('3', true),
          v2 = last('2', true);
        for (const out of ['logits', 'values'] as const) {
          const x = g[out].dataSync(),
            y = eager[out].dataSync();
          assert.deepEqual(g[out].shape, [12, out === 'logits' ? V : 1], out);
          const scale = Math.max(1, ...Array.from(y, Math.abs));
          const worst = Math.max(...Array.from(x, (v, i) => Math.abs(v - y[i])));
          assert.ok(worst <= 1e-6 * scale, `${out}: differs by ${worst}`);
          assert.ok(worst > 0 || out === 'values', `${out}: the graph ran (it rounds otherwise than the eager pass)`);
          assert.equal(differ(again[out], g[out]), '', `${out}: a second call`);
          assert.equal(differ(v2[out], eager[out]), '', `kernels 2: ${out} is the eager pass's`);
        }
        // training through it (a classifier's BCE step: supervised.ts, bceStep): the graph has no backward pass, so
        // under a gradient tape the eager pass runs and every weight gets generation 2's gradient, bit for bit
        const grads = (kernels: string) =>
          withKernels(kernels, () =>
            withGraph(true, () =>
              tf.tidy(() => {
                const { grads: gs } = tf.variableGrads(
                  () => policy.forwardLast!(batch).values.square().sum() as tf.Scalar,
                  Object.values(policy.weights),
                );
                return Object.fromEntries(Object.entries(gs).map(([k, t]) => [k, Array.from(t.dataSync())]));
              }),
            ),
          );
        const g3 = grads('3'),
          g2 = grads('2');
        assert.equal(Object.keys(g3).length, Object.keys(policy.weights).length - 1, 'every weight but the LM head');
        assert.deepEqual(g3, g2, "kernels 3's gradients are generation 2's");
        for (const x of [eager, g, again, v2]) tf.dispose([x.logits, x.values]);
        disposeBatch(batch);
        for (const w of Object.values(policy.weights)) w.dispose();
      },
    );
  }

  for (const arch of ['transformer', 'gru'] as const) {
    it(`samples the same tokens with or without the graph (${arch}), and leaks no tensor`, function () {
      skipOffNative(this);
      const policy = createPolicy(modelConfig(arch, 'S', 5));
      const prompts = Array.from({ length: 16 }, (_, b) => [1 + (b % 9), 2 + (b % 4), 3]);
      const opts = { maxNew: 40, temperature: 1, topP: 1 };
      // kernels 1: the eager prefill either way (kernels 2's prefill graph rounds otherwise: the test above)
      const eager = withKernels('1', () => withGraph(false, () => sample(policy, prompts, opts, makeRng(2))));
      const before = tf.memory().numTensors;
      const graph = withKernels('1', () => withGraph(true, () => sample(policy, prompts, opts, makeRng(2))));
      assert.equal(tf.memory().numTensors, before);
      assert.deepEqual(graph, eager);
      const v2 = withKernels('2', () => withGraph(true, () => sample(policy, prompts, opts, makeRng(2))));
      assert.equal(tf.memory().numTensors, before, 'kernels 2 (the prefill graph) leaks no tensor');
      assert.equal(v2.length, prompts.length);
      for (const w of Object.values(policy.weights)) w.dispose();
    });
  }
});
