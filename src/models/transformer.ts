// A small decoder-only transformer (pre-LN, learned positions, untied head, one value head per role),
// with cached keys and values for incremental sampling. Written for tfjs-wasm's fast paths: 2-D linear
// layers with custom gradients, separate Wq/Wk/Wv, 4-D transposes only, one-hot embeddings.
import { kernelVersion, tf } from './backend.js';
import {
  causalMask,
  customOp,
  embedLinear,
  gelu,
  LN_EPS,
  NEG,
  weightRegistry,
  layerNorm,
  linear,
  oneHotF,
} from './layers.js';
import {
  chunkSteps,
  runChunk,
  stepOutput,
  type Batch,
  type DecodeState,
  type ModelConfig,
  type Policy,
} from './policy.js';
import { chunkGraph, decodeGraph, lastGraph, prefillGraph, roomFor } from './decode-graph.js';
import { trainGraphs, trainWeights } from './train-graph.js';

export function createTransformer(config: ModelConfig): Policy {
  const { vocab: Vv, context: C, dModel: d, layers: L, heads: H, roles: R } = config;
  if (d % H !== 0) throw new Error(`dModel ${d} must be divisible by heads ${H}`);
  const dh = d / H,
    scale = 1 / Math.sqrt(dh);
  const alibi = config.positions === 'alibi';
  // ALiBi slopes 2^(-8(h+1)/H): head h adds -slope_h * (query index - key index) to its scores
  const slopes = tf.keep(
    tf.tensor(
      Array.from({ length: H }, (_, h) => -Math.pow(2, (-8 * (h + 1)) / H)),
      [1, H, 1, 1],
    ),
  );
  const { weights: w, param, P, G } = weightRegistry(config.seed);

  param('tok_emb', [Vv, d], 0.02);
  if (!alibi) param('pos_emb', [C, d], 0.02);
  for (let l = 0; l < L; l++) {
    param(`l${l}.ln1_g`, [d], 'one');
    param(`l${l}.ln1_b`, [d], 'zero');
    for (const m of ['wq', 'wk', 'wv']) param(`l${l}.${m}`, [d, d], 0.02);
    param(`l${l}.wo`, [d, d], 0.02 / Math.sqrt(2 * L));
    param(`l${l}.ln2_g`, [d], 'one');
    param(`l${l}.ln2_b`, [d], 'zero');
    param(`l${l}.w1`, [d, 4 * d], 0.02);
    param(`l${l}.b1`, [4 * d], 'zero');
    param(`l${l}.w2`, [4 * d, d], 0.02 / Math.sqrt(2 * L));
    param(`l${l}.b2`, [d], 'zero');
  }
  param('lnf_g', [d], 'one');
  param('lnf_b', [d], 'zero');
  param('head', [d, Vv], 0.02);
  param('value_head', [d, R], 0.02);
  param('value_b', [R], 'zero');

  const embed = (tokens: tf.Tensor, positions: tf.Tensor) =>
    alibi
      ? embedLinear(oneHotF(tokens, Vv), P('tok_emb'))
      : (embedLinear(oneHotF(tokens, Vv), P('tok_emb')).add(
          embedLinear(oneHotF(positions, C), P('pos_emb')),
        ) as tf.Tensor2D);
  const mlp = (x: tf.Tensor2D, l: number) => {
    const h = layerNorm(x, G(`l${l}.ln2_g`), G(`l${l}.ln2_b`));
    return x.add(
      linear(gelu(linear(h, P(`l${l}.w1`)).add(G(`l${l}.b1`))) as tf.Tensor2D, P(`l${l}.w2`)).add(G(`l${l}.b2`)),
    ) as tf.Tensor2D;
  };
  const heads = (x: tf.Tensor2D, B: number, T: number) =>
    x.reshape([B, T, H, dh]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
  /** the read-outs from the last layer's rows, or (`normed`) from the final layer norm's output */
  const outputs = (x: tf.Tensor2D, normed = false) => {
    const h = normed ? x : layerNorm(x, G('lnf_g'), G('lnf_b'));
    return { logits: linear(h, P('head')), values: linear(h, P('value_head')).add(G('value_b')) as tf.Tensor2D };
  };

  /** The additive attention mask [B, H or 1, T, T] (causal, left padding, ALiBi) and the key mask [B, 1, 1, T]. */
  function masks(b: Batch) {
    const [B, T] = b.tokens.shape;
    const causal = causalMask(T).reshape([1, 1, T, T]);
    const keyMask = tf.sub(1, b.valid).mul(NEG).reshape([B, 1, 1, T]);
    let mask = causal.add(keyMask);
    if (alibi) {
      const idx = tf.range(0, T);
      mask = mask.add(
        slopes.mul(
          idx
            .reshape([T, 1])
            .sub(idx.reshape([1, T]))
            .reshape([1, 1, T, T]),
        ),
      );
    }
    return { mask, keyMask };
  }

  const trainSpec = { layers: L, heads: H, dModel: d, alibi, eps: LN_EPS, vocab: Vv, context: C };
  /**
   * Kernels 2 on the native backend: the full forward pass as one graph and its backward pass as another
   * (train-graph.ts), one custom-gradient op over the weights.
   */
  function graphRun(b: Batch, mask: tf.Tensor, graphs: NonNullable<ReturnType<typeof trainGraphs>>) {
    const [B, T] = b.tokens.shape,
      ids = [b.tokens, ...(alibi ? [] : [b.positions])];
    const op = customOp<(...ws: tf.Tensor[]) => tf.Tensor2D>((...args: unknown[]) => {
      const save = args.pop() as tf.GradSaveFunc,
        weights = args as tf.Tensor[];
      const [out, ...saved] = graphs.forward.run([...ids, mask, ...weights]);
      save(saved);
      const gradFunc = (dy: tf.Tensor, act: tf.Tensor[]) => graphs.backward.run([dy, ...ids, ...weights, ...act]);
      return { value: out, gradFunc };
    });
    const o = outputs(op(...trainWeights(trainSpec).map((n) => w[n])), true);
    return { logits: o.logits.reshape([B, T, Vv]) as tf.Tensor3D, values: o.values.reshape([B, T, R]) as tf.Tensor3D };
  }

  /**
   * Full forward pass; optionally returns each layer's keys and values for decoding. `lastOnly` computes the final
   * layer for the last position alone (a classifier reading one token needs no other), returning [B, 1, ...] outputs.
   */
  function run(b: Batch, keep: boolean, lastOnly = false) {
    const [B, T] = b.tokens.shape,
      v2 = kernelVersion() >= 2;
    const m = masks(b),
      keyMask = m.keyMask;
    let mask = m.mask;
    const graphs = v2 && !keep && !lastOnly ? trainGraphs(trainSpec) : null;
    if (graphs) return { ...graphRun(b, mask, graphs), cache: [] as { k: tf.Tensor4D; v: tf.Tensor4D }[], keyMask };
    let x = embed(b.tokens, b.positions);
    const cache: { k: tf.Tensor4D; v: tf.Tensor4D }[] = [];
    const last = (t: tf.Tensor2D) =>
      t
        .reshape([B, T, d])
        .slice([0, T - 1, 0], [B, 1, d])
        .reshape([B, d]) as tf.Tensor2D;
    let Tq = T; // query positions of the current layer
    for (let l = 0; l < L; l++) {
      const h = layerNorm(x, G(`l${l}.ln1_g`), G(`l${l}.ln1_b`));
      if (lastOnly && l === L - 1) {
        x = last(x);
        Tq = 1;
        mask = mask.slice([0, 0, T - 1, 0], [-1, -1, 1, T]);
      }
      const q = heads(linear(Tq === 1 && T > 1 ? last(h) : h, P(`l${l}.wq`)), B, Tq),
        k = heads(linear(h, P(`l${l}.wk`)), B, T),
        v = heads(linear(h, P(`l${l}.wv`)), B, T);
      if (keep) cache.push({ k: tf.keep(k), v: tf.keep(v) });
      // kernels 2 scales the queries, not the [B, H, T, T] scores (one pass over the smaller tensor, either way)
      const scores = v2 ? tf.matMul(q.mul(scale), k, false, true) : tf.matMul(q, k, false, true).mul(scale);
      const att = tf.softmax(scores.add(mask));
      const y = tf
        .matMul(att, v)
        .transpose([0, 2, 1, 3])
        .reshape([B * Tq, d]) as tf.Tensor2D;
      x = mlp(x.add(linear(y, P(`l${l}.wo`))) as tf.Tensor2D, l);
    }
    const o = outputs(x);
    return {
      logits: o.logits.reshape([B, Tq, Vv]) as tf.Tensor3D,
      values: o.values.reshape([B, Tq, R]) as tf.Tensor3D,
      cache,
      keyMask,
    };
  }

  /** Wq|Wk|Wv of each layer for decoding: one product per layer and step instead of three. */
  const fusedQkv = () =>
    Array.from({ length: L }, (_, l) => tf.concat([P(`l${l}.wq`), P(`l${l}.wk`), P(`l${l}.wv`)], 1) as tf.Tensor2D);
  /** Layer l's weights as the graphs take them (decode-graph.ts), its fused Wq|Wk|Wv given. */
  const layerGraphWeights = (wqkvL: tf.Tensor2D, l: number) => [
    G(`l${l}.ln1_g`),
    G(`l${l}.ln1_b`),
    wqkvL,
    P(`l${l}.wo`),
    G(`l${l}.ln2_g`),
    G(`l${l}.ln2_b`),
    P(`l${l}.w1`),
    G(`l${l}.b1`),
    P(`l${l}.w2`),
    G(`l${l}.b2`),
  ];
  /** The weights the prefill and last-position graphs take (decode-graph.ts, prefillInputs), up to the final layer norm. */
  const lastPositionWeights = (wqkv = fusedQkv()) => [
    P('tok_emb'),
    ...(alibi ? [] : [P('pos_emb')]),
    ...wqkv.flatMap(layerGraphWeights),
    G('lnf_g'),
    G('lnf_b'),
  ];

  /**
   * The decode graph's inputs before its temperature (decode-graph.ts, decodeInputs): the tokens, the ALiBi slopes or
   * the positions, the state's key mask, the weights and each layer's caches.
   */
  const decodeGraphInputs = (st: KV, tokens: tf.Tensor, slopesOrPositions: tf.Tensor) => [
    tokens,
    slopesOrPositions,
    st.keyMask,
    P('tok_emb'),
    ...(alibi ? [] : [P('pos_emb')]),
    ...st.layers.flatMap((c, l) => [...layerGraphWeights(st.wqkv[l], l), c.k, c.v]),
    G('lnf_g'),
    G('lnf_b'),
    P('head'),
  ];

  /**
   * The decode state: the key mask [B, 1, 1, T] and each layer's keys and values [B, H, capacity, dh], whose first T
   * columns are written (the decode graph's caches have room past them, zeros; the eager step's are exact).
   */
  class KV implements DecodeState {
    constructor(
      public layers: { k: tf.Tensor4D; v: tf.Tensor4D }[],
      public keyMask: tf.Tensor,
      public wqkv: tf.Tensor2D[],
    ) {}
    dispose() {
      tf.dispose([...this.layers.flatMap((c) => [c.k, c.v]), this.keyMask, ...this.wqkv]);
    }
    select(rows: number[]) {
      const idx = tf.tensor1d(rows, 'int32');
      const pick = (t: tf.Tensor4D) => {
        const g = tf.keep(tf.gather(t, idx)) as tf.Tensor4D;
        t.dispose();
        return g;
      };
      for (const c of this.layers) {
        c.k = pick(c.k);
        c.v = pick(c.v);
      }
      this.keyMask = pick(this.keyMask as tf.Tensor4D);
      idx.dispose();
    }
    /** replace every cache by `f` of it */
    private each(f: (t: tf.Tensor4D) => tf.Tensor4D) {
      const swap = (t: tf.Tensor4D) => {
        const u = tf.keep(f(t));
        t.dispose();
        return u;
      };
      for (const c of this.layers) {
        c.k = swap(c.k);
        c.v = swap(c.v);
      }
    }
    /**
     * Room for `width` columns: caches too small are padded with zeros to a multiple of CACHE_CHUNK (roomFor), into buffers of
     * their own (the decode graph writes into them in place, so no other tensor may share one; gather and pad
     * allocate theirs, and a prefill's exact caches are always padded before a graph step).
     */
    reserve(width: number) {
      const more = roomFor(this.layers[0].k.shape[2], width);
      if (more)
        this.each((t) =>
          tf.pad(t, [
            [0, 0],
            [0, 0],
            [0, more],
            [0, 0],
          ]),
        );
    }
    /** the caches cut to their `width` written columns (the eager step grows exact caches) */
    trim(width: number) {
      if (this.layers[0].k.shape[2] > width) this.each((t) => t.slice([0, 0, 0, 0], [-1, -1, width, -1]));
    }
  }

  return {
    config,
    weights: w,
    forward(b) {
      return tf.tidy(() => {
        const r = run(b, false);
        return { logits: r.logits, values: r.values };
      });
    },
    forwardLast(b) {
      // kernels 3 on the native backend: the pass as one graph (decode-graph.ts, lastGraphBytes), read-outs eager.
      // The graph has no backward pass: under a gradient tape (training a classifier: supervised.ts, bceStep) the
      // eager pass runs, so that every weight gets its gradient, as generation 2's
      const spec = { layers: L, heads: H, dModel: d, alibi, eps: LN_EPS };
      const graph = kernelVersion() >= 3 && !tf.engine().isTapeOn() && decodeGraph(spec) ? lastGraph(spec) : null;
      if (graph)
        return tf.tidy(() => {
          const [hf] = graph.run([b.tokens, ...(alibi ? [] : [b.positions]), masks(b).mask, ...lastPositionWeights()]);
          return outputs(hf as tf.Tensor2D, true);
        });
      return tf.tidy(() => {
        const r = run(b, false, true);
        return {
          logits: r.logits.reshape([b.tokens.shape[0], Vv]) as tf.Tensor2D,
          values: r.values.reshape([b.tokens.shape[0], R]) as tf.Tensor2D,
        };
      });
    },
    prefill(b) {
      let state!: KV;
      const spec = { layers: L, heads: H, dModel: d, alibi, eps: LN_EPS };
      // kernels 2 on the native backend: the prompts' pass as one graph (decode-graph.ts, prefillGraphBytes), its
      // caches padded with room for the decode graph's writes
      const graph = kernelVersion() >= 2 && decodeGraph(spec) ? prefillGraph(spec) : null;
      if (graph) {
        const T = b.tokens.shape[1],
          wqkv = fusedQkv();
        const { mask, keyMask } = tf.tidy(() => masks(b));
        const pads = tf.tensor2d([0, 0, 0, 0, 0, roomFor(T, T + 1), 0, 0], [4, 2], 'int32');
        const [logits, probs, ...caches] = graph.run([
          b.tokens,
          ...(alibi ? [] : [b.positions]),
          mask,
          pads,
          ...lastPositionWeights(wqkv),
          P('head'),
        ]);
        tf.dispose([mask, pads, probs]);
        const layers = wqkv.map((_, l) => ({ k: caches[2 * l] as tf.Tensor4D, v: caches[2 * l + 1] as tf.Tensor4D }));
        return { state: new KV(layers, keyMask, wqkv), logits: logits as tf.Tensor2D };
      }
      const logits = tf.tidy(() => {
        const r = run(b, true);
        state = new KV(
          r.cache,
          tf.keep(r.keyMask),
          fusedQkv().map((w) => tf.keep(w)),
        );
        return r.logits.slice([0, b.T - 1, 0], [-1, 1, -1]).reshape([b.tokens.shape[0], Vv]) as tf.Tensor2D;
      });
      return { state, logits };
    },
    chunked() {
      return kernelVersion() >= 4 && chunkGraph({ layers: L, heads: H, dModel: d, alibi, eps: LN_EPS }) !== null;
    },
    decodeChunk(s, c) {
      const st = s as KV;
      const graph = chunkGraph({ layers: L, heads: H, dModel: d, alibi, eps: LN_EPS });
      if (!graph) throw new Error("decodeChunk needs the native backend's graphs (see chunked)");
      st.reserve((st.keyMask.shape[3] as number) + chunkSteps(c));
      const tokens = tf.tensor1d(c.tokens, 'int32'),
        positions = alibi ? slopes : tf.tensor1d(c.positions, 'int32');
      const out = runChunk(
        c,
        (draw) => graph.run([...decodeGraphInputs(st, tokens, positions), ...draw]),
        ([km]) => {
          st.keyMask.dispose();
          st.keyMask = km;
        },
      );
      tf.dispose(positions === slopes ? [tokens] : [tokens, positions]);
      return out;
    },
    step(s, tokens, positions, temperature) {
      const st = s as KV,
        B = tokens.shape[0];
      // the native backend runs the step as one graph (decode-graph.ts), the same ops as below
      const graph = decodeGraph({ layers: L, heads: H, dModel: d, alibi, eps: LN_EPS });
      const T = st.keyMask.shape[3] as number;
      if (graph) {
        st.reserve(T + 1);
        const [logits, probs, km] = graph.run(decodeGraphInputs(st, tokens, alibi ? slopes : positions), temperature);
        st.keyMask.dispose();
        st.keyMask = km;
        return stepOutput(logits as tf.Tensor2D, temperature, probs as tf.Tensor2D);
      }
      st.trim(T);
      return stepOutput(
        tf.tidy(() => {
          const km = tf.concat([st.keyMask, tf.zeros([B, 1, 1, 1])], 3);
          st.keyMask.dispose();
          st.keyMask = tf.keep(km);
          let x = (
            alibi
              ? tf.gather(P('tok_emb'), tokens)
              : tf.gather(P('tok_emb'), tokens).add(tf.gather(P('pos_emb'), positions))
          ) as tf.Tensor2D;
          // the new token sits at batch column tk - 1 of the cache (left padding included): its distance to key j is tk - 1 - j
          const tk = km.shape[3] as number;
          const bias = alibi ? km.add(slopes.mul(tf.range(tk - 1, -1, -1).reshape([1, 1, 1, tk]))) : km;
          for (let l = 0; l < L; l++) {
            const h = layerNorm(x, G(`l${l}.ln1_g`), G(`l${l}.ln1_b`));
            const [q, k1, v1] = tf
              .split(tf.matMul(h, st.wqkv[l]), 3, 1)
              .map((t) => t.reshape([B, H, 1, dh]) as tf.Tensor4D);
            const c = st.layers[l];
            const k = tf.concat([c.k, k1], 2),
              v = tf.concat([c.v, v1], 2);
            tf.dispose([c.k, c.v]);
            c.k = tf.keep(k);
            c.v = tf.keep(v);
            const att = tf.softmax(tf.matMul(q, k, false, true).mul(scale).add(bias));
            const y = tf.matMul(att, v);
            x = mlp(x.add(linear(y.reshape([B, d]) as tf.Tensor2D, P(`l${l}.wo`))) as tf.Tensor2D, l);
          }
          return outputs(x).logits;
        }),
        temperature,
      );
    },
  };
}
