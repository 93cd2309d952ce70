// Per-token log-probabilities and values of completions under a policy, in the left-padded layout.
import { tf } from './backend.js';
import { makeBatch, type Batch, type Policy } from './policy.js';

/** Prompt + completion pairs as one batch, with next-token targets and a mask over completion tokens. */
export interface SequenceBatch extends Batch {
  /** target token for each position (the next token), [B, T] int32 */
  targets: tf.Tensor2D;
  /** 1 where the target is a completion token, [B, T] */
  mask: tf.Tensor2D;
  /** per row: the batch column of the logits that predict its first completion token */
  start: number[];
  /** completion lengths */
  completionLengths: number[];
}

export function makeSequenceBatch(prompts: number[][], completions: number[][]): SequenceBatch {
  const seqs = prompts.map((p, i) => [...p, ...completions[i]]);
  const b = makeBatch(seqs);
  const B = seqs.length,
    T = b.T,
    tgt = new Int32Array(B * T),
    m = new Float32Array(B * T);
  const start = seqs.map((_, i) => b.pad[i] + prompts[i].length - 1);
  completions.forEach((c, i) =>
    c.forEach((tok, j) => {
      tgt[i * T + start[i] + j] = tok;
      m[i * T + start[i] + j] = 1;
    }),
  );
  return {
    ...b,
    targets: tf.tensor2d(tgt, [B, T], 'int32'),
    mask: tf.tensor2d(m, [B, T]),
    start,
    completionLengths: completions.map((c) => c.length),
  };
}

export const disposeSequenceBatch = (b: SequenceBatch) =>
  tf.dispose([b.tokens, b.positions, b.valid, b.targets, b.mask]);

/**
 * log pi(target_t | prefix) at every position [B, T] (zero where masked out), the values of `role`, and the
 * entropy (only when asked: it costs a pass over [B, T, V] forward and backward).
 */
export function tokenLogProbs(policy: Policy, b: SequenceBatch, role = 0, withEntropy = true) {
  const { logits, values } = policy.forward(b);
  const V = logits.shape[2];
  const logp = tf.logSoftmax(logits);
  // select the target's log-prob with a one-hot product (tfjs-wasm's batched gather is wrong: docs/engine.md, Backend)
  const picked = logp.mul(tf.oneHot(b.targets, V).toFloat()).sum(-1).mul(b.mask) as tf.Tensor2D;
  const entropy = withEntropy
    ? (tf.exp(logp).mul(logp).sum(-1).neg().mul(b.mask) as tf.Tensor2D)
    : tf.zerosLike(picked);
  const v = values.slice([0, 0, role], [-1, -1, 1]).squeeze([2]).mul(b.mask) as tf.Tensor2D;
  return { logp: picked, entropy, values: v };
}

/**
 * Per-token confidence of the policy's next-token distribution over completions (no gradient), [B, T] each:
 * the entropy H(pi) and the self-certainty KL(U || pi) = -log V - mean_v log pi_v (Intuitor's signal).
 */
export function tokenConfidence(
  policy: Policy,
  b: SequenceBatch,
): { entropy: tf.Tensor2D; selfCertainty: tf.Tensor2D } {
  return tf.tidy(() => {
    const logp = tf.logSoftmax(policy.forward(b).logits);
    const V = logp.shape[2];
    const entropy = tf.exp(logp).mul(logp).sum(-1).neg().mul(b.mask) as tf.Tensor2D;
    const selfCertainty = logp.mean(-1).neg().sub(Math.log(V)).mul(b.mask) as tf.Tensor2D;
    return { entropy, selfCertainty };
  });
}
