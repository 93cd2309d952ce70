// The second architecture family: a GRU language model with the same Policy interface as the transformer
// (CO-RL's "different family" partner). Its decode state is the hidden state (left padding keeps it at zero) and,
// with `recallAttention`, the keys and values of its past outputs: one single-head causal attention read over
// them, added to the top GRU output before the read-out. The recurrence carries position and order; the read lets
// the model look an operand digit up instead of holding every digit in its state.
import { kernelVersion, tf } from './backend.js';
import { causalMask, customOp, embedLinear, NEG, weightRegistry, layerNorm, linear, oneHotF } from './layers.js';
import {
  chunkSteps,
  runChunk,
  stepOutput,
  type Batch,
  type DecodeState,
  type ModelConfig,
  type Policy,
} from './policy.js';
import { gruChunkGraph, gruDecodeGraph, roomFor } from './decode-graph.js';
import { gruTrainGraphs, unrolledSteps } from './gru-graph.js';

/** The attention read's decoding cache: keys and values of past outputs [B, T, d], and the padding mask [B, 1, T]. */
type ReadCache = { k: tf.Tensor3D; v: tf.Tensor3D; keyMask: tf.Tensor3D };

export function createGru(config: ModelConfig): Policy {
  const { vocab: Vv, dModel: d, layers: L, roles: R } = config;
  const { weights: w, param, P, G } = weightRegistry(config.seed);

  param('tok_emb', [Vv, d], 0.1);
  for (let l = 0; l < L; l++) {
    param(`l${l}.wx`, [d, 3 * d], 1 / Math.sqrt(d));
    param(`l${l}.wh`, [d, 3 * d], 1 / Math.sqrt(d));
    param(`l${l}.b`, [3 * d], 'zero');
  }
  param('lnf_g', [d], 'one');
  param('lnf_b', [d], 'zero');
  param('head', [d, Vv], 0.02);
  param('value_head', [d, R], 0.02);
  param('value_b', [R], 'zero');
  const attend = config.recallAttention === true,
    scale = 1 / Math.sqrt(d);
  if (attend) for (const n of ['att_q', 'att_k', 'att_v']) param(n, [d, d], 1 / Math.sqrt(d));
  if (attend) param('att_o', [d, d], 0.02);

  /**
   * One GRU step for layer l: the input's gate projections [B, d] each (bias included), previous h [B, d], and the
   * step's validity and its complement [B, 1]: padding leaves the state unchanged.
   */
  const cell = (l: number, [xz, xr, xn]: tf.Tensor2D[], h: tf.Tensor2D, valid: tf.Tensor2D, invalid: tf.Tensor2D) => {
    const [hz, hr, hn] = tf.split(linear(h, P(`l${l}.wh`)), 3, 1);
    const z = tf.sigmoid(xz.add(hz)),
      r = tf.sigmoid(xr.add(hr));
    const n = tf.tanh(xn.add(r.mul(hn)));
    const next = tf.sub(1, z).mul(n).add(z.mul(h));
    return next.mul(valid).add(h.mul(invalid)) as tf.Tensor2D;
  };
  const readout = (h: tf.Tensor2D) => {
    const o = layerNorm(h, G('lnf_g'), G('lnf_b'));
    return { logits: linear(o, P('head')), values: linear(o, P('value_head')).add(G('value_b')) as tf.Tensor2D };
  };
  const embed = (tokens: tf.Tensor) => embedLinear(oneHotF(tokens, Vv), P('tok_emb'));
  /** The attention read: queries [B, Tq, d] against keys and values [B, Tk, d] under an additive mask -> h + read. */
  const read = (h: tf.Tensor2D, q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D, mask: tf.Tensor) => {
    const a = tf.softmax(tf.matMul(q, k, false, true).mul(scale).add(mask));
    return h.add(linear(tf.matMul(a, v).reshape(h.shape) as tf.Tensor2D, P('att_o'))) as tf.Tensor2D;
  };
  const proj = (h: tf.Tensor2D, name: string, B: number, T: number) =>
    linear(h, P(name)).reshape([B, T, d]) as tf.Tensor3D;

  /**
   * Kernels 3 on the native backend: a layer's recurrence as one graph and its backward pass as another
   * (gru-graph.ts), one custom-gradient op over the gate inputs and Wh, unrolled over T padded with invalid steps
   * to a multiple of GRU_STEP_BUCKET (padding leaves the state unchanged) -> every step's state [B, T, d].
   */
  function graphRecurrence(l: number, xp: tf.Tensor3D, b: Batch) {
    const [B, T] = b.tokens.shape,
      steps = unrolledSteps(T);
    const graphs = gruTrainGraphs({ steps, dModel: d });
    if (!graphs) return null;
    const pad = <X extends tf.Tensor3D>(x: X) =>
      tf.pad(x, [
        [0, 0],
        [0, steps - T],
        [0, 0],
      ]) as X;
    const valid = pad(b.valid.reshape([B, T, 1]) as tf.Tensor3D);
    const op = customOp<(xp: tf.Tensor3D, wh: tf.Tensor2D) => tf.Tensor3D>(
      (x: tf.Tensor3D, wh: tf.Tensor2D, save: tf.GradSaveFunc) => {
        const [seq, ...saved] = graphs.forward.run([x, wh, valid]);
        save([valid, ...saved]); // the padded validity too: the forward's scope disposes it before the backward runs
        const gradFunc = (dy: tf.Tensor, [v, ...act]: tf.Tensor[]) => graphs.backward.run([dy, wh, v, ...act]);
        return { value: seq, gradFunc };
      },
    );
    return op(pad(xp), P(`l${l}.wh`)).slice([0, 0, 0], [B, T, d]) as tf.Tensor3D;
  }

  function run(b: Batch) {
    const [B, T] = b.tokens.shape;
    let seq = embed(b.tokens).reshape([B, T, d]);
    const hs: tf.Tensor2D[] = [];
    const useGraphs = kernelVersion() >= 3;
    // per-step inputs cut once for the whole sequence (fewer ops inside the recurrence, which dominates the time)
    let valid: tf.Tensor2D[] = [],
      invalid: tf.Tensor2D[] = [];
    const eagerSteps = () => {
      if (valid.length) return;
      valid = tf.unstack(b.valid.reshape([B, T, 1]), 1) as tf.Tensor2D[];
      invalid = tf.unstack(tf.sub(1, b.valid).reshape([B, T, 1]), 1) as tf.Tensor2D[];
    };
    for (let l = 0; l < L; l++) {
      const xp = linear(seq.reshape([B * T, d]) as tf.Tensor2D, P(`l${l}.wx`))
        .add(G(`l${l}.b`))
        .reshape([B, T, 3 * d]) as tf.Tensor3D;
      const viaGraph = useGraphs ? graphRecurrence(l, xp, b) : null;
      if (viaGraph) {
        seq = viaGraph;
        hs.push(viaGraph.slice([0, T - 1, 0], [B, 1, d]).reshape([B, d]) as tf.Tensor2D);
        continue;
      }
      eagerSteps();
      const [xz, xr, xn] = tf.split(xp, 3, 2).map((g) => tf.unstack(g, 1) as tf.Tensor2D[]);
      let h = tf.zeros([B, d]) as tf.Tensor2D;
      const outs: tf.Tensor2D[] = [];
      for (let t = 0; t < T; t++) {
        h = cell(l, [xz[t], xr[t], xn[t]], h, valid[t], invalid[t]);
        outs.push(h);
      }
      hs.push(h);
      seq = tf.stack(outs, 1) as tf.Tensor3D;
    }
    let top = seq.reshape([B * T, d]) as tf.Tensor2D,
      kv: ReadCache | null = null;
    if (attend) {
      kv = {
        k: proj(top, 'att_k', B, T),
        v: proj(top, 'att_v', B, T),
        keyMask: tf.sub(1, b.valid).mul(NEG).reshape([B, 1, T]) as tf.Tensor3D,
      };
      const causal = causalMask(T).reshape([1, T, T]);
      top = read(top, proj(top, 'att_q', B, T), kv.k, kv.v, causal.add(kv.keyMask));
    }
    const o = readout(top);
    return {
      logits: o.logits.reshape([B, T, Vv]) as tf.Tensor3D,
      values: o.values.reshape([B, T, R]) as tf.Tensor3D,
      hs,
      kv,
    };
  }

  /** The decode graphs' spec: the model's sizes, and whether its state has the recall read's cache. */
  const graphSpec = (attend: boolean) => ({ layers: L, dModel: d, vocab: Vv, attend, eps: 1e-5 });
  /** The decode graph's inputs before its temperature (decode-graph.ts, gruInputs): tokens, weights and state. */
  const decodeGraphInputs = (st: Hidden, tokens: tf.Tensor) => {
    const c = st.kv;
    return [
      tokens,
      P('tok_emb'),
      ...st.h.flatMap((h, l) => [P(`l${l}.wx`), G(`l${l}.b`), P(`l${l}.wh`), h]),
      ...(c ? [P('att_q'), P('att_k'), P('att_v'), P('att_o'), c.k, c.v, c.keyMask] : []),
      G('lnf_g'),
      G('lnf_b'),
      P('head'),
    ];
  };
  /** The state a decode graph returns (each layer's new state, the grown key mask; the caches written in place). */
  const takeState = (st: Hidden, rest: tf.Tensor[]) => {
    const c = st.kv;
    tf.dispose([...st.h, ...(c ? [c.keyMask] : [])]);
    st.h = rest.slice(0, L) as tf.Tensor2D[];
    if (c) st.kv = { k: c.k, v: c.v, keyMask: rest[L] as tf.Tensor3D };
  };

  class Hidden implements DecodeState {
    constructor(
      public h: tf.Tensor2D[],
      public kv: ReadCache | null,
    ) {}
    dispose() {
      tf.dispose(this.h);
      if (this.kv) tf.dispose([this.kv.k, this.kv.v, this.kv.keyMask]);
    }
    select(rows: number[]) {
      const idx = tf.tensor1d(rows, 'int32');
      const pick = <T extends tf.Tensor>(t: T) => {
        const g = tf.keep(tf.gather(t, idx)) as T;
        t.dispose();
        return g;
      };
      this.h = this.h.map(pick);
      if (this.kv) this.kv = { k: pick(this.kv.k), v: pick(this.kv.v), keyMask: pick(this.kv.keyMask) };
      idx.dispose();
    }
    /** replace the read cache's keys and values by `f` of them */
    private each(f: (t: tf.Tensor3D) => tf.Tensor3D) {
      const c = this.kv!,
        swap = (t: tf.Tensor3D) => {
          const u = tf.keep(f(t));
          t.dispose();
          return u;
        };
      this.kv = { k: swap(c.k), v: swap(c.v), keyMask: c.keyMask };
    }
    /** room for `width` columns in buffers of their own, as the transformer's caches (transformer.ts, `reserve`) */
    reserve(width: number) {
      const more = roomFor(this.kv!.k.shape[1], width);
      if (more)
        this.each((t) =>
          tf.pad(t, [
            [0, 0],
            [0, more],
            [0, 0],
          ]),
        );
    }
    /** the read cache cut to its `width` written columns (the eager step grows an exact one) */
    trim(width: number) {
      if (this.kv!.k.shape[1] > width) this.each((t) => t.slice([0, 0, 0], [-1, width, -1]));
    }
  }

  return {
    config,
    weights: w,
    forward(b) {
      return tf.tidy(() => {
        const r = run(b);
        return { logits: r.logits, values: r.values };
      });
    },
    prefill(b) {
      let state!: Hidden;
      const logits = tf.tidy(() => {
        const r = run(b);
        state = new Hidden(
          r.hs.map((h) => tf.keep(h)),
          r.kv && { k: tf.keep(r.kv.k), v: tf.keep(r.kv.v), keyMask: tf.keep(r.kv.keyMask) },
        );
        return r.logits.slice([0, b.T - 1, 0], [-1, 1, -1]).reshape([b.tokens.shape[0], Vv]) as tf.Tensor2D;
      });
      return { state, logits };
    },
    chunked() {
      return kernelVersion() >= 4 && gruChunkGraph(graphSpec(attend)) !== null;
    },
    decodeChunk(s, c) {
      const st = s as Hidden;
      const graph = gruChunkGraph(graphSpec(st.kv !== null));
      if (!graph) throw new Error("decodeChunk needs the native backend's graphs (see chunked)");
      if (st.kv) st.reserve((st.kv.keyMask.shape[2] as number) + chunkSteps(c));
      const tokens = tf.tensor1d(c.tokens, 'int32');
      const out = runChunk(
        c,
        (draw) => graph.run([...decodeGraphInputs(st, tokens), ...draw]),
        (rest) => takeState(st, rest),
      );
      tokens.dispose();
      return out;
    },
    step(s, tokens, _positions, temperature) {
      const st = s as Hidden,
        B = tokens.shape[0];
      // the native backend runs the step as one graph (decode-graph.ts), the same ops as below
      const graph = gruDecodeGraph(graphSpec(st.kv !== null));
      const T = st.kv?.keyMask.shape[2] as number;
      if (graph) {
        if (st.kv) st.reserve(T + 1);
        const [logits, probs, ...rest] = graph.run(decodeGraphInputs(st, tokens), temperature);
        takeState(st, rest);
        return stepOutput(logits as tf.Tensor2D, temperature, probs as tf.Tensor2D);
      }
      if (st.kv) st.trim(T);
      return stepOutput(
        tf.tidy(() => {
          let x = embed(tokens);
          const ones = tf.ones([B, 1]) as tf.Tensor2D,
            zeros = tf.zeros([B, 1]) as tf.Tensor2D;
          for (let l = 0; l < L; l++) {
            const h = cell(
              l,
              tf.split(linear(x, P(`l${l}.wx`)).add(G(`l${l}.b`)), 3, 1) as tf.Tensor2D[],
              st.h[l],
              ones,
              zeros,
            );
            st.h[l].dispose();
            st.h[l] = tf.keep(h);
            x = h;
          }
          if (st.kv) {
            const c = st.kv,
              k = tf.concat([c.k, proj(x, 'att_k', B, 1)], 1),
              v = tf.concat([c.v, proj(x, 'att_v', B, 1)], 1),
              keyMask = tf.concat([c.keyMask, tf.zeros([B, 1, 1])], 2);
            tf.dispose([c.k, c.v, c.keyMask]);
            st.kv = {
              k: tf.keep(k) as tf.Tensor3D,
              v: tf.keep(v) as tf.Tensor3D,
              keyMask: tf.keep(keyMask) as tf.Tensor3D,
            };
            x = read(x, proj(x, 'att_q', B, 1), st.kv.k, st.kv.v, st.kv.keyMask);
          }
          return readout(x).logits;
        }),
        temperature,
      );
    },
  };
}
