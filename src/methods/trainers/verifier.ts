// Distilling the verifier: teacher labels on the cold-start model's rollouts, balanced over criterion kinds,
// binary cross-entropy, then accuracy against the teacher per criterion kind on held-out rollouts.
import { tf } from '../../models/backend.js';
import type { Policy } from '../../models/policy.js';
import { learnedJudge, verifierInput } from '../../models/verifier.js';
import {
  alignedJudge,
  createAlignedVerifier,
  criterionIndices,
  criterionValue,
  criterionCounts,
  cotView,
  disposeAlignedBatch,
  makeAlignedBatch,
  type AlignedConfig,
  type AlignedVerifier,
  type CotView,
} from '../../models/aligned-verifier.js';
import { bceStep, bceUpdate, policyRollouts, type PolicyRollout } from '../../rl/supervised.js';
import type { Rng } from '../../util/random.js';
import type { Problem } from '../../world/problems.js';
import { parseTrace, type ParsedTrace } from '../../world/trace.js';
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

/** Rollouts of the cold-start policy on training prompts (at a temperature), each paired with criteria and the teacher's labels. */
export function distillationData(
  policy: Policy,
  prompts: number,
  rollouts: number,
  perRollout: number,
  rng: Rng,
  temperature = 1,
): LabelledExample[] {
  const data: LabelledExample[] = [];
  for (const { p, completion, trace } of policyRollouts(policy, prompts, rollouts, rng, temperature)) {
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

// ---- the competent verifier (docs/verifier.md): its data, training step, evaluation and selection
// (src/cli/verifier-competent.ts runs them).
//
// Data: teacher-labelled (criterion, CoT) pairs on the cold start's rollouts at two temperatures, each rollout also
// in perturbed copies (a digit, carry or column token changed, a step repeated, dropped or swapped, a pass merged, the
// answer edited, a verification or revision segment added or removed, the CoT truncated): the teacher judges any
// token sequence exactly, so the perturbed copies are labelled like the rest and give the arithmetic criteria their
// near misses. Criteria: those the learned verifier trains on (criteriaFor) and near-miss arguments read off the CoT
// (NSTEP at the step count +-1, LEN at the length +-2, COL at a written column with its digit or another, NDIG at the
// answer's length +-1). Minibatches are stratified by criterion kind and, within a kind, balanced by label.
//
// Selection reads held-out pairs only: the checkpoint kept is the one with the highest selection score, the smallest
// per-kind balanced accuracy on a validation set of teacher-labelled pairs (selectionScore). No policy accuracy, no
// RL run and no test set is read.

const DIGITS = '0123456789'.split('');
const isColumn = (t: string | undefined) => t !== undefined && /^C[0-7]$/.test(t);
const digitOther = (t: string, rng: Rng) => {
  const d = DIGITS.indexOf(t);
  return String(d < 0 ? rng.int(10) : (d + 1 + rng.int(9)) % 10);
};

/** The perturbations of a completion (its tokens up to <eos>): each a new token list, or null where it does not apply. */
export const PERTURBATIONS: Record<string, (toks: string[], rng: Rng) => string[] | null> = {
  // a digit of a column step (its result digit most often, then the carries) set to another digit
  digit: (toks, rng) => {
    const cols = toks.flatMap((t, i) => (isColumn(t) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)],
      field = [5, 5, 5, 4, 4, 3, 3, 1, 2][rng.int(9)];
    if (i + field >= toks.length) return null;
    const out = [...toks];
    const t = out[i + field];
    out[i + field] =
      (field === 3 || field === 4) && rng.next() < 0.7 && (t === '0' || t === '1')
        ? String(1 - +t)
        : digitOther(t, rng);
    return out;
  },
  // a column token changed (the step names another column)
  column: (toks, rng) => {
    const cols = toks.flatMap((t, i) => (isColumn(t) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)],
      out = [...toks];
    out[i] = `C${(+toks[i].slice(1) + 1 + rng.int(7)) % 8}`;
    return out;
  },
  // a column step written twice (right after itself, or at its pass's end)
  repeat: (toks, rng) => {
    const cols = toks.flatMap((t, i) => (isColumn(t) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)];
    const step = toks.slice(i, i + 6);
    let at = i + 6;
    if (rng.next() < 0.5) while (isColumn(toks[at])) at += 6;
    return [...toks.slice(0, at), ...step, ...toks.slice(at)];
  },
  drop: (toks, rng) => {
    const cols = toks.flatMap((t, i) => (isColumn(t) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)];
    return [...toks.slice(0, i), ...toks.slice(i + 6)];
  },
  swap: (toks, rng) => {
    const cols = toks.flatMap((t, i) => (isColumn(t) && isColumn(toks[i + 6]) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)];
    return [...toks.slice(0, i), ...toks.slice(i + 6, i + 12), ...toks.slice(i, i + 6), ...toks.slice(i + 12)];
  },
  // two passes merged into one (the bar dropped), or a bar inserted between two steps
  bar: (toks, rng) => {
    const bar = toks.indexOf('|');
    if (bar >= 0 && rng.next() < 0.6) return [...toks.slice(0, bar), ...toks.slice(bar + 1)];
    const cols = toks.flatMap((t, i) => (i > 0 && isColumn(t) ? [i] : []));
    if (!cols.length) return null;
    const i = cols[rng.int(cols.length)];
    return [...toks.slice(0, i), '|', ...toks.slice(i)];
  },
  // an answer digit changed, dropped or added
  answer: (toks, rng) => {
    const a = toks.indexOf('A');
    if (a < 0) return null;
    let end = a + 1;
    while (DIGITS.includes(toks[end])) end++;
    if (end === a + 1) return null;
    const out = [...toks],
      u = rng.next();
    if (u < 0.5) {
      const i = a + 1 + rng.int(end - a - 1);
      out[i] = digitOther(out[i], rng);
      return out;
    }
    if (u < 0.75) return [...toks.slice(0, a + 1), ...toks.slice(a + 2)];
    return [...toks.slice(0, a + 1), String(rng.int(10)), ...toks.slice(a + 1)];
  },
  // a verification segment removed, or one added before the answer (its digits the last pass's, or random)
  verify: (toks, rng) => {
    const v = toks.indexOf('V'),
      a = toks.indexOf('A');
    if (v >= 0) return [...toks.slice(0, v), ...toks.slice(a >= 0 ? a : toks.length)];
    if (a < 0) return null;
    const ds = Array.from({ length: 1 + rng.int(6) }, () => String(rng.int(10)));
    return [...toks.slice(0, a), 'V', ...ds, ...toks.slice(a)];
  },
  // a revision: a digit of the last pass changed and revised back to what it was (a caught mistake), or a revision
  // of a random digit
  revise: (toks, rng) => {
    const a = toks.indexOf('A');
    const lastBar = toks.lastIndexOf('|');
    const cols = toks.flatMap((t, i) => (isColumn(t) && i > lastBar && i + 5 < toks.length ? [i] : []));
    if (a < 0 || !cols.length) return null;
    const i = cols[rng.int(cols.length)],
      out = [...toks];
    const was = out[i + 5];
    const caught = rng.next() < 0.6;
    if (caught) out[i + 5] = digitOther(was, rng);
    const rev = [out[i], caught ? was : String(rng.int(10))];
    const v = out.indexOf('V');
    const before = out.slice(0, a),
      after = out.slice(a);
    return v >= 0 && !before.includes('R')
      ? [...before, 'R', ...rev, ...after]
      : [...before, ...(v >= 0 ? [] : ['V', ...DIGITS.slice(0, 1 + rng.int(4))]), 'R', ...rev, ...after];
  },
  truncate: (toks, rng) => (toks.length > 2 ? toks.slice(0, 1 + rng.int(toks.length - 1)) : null),
};

/**
 * A short copy of a completion for the curriculum: its first 1 to 3 column steps, one of their digits changed half
 * the time, then its answer (half the time) and <eos>: a verdict on it is nearly a verdict on one step.
 */
export function prefix(completion: string[], rng: Rng): string[] | null {
  const cols = completion.flatMap((t, i) => (isColumn(t) && i + 5 < completion.length ? [i] : []));
  if (!cols.length) return null;
  const u = rng.next();
  const keep = Math.min(cols.length, u < 0.5 ? 1 : u < 0.8 ? 2 : 3);
  const out = completion.slice(cols[0], cols[keep - 1] + 6);
  if (rng.next() < 0.5) {
    const i = 6 * rng.int(keep) + [5, 5, 4, 3][rng.int(4)];
    out[i] = i % 6 === 5 || rng.next() < 0.3 ? digitOther(out[i], rng) : out[i] === '0' ? '1' : '0';
  }
  const a = completion.indexOf('A');
  if (a >= 0 && rng.next() < 0.5) {
    let end = a + 1;
    while (DIGITS.includes(completion[end])) end++;
    out.push(...completion.slice(a, end));
  }
  return [...out, '<eos>'];
}
const PERTURBATION_NAMES = Object.keys(PERTURBATIONS);

/** A perturbed copy of a completion: 1 or 2 perturbations (null where none applied). */
export function perturb(completion: string[], rng: Rng): string[] | null {
  const eos = completion.indexOf('<eos>');
  let toks = eos >= 0 ? completion.slice(0, eos) : [...completion];
  let applied = 0,
    terminated = eos >= 0;
  for (let k = rng.next() < 0.6 ? 1 : 2; k > 0; k--) {
    const name = PERTURBATION_NAMES[rng.int(PERTURBATION_NAMES.length)];
    const out = PERTURBATIONS[name](toks, rng);
    if (out) {
      toks = out;
      applied++;
      if (name === 'truncate') terminated = false;
    }
  }
  if (!applied) return null;
  return terminated ? [...toks, '<eos>'] : toks;
}

/** Near-miss criteria read off a parsed CoT (the teacher labels them; they are where counting and lookup are tested). */
export function nearMissCriteria(rollout: { completion: string[] }, rng: Rng): Criterion[] {
  const t = parseTrace(rollout.completion);
  const steps = t.passes.flat();
  const out: Criterion[] = [];
  const clip = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  out.push({ name: 'NSTEP', args: [clip(steps.length - 1 + rng.int(3), 1, 16)] });
  out.push({ name: 'LEN', args: [clip(t.length - 2 + rng.int(5), 1, 99)] });
  if (t.answer) out.push({ name: 'NDIG', args: [clip(t.answer.length - 1 + rng.int(3), 1, 9)] });
  for (let j = 0; j < 2 && steps.length; j++) {
    // a column of the last pass most often, else of any pass; its digit or another
    const last = t.passes[t.passes.length - 1];
    const s = rng.next() < 0.7 ? last[rng.int(last.length)] : steps[rng.int(steps.length)];
    if (s.k <= 7 && s.d <= 9)
      out.push({ name: 'COL', args: [s.k, rng.next() < 0.5 ? s.d : (s.d + 1 + rng.int(9)) % 10] });
  }
  return out;
}

/** One CoT and the teacher's labels of its criteria. */
export interface LabelledCot {
  p: Problem;
  completion: string[];
  /** a short copy (prefix): what the curriculum's first stage trains on */
  short?: boolean;
  view: CotView;
  criteria: { c: Criterion; criterion: number[]; value: number; counts: number[]; label: boolean }[];
}

export interface CompetentDataOptions {
  /** training prompts per temperature, and rollouts per prompt */
  prompts: number;
  rollouts: number;
  temperatures: number[];
  /** perturbed copies per rollout */
  perturbed: number;
  /** short copies per rollout (prefix: the curriculum) */
  prefixes: number;
}

/** Teacher-labelled CoTs: the policy's rollouts, their perturbed copies, each with all its criteria labelled. */
export function competentData(policy: Policy, o: CompetentDataOptions, rng: Rng): LabelledCot[] {
  const rollouts: PolicyRollout[] = o.temperatures.flatMap((temp) =>
    policyRollouts(policy, o.prompts, o.rollouts, rng, temp),
  );
  return labelCots(
    rollouts.flatMap((r) => {
      const copies: { completion: string[]; short?: boolean }[] = [{ completion: r.completion }];
      for (let k = 0; k < o.perturbed; k++) {
        const c = perturb(r.completion, rng);
        if (c) copies.push({ completion: c });
      }
      for (let k = 0; k < o.prefixes; k++) {
        const c = prefix(r.completion, rng);
        if (c) copies.push({ completion: c, short: true });
      }
      return copies.map((c) => ({ p: r.p, ...c }));
    }),
    rng,
  );
}

/** Each CoT's criteria (criteriaFor and the near misses, distinct), labelled by the teacher. */
export function labelCots(cots: { p: Problem; completion: string[]; short?: boolean }[], rng: Rng): LabelledCot[] {
  return cots.map(({ p, completion, short }) => {
    const t = parseTrace(completion);
    const seen = new Set<string>();
    const cs = [...criteriaFor(p, rng, t), ...nearMissCriteria({ completion }, rng)].filter((c) => {
      const k = `${c.name} ${c.args.join(' ')}`;
      return !seen.has(k) && !!seen.add(k);
    });
    return {
      p,
      completion,
      ...(short ? { short } : {}),
      view: cotView(p, t),
      criteria: cs.map((c) => ({
        c,
        criterion: criterionIndices(c),
        value: criterionValue(c),
        counts: criterionCounts(c),
        label: judge(c, t, p),
      })),
    };
  });
}

/** Pairs by (criterion kind, label), for stratified minibatches. */
export function strata(data: LabelledCot[]): Map<string, { pos: [number, number][]; neg: [number, number][] }> {
  const out = new Map<string, { pos: [number, number][]; neg: [number, number][] }>();
  for (const name of CRITERION_NAMES) out.set(name, { pos: [], neg: [] });
  data.forEach((d, i) =>
    d.criteria.forEach((x, j) => {
      const s = out.get(x.c.name)!;
      (x.label ? s.pos : s.neg).push([i, j]);
    }),
  );
  return out;
}

/** How often a minibatch draws each kind, relative to the others: the kinds that need a step's arithmetic more. */
export const KIND_WEIGHT: Record<string, number> = { STEPOK: 3, CARRY: 3, COL: 2, MATCH: 2, REVISE: 2 };

/**
 * A minibatch: a kind (in proportion to KIND_WEIGHT), then a label (balanced where the kind's minority label has `minority` pairs or
 * more, else at the kind's own rate), then a pair of it.
 */
export function drawBatch(
  data: LabelledCot[],
  s: ReturnType<typeof strata>,
  size: number,
  rng: Rng,
  minority = 200,
): { criterion: number[]; value: number; counts: number[]; view: CotView; label: boolean }[] {
  const kinds = [...s.entries()].filter(([, v]) => v.pos.length + v.neg.length > 0);
  const weights = kinds.map(([k]) => KIND_WEIGHT[k] ?? 1);
  return Array.from({ length: size }, () => {
    const [, v] = kinds[rng.categorical(weights)];
    const n = v.pos.length + v.neg.length;
    const balanced = Math.min(v.pos.length, v.neg.length) >= minority;
    const pos = balanced ? rng.next() < 0.5 : rng.int(n) < v.pos.length;
    const list = pos ? v.pos : v.neg;
    const [i, j] = list[rng.int(list.length)];
    const x = data[i].criteria[j];
    return { criterion: x.criterion, value: x.value, counts: x.counts, view: data[i].view, label: x.label };
  });
}

/** One step of binary cross-entropy on a minibatch; returns the loss. */
export function competentStep(
  model: AlignedVerifier,
  opt: tf.Optimizer,
  batch: { criterion: number[]; value: number; counts: number[]; view: CotView; label: boolean }[],
): number {
  const b = makeAlignedBatch(batch);
  try {
    const labels = batch.map((x) => x.label);
    return bceUpdate(Object.values(model.weights), opt, labels, () => model.forward(b), 'verifier');
  } finally {
    disposeAlignedBatch(b);
  }
}

export interface KindAccuracy {
  criterion: string;
  examples: number;
  positive_rate: number;
  accuracy: number;
  /** mean of the accuracies on positives and on negatives; NaN where the kind has one label only */
  balanced_accuracy: number;
}

/** Accuracy and balanced accuracy per criterion kind (and over all) of verdicts against the teacher's labels. */
export function kindAccuracy(kinds: string[], labels: boolean[], verdicts: boolean[]): KindAccuracy[] {
  const row = (criterion: string, idx: number[]): KindAccuracy => {
    const pos = idx.filter((i) => labels[i]),
      neg = idx.filter((i) => !labels[i]);
    const hit = (is: number[]) => is.filter((i) => verdicts[i] === labels[i]).length;
    return {
      criterion,
      examples: idx.length,
      positive_rate: pos.length / idx.length,
      accuracy: hit(idx) / idx.length,
      balanced_accuracy: pos.length && neg.length ? (hit(pos) / pos.length + hit(neg) / neg.length) / 2 : NaN,
    };
  };
  const names = [...new Set(kinds)].sort();
  return [
    ...names.map((k) =>
      row(
        k,
        kinds.flatMap((x, i) => (x === k ? [i] : [])),
      ),
    ),
    row(
      'all',
      kinds.map((_, i) => i),
    ),
  ];
}

/**
 * The selection score of a verifier from its per-kind accuracy on held-out pairs: the smallest over the kinds of the
 * balanced accuracy (the accuracy where a kind has one label only). It reads the table and nothing else.
 */
export function selectionScore(table: KindAccuracy[]): number {
  return Math.min(
    ...table
      .filter((r) => r.criterion !== 'all')
      .map((r) => (Number.isNaN(r.balanced_accuracy) ? r.accuracy : r.balanced_accuracy)),
  );
}

/**
 * Held-out pairs of rollouts drawn as `make verifier`'s are (distillationData's recipe): per rollout, `perRollout`
 * criteria drawn with replacement from criteriaFor, each labelled by the teacher.
 */
export function labelledPairs(
  rollouts: { p: Problem; completion: string[]; trace: ReturnType<typeof parseTrace> }[],
  perRollout: number,
  rng: Rng,
): LabelledExample[] {
  return rollouts.flatMap(({ p, completion, trace }) => {
    const cs = criteriaFor(p, rng, trace);
    return Array.from({ length: perRollout }, () => {
      const c = cs[rng.int(cs.length)];
      return { c, p, completion, label: judge(c, trace, p) };
    });
  });
}

/** Flat labelled pairs of labelled CoTs (for evaluation). */
export const pairsOf = (data: LabelledCot[]): LabelledExample[] =>
  data.flatMap((d) => d.criteria.map((x) => ({ c: x.c, p: d.p, completion: d.completion, label: x.label })));

/** Per-kind accuracy of a batch judge on labelled pairs. */
export function judgeAccuracy(
  judgeFn: (items: { c: Criterion; p: Problem; completion: string[] }[]) => boolean[],
  pairs: LabelledExample[],
): KindAccuracy[] {
  return kindAccuracy(
    pairs.map((x) => x.c.name),
    pairs.map((x) => x.label),
    judgeFn(pairs),
  );
}

export interface TrainOptions {
  steps: number;
  /** the curriculum: the first steps draw the short copies only (where a verdict is nearly one step's) */
  curriculum: number;
  batch: number;
  lr: number;
  /** steps between validations (and the last step) */
  every: number;
  config: AlignedConfig;
}

/**
 * Train a competent verifier on `train`, validating every `opts.every` steps on `validation` (held-out pairs); returns
 * the model with the weights of the best selection score, that score's step, and the validation history.
 */
export function trainCompetent(
  train: LabelledCot[],
  validation: LabelledExample[],
  opts: TrainOptions,
  rng: Rng,
  log: (row: Record<string, number>) => void = () => {},
): { model: AlignedVerifier; best: { step: number; score: number }; history: Record<string, number>[] } {
  const model = createAlignedVerifier(opts.config);
  const opt = tf.train.adam(opts.lr);
  const s = strata(train);
  const short = train.filter((d) => d.short),
    sShort = strata(short);
  let best = { step: 0, score: -Infinity };
  let bestWeights: Record<string, Float32Array> = {};
  const history: Record<string, number>[] = [];
  let losses: number[] = [];
  for (let step = 1; step <= opts.steps; step++) {
    // the rate decays linearly over the last half of the steps to a tenth
    const f = step < opts.steps / 2 ? 1 : 1 - (0.9 * (step - opts.steps / 2)) / (opts.steps / 2);
    (opt as unknown as { learningRate: number }).learningRate = opts.lr * f;
    const batch =
      step <= opts.curriculum && short.length
        ? drawBatch(short, sShort, opts.batch, rng)
        : drawBatch(train, s, opts.batch, rng);
    losses.push(competentStep(model, opt, batch));
    if (step % opts.every === 0 || step === opts.steps) {
      const table = judgeAccuracy(alignedJudge(model), validation);
      const score = selectionScore(table);
      const row: Record<string, number> = {
        step,
        loss: losses.reduce((a, b) => a + b, 0) / losses.length,
        score,
        accuracy: table[table.length - 1].accuracy,
        // each kind's balanced accuracy (its accuracy where it has one label)
        ...Object.fromEntries(
          table
            .filter((r) => r.criterion !== 'all')
            .map((r) => [`kind/${r.criterion}`, Number.isNaN(r.balanced_accuracy) ? r.accuracy : r.balanced_accuracy]),
        ),
      };
      losses = [];
      history.push(row);
      log(row);
      if (score > best.score) {
        best = { step, score };
        bestWeights = Object.fromEntries(
          Object.entries(model.weights).map(([k, v]) => [k, (v.dataSync() as Float32Array).slice()]),
        );
      }
    }
  }
  for (const [k, v] of Object.entries(model.weights)) v.assign(tf.tensor(bestWeights[k], v.shape));
  opt.dispose();
  return { model, best, history };
}
