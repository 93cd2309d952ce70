// The policy interface shared by both architecture families, padded batches, sampling, and checkpoints.
import * as fs from 'node:fs';
import { tf } from './backend.js';
import { writeFileAtomic } from '../io/table.js';
import type { Rng } from '../util/random.js';
import { EOS, PAD, V } from '../world/vocab.js';
import { ConfigError } from '../util/validate.js';
import { sha256Hex } from '../io/checksums.js';

export const ARCHITECTURES = ['transformer', 'gru'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
export type Size = 'S' | 'M';
export const SIZE_NAMES: readonly Size[] = ['S', 'M'];
export const ROLE_INDEX = { reason: 0, rubric: 1, hint: 2 } as const;

export interface ModelConfig {
  arch: Architecture;
  size: Size;
  vocab: number;
  /** maximum sequence length (prompt + completion) */
  context: number;
  dModel: number;
  layers: number;
  heads: number;
  /** one value head per role */
  roles: number;
  /** initialisation seed */
  seed: number;
  /**
   * transformer position handling: 'alibi' (a per-head linear distance bias on attention scores, no position
   * embedding; the default: local column arithmetic must not be relearned at every absolute position) or
   * 'learned' (absolute position embeddings; checkpoints without this field)
   */
  positions?: 'alibi' | 'learned';
  /**
   * GRU only: an attention read over the GRU's own past outputs before the read-out (a recurrent model with
   * attention, in the manner of pre-transformer attention RNNs). The default for new GRUs; a GRU without it
   * (checkpoints without this field) cannot copy operand digits back in column order at our sizes (the plain
   * GRU-S cold start answered 0.3% of the evaluation problems).
   */
  recallAttention?: boolean;
}

/** The two sizes of each family (S and M stand in for the papers' 4B and 8B). */
export const SIZES: Record<Architecture, Record<Size, Pick<ModelConfig, 'dModel' | 'layers' | 'heads'>>> = {
  transformer: { S: { dModel: 64, layers: 2, heads: 4 }, M: { dModel: 128, layers: 2, heads: 4 } },
  gru: { S: { dModel: 96, layers: 1, heads: 1 }, M: { dModel: 160, layers: 1, heads: 1 } },
};

export function modelConfig(arch: Architecture, size: Size, seed = 0, context = 192): ModelConfig {
  if (!ARCHITECTURES.includes(arch))
    throw new ConfigError(`unknown architecture "${arch}" (known: ${ARCHITECTURES.join(', ')})`);
  if (!(size in SIZES[arch])) throw new ConfigError(`unknown size "${size}" (known: S, M)`);
  return {
    arch,
    size,
    vocab: V,
    context,
    roles: 3,
    seed,
    ...SIZES[arch][size],
    ...(arch === 'transformer' ? { positions: 'alibi' as const } : { recallAttention: true }),
  };
}

/** A left-padded batch: row b holds its sequence in columns pad[b]..T-1; positions count from its first token. */
export interface Batch {
  tokens: tf.Tensor2D;
  positions: tf.Tensor2D;
  /** 1 where a token is real, 0 where it is left padding, [B, T] */
  valid: tf.Tensor2D;
  pad: number[];
  lengths: number[];
  T: number;
}

export function makeBatch(seqs: number[][], T = Math.max(...seqs.map((s) => s.length))): Batch {
  const B = seqs.length,
    tok = new Int32Array(B * T),
    pos = new Int32Array(B * T),
    val = new Float32Array(B * T);
  const pad = seqs.map((s) => {
    if (s.length > T) throw new ConfigError(`sequence of length ${s.length} exceeds the batch width ${T}`);
    return T - s.length;
  });
  seqs.forEach((s, b) =>
    s.forEach((t, j) => {
      const i = b * T + pad[b] + j;
      tok[i] = t;
      pos[i] = j;
      val[i] = 1;
    }),
  );
  return {
    tokens: tf.tensor2d(tok, [B, T], 'int32'),
    positions: tf.tensor2d(pos, [B, T], 'int32'),
    valid: tf.tensor2d(val, [B, T]),
    pad,
    lengths: seqs.map((s) => s.length),
    T,
  };
}

export const disposeBatch = (b: Batch) => tf.dispose([b.tokens, b.positions, b.valid]);

/** Incremental decoding state of a model (keys and values, or a hidden state). */
export interface DecodeState {
  dispose(): void;
  /** keep only these batch rows, in this order (sampling drops finished rows so they cost nothing) */
  select(rows: number[]): void;
}

export interface Policy {
  config: ModelConfig;
  /** trainable weights by name */
  weights: Record<string, tf.Variable>;
  /** logits [B, T, V] and values [B, T, roles] */
  forward(b: Batch): { logits: tf.Tensor3D; values: tf.Tensor3D };
  /** the outputs at the last position only [B, V] and [B, roles], where the model can skip the rest (classifiers) */
  forwardLast?(b: Batch): { logits: tf.Tensor2D; values: tf.Tensor2D };
  /** run the prompts, returning the decode state and the logits of the next token [B, V] */
  prefill(b: Batch): { state: DecodeState; logits: tf.Tensor2D };
  /**
   * feed one token per row at the given positions; returns next-token logits [B, V], or with a temperature the
   * next-token probabilities `nextProbs(logits, temperature)` (the native backend's decode graphs compute them)
   */
  step(state: DecodeState, tokens: tf.Tensor1D, positions: tf.Tensor1D, temperature?: number): tf.Tensor2D;
  /**
   * Kernel generation 4, where the model has the graph for it: `uniforms.length / B` decode steps with sampling in one
   * call (decode-graph.ts, chunkGraphBytes), from the last tokens drawn [B] at their positions; returns the drawn
   * tokens [k * B] (step-major) and each row's done flag. Only where `chunked()` says so.
   */
  decodeChunk?(state: DecodeState, c: DecodeChunk): { tokens: Float32Array; done: Float32Array };
  /** whether `decodeChunk` runs here (kernel generation 4 and the native backend's graphs) */
  chunked?(): boolean;
}

/** The inputs of one chunk of decode steps with sampling in the graph (Policy.decodeChunk). */
export interface DecodeChunk {
  tokens: Int32Array;
  positions: Int32Array;
  temperature: number;
  /** k * B uniforms in [0, 1), step-major */
  uniforms: Float32Array;
  /** 1 for a row that has drawn EOS (it draws PAD from now on) */
  done: Float32Array;
  /** stop a row at EOS (0: keep sampling, benchmarks) */
  eosOn: boolean;
}

/** Steps in one chunk (Policy.decodeChunk): its uniforms per row. */
export const chunkSteps = (c: DecodeChunk) => c.uniforms.length / c.tokens.length;

/**
 * A chunk graph's run (decode-graph.ts, samplingLoop): `run` gets the draw's inputs after the model's (temperature,
 * uniforms [k, B], done, eos_on), created and disposed here, and returns the drawn tokens and done flags first, then
 * the model's state, which `state` takes; returns the tokens and flags read back.
 */
export function runChunk(
  c: DecodeChunk,
  run: (draw: tf.Tensor[]) => tf.Tensor[],
  state: (rest: tf.Tensor[]) => void,
): { tokens: Float32Array; done: Float32Array } {
  const B = c.tokens.length;
  const draw = [
    tf.scalar(c.temperature),
    tf.tensor2d(c.uniforms, [chunkSteps(c), B]),
    tf.tensor1d(c.done),
    tf.scalar(c.eosOn ? 1 : 0),
  ];
  const [tokT, doneT, ...rest] = run(draw);
  tf.dispose(draw);
  state(rest);
  const out = { tokens: tokT.dataSync() as Float32Array, done: doneT.dataSync() as Float32Array };
  tf.dispose([tokT, doneT]);
  return out;
}

/** Sampling's next-token probabilities, softmax(logits / temperature) [B, V]. */
export const nextProbs = (logits: tf.Tensor2D, temperature: number) =>
  tf.tidy(() => tf.softmax(logits.div(temperature))) as tf.Tensor2D;

/** What `step` returns: the logits, or with a temperature the probabilities (given, or computed); disposes the other. */
export function stepOutput(logits: tf.Tensor2D, temperature?: number, probs?: tf.Tensor2D): tf.Tensor2D {
  if (temperature === undefined) {
    probs?.dispose();
    return logits;
  }
  const p = probs ?? nextProbs(logits, temperature);
  logits.dispose();
  return p;
}

export interface SampleOptions {
  maxNew: number;
  temperature: number;
  topP: number;
  /** keep sampling past <eos> (benchmarks measure a fixed number of tokens) */
  ignoreEos?: boolean;
}

/** Draw from probs (length V) restricted to the smallest top set with mass >= topP. */
export function sampleTopP(probs: Float32Array, offset: number, topP: number, rng: Rng): number {
  if (topP >= 1) return rng.categorical(probs, offset, V);
  const idx = Array.from({ length: V }, (_, i) => i).sort((a, b) => probs[offset + b] - probs[offset + a]);
  const keep: number[] = [];
  let mass = 0;
  for (const i of idx) {
    keep.push(i);
    mass += probs[offset + i];
    if (mass >= topP) break;
  }
  return keep[rng.categorical(keep.map((i) => probs[offset + i]))];
}

/**
 * Sample completions for a batch of prompts with cached incremental decoding. Completions end at <eos> or maxNew.
 * Finished rows leave the batch once a quarter of it has finished (the decode state keeps the others), so long
 * stragglers do not make every row pay; each row's draws and the RNG's order are those of the full batch.
 */
export function sample(policy: Policy, prompts: number[][], opts: SampleOptions, rng: Rng): number[][] {
  if (!(opts.temperature > 0)) throw new ConfigError(`temperature must be > 0 (got ${opts.temperature})`);
  const maxNew = Math.min(opts.maxNew, policy.config.context - Math.max(...prompts.map((p) => p.length)));
  if (maxNew < 1) throw new ConfigError(`prompts leave no room in the context of ${policy.config.context} tokens`);
  const batch = makeBatch(prompts);
  const { state, logits } = policy.prefill(batch);
  disposeBatch(batch);
  let probsT: tf.Tensor2D | null = stepOutput(logits, opts.temperature);
  if (opts.topP >= 1 && policy.chunked?.()) return sampleInChunks(policy, prompts, probsT, state, maxNew, opts, rng);
  const B = prompts.length,
    out: number[][] = prompts.map(() => []),
    done = new Array(B).fill(false);
  let rows = Array.from({ length: B }, (_, b) => b); // the prompts still in the decode batch, in order
  try {
    for (let s = 0; s < maxNew; s++) {
      const probs = probsT.dataSync() as Float32Array;
      probsT.dispose();
      probsT = null;
      const next = new Int32Array(rows.length);
      rows.forEach((b, r) => {
        if (done[b]) {
          next[r] = PAD;
          return;
        }
        next[r] = sampleTopP(probs, r * V, opts.topP, rng);
        out[b].push(next[r]);
        if (next[r] === EOS && !opts.ignoreEos) done[b] = true;
      });
      if (done.every(Boolean) || s === maxNew - 1) break;
      let feed = next;
      const live = rows.map((b, r) => (done[b] ? -1 : r)).filter((r) => r >= 0);
      if (live.length <= 0.75 * rows.length) {
        state.select(live);
        feed = Int32Array.from(live, (r) => next[r]);
        rows = live.map((r) => rows[r]);
      }
      const tokT = tf.tensor1d(feed, 'int32'),
        posT = tf.tensor1d(
          rows.map((b) => prompts[b].length + s),
          'int32',
        );
      probsT = policy.step(state, tokT, posT, opts.temperature);
      tf.dispose([tokT, posT]);
    }
  } finally {
    probsT?.dispose();
    state.dispose();
  }
  return out;
}

/**
 * A uniform in [0, 1 - 2^-23] with 23 bits, for the chunk graph's draws: exact in float32, and u = uniform x total
 * rounds below the total, so the inverse CDF never lands past the last token of positive probability.
 */
export const uniform23 = (rng: Rng) => Math.floor(rng.next() * 2 ** 23) / 2 ** 23;

/**
 * Decode steps per call of the chunk graph (kernel generation 4): finished rows leave the batch between calls, so a
 * longer chunk saves calls and computes more finished rows (measured on transformer-S, 128 rows: 16 and 32 alike).
 */
export const DECODE_CHUNK = 16;

/**
 * `sample` on kernel generation 4 (top-p 1, a model with chunk graphs): the first token drawn here from the prefill's
 * probabilities, the rest DECODE_CHUNK steps per call with the draws inside the graph (Policy.decodeChunk), from
 * uniforms this generator draws (uniform23), one per row and step, step-major. A row that
 * drew EOS draws PAD to the chunk's end; finished rows leave the batch between chunks, as in `sample`.
 */
function sampleInChunks(
  policy: Policy,
  prompts: number[][],
  firstProbs: tf.Tensor2D,
  state: DecodeState,
  maxNew: number,
  opts: SampleOptions,
  rng: Rng,
): number[][] {
  const decodeChunk = policy.decodeChunk!;
  const B = prompts.length,
    out: number[][] = prompts.map(() => []),
    done = new Array(B).fill(false);
  let rows = Array.from({ length: B }, (_, b) => b);
  const take = (b: number, t: number) => {
    out[b].push(t);
    if (t === EOS && !opts.ignoreEos) done[b] = true;
  };
  try {
    const probs = firstProbs.dataSync() as Float32Array;
    firstProbs.dispose();
    rows.forEach((b) => take(b, rng.categorical(probs, b * V, V)));
    for (let s = 1; s < maxNew && !done.every(Boolean); ) {
      const live = rows.map((b, r) => (done[b] ? -1 : r)).filter((r) => r >= 0);
      if (live.length <= 0.75 * rows.length) {
        state.select(live);
        rows = live.map((r) => rows[r]);
      }
      // every chunk has DECODE_CHUNK steps (one graph per process); the draws past maxNew are dropped
      const k = DECODE_CHUNK,
        n = rows.length;
      const uniforms = new Float32Array(k * n);
      for (let i = 0; i < uniforms.length; i++) uniforms[i] = uniform23(rng);
      const r = decodeChunk(state, {
        tokens: Int32Array.from(rows, (b) => (done[b] ? PAD : out[b][s - 1])),
        positions: Int32Array.from(rows, (b) => prompts[b].length + s - 1),
        temperature: opts.temperature,
        uniforms,
        done: Float32Array.from(rows, (b) => (done[b] ? 1 : 0)),
        eosOn: !opts.ignoreEos,
      });
      for (let j = 0; j < Math.min(k, maxNew - s); j++)
        rows.forEach((b, i) => {
          if (!done[b]) take(b, r.tokens[j * n + i]);
        });
      s += k;
    }
  } finally {
    state.dispose();
  }
  return out;
}

// ---- checkpoints: JSON with the config and base64 float32 weights; loading checks names and shapes ----

/** A float32 tensor as JSON: its shape and its bytes in base64. Refuses NaN and Infinity (`what` names the tensor). */
export function encodeTensor(t: tf.Tensor, what: string): { shape: number[]; data: string } {
  const data = t.dataSync() as Float32Array;
  if (data.some((x) => !Number.isFinite(x)))
    throw new Error(`refusing to save a checkpoint: ${what} contains NaN or Infinity`);
  return { shape: t.shape, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}

export function decodeTensor(w: { shape: number[]; data: string }): tf.Tensor {
  const buf = Buffer.from(w.data, 'base64');
  return tf.tensor(new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice(), w.shape);
}

export function saveCheckpoint(policy: Policy, file: string, meta: Record<string, unknown> = {}): void {
  const weights: Record<string, { shape: number[]; data: string }> = {};
  for (const [name, v] of Object.entries(policy.weights)) weights[name] = encodeTensor(v, `weight ${name}`);
  const body = { config: policy.config, meta, weights };
  // the checksum covers the serialised body, so a damaged file that still parses is detected (readCheckpoint)
  writeFileAtomic(file, JSON.stringify({ ...body, checksum: sha256Hex(JSON.stringify(body)) }));
}

export interface Checkpoint {
  config: ModelConfig;
  meta: Record<string, unknown>;
  weights: Record<string, { shape: number[]; data: string }>;
  /** sha256 of JSON.stringify({ config, meta, weights }); absent in checkpoints written before checksums */
  checksum?: string;
}

/** Read a checkpoint file; a missing, truncated or malformed file is a ConfigError naming it (one line, exit 2). */
export function readCheckpoint(file: string): Checkpoint {
  if (!fs.existsSync(file)) throw new ConfigError(`checkpoint ${file} does not exist`);
  let ck: Partial<Checkpoint> | null;
  try {
    ck = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`checkpoint ${file} is not valid JSON (truncated?): ${(e as Error).message}`);
  }
  if (typeof ck?.config !== 'object' || typeof ck.weights !== 'object' || ck.config === null || ck.weights === null) {
    throw new ConfigError(`checkpoint ${file} is not a checkpoint (it needs "config" and "weights")`);
  }
  if (ck.meta !== undefined && (typeof ck.meta !== 'object' || ck.meta === null)) {
    throw new ConfigError(`checkpoint ${file} has a "meta" that is not an object`);
  }
  if (
    ck.checksum !== undefined &&
    ck.checksum !== sha256Hex(JSON.stringify({ config: ck.config, meta: ck.meta, weights: ck.weights }))
  ) {
    throw new ConfigError(`checkpoint ${file} does not match its checksum (corrupted)`);
  }
  // the file's config, read as untyped JSON until it is checked
  const c: Record<string, unknown> = { ...ck.config };
  const sizes = ['vocab', 'context', 'dModel', 'layers', 'heads', 'roles'];
  const bad = sizes.find((k) => !Number.isSafeInteger(c[k]) || (c[k] as number) < 1);
  if (!ARCHITECTURES.includes(c.arch as Architecture) || bad) {
    const what = bad ? `${bad}: ${c[bad]}` : `arch: ${c.arch}`;
    throw new ConfigError(`checkpoint ${file} has an invalid model config (${what})`);
  }
  return { meta: {}, ...ck } as Checkpoint;
}

/** Check that checkpoint files exist and parse, before a run directory is opened (so bad input leaves none). */
export function checkCheckpoints(...files: string[]): void {
  for (const f of files) readCheckpoint(f);
}

/** Copy checkpoint weights into a policy, checking that every name and shape matches. */
export function loadWeights(policy: Policy, ck: Checkpoint, file = 'checkpoint'): void {
  const want = Object.keys(policy.weights).sort(),
    have = Object.keys(ck.weights).sort();
  const missing = want.filter((n) => !have.includes(n)),
    extra = have.filter((n) => !want.includes(n));
  if (missing.length || extra.length)
    throw new ConfigError(
      `${file} does not fit the model: missing [${missing.join(', ')}], unexpected [${extra.join(', ')}]`,
    );
  for (const name of want) {
    const w = ck.weights[name] as Partial<Checkpoint['weights'][string]> | null,
      v = policy.weights[name];
    if (typeof w !== 'object' || w === null || !Array.isArray(w.shape) || typeof w.data !== 'string') {
      throw new ConfigError(`${file}: weight ${name} needs a shape and data`);
    }
    if (w.shape.join('x') !== v.shape.join('x'))
      throw new ConfigError(`${file}: weight ${name} has shape [${w.shape}], the model expects [${v.shape}]`);
    // base64 decoding skips stray characters, so a damaged string decodes to the wrong number of bytes
    if (Buffer.from(w.data, 'base64').byteLength !== 4 * v.size) {
      throw new ConfigError(`${file}: weight ${name} has data of the wrong length`);
    }
    const t = decodeTensor(w as Checkpoint['weights'][string]);
    v.assign(t);
    t.dispose();
  }
}
