// Kernel generation 4: the decode steps with sampling inside one graph, the transformer's and the GRU's
// (src/models/decode-graph.ts, chunkGraphBytes, gruChunkGraphBytes; policy.ts, sample) against the per-step decode
// graph of generation 3 followed by the same draw
// written out here in float32 (the cumulative probabilities summed left to right, u = uniform x their total, the
// count at or below u, at most V - 1): the same tokens, done flags, key mask and caches, bit for bit, with rows that
// start done, rows that stop at EOS, steps past the context, both position schemes, the GRU with and without its
// recall read, and temperatures other than 1.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import {
  chunkInputs,
  chunkOutputs,
  decodeInputs,
  gruChunkInputs,
  gruChunkOutputs,
  gruInputs,
} from '../src/models/decode-graph.js';
import { createPolicy } from '../src/models/index.js';
import {
  DECODE_CHUNK,
  disposeBatch,
  makeBatch,
  modelConfig,
  type ModelConfig,
  type Policy,
  sample,
  uniform23,
} from '../src/models/policy.js';
import { makeRng } from '../src/util/random.js';
import { EOS, PAD, V } from '../src/world/vocab.js';
import { DECODE_VARIANTS, withEnv } from './graph-helpers.js';

const skipOffNative = (ctx: Mocha.Context) => {
  if (tf.getBackend() === 'tensorflow') return;
  ctx.test!.title += ' (skipped: runs on the native backend only)';
  ctx.skip();
};

/** The draw the chunk graph makes, in float32: rows that are done draw PAD. */
function drawRow(probs: Float32Array, offset: number, uniform: number): number {
  const cdf = new Float32Array(V);
  let acc = 0;
  for (let i = 0; i < V; i++) cdf[i] = acc = Math.fround(acc + probs[offset + i]);
  const u = Math.fround(uniform * cdf[V - 1]);
  let below = 0;
  for (let i = 0; i < V; i++) if (cdf[i] <= u) below++;
  return Math.min(below, V - 1);
}

/**
 * A decode state's tensors: the transformer's key mask and each layer's written cache columns; the GRU's states and
 * its read cache's key mask and written columns.
 */
function stateOf(state: unknown): Float32Array[] {
  const data = (t: tf.Tensor) => t.dataSync() as Float32Array;
  const gru = state as { h?: tf.Tensor2D[]; kv: { k: tf.Tensor3D; v: tf.Tensor3D; keyMask: tf.Tensor3D } | null };
  if (gru.h) {
    const kv = gru.kv;
    if (!kv) return gru.h.map(data);
    const T = kv.keyMask.shape[2];
    const cut = (t: tf.Tensor3D) => tf.tidy(() => data(t.slice([0, 0, 0], [-1, T, -1])));
    return [...gru.h.map(data), data(kv.keyMask), cut(kv.k), cut(kv.v)];
  }
  const st = state as { keyMask: tf.Tensor4D; layers: { k: tf.Tensor4D; v: tf.Tensor4D }[] };
  const T = st.keyMask.shape[3];
  const cut = (t: tf.Tensor4D) => tf.tidy(() => data(t.slice([0, 0, 0, 0], [-1, -1, T, -1])));
  return [data(st.keyMask), ...st.layers.flatMap((c) => [cut(c.k), cut(c.v)])];
}

/** A policy whose every weight is moved off its initial value (a dropped bias would pass otherwise). */
function movedPolicy(config: ModelConfig): Policy {
  const policy = createPolicy(config);
  Object.values(policy.weights).forEach(
    (w, i) => tf.tidy(() => w.assign(w.add(tf.randomNormal(w.shape, 0, 0.3, 'float32', i + 1)))), // seed 0 would mean none
  );
  return policy;
}

