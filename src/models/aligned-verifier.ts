// The competent verifier's model: a small network that reads (criterion, CoT) through a column-aligned view of the
// CoT and says whether the CoT satisfies the criterion, distilled from the teacher's judgements like the learned
// verifier (src/models/verifier.ts, a token transformer read at the last token).
//
// Why another shape: the token transformer must find, by attention alone, the six tokens of a column step and the
// digits that go together, and at its size and budget it does not (its held-out accuracy is near the base rate on the
// criteria that need arithmetic: COL, STEPOK, CARRY, NSTEP). Here a fixed syntactic front end lines the digits up:
// the world's parser (src/world/trace.ts, which reads tokens and never judges) cuts the CoT into column records
// (Ck x y cin cout d), passes, a verification segment, revisions and an answer, and each record is one row with its
// digits side by side, its place (pass, ordinal, last pass, last of its pass), its predecessor's column and carry,
// whether its column token repeats an earlier one of the pass, and the revision and answer digits at its position.
// Nothing in the front end computes a digit, a carry, an equality with the criterion's arguments or a verdict: the
// network learns every judgement (the arithmetic of each pass, the carry chain, which record a COL names, counts
// against NSTEP and LEN) from the teacher's labels alone.
//
// Network: each record row, with the criterion and the CoT's global features added in, goes through a two-layer MLP;
// the rows are pooled (sum and max); the pools and a global MLP feed a two-layer head whose output is a logit.
// Every input is binary (one-hot or thermometer codes), passed as the list of its active indices.
import fs from 'node:fs';
import { tf } from './backend.js';
import { decodeTensor, encodeTensor } from './policy.js';
import { CRITERION_NAMES, opOf, type Criterion } from '../rubrics/criteria.js';
import type { Problem } from '../world/problems.js';
import { FAMILIES } from '../world/problems.js';
import { parseTrace, type ParsedTrace } from '../world/trace.js';
import { MAX_COLUMNS } from '../world/vocab.js';
import { sha256Hex } from '../io/checksums.js';
import { ConfigError } from '../util/validate.js';
import { writeFileAtomic } from '../io/table.js';
import { makeRng } from '../util/random.js';

/** Records read per CoT (a chain at 8 digits has 17 column steps; the rest are repeats). */
export const MAX_RECORDS = 32;
const MAX_LENGTH = 128;

/** A feature block layout: named slices of one binary vector. */
function layout<K extends string>(sizes: Record<K, number>): { at: Record<K, number>; size: number } {
  let off = 0;
  const at = {} as Record<K, number>;
  for (const [k, n] of Object.entries(sizes) as [K, number][]) {
    at[k] = off;
    off += n;
  }
  return { at, size: off };
}

const DIGIT_SLOTS = 11; // 0-9, or none

/**
 * The criterion: its name, and each argument one-hot and as a thermometer (so that <= and = are near linear); a COL's
 * column and digit also as one joint one-hot, to meet a record's (column, digit).
 */
const CRIT = layout({
  name: CRITERION_NAMES.length,
  colK: MAX_COLUMNS,
  colD: 10,
  colKD: MAX_COLUMNS * 10,
  nstep: 16,
  nstepT: 16,
  ndig: 9,
  ndigT: 9,
  lenT: 99,
  /** the argument of LEN, NSTEP or NDIG as a number (scaled to [0, 1]) */
  argValue: 1,
});
/** The CoT as a whole and the problem's shape. */
const GLOB = layout({
  family: FAMILIES.length,
  digits: MAX_COLUMNS,
  passesT: 4,
  recordsT: MAX_RECORDS,
  lastPassT: 20,
  lastPassUniqueT: 20,
  verify: 1,
  verifyT: 12,
  revisionsT: 5,
  answer: 1,
  answerLen: 11,
  answerLenT: 10,
  terminated: 1,
  lengthT: MAX_LENGTH,
  malformed: 1,
  /** the CoT's length, its column steps, its answer's digits and its last pass's distinct columns, as numbers */
  values: 4,
});
/**
 * One column record: fields that each take exactly one value (an index into the record vocabulary). Besides the
 * record's own tokens and place: the operator of the prompt at its pass's position (pass i reads the question's i-th
 * operator), the joint value of its (x, y, carry in, operator) and of its (column, digit), so that one lookup sees the
 * digits that go together.
 */
