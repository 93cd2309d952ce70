// Distilling the verifier: teacher labels on the cold-start model's rollouts, balanced over criterion kinds,
// binary cross-entropy, then accuracy against the teacher per criterion kind on held-out rollouts.
import type { tf } from '../../models/backend.js';
import type { Policy } from '../../models/policy.js';
import { learnedJudge, verifierInput } from '../../models/verifier.js';
import { bceStep, policyRollouts } from '../../rl/supervised.js';
import type { Rng } from '../../util/random.js';
import type { Problem } from '../../world/problems.js';
import type { ParsedTrace } from '../../world/trace.js';
import { CRITERION_NAMES, judge, type Criterion, CRITERIA, type CriterionSpec } from '../../rubrics/criteria.js';
import { referenceRubric, sampleTeacherRubric } from '../../rubrics/rubric.js';

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
