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
import { ConfigError } from '../util/validate.js';
import { makeRng } from '../util/random.js';
import { alignedJudge, type AlignedVerifier } from './aligned-verifier.js';

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

// ---- the verifier's competence as a knob (docs/verifier.md) ----

/**
 * Which verifier judges (criterion, CoT) for RLCER's satisfaction matrix and EvoLM's judge: 'learned' (the distilled
 * token transformer, data/checkpoints/verifier-S.json; the default), 'competent' (the column-aligned verifier,
 * data/checkpoints/verifier-competent-S.json), 'oracle' (the teacher's exact judgement), or 'oracle@A' (the exact
 * judgement with symmetric label noise: each verdict flipped with probability 1 - A, A in [0.5, 1], the flips drawn
 * from a stream of the run's seed of their own, so that no other draw of the run moves).
 */
export type VerifierSetting = 'learned' | 'competent' | 'oracle' | `oracle@${number}`;

export interface ParsedVerifierSetting {
  kind: 'learned' | 'competent' | 'oracle';
  /** the noisy oracle's accuracy (null: no noise) */
  accuracy: number | null;
}

/** Parse a verifier setting; anything else is a one-line ConfigError naming `name`. */
export function parseVerifierSetting(v: unknown, name = 'verifier'): ParsedVerifierSetting {
  if (v === 'learned' || v === 'competent' || v === 'oracle') return { kind: v, accuracy: null };
  const m = typeof v === 'string' ? /^oracle@([0-9]*\.?[0-9]+)$/.exec(v) : null;
  const accuracy = m ? Number(m[1]) : NaN;
  if (!(accuracy >= 0.5 && accuracy <= 1))
    throw new ConfigError(
      `${name} must be "learned", "competent", "oracle" or "oracle@A" with an accuracy A in [0.5, 1], e.g. "oracle@0.8" (got ${JSON.stringify(v)})`,
    );
  return { kind: 'oracle', accuracy };
}

/** The base of the noisy oracle's stream: makeRng(VERIFIER_NOISE_STREAM + seed). */
export const VERIFIER_NOISE_STREAM = 11_000_000;

/** The models a setting may read, and the run's seed (the noisy oracle's stream). */
export interface VerifierModels {
  learned?: Policy;
  competent?: AlignedVerifier;
  seed?: number;
}

/** A verifier setting's batch judge, with what the run records and resumes of it. */
export interface SettingJudge {
  judge: (items: Item[]) => boolean[];
  /** agreement with the teacher over the last call's items, where the setting knows it without a draw (else NaN) */
  lastAgreement: () => number;
  /** the noisy oracle's draws so far (0 for the others), and a skip over them for an exact resume */
  draws: () => number;
  skip: (n: number) => void;
}

/**
 * The batch judge of a verifier setting. 'learned' is learnedJudge itself and 'oracle' the exact judgement, as
 * before the knob (a run at either is what it was). 'competent' and 'oracle@A' also measure their agreement with the
 * teacher over every item they judge (lastAgreement; no draw). 'oracle@A' draws one number per verdict, in order,
 * from makeRng(VERIFIER_NOISE_STREAM + seed), and flips the verdict when it is below 1 - A.
 */
export function settingJudge(setting: string, models: VerifierModels): SettingJudge {
  const s = parseVerifierSetting(setting);
  const exact = (items: Item[]) => items.map((x) => oracleJudge(x.c, x.p, x.completion));
  const none = { lastAgreement: () => NaN, draws: () => 0, skip: () => {} };
  if (s.kind === 'learned') {
    if (!models.learned)
      throw new ConfigError('verifier "learned" needs the learned verifier (data/checkpoints/verifier-S.json)');
    return { judge: learnedJudge(models.learned), ...none };
  }
  let agreement = NaN;
  const agree = (a: boolean[], b: boolean[]) => (a.length ? a.filter((v, i) => v === b[i]).length / a.length : NaN);
  if (s.kind === 'competent') {
    if (!models.competent)
      throw new ConfigError('verifier "competent" needs the competent verifier (make verifier-competent)');
    const j = alignedJudge(models.competent);
    return {
      ...none,
      judge: (items) => {
        const v = j(items);
        agreement = agree(v, exact(items));
        return v;
      },
      lastAgreement: () => agreement,
    };
  }
  if (s.accuracy === null) return { judge: exact, ...none };
  if (models.seed === undefined || !Number.isInteger(models.seed))
    throw new ConfigError(`verifier "${setting}" needs the run's seed (its noise stream)`);
  const rng = makeRng(VERIFIER_NOISE_STREAM + models.seed),
    flip = 1 - s.accuracy;
  let draws = 0;
  return {
    judge: (items) => {
      const truth = exact(items);
      const v = truth.map((t) => (rng.next() < flip ? !t : t));
      draws += truth.length;
      agreement = agree(v, truth);
      return v;
    },
    lastAgreement: () => agreement,
    draws: () => draws,
    skip: (n) => {
      for (; draws < n; draws++) rng.next();
    },
  };
}