const REC_FIELDS = {
  k: MAX_COLUMNS,
  x: DIGIT_SLOTS,
  y: DIGIT_SLOTS,
  cin: DIGIT_SLOTS,
  cout: DIGIT_SLOTS,
  d: DIGIT_SLOTS,
  pass: 4,
  lastPass: 2,
  lastOfPass: 2,
  ordinal: 20,
  uniqueOrdinal: 21,
  prevK: MAX_COLUMNS + 1,
  prevCout: DIGIT_SLOTS,
  revision: DIGIT_SLOTS,
  answerAt: DIGIT_SLOTS,
  answerNext: DIGIT_SLOTS,
  op: 3,
  xyco: 10 * 10 * 3 * 2 + 1,
  kd: MAX_COLUMNS * 10 + 1,
};
const REC = layout(REC_FIELDS);
/** Fields per record, and the padding index (one past the vocabulary: a zero row). */
export const RECORD_FIELDS = Object.keys(REC_FIELDS).length;
const REC_PAD = REC.size;
export const FEATURE_SIZES = { criterion: CRIT.size, global: GLOB.size, record: REC.size };

/**
 * A CoT's view: its global features (active indices, and four numbers), and one list of RECORD_FIELDS indices per
 * record.
 */
export interface CotView {
  global: number[];
  values: number[];
  /** the CoT's length in tokens, its column steps and its answer's digits (capped), for the count pairs */
  counts: number[];
  records: number[][];
}

const thermo = (out: number[], at: number, n: number, v: number) => {
  for (let i = 0; i < Math.min(n, v); i++) out.push(at + i);
};
const slot = (v: number) => (v >= 0 && v <= 9 ? v : 10);

/** The criterion's active indices. */
export function criterionIndices(c: Criterion): number[] {
  const out = [CRIT.at.name + CRITERION_NAMES.indexOf(c.name)];
  const [a, b] = c.args;
  if (c.name === 'COL') {
    const k = Math.min(a, MAX_COLUMNS - 1);
    out.push(CRIT.at.colK + k, CRIT.at.colD + b, CRIT.at.colKD + k * 10 + b);
  }
  if (c.name === 'NSTEP') {
    out.push(CRIT.at.nstep + a - 1);
    thermo(out, CRIT.at.nstepT, 16, a);
  }
  if (c.name === 'NDIG') {
    out.push(CRIT.at.ndig + a - 1);
    thermo(out, CRIT.at.ndigT, 9, a);
  }
  if (c.name === 'LEN') thermo(out, CRIT.at.lenT, 99, a);
  return out;
}

/**
 * The count pairs: the CoT's length, column steps and answer digits against LEN's, NSTEP's and NDIG's argument (0 for
 * another criterion), each value embedded and the two multiplied, as the record pairs.
 */
const COUNT_PAIRS: [number, number][] = [
  [MAX_LENGTH + 1, 100],
  [MAX_RECORDS + 1, 17],
  [11, 10],
];
/** The criterion's argument for each count pair (0 where it is another criterion). */
export function criterionCounts(c: Criterion): number[] {
  const [a] = c.args;
  return [c.name === 'LEN' ? a : 0, c.name === 'NSTEP' ? a : 0, c.name === 'NDIG' ? a : 0];
}

/** The criterion's argument as a number, on the scale of the CoT's matching number (cotView's values). */
export function criterionValue(c: Criterion): number {
  const [a] = c.args;
  return c.name === 'LEN' ? a / 100 : c.name === 'NSTEP' ? a / 16 : c.name === 'NDIG' ? a / 10 : 0;
}

