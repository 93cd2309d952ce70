// Cold start: supervised fine-tuning on teacher data (reasoning traces in mixed styles and quality,
// rubric-writing traces, and rubric-as-hint traces), as RLCER does before RL.
import { tf } from '../../models/backend.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenLogProbs } from '../../models/logprobs.js';
import type { Policy } from '../../models/policy.js';
import { clipByGlobalNorm } from '../../rl/optim.js';
import type { Rng } from '../../util/random.js';
import { sampleProblem, TRAIN_FAMILIES, domainOf, type Family, type ProblemKnobs } from '../../world/problems.js';
import { writeTrace, STYLES, type Style, type TeacherKnobs } from '../../world/teacher.js';
import { parseTrace, promptTokens } from '../../world/trace.js';
import { encode } from '../../world/vocab.js';
import { referenceRubric, sampleTeacherRubric, toTokens } from '../../rubrics/rubric.js';
import { EVAL_GRID } from '../../world/datasets.js';
import { familySpec, requireNotHeldOut } from '../../world/families.js';
import {
  ConfigError,
  requireNonNegative,
  requirePositive,
  requireInteger,
  requireProbability,
} from '../../util/validate.js';

export interface ColdStartData {
  /** families in the SFT mixture (chain_ood is held out) */
  families: Family[];
  /** share of each reasoning style in the teacher traces */
  styleMix: Record<Style, number>;
  teacher: TeacherKnobs;
  problems: ProblemKnobs;
  /** share of rubric-writing examples (role <rubric>) */
  rubricShare: number;
  /**
   * share of the rubric-writing examples written from the question alone, with no CoT in the prompt (EvoLM's
   * generator reads the question); 0 (the committed cold starts) draws nothing for it, so their data stream is
   * unchanged
   */
  rubricQuestionShare: number;
  /** share of rubric-as-hint examples (role <hint>) */
  hintShare: number;
  /**
   * operand digits per family in the SFT mixture; null or absent (the committed cold starts) = the evaluation grid.
   * The sparse regime's cold start (docs/sensitivity.md, amendment 1) widens it so every column the regime needs
   * has been seen
   */
  digits?: Partial<Record<Family, number[]>> | null;
}

export const defaultColdStartData: ColdStartData = {
  families: TRAIN_FAMILIES,
  styleMix: { systematic: 0.35, verified: 0.2, shortcut: 0.15, sloppy: 0.15, redundant: 0.15 },
  teacher: { errorRate: 0.1, verifyMiss: 0.3 },
  problems: { carryFreeShare: null },
  rubricShare: 0.15,
  rubricQuestionShare: 0,
  hintShare: 0.05,
  digits: null,
};

export function checkColdStartData(c: ColdStartData): void {
  for (const s of Object.keys(c.styleMix))
    if (!(STYLES as readonly string[]).includes(s)) throw new ConfigError(`unknown style "${s}" in styleMix`);
  Object.entries(c.styleMix).forEach(([s, v]) => requireNonNegative(`styleMix.${s}`, v));
  if (Object.values(c.styleMix).reduce((a, b) => a + b, 0) <= 0)
    throw new ConfigError('styleMix must have a positive total');
  requireProbability('rubricShare', c.rubricShare);
  requireProbability('rubricQuestionShare', c.rubricQuestionShare);
  requireProbability('hintShare', c.hintShare);
  requireNotHeldOut(c.families, 'the cold-start mixture');
  for (const [f, ds] of Object.entries(c.digits ?? {})) {
    if (!Array.isArray(ds) || ds.length === 0) throw new ConfigError(`digits.${f} must be a non-empty list`);
    ds.forEach((d) => requireInteger(`digits.${f}`, d, 1, 7));
  }
}

export interface Example {
  prompt: number[];
  completion: number[];
  kind: 'reason' | 'rubric' | 'hint';
  style?: Style;
}

