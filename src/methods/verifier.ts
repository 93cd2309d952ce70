// Distilling the verifier: teacher labels on the cold-start model's rollouts, balanced over criterion kinds,
// binary cross-entropy, then accuracy against the teacher per criterion kind on held-out rollouts.
import { tf } from '../models/backend.js';
import { sample, type Policy } from '../models/policy.js';
import { learnedJudge, verifierInput, verifierLogits } from '../models/verifier.js';
import { clipByGlobalNorm } from '../rl/optim.js';
import type { Rng } from '../util/random.js';
import type { Problem } from '../world/problems.js';
import { parseTrace, promptTokens, type ParsedTrace } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../world/defaults.js';
import { CRITERION_NAMES, judge, type Criterion, CRITERIA, type CriterionSpec } from '../rubrics/criteria.js';
import { referenceRubric, sampleTeacherRubric } from '../rubrics/rubric.js';

export interface LabelledExample {
  c: Criterion;
  p: Problem;
  completion: string[];
  label: boolean;
}

/**
 * Criteria worth asking about one rollout: the reference rubric, a teacher rubric written after reading it (so
 * concrete values copied from the CoT appear, as the rubricator writes them), and a random COL/NDIG/LEN/NSTEP.
 */
export function criteriaFor(p: Problem, rng: Rng, t: ParsedTrace | null = null): Criterion[] {
  const out = [...referenceRubric(p).items, ...sampleTeacherRubric(p, rng, t).items].map((i) => i.criterion);
  for (const name of ['COL', 'NDIG', 'LEN', 'NSTEP'] as const) {
    const spec = CRITERIA[name] as CriterionSpec;
    out.push({
      name,
      args: spec.args.map(([lo, hi]) => lo + rng.int(Math.min(hi, name === 'LEN' ? 99 : 12) - lo + 1)),
    });
  }
  for (const name of CRITERION_NAMES)
    if ((CRITERIA[name] as CriterionSpec).args.length === 0) out.push({ name, args: [] });
  const seen = new Set<string>();
  return out.filter((c) => {
    const k = `${c.name} ${c.args.join(' ')}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export interface PolicyRollout {
  p: Problem;
  completion: string[];
  trace: ParsedTrace;
}

/** `rollouts` samples of the policy (reasoner role) on each of `prompts` training problems. */
export function policyRollouts(policy: Policy, prompts: number, rollouts: number, rng: Rng): PolicyRollout[] {
  const problems = Array.from({ length: prompts }, () => drawTrainingProblem(defaultWorld, rng));
  const inputs = problems.flatMap((p) => Array.from({ length: rollouts }, () => encode(promptTokens(p, 'reason'))));
  const outs: number[][] = [];
  for (let i = 0; i < inputs.length; i += 256)
    outs.push(...sample(policy, inputs.slice(i, i + 256), { maxNew: 96, temperature: 1, topP: 1 }, rng));
  return outs.map((o, i) => {
    const completion = decode(o);
    return { p: problems[Math.floor(i / rollouts)], completion, trace: parseTrace(completion) };
  });
}

/** Rollouts of the cold-start policy on training prompts, each paired with criteria and the teacher's labels. */
export function distillationData(
  policy: Policy,
  prompts: number,
  rollouts: number,
  perRollout: number,
  rng: Rng,
): LabelledExample[] {
  const data: LabelledExample[] = [];
  for (const { p, completion, trace } of policyRollouts(policy, prompts, rollouts, rng)) {
    const cs = criteriaFor(p, rng, trace);
    for (let k = 0; k < perRollout; k++) {
      const c = cs[rng.int(cs.length)];
      data.push({ c, p, completion, label: judge(c, trace, p) });
    }
  }
  return data;
}

/** One binary cross-entropy step of a classifier read at the last token (verifier, scalar reward model); returns the loss. */
export function bceStep(model: Policy, opt: tf.Optimizer, inputs: number[][], labels: boolean[]): number {
  const y = tf.tensor1d(labels.map(Number));
  const { value, grads } = tf.variableGrads(
    () => tf.losses.sigmoidCrossEntropy(y, verifierLogits(model, inputs)) as tf.Scalar,
    Object.values(model.weights),
  );
  const loss = value.dataSync()[0];
  try {
    if (!Number.isFinite(loss)) throw new Error(`classifier loss is ${loss}: stopping before it reaches the weights`);
    clipByGlobalNorm(grads, 1);
    opt.applyGradients(grads as tf.NamedTensorMap);
  } finally {
    tf.dispose([value, y, ...Object.values(grads)]);
  }
  return loss;
}

/** One verifier step on a minibatch of labelled (criterion, CoT) examples. */
export const verifierStep = (model: Policy, opt: tf.Optimizer, batch: LabelledExample[]) =>
  bceStep(
    model,
    opt,
    batch.map((x) => verifierInput(x.c, x.p, x.completion)),
    batch.map((x) => x.label),
  );

/** Accuracy against the teacher per criterion kind (and the share of positives, the majority baseline). */
export function verifierAccuracy(
  model: Policy,
  data: LabelledExample[],
): { criterion: string; examples: number; positive_rate: number; accuracy: number }[] {
  const pred = learnedJudge(model)(data);
  const kinds = [...new Set(data.map((x) => x.c.name))].sort();
  const row = (name: string, idx: number[]) => ({
    criterion: name,
    examples: idx.length,
    positive_rate: idx.filter((i) => data[i].label).length / idx.length,
    accuracy: idx.filter((i) => pred[i] === data[i].label).length / idx.length,
  });
  return [
    ...kinds.map((k) =>
      row(
        k,
        data.map((x, i) => (x.c.name === k ? i : -1)).filter((i) => i >= 0),
      ),
    ),
    row(
      'all',
      data.map((_, i) => i),
    ),
  ];
}