/** The column-aligned view of a parsed CoT for problem p (syntax only: see the header). */
export function cotView(p: Problem, t: ParsedTrace): CotView {
  const g: number[] = [GLOB.at.family + FAMILIES.indexOf(p.family), GLOB.at.digits + Math.min(p.digits, 8) - 1];
  const passes = t.passes;
  const records = passes.flat();
  const last = passes.length - 1;
  // per pass: whether each record's column token repeats an earlier one of the pass, and its ordinal among those
  // that do not (the teacher's criteria read a pass with repeats dropped)
  const repeatOf = passes.map((cols) => cols.map((c, i) => cols.findIndex((d) => d.k === c.k) < i));
  const uniqueOrd = repeatOf.map((rs) => {
    let n = 0;
    return rs.map((r) => (r ? -1 : n++));
  });
  thermo(g, GLOB.at.passesT, 4, passes.length);
  thermo(g, GLOB.at.recordsT, MAX_RECORDS, records.length);
  thermo(g, GLOB.at.lastPassT, 20, passes[last]?.length ?? 0);
  thermo(g, GLOB.at.lastPassUniqueT, 20, repeatOf[last]?.filter((r) => !r).length ?? 0);
  if (t.verify !== null) {
    g.push(GLOB.at.verify);
    thermo(g, GLOB.at.verifyT, 12, t.verify.length);
  }
  thermo(g, GLOB.at.revisionsT, 5, t.revisions.length);
  const ans = t.answer ?? [];
  if (t.answer !== null) {
    g.push(GLOB.at.answer);
    thermo(g, GLOB.at.answerLenT, 10, ans.length);
  }
  g.push(GLOB.at.answerLen + Math.min(ans.length, 10));
  if (t.terminated) g.push(GLOB.at.terminated);
  thermo(g, GLOB.at.lengthT, MAX_LENGTH, t.length);
  if (t.issues.length > 0) g.push(GLOB.at.malformed);
  // the answer's digits from the least significant, to line up with the columns
  const ansLsb = [...ans].reverse();
  const recs: number[][] = [];
  passes.forEach((cols, pi) =>
    cols.forEach((c, j) => {
      if (recs.length >= MAX_RECORDS) return;
      const u = uniqueOrd[pi][j];
      const prev = j > 0 ? cols[j - 1] : null;
      const rev = t.revisions.filter((v) => v.k === c.k);
      // the question's operator that pass pi lines up with (the i-th; the last for any later pass)
      const op = opOf(p, pi) === '+' ? 0 : 1;
      const cin3 = c.cin === 0 || c.cin === 1 ? c.cin : 2;
      const xyco = c.x <= 9 && c.y <= 9 ? ((c.x * 10 + c.y) * 3 + cin3) * 2 + op : 600;
      const kd = c.k < MAX_COLUMNS && c.d <= 9 ? c.k * 10 + c.d : MAX_COLUMNS * 10;
      const v: Record<keyof typeof REC_FIELDS, number> = {
        k: Math.min(c.k, MAX_COLUMNS - 1),
        x: slot(c.x),
        y: slot(c.y),
        cin: slot(c.cin),
        cout: slot(c.cout),
        d: slot(c.d),
        pass: Math.min(pi, 3),
        lastPass: pi === last ? 1 : 0,
        lastOfPass: j === cols.length - 1 ? 1 : 0,
        ordinal: Math.min(j, 19),
        uniqueOrdinal: u < 0 ? 20 : Math.min(u, 19),
        prevK: prev ? Math.min(prev.k, MAX_COLUMNS - 1) : MAX_COLUMNS,
        prevCout: prev ? slot(prev.cout) : 10,
        revision: rev.length ? rev[rev.length - 1].d : 10,
        answerAt: u >= 0 && u < ansLsb.length ? ansLsb[u] : 10,
        answerNext: u >= 0 && u + 1 < ansLsb.length ? ansLsb[u + 1] : 10,
        op,
        xyco,
        kd,
      };
      recs.push((Object.keys(REC_FIELDS) as (keyof typeof REC_FIELDS)[]).map((f) => REC.at[f] + v[f]));
    }),
  );
  const values = [
    t.length / 100,
    records.length / 16,
    ans.length / 10,
    (repeatOf[last]?.filter((r) => !r).length ?? 0) / 10,
  ];
  const counts = [Math.min(t.length, MAX_LENGTH), Math.min(records.length, MAX_RECORDS), Math.min(ans.length, 10)];
  return { global: g, values, counts, records: recs };
}

/**
 * The pairs of fields whose values the network compares by a learned product (each field's value embedded, the two
 * embeddings multiplied unit by unit): the step's digit, carry out and revision against what its (x, y, carry in,
 * operator) makes, the carry in against the previous step's carry out, the answer's digits against the step's digit,
 * revision and carry, the column against its ordinal and the previous column, and the column and digit against a COL
 * criterion's. The network learns which values go together; the list says only which fields are lined up.
 */
const PAIRS: [keyof typeof REC_FIELDS, keyof typeof REC_FIELDS | 'criterionKd'][] = [
  ['xyco', 'd'],
  ['xyco', 'cout'],
  ['xyco', 'revision'],
  ['prevCout', 'cin'],
  ['d', 'answerAt'],
  ['revision', 'answerAt'],
  ['d', 'revision'],
  ['cout', 'answerNext'],
  ['k', 'ordinal'],
  ['k', 'prevK'],
  ['k', 'uniqueOrdinal'],
  ['kd', 'criterionKd'],
];
const FIELD_NAMES = Object.keys(REC_FIELDS) as (keyof typeof REC_FIELDS)[];
const KD_NONE = MAX_COLUMNS * 10;

