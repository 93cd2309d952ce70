// Supervised pieces the classifier trainers share (the learned verifier, the scalar reward model): the policy's
// rollouts on training prompts, and one binary cross-entropy step of a classifier read at the last token.
import { tf } from '../models/backend.js';
import { sample, type Policy } from '../models/policy.js';
import { verifierLogits } from '../models/verifier.js';
import type { Rng } from '../util/random.js';
import type { Problem } from '../world/problems.js';
import { parseTrace, promptTokens, type ParsedTrace } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../world/defaults.js';
import { clipByGlobalNorm } from './optim.js';

export interface PolicyRollout {
  p: Problem;
  completion: string[];
  trace: ParsedTrace;
}

/** `rollouts` samples of the policy (reasoner role) on each of `prompts` training problems, at a temperature. */
export function policyRollouts(
  policy: Policy,
  prompts: number,
  rollouts: number,
  rng: Rng,
  temperature = 1,
): PolicyRollout[] {
  const problems = Array.from({ length: prompts }, () => drawTrainingProblem(defaultWorld, rng));
  const inputs = problems.flatMap((p) => Array.from({ length: rollouts }, () => encode(promptTokens(p, 'reason'))));
  const outs: number[][] = [];
  for (let i = 0; i < inputs.length; i += 256)
    outs.push(...sample(policy, inputs.slice(i, i + 256), { maxNew: 96, temperature, topP: 1 }, rng));
  return outs.map((o, i) => {
    const completion = decode(o);
    return { p: problems[Math.floor(i / rollouts)], completion, trace: parseTrace(completion) };
  });
}

/**
 * One step of binary cross-entropy between `labels` and `logits()` over `weights`: a non-finite loss stops before it
 * reaches them, the gradient is clipped to global norm 1 and applied by `opt`. Returns the loss.
 */
export function bceUpdate(
  weights: tf.Variable[],
  opt: tf.Optimizer,
  labels: boolean[],
  logits: () => tf.Tensor,
  what = 'classifier',
): number {
  const y = tf.tensor1d(labels.map(Number));
  const { value, grads } = tf.variableGrads(() => tf.losses.sigmoidCrossEntropy(y, logits()) as tf.Scalar, weights);
  const loss = value.dataSync()[0];
  try {
    if (!Number.isFinite(loss)) throw new Error(`${what} loss is ${loss}: stopping before it reaches the weights`);
    clipByGlobalNorm(grads, 1);
    opt.applyGradients(grads as tf.NamedTensorMap);
  } finally {
    tf.dispose([value, y, ...Object.values(grads)]);
  }
  return loss;
}

/** One binary cross-entropy step of a classifier read at the last token (verifier, scalar reward model); returns the loss. */
export function bceStep(model: Policy, opt: tf.Optimizer, inputs: number[][], labels: boolean[]): number {
  return bceUpdate(Object.values(model.weights), opt, labels, () => verifierLogits(model, inputs));
}
