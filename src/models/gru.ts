// The second architecture family: a GRU language model with the same Policy interface as the transformer
// (CO-RL's "different family" partner). Its decode state is the hidden state; left padding keeps it at zero.
import { tf } from './backend.js';
import { embedLinear, weightRegistry, layerNorm, linear, oneHotF } from './layers.js';
import type { Batch, DecodeState, ModelConfig, Policy } from './policy.js';

export function createGru(config: ModelConfig): Policy {
  const { vocab: Vv, dModel: d, layers: L, roles: R } = config;
  const { weights: w, param, P, G } = weightRegistry(config.seed);

  param('tok_emb', [Vv, d], 0.1);
  for (let l = 0; l < L; l++) {
    param(`l${l}.wx`, [d, 3 * d], 1 / Math.sqrt(d)); param(`l${l}.wh`, [d, 3 * d], 1 / Math.sqrt(d)); param(`l${l}.b`, [3 * d], 'zero');
  }
  param('lnf_g', [d], 'one'); param('lnf_b', [d], 'zero');
  param('head', [d, Vv], 0.02);
  param('value_head', [d, R], 0.02); param('value_b', [R], 'zero');

  /** One GRU step for layer l: x projections xp [B, 3d] (bias included), previous h [B, d], validity [B, 1]. */
  const cell = (l: number, xp: tf.Tensor2D, h: tf.Tensor2D, valid: tf.Tensor2D) => {
    const hp = linear(h, P(`l${l}.wh`));
    const [xz, xr, xn] = tf.split(xp, 3, 1), [hz, hr, hn] = tf.split(hp, 3, 1);
    const z = tf.sigmoid(xz.add(hz)), r = tf.sigmoid(xr.add(hr));
    const n = tf.tanh(xn.add(r.mul(hn)));
    const next = tf.sub(1, z).mul(n).add(z.mul(h));
    return next.mul(valid).add(h.mul(tf.sub(1, valid))) as tf.Tensor2D; // padding leaves the state unchanged
  };
  const readout = (h: tf.Tensor2D) => {
    const o = layerNorm(h, G('lnf_g'), G('lnf_b'));
    return { logits: linear(o, P('head')), values: linear(o, P('value_head')).add(G('value_b')) as tf.Tensor2D };
  };
  const embed = (tokens: tf.Tensor) => embedLinear(oneHotF(tokens, Vv), P('tok_emb'));

  function run(b: Batch) {
    const [B, T] = b.tokens.shape;
    let seq = embed(b.tokens).reshape([B, T, d]);
    const hs: tf.Tensor2D[] = [];
    for (let l = 0; l < L; l++) {
      const xp = linear(seq.reshape([B * T, d]) as tf.Tensor2D, P(`l${l}.wx`)).add(G(`l${l}.b`)).reshape([B, T, 3 * d]);
      let h = tf.zeros([B, d]) as tf.Tensor2D;
      const outs: tf.Tensor2D[] = [];
      for (let t = 0; t < T; t++) {
        h = cell(l, xp.slice([0, t, 0], [B, 1, 3 * d]).reshape([B, 3 * d]) as tf.Tensor2D, h, b.valid.slice([0, t], [B, 1]) as tf.Tensor2D);
        outs.push(h);
      }
      hs.push(h);
      seq = tf.stack(outs, 1) as tf.Tensor3D;
    }
    const o = readout(seq.reshape([B * T, d]) as tf.Tensor2D);
    return { logits: o.logits.reshape([B, T, Vv]) as tf.Tensor3D, values: o.values.reshape([B, T, R]) as tf.Tensor3D, hs };
  }

  class Hidden implements DecodeState {
    constructor(public h: tf.Tensor2D[]) {}
    dispose() { tf.dispose(this.h); }
    select(rows: number[]) {
      const idx = tf.tensor1d(rows, 'int32');
      this.h = this.h.map((h) => { const g = tf.keep(tf.gather(h, idx)) as tf.Tensor2D; h.dispose(); return g; });
      idx.dispose();
    }
  }

  return {
    config,
    weights: w,
    forward(b) { return tf.tidy(() => { const r = run(b); return { logits: r.logits, values: r.values }; }); },
    prefill(b) {
      let state!: Hidden;
      const logits = tf.tidy(() => {
        const r = run(b);
        state = new Hidden(r.hs.map((h) => tf.keep(h)));
        return r.logits.slice([0, b.T - 1, 0], [-1, 1, -1]).reshape([b.tokens.shape[0], Vv]) as tf.Tensor2D;
      });
      return { state, logits };
    },
    step(s, tokens) {
      const st = s as Hidden, B = tokens.shape[0];
      return tf.tidy(() => {
        let x = embed(tokens);
        const ones = tf.ones([B, 1]) as tf.Tensor2D;
        for (let l = 0; l < L; l++) {
          const h = cell(l, linear(x, P(`l${l}.wx`)).add(G(`l${l}.b`)) as tf.Tensor2D, st.h[l], ones);
          st.h[l].dispose();
          st.h[l] = tf.keep(h);
          x = h;
        }
        return readout(x).logits;
      });
    },
  };
}