export interface AlignedConfig {
  arch: 'aligned-verifier';
  /** width of the record rows' first layer (its linear part) and of the global MLP */
  hidden: number;
  /** units of each pair's product */
  products: number;
  /** width of a record's representation (pooled) */
  record: number;
  /** hidden width of the head */
  head: number;
  seed: number;
}

export const defaultAlignedConfig = (seed = 0): AlignedConfig => ({
  arch: 'aligned-verifier',
  hidden: 128,
  products: 16,
  record: 96,
  head: 128,
  seed,
});

export interface AlignedVerifier {
  config: AlignedConfig;
  weights: Record<string, tf.Variable>;
  /** the logits of a batch */
  forward: (batch: AlignedBatch) => tf.Tensor1D;
}

/**
 * A batch: criterion [B, C] and global [B, G] dense; records [B * R, RECORD_FIELDS] as indices into the record
 * vocabulary and as each field's own value (`values`), their mask [B, R, 1]; a COL criterion's (column, digit) [B].
 */
export interface AlignedBatch {
  criterion: tf.Tensor2D;
  global: tf.Tensor2D;
  records: tf.Tensor2D;
  values: tf.Tensor2D;
  mask: tf.Tensor3D;
  criterionKd: tf.Tensor1D;
  /** the count pairs' two sides [B, 3] */
  cotCounts: tf.Tensor2D;
  criterionCounts: tf.Tensor2D;
}

export function makeAlignedBatch(
  inputs: { criterion: number[]; value: number; counts: number[]; view: CotView }[],
): AlignedBatch {
  const B = inputs.length,
    R = Math.max(1, ...inputs.map((x) => x.view.records.length));
  const c = new Float32Array(B * CRIT.size),
    g = new Float32Array(B * GLOB.size),
    r = new Int32Array(B * R * RECORD_FIELDS).fill(REC_PAD),
    v = new Int32Array(B * R * RECORD_FIELDS),
    m = new Float32Array(B * R),
    kd = new Int32Array(B).fill(KD_NONE),
    cc = new Int32Array(B * 3),
    ck = new Int32Array(B * 3);
  inputs.forEach((x, b) => {
    for (const i of x.criterion) {
      c[b * CRIT.size + i] = 1;
      if (i >= CRIT.at.colKD && i < CRIT.at.colKD + KD_NONE) kd[b] = i - CRIT.at.colKD;
    }
    c[b * CRIT.size + CRIT.at.argValue] = x.value;
    cc.set(x.view.counts, b * 3);
    ck.set(x.counts, b * 3);
    for (const i of x.view.global) g[b * GLOB.size + i] = 1;
    x.view.values.forEach((v, i) => {
      g[b * GLOB.size + GLOB.at.values + i] = v;
    });
    x.view.records.forEach((rec, j) => {
      m[b * R + j] = 1;
      const at = (b * R + j) * RECORD_FIELDS;
      r.set(rec, at);
      rec.forEach((i, f) => {
        v[at + f] = i - REC.at[FIELD_NAMES[f]];
      });
    });
  });
  return {
    criterion: tf.tensor2d(c, [B, CRIT.size]),
    global: tf.tensor2d(g, [B, GLOB.size]),
    records: tf.tensor2d(r, [B * R, RECORD_FIELDS], 'int32'),
    values: tf.tensor2d(v, [B * R, RECORD_FIELDS], 'int32'),
    mask: tf.tensor3d(m, [B, R, 1]),
    criterionKd: tf.tensor1d(kd, 'int32'),
    cotCounts: tf.tensor2d(cc, [B, 3], 'int32'),
    criterionCounts: tf.tensor2d(ck, [B, 3], 'int32'),
  };
}

export const disposeAlignedBatch = (b: AlignedBatch) =>
  tf.dispose([b.criterion, b.global, b.records, b.values, b.mask, b.criterionKd, b.cotCounts, b.criterionCounts]);

const fieldSize = (f: keyof typeof REC_FIELDS | 'criterionKd') => (f === 'criterionKd' ? KD_NONE + 1 : REC_FIELDS[f]);