describe('sampling in chunks of decode steps (kernels 4, native backend)', () => {
  before(async () => {
    await initBackend();
  });

  it("takes the decode graph's inputs, then the draws and the rows' state", () => {
    const s = { layers: 2, heads: 4, dModel: 64, alibi: false, eps: 1e-5 };
    assert.deepEqual(chunkInputs(s), [...decodeInputs(s), 'uniforms', 'done', 'eos_on']);
    const g = { layers: 1, dModel: 96, vocab: V, attend: true, eps: 1e-5 };
    assert.deepEqual(gruChunkInputs(g), [...gruInputs(g), 'uniforms', 'done', 'eos_on']);
    assert.deepEqual(gruChunkOutputs(g), ['tokens_out', 'done_out', 'l0_h_out', 'key_mask_out']);
    assert.deepEqual(chunkOutputs(), ['tokens_out', 'done_out', 'key_mask_out']);
  });

  for (const [what, config] of DECODE_VARIANTS) {
    it(`draws what the per-step graph and a float32 inverse CDF draw (${what}), bit for bit`, function () {
      skipOffNative(this);
      const policy = movedPolicy(config);
      const rng = makeRng(11);
      const B = 7,
        k = 37,
        temperature = 3;
      // prompts of different lengths; the last one ends 4 positions before the context (later steps feed past it)
      const prompts = Array.from({ length: B }, (_, b) =>
        Array.from({ length: b === B - 1 ? config.context - 4 : 3 + 2 * b }, () => 3 + rng.int(V - 3)),
      );
      const uniforms = Float32Array.from({ length: k * B }, () => uniform23(rng));
      // row 2 done from the start
      const tokens = Int32Array.from({ length: B }, (_, b) => (b === 2 ? PAD : 3 + rng.int(V - 3)));
      const positions = Int32Array.from(prompts, (p) => p.length);
      const done = Float32Array.from({ length: B }, (_, b) => (b === 2 ? 1 : 0));
      const prefilled = () => {
        const batch = makeBatch(prompts);
        const { state, logits } = policy.prefill(batch);
        disposeBatch(batch);
        logits.dispose();
        return state;
      };
      // the uniforms at which rows 1 and 4 draw EOS (at steps 2 and 9), set from the reference's probabilities
      const eosAt = new Map([
        [2 * B + 1, true],
        [9 * B + 4, true],
      ]);
      withEnv({ WORKBENCH_KERNELS: '4' }, () => {
        assert.ok(policy.chunked?.(), 'the chunk graph runs here');
        // the reference: generation 3's decode step graph, one step at a time, and the draw above
        const ref = prefilled();
        let tok = Int32Array.from(tokens);
        const dn = Float32Array.from(done),
          want: number[] = [];
        for (let j = 0; j < k; j++) {
          const pos = Int32Array.from(positions, (p) => Math.min(p + j, config.context - 1));
          const [tokT, posT] = [tf.tensor1d(tok, 'int32'), tf.tensor1d(pos, 'int32')];
          const probsT = policy.step(ref, tokT, posT, temperature);
          const probs = probsT.dataSync() as Float32Array;
          tf.dispose([tokT, posT, probsT]);
          for (let b = 0; b < B; b++)
            if (eosAt.has(j * B + b)) {
              // the middle of EOS's interval of the CDF, as a share of the total
              const total = probs.slice(b * V, (b + 1) * V).reduce((x, y) => x + y, 0);
              uniforms[j * B + b] = (probs[b * V + PAD] + probs[b * V + EOS] / 2) / total;
            }
          tok = Int32Array.from({ length: B }, (_, b) => (dn[b] ? PAD : drawRow(probs, b * V, uniforms[j * B + b])));
          tok.forEach((t, b) => {
            if (t === EOS) dn[b] = 1;
          });
          want.push(...tok);
        }
        const state = prefilled();
        const before = tf.memory().numTensors;
        const got = policy.decodeChunk!(state, { tokens, positions, temperature, uniforms, done, eosOn: true });
        assert.equal(tf.memory().numTensors, before, 'a chunk leaks no tensor');
        assert.deepEqual(Array.from(got.tokens), want);
        assert.deepEqual(Array.from(got.done), Array.from(dn));
        assert.ok(dn[1] && dn[4] && want[2 * B + 1] === EOS && want[9 * B + 4] === EOS, 'rows 1 and 4 stopped at EOS');
        assert.deepEqual(stateOf(state), stateOf(ref), 'the same key mask and caches');
        // without eos_on no row stops (rows done at the start stay done)
        const free = prefilled();
        const again = policy.decodeChunk!(free, { tokens, positions, temperature, uniforms, done, eosOn: false });
        assert.deepEqual(Array.from(again.done), Array.from(done));
        for (const s of [state, ref, free]) s.dispose();
      });
      for (const w of Object.values(policy.weights)) w.dispose();
    });
  }

  it('never draws a token of probability 0, at the smallest and the largest uniform', function () {
    skipOffNative(this);
    const policy = movedPolicy(modelConfig('transformer', 'S', 7));
    const B = 6,
      k = 5,
      temperature = 0.02; // most probabilities underflow to 0, PAD's among them
    const prompts = Array.from({ length: B }, (_, b) => [3 + b, 4, 5 + b]);
    const uniforms = Float32Array.from({ length: k * B }, (_, i) => (i % 2 ? 1 - 2 ** -23 : 0));
    const tokens = Int32Array.from({ length: B }, (_, b) => 3 + b),
      positions = Int32Array.from(prompts, (p) => p.length),
      done = new Float32Array(B);
    withEnv({ WORKBENCH_KERNELS: '4' }, () => {
      const batch = makeBatch(prompts);
      const { state, logits } = policy.prefill(batch);
      const ref = policy.prefill(batch);
      disposeBatch(batch);
      tf.dispose([logits, ref.logits]);
      const got = policy.decodeChunk!(state, { tokens, positions, temperature, uniforms, done, eosOn: false });
      let tok = tokens,
        zeros = 0;
      for (let j = 0; j < k; j++) {
        const [tokT, posT] = [
          tf.tensor1d(tok, 'int32'),
          tf.tensor1d(
            positions.map((p) => p + j),
            'int32',
          ),
        ];
        const probsT = policy.step(ref.state, tokT, posT, temperature);
        const probs = probsT.dataSync() as Float32Array;
        tf.dispose([tokT, posT, probsT]);
        zeros += probs.filter((p) => p === 0).length;
        tok = Int32Array.from({ length: B }, (_, b) => got.tokens[j * B + b]);
        tok.forEach((t, b) => assert.ok(probs[b * V + t] > 0, `step ${j}, row ${b}: token ${t} has probability 0`));
        assert.deepEqual(
          Array.from(tok),
          Array.from({ length: B }, (_, b) => drawRow(probs, b * V, uniforms[j * B + b])),
        );
      }
      assert.ok(zeros > k * B * (V / 2), 'most probabilities are 0 here');
      // a uniform of 1 (beyond what uniform23 draws) still gives a token below V: the draw is clamped at V - 1
      const ones = policy.decodeChunk!(ref.state, {
        tokens,
        positions: positions.map((p) => p + k),
        temperature,
        uniforms: new Float32Array(k * B).fill(1),
        done,
        eosOn: false,
      });
      assert.ok(ones.tokens.every((t) => t >= 0 && t < V));
      state.dispose();
      ref.state.dispose();
    });
    for (const w of Object.values(policy.weights)) w.dispose();
  });

  for (const arch of ['transformer', 'gru'] as const)
    it(`samples reproducibly, stops rows at EOS or maxNew, and draws as generation 3 until a row finishes (${arch})`, function () {
      skipOffNative(this);
      const policy = movedPolicy(modelConfig(arch, 'S', 5));
      const prompts = Array.from({ length: 24 }, (_, b) => [1 + (b % 9), 2 + (b % 4), 3]);
      const maxNew = 2 * DECODE_CHUNK + 5;
      const opts = { maxNew, temperature: 1, topP: 1 };
      const v3 = withEnv({ WORKBENCH_KERNELS: '3' }, () => sample(policy, prompts, opts, makeRng(2)));
      const v3again = withEnv({ WORKBENCH_KERNELS: '3' }, () => sample(policy, prompts, opts, makeRng(2)));
      assert.deepEqual(v3, v3again);
      const before = tf.memory().numTensors;
      const v4 = withEnv({ WORKBENCH_KERNELS: '4' }, () => sample(policy, prompts, opts, makeRng(2)));
      assert.equal(tf.memory().numTensors, before, 'sampling in chunks leaks no tensor');
      assert.deepEqual(
        withEnv({ WORKBENCH_KERNELS: '4' }, () => sample(policy, prompts, opts, makeRng(2))),
        v4,
      );
      // the draws take the generator's numbers in generation 3's order (step by step, row by row) until a row has
      // finished (generation 3 stops drawing for it, generation 4 draws to the chunk's end): the same tokens up to then
      const firstEos = Math.min(...v3.map((o) => (o.includes(EOS) ? o.indexOf(EOS) : o.length)));
      assert.ok(firstEos >= 3 && firstEos < maxNew - 1, `a row finishes early here (${firstEos})`);
      assert.deepEqual(
        v4.map((o) => o.slice(0, firstEos + 1)),
        v3.map((o) => o.slice(0, firstEos + 1)),
      );
      assert.notDeepEqual(v4, v3, 'and otherwise after it');
      for (const o of v4) {
        assert.ok(o.length >= 1 && o.length <= maxNew);
        assert.ok(o.every((t) => Number.isInteger(t) && t >= 0 && t < V));
        assert.ok(o.length === maxNew || o.at(-1) === EOS, 'a row ends at EOS or at maxNew');
        assert.ok(
          o.slice(0, -1).every((t) => t !== EOS),
          'nothing after EOS',
        );
      }
      assert.ok(v4.some((o) => o.at(-1) === EOS) && v4.some((o) => o.length === maxNew), 'both endings occur here');
      const fixed = withEnv({ WORKBENCH_KERNELS: '4' }, () =>
        sample(policy, prompts, { ...opts, ignoreEos: true }, makeRng(3)),
      );
      assert.ok(fixed.every((o) => o.length === maxNew));
      for (const w of Object.values(policy.weights)) w.dispose();
    });
});
