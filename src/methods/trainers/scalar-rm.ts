// The static scalar reward model (a Table 2 baseline): a small classifier reading (question, CoT) and predicting
// correctness, trained once on the cold-start model's rollouts and then frozen. Its reward replaces the outcome.
import { tf } from '../../models/backend.js';
import { createTransformer } from '../../models/transformer.js';
import type { Policy } from '../../models/policy.js';
import { verifierConfig, verifierLogits, VERIFIER_CONTEXT } from '../../models/verifier.js';
import type { Rng } from '../../util/random.js';
import type { Problem } from '../../world/problems.js';
import { isCorrect, promptTokens } from '../../world/trace.js';
import { encode } from '../../world/vocab.js';
import { bceStep, policyRollouts } from '../../rl/supervised.js';
import { pairwiseAccuracy, type PreferencePair } from '../../rl/rubric-quality.js';

export interface ScalarRmConfig {
  prompts: number;
  rollouts: number;
  steps: number;
  batch: number;
  lr: number;
}
export const defaultScalarRmConfig: ScalarRmConfig = { prompts: 768, rollouts: 4, steps: 1000, batch: 64, lr: 1e-3 };

/** Input tokens: the question then the completion (the verifier's layout without a criterion). */
export const rmInput = (p: Problem, completion: string[]) =>
  encode([...promptTokens(p).slice(1), ...completion].slice(0, VERIFIER_CONTEXT));

/** P(correct) per (problem, completion). */
export function rmScores(model: Policy, items: { p: Problem; completion: string[] }[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i += 256) {
    const l = tf.tidy(() =>
      tf.sigmoid(
        verifierLogits(
          model,
          items.slice(i, i + 256).map((x) => rmInput(x.p, x.completion)),
        ),
      ),
    );
    out.push(...l.dataSync());
    l.dispose();
  }
  return out;
}

/** Train the scalar RM on labelled cold-start rollouts; returns the model and its held-out accuracy. */
export function trainScalarRm(
  policy: Policy,
  c: ScalarRmConfig,
  rng: Rng,
  log: (m: Record<string, number>) => void = () => {},
) {
  const label = (x: ReturnType<typeof policyRollouts>[number]) => isCorrect(x.p, x.trace);
  const train = policyRollouts(policy, c.prompts, c.rollouts, rng),
    held = policyRollouts(policy, Math.ceil(c.prompts / 4), c.rollouts, rng);
  const model = createTransformer(verifierConfig(rng.int(1 << 30)));
  const opt = tf.train.adam(c.lr);
  for (let s = 0; s < c.steps; s++) {
    const mb = Array.from({ length: c.batch }, () => train[rng.int(train.length)]);
    log({
      step: s,
      loss: bceStep(
        model,
        opt,
        mb.map((x) => rmInput(x.p, x.completion)),
        mb.map(label),
      ),
    });
  }
  const scores = rmScores(model, held);
  const accuracy = held.filter((x, i) => scores[i] > 0.5 === label(x)).length / held.length;
  const positiveRate = held.filter(label).length / held.length;
  return { model, accuracy, positiveRate };
}

/** Pairwise accuracy of the static scalar reward model. */
export function scalarRmQuality(rm: Policy, pairs: PreferencePair[]): number {
  return pairwiseAccuracy(
    rmScores(
      rm,
      pairs.map((x) => ({ p: x.p, completion: x.chosen })),
    ),
    rmScores(
      rm,
      pairs.map((x) => ({ p: x.p, completion: x.rejected })),
    ),
  );
}