function shapes(c: AlignedConfig): Record<string, number[]> {
  const { hidden: H, products: M, record: D, head: K } = c;
  return {
    // the record vocabulary's rows (the padding row last), summed over a record's fields
    rec: [REC.size + 1, H],
    r1c: [CRIT.size, H],
    r1g: [GLOB.size, H],
    r1b: [H],
    ...Object.fromEntries(
      PAIRS.flatMap(([a, b], i) => [
        [`pair${i}a`, [fieldSize(a), M]],
        [`pair${i}b`, [fieldSize(b), M]],
        [`pair${i}g`, [CRIT.size, M]],
      ]),
    ),
    r2: [H + PAIRS.length * M, D],
    r2b: [D],
    g1c: [CRIT.size, H],
    g1g: [GLOB.size, H],
    g1b: [H],
    ...Object.fromEntries(
      COUNT_PAIRS.flatMap(([na, nb], i) => [
        [`count${i}a`, [na, M]],
        [`count${i}b`, [nb, M]],
      ]),
    ),
    h1: [2 * D + H + COUNT_PAIRS.length * M, K],
    h1b: [K],
    h2: [K, K / 2],
    h2b: [K / 2],
    out: [K / 2, 1],
    outb: [1],
  };
}

export function createAlignedVerifier(config: AlignedConfig): AlignedVerifier {
  const rng = makeRng(config.seed);
  const weights: Record<string, tf.Variable> = {};
  for (const [name, shape] of Object.entries(shapes(config))) {
    const n = shape.reduce((a, b) => a * b, 1),
      data = new Float32Array(n);
    // rows summed over a record's fields or a binary vector's active bits: about unit variance at the start; a pair's
    // embeddings unit variance; He initialisation elsewhere; zero biases and a zero padding row
    if (shape.length === 2) {
      const pair = (name.startsWith('pair') && !name.endsWith('g')) || name.startsWith('count');
      const fanIn = name === 'rec' ? RECORD_FIELDS : name === 'r1c' || name === 'r1g' ? 24 : pair ? 1 : shape[0];
      const std = Math.sqrt((name === 'rec' || pair ? 1 : 2) / fanIn) * (name === 'out' ? 0.1 : 1);
      for (let i = 0; i < n; i++) data[i] = std * rng.normal();
      if (name === 'rec') data.fill(0, REC.size * shape[1]);
      // a pair's gate by the criterion starts at zero (the product passes as it is)
      if (name.startsWith('pair') && name.endsWith('g')) data.fill(0);
    }
    weights[name] = tf.variable(tf.tensor(data, shape), true);
  }
  const W = (n: string) => weights[n] as tf.Variable<tf.Rank.R2>;
  const { hidden: H, products: M } = config;
  const fieldAt = Object.fromEntries(FIELD_NAMES.map((f, i) => [f, i])) as Record<string, number>;
  const forward = (b: AlignedBatch) =>
    tf.tidy(() => {
      const [B, R] = b.mask.shape;
      const F = RECORD_FIELDS;
      const column = (t: tf.Tensor2D, f: number) => t.slice([0, f], [-1, 1]).reshape([B * R]) as tf.Tensor1D;
      // each record's rows summed over its fields, one field at a time: [B * R, H]
      let lin = tf.gather(W('rec'), column(b.records, 0)) as tf.Tensor2D;
      for (let f = 1; f < F; f++) lin = lin.add(tf.gather(W('rec'), column(b.records, f)));
      const ctx = tf
        .matMul(b.criterion, W('r1c'))
        .add(tf.matMul(b.global, W('r1g')))
        .add(weights.r1b);
      // the criterion's COL (column, digit), one per record of its row
      const kd = tf.tile(b.criterionKd.reshape([B, 1]), [1, R]).reshape([B * R]);
      // each pair's product, scaled unit by unit by a gate the criterion sets (1 + its linear read of the criterion)
      const pairs = PAIRS.map(([fa, fb], i) =>
        tf
          .gather(W(`pair${i}a`), column(b.values, fieldAt[fa]))
          .mul(tf.gather(W(`pair${i}b`), fb === 'criterionKd' ? kd : column(b.values, fieldAt[fb])))
          .reshape([B, R, M])
          .mul(
            tf
              .matMul(b.criterion, W(`pair${i}g`))
              .add(1)
              .reshape([B, 1, M]),
          )
          .reshape([B * R, M]),
      );
      const first = tf.concat(
        [tf.relu(lin.reshape([B, R, H]).add(ctx.reshape([B, 1, H]))).reshape([B * R, H]), ...pairs],
        1,
      );
      const h2 = tf.relu(tf.matMul(first, W('r2')).add(weights.r2b).reshape([B, R, config.record])).mul(b.mask);
      // sum (scaled: counts reach 32) and max over the records; an empty CoT pools to zeros
      const pooled = tf.concat([h2.sum(1).mul(1 / 8), h2.max(1)], 1);
      const glob = tf.relu(
        tf
          .matMul(b.criterion, W('g1c'))
          .add(tf.matMul(b.global, W('g1g')))
          .add(weights.g1b),
      );
      const col2 = (t: tf.Tensor2D, i: number) => t.slice([0, i], [-1, 1]).reshape([B]) as tf.Tensor1D;
      const counts = COUNT_PAIRS.map((_, i) =>
        tf.gather(W(`count${i}a`), col2(b.cotCounts, i)).mul(tf.gather(W(`count${i}b`), col2(b.criterionCounts, i))),
      );
      const z1 = tf.relu(tf.matMul(tf.concat([pooled, glob, ...counts], 1), W('h1')).add(weights.h1b));
      const z2 = tf.relu(tf.matMul(z1, W('h2')).add(weights.h2b));
      return tf.matMul(z2, W('out')).add(weights.outb).reshape([B]) as tf.Tensor1D;
    });
  return { config, weights, forward };
}

