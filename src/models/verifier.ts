// The verifier: a small frozen classifier reading (criterion, CoT) and saying whether the CoT satisfies the
// criterion, distilled from the teacher's exact judgements (RLCER distils its verifier from a stronger model).
// It is a transformer with one output head (the value head) read at the last token as a logit.
import { tf } from './backend.js';
import { createTransformer } from './transformer.js';
import { makeBatch, disposeBatch, loadWeights, readCheckpoint, type ModelConfig, type Policy } from './policy.js';
import {
  CATEGORY_TOKEN,
  CRITERIA,
  criterionCategory,
  judge,
  type Criterion,
  type CriterionSpec,
} from '../rubrics/criteria.js';
import type { Problem } from '../world/problems.js';
import { promptTokens, parseTrace } from '../world/trace.js';
import { encode, V } from '../world/vocab.js';

export const VERIFIER_CONTEXT = 128;

export function verifierConfig(seed = 0): ModelConfig {
  return {
    arch: 'transformer',
    size: 'S',
    vocab: V,
    context: VERIFIER_CONTEXT,
    dModel: 64,
    layers: 2,
    heads: 4,
    roles: 1,
    seed,
  };
}

/** Input tokens: the criterion (category, name, fixed-width args), then the problem and the completion. */
export function verifierInput(c: Criterion, p: Problem, completion: string[]): number[] {
  const spec = CRITERIA[c.name] as CriterionSpec;
  const args = c.args.flatMap((a, i) => String(a).padStart(String(spec.args[i][1]).length, '0').split(''));
  const toks = [CATEGORY_TOKEN[criterionCategory(c)], c.name, ...args, ...promptTokens(p).slice(1), ...completion];
  return encode(toks.slice(0, VERIFIER_CONTEXT));
}

/** P(satisfied) for each (input) row, read from the value head at the last token. */
export function verifierLogits(model: Policy, inputs: number[][]): tf.Tensor1D {
  const b = makeBatch(inputs);
  const out = tf.tidy(
    () =>
      (model.forwardLast
        ? model.forwardLast(b).values.slice([0, 0], [-1, 1])
        : model.forward(b).values.slice([0, b.T - 1, 0], [-1, 1, 1])
      ).reshape([inputs.length]) as tf.Tensor1D,
  );
  disposeBatch(b);
  return out;
}

export type JudgeFn = (c: Criterion, p: Problem, completion: string[]) => boolean;

/** The teacher's exact judgement (the `oracle` verifier). */
export const oracleJudge: JudgeFn = (c, p, completion) => judge(c, parseTrace(completion), p);

type Item = { c: Criterion; p: Problem; completion: string[] };

/**
 * A learned verifier's logits for a batch. Identical inputs (the same criterion on the same CoT, frequent within a
 * rollout group) are judged once, and inputs are batched by length so that little is padding.
 */
export function learnedLogits(model: Policy): (items: Item[]) => number[] {
  return (items) => {
    const inputs = items.map((x) => verifierInput(x.c, x.p, x.completion));
    const slot = new Map<string, number>(),
      distinct: number[][] = [];
    const where = inputs.map((t) => {
      const key = t.join(',');
      if (!slot.has(key)) {
        slot.set(key, distinct.length);
        distinct.push(t);
      }
      return slot.get(key)!;
    });
    const order = distinct.map((_, i) => i).sort((a, b) => distinct[a].length - distinct[b].length);
    const logit = new Array<number>(distinct.length);
    for (let i = 0; i < order.length; i += 256) {
      const chunk = order.slice(i, i + 256);
      const l = verifierLogits(
        model,
        chunk.map((k) => distinct[k]),
      );
      l.dataSync().forEach((v, j) => {
        logit[chunk[j]] = v;
      });
      l.dispose();
    }
    return where.map((k) => logit[k]);
  };
}

/** A learned verifier as a batch judge: satisfied iff the logit > 0. */
export function learnedJudge(model: Policy): (items: Item[]) => boolean[] {
  const logits = learnedLogits(model);
  return (items) => logits(items).map((v) => v > 0);
}

/** The logistic function, the verifier's P(satisfied) from its logit. */
export const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** A learned verifier as a graded batch judge: P(satisfied) = sigmoid(logit) in [0, 1] (Rubicon's soft scores). */
export function learnedProbability(model: Policy): (items: Item[]) => number[] {
  const logits = learnedLogits(model);
  return (items) => logits(items).map(sigmoid);
}

export function loadVerifier(file: string): Policy {
  const ck = readCheckpoint(file);
  const m = createTransformer(ck.config);
  loadWeights(m, ck, file);
  return m;
}