/** One SFT example drawn from the mixture. */
export function sampleExample(c: ColdStartData, rng: Rng): Example {
  const family = c.families[rng.int(c.families.length)];
  const grid = c.digits?.[family] ?? EVAL_GRID[family];
  const digits = grid[rng.int(grid.length)];
  const p = sampleProblem(family, digits, rng, c.problems);
  const u = rng.next();
  const styles = Object.keys(c.styleMix) as Style[];
  const drawStyle = () => styles[rng.categorical(styles.map((s) => c.styleMix[s]))];
  if (u < c.rubricShare) {
    if (c.rubricQuestionShare > 0 && rng.next() < c.rubricQuestionShare) {
      // the rubric writer reads the question alone
      return {
        kind: 'rubric',
        prompt: encode(promptTokens(p, 'rubric', [])),
        completion: encode(toTokens(sampleTeacherRubric(p, rng))),
      };
    }
    // the rubricator reads a CoT of any style and quality, then writes a rubric set
    const cot = writeTrace(p, drawStyle(), rng, c.teacher).tokens;
    const rubric = sampleTeacherRubric(p, rng, parseTrace(cot));
    return { kind: 'rubric', prompt: encode(promptTokens(p, 'rubric', cot)), completion: encode(toTokens(rubric)) };
  }
  if (u < c.rubricShare + c.hintShare && familySpec(family).coldStartHints) {
    // the hint is a short reference rubric; the trace follows it (a careful style)
    const items = referenceRubric(p).items.filter((i) => i.points > 0);
    const hint = toTokens({ domain: domainOf(family), items: items.slice(0, 2 + rng.int(2)) }).slice(0, -1);
    const style: Style = rng.next() < 0.5 ? 'systematic' : 'verified';
    return {
      kind: 'hint',
      style,
      prompt: encode(promptTokens(p, 'hint', hint)),
      completion: encode(writeTrace(p, style, rng, c.teacher).tokens),
    };
  }
  const style = drawStyle();
  return {
    kind: 'reason',
    style,
    prompt: encode(promptTokens(p, 'reason')),
    completion: encode(writeTrace(p, style, rng, c.teacher).tokens),
  };
}

export interface SftConfig {
  steps: number;
  batch: number;
  lr: number;
  warmup: number;
  clipNorm: number;
}

export const defaultSftConfig: SftConfig = { steps: 4500, batch: 64, lr: 1e-3, warmup: 100, clipNorm: 1 };

export function checkSftConfig(c: SftConfig): void {
  requireInteger('steps', c.steps, 1);
  requireInteger('batch', c.batch, 1);
  requirePositive('lr', c.lr);
  requireInteger('warmup', c.warmup, 0);
  requirePositive('clipNorm', c.clipNorm);
}

/**
 * One SFT step: masked next-token cross-entropy on completion tokens. Returns the loss and gradient norm.
 * The batch is sorted by length and split into `buckets` padded sub-batches inside one gradient tape, so a few
 * long rubricator examples (prompt = question + CoT) do not pad every short trace to their length.
 */
export function sftStep(
  policy: Policy,
  opt: tf.Optimizer,
  batch: Example[],
  clipNorm: number,
  buckets = 4,
): { loss: number; gradNorm: number } {
  const sorted = [...batch].sort(
    (a, b) => a.prompt.length + a.completion.length - b.prompt.length - b.completion.length,
  );
  const size = Math.ceil(sorted.length / Math.max(1, buckets));
  const sbs = Array.from({ length: Math.ceil(sorted.length / size) }, (_, k) =>
    sorted.slice(k * size, (k + 1) * size),
  ).map((part) =>
    makeSequenceBatch(
      part.map((e) => e.prompt),
      part.map((e) => e.completion),
    ),
  );
  const tokens = batch.reduce((s, e) => s + e.completion.length, 0);
  try {
    const vars = Object.values(policy.weights);
    const { value, grads } = tf.variableGrads(
      () =>
        tf
          .addN(sbs.map((sb) => tokenLogProbs(policy, sb).logp.sum()))
          .neg()
          .div(tokens) as tf.Scalar,
      vars,
    );
    const loss = value.dataSync()[0];
    value.dispose();
    if (!Number.isFinite(loss)) {
      tf.dispose(Object.values(grads));
      throw new Error(`SFT loss is ${loss}: stopping before it reaches the weights`);
    }
    const gradNorm = clipByGlobalNorm(grads, clipNorm);
    opt.applyGradients(grads as tf.NamedTensorMap);
    tf.dispose(Object.values(grads));
    return { loss, gradNorm };
  } finally {
    sbs.forEach(disposeSequenceBatch);
  }
}