type Item = { c: Criterion; p: Problem; completion: string[] };

/** The model's input for items: the criterion's indices and the CoT's view (each distinct CoT parsed once). */
export function alignedInputs(
  items: Item[],
): { criterion: number[]; value: number; counts: number[]; view: CotView }[] {
  const views = new Map<string, CotView>();
  return items.map((x) => {
    const key = `${x.p.family} ${x.p.operands.join(' ')}|${x.completion.join(' ')}`;
    let v = views.get(key);
    if (!v) {
      v = cotView(x.p, parseTrace(x.completion));
      views.set(key, v);
    }
    return { criterion: criterionIndices(x.c), value: criterionValue(x.c), counts: criterionCounts(x.c), view: v };
  });
}

/** Logits of items, in batches of 512. */
export function alignedLogits(model: AlignedVerifier): (items: Item[]) => number[] {
  return (items) => {
    const inputs = alignedInputs(items),
      out: number[] = [];
    for (let i = 0; i < inputs.length; i += 512) {
      const b = makeAlignedBatch(inputs.slice(i, i + 512));
      const l = model.forward(b);
      out.push(...l.dataSync());
      l.dispose();
      disposeAlignedBatch(b);
    }
    return out;
  };
}

/** The competent verifier as a batch judge: satisfied iff the logit > 0. */
export function alignedJudge(model: AlignedVerifier): (items: Item[]) => boolean[] {
  const logits = alignedLogits(model);
  return (items) => logits(items).map((v) => v > 0);
}

// ---- checkpoints: JSON with the config, base64 float32 weights and a checksum of the body ----

export function saveAlignedVerifier(model: AlignedVerifier, file: string, meta: Record<string, unknown> = {}): void {
  const weights: Record<string, { shape: number[]; data: string }> = {};
  for (const [name, v] of Object.entries(model.weights)) weights[name] = encodeTensor(v, `weight ${name}`);
  const body = { config: model.config, meta, weights };
  writeFileAtomic(file, JSON.stringify({ ...body, checksum: sha256Hex(JSON.stringify(body)) }));
}

/** Read a competent verifier's checkpoint; a missing, damaged or misfitting file is a one-line ConfigError. */
export function loadAlignedVerifier(file: string): AlignedVerifier {
  if (!fs.existsSync(file)) throw new ConfigError(`checkpoint ${file} does not exist (make verifier-competent)`);
  let ck: { config?: AlignedConfig; meta?: unknown; weights?: Record<string, { shape: number[]; data: string }> };
  try {
    ck = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`checkpoint ${file} is not valid JSON (truncated?): ${(e as Error).message}`);
  }
  if (ck?.config?.arch !== 'aligned-verifier' || typeof ck.weights !== 'object' || ck.weights === null)
    throw new ConfigError(`checkpoint ${file} is not a competent (aligned) verifier`);
  const { checksum, ...body } = ck as typeof ck & { checksum?: string };
  if (checksum !== sha256Hex(JSON.stringify(body)))
    throw new ConfigError(`checkpoint ${file} does not match its checksum (corrupted)`);
  const model = createAlignedVerifier(ck.config);
  for (const [name, v] of Object.entries(model.weights)) {
    const w = ck.weights[name];
    if (!w || w.shape.join('x') !== v.shape.join('x'))
      throw new ConfigError(`${file}: weight ${name} is missing or has another shape`);
    const t = decodeTensor(w);
    v.assign(t);
    t.dispose();
  }
  return model;
}
