// The arithmetic of the transformer's forward and backward pass, counted from its shapes (src/models/transformer.ts):
// the matrix products only, 2 flops per multiply-add. Per token and layer: the Q, K, V and output projections
// (4 x 2d^2), the MLP (d -> 4d -> d: 2 x 2 x 4d^2), and attention's scores and weighted sum over the whole T x T
// block (2 x 2Td: the causal mask adds -inf, it skips no work); per token once: the one-hot embedding product (2Vd),
// the language-model head (2dV) and the value heads (2dR). Layer norms, GELU, softmax, the loss and Adam are
// element-wise and not counted. A backward pass computes each product's gradient with respect to both operands: twice
// the forward's products, so an update (forward, backward) is 3x the forward.
import type { ModelConfig } from './policy.js';

export interface Flops {
  embedding: number;
  projections: number;
  mlp: number;
  attention: number;
  heads: number;
  /** the forward pass: the sum of the parts above */
  forward: number;
  /** forward and backward: 3 x forward */
  update: number;
}

/** The flops of the transformer's forward pass and of an update on B sequences of T tokens. */
export function transformerFlops(mc: Pick<ModelConfig, 'dModel' | 'layers' | 'vocab' | 'roles'>, B: number, T: number) {
  const d = mc.dModel,
    L = mc.layers,
    n = B * T;
  const f: Omit<Flops, 'forward' | 'update'> = {
    embedding: n * 2 * mc.vocab * d,
    projections: n * L * 4 * 2 * d * d,
    mlp: n * L * 2 * 2 * d * 4 * d,
    attention: n * L * 2 * 2 * T * d,
    heads: n * 2 * d * (mc.vocab + mc.roles),
  };
  const forward = f.embedding + f.projections + f.mlp + f.attention + f.heads;
  return { ...f, forward, update: 3 * forward } satisfies Flops;
}
