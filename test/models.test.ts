// Models: cached decoding equals the full forward pass, checkpoints round-trip exactly, bad shapes are named.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initBackend, tf } from '../src/models/backend.js';
import { createPolicy, loadPolicy } from '../src/models/index.js';
import {
  makeBatch,
  modelConfig,
  type ModelConfig,
  sample,
  saveCheckpoint,
  readCheckpoint,
  loadWeights,
  sampleTopP,
  ARCHITECTURES,
} from '../src/models/policy.js';
import { makeSequenceBatch, tokenLogProbs } from '../src/models/logprobs.js';
import { makeRng } from '../src/util/random.js';
import { EOS, V } from '../src/world/vocab.js';

const maxDiff = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

/** Every model variant: each architecture on its defaults, and the GRU without its attention read (old checkpoints). */
const VARIANTS = [
  ...ARCHITECTURES.map((arch) => ({
    name: arch as string,
    arch,
    config: (size: 'S' | 'M', seed: number): ModelConfig => modelConfig(arch, size, seed),
  })),
  {
    name: 'gru without recall attention',
    arch: 'gru' as const,
    config: (size: 'S' | 'M', seed: number): ModelConfig => ({
      ...modelConfig('gru', size, seed),
      recallAttention: false,
    }),
  },
];

describe('policy models', function () {
  this.timeout(60000);
  before(async () => {
    await initBackend();
  });
  for (const v of VARIANTS) {
    it(`${v.name}: prefill and cached steps give the same logits as the full forward pass`, () => {
      const m = createPolicy(v.config('S', 3));
      const seqs = [
        [2, 14, 15, 16, 17, 18],
        [2, 19, 20],
      ];
      const { state, logits } = m.prefill(makeBatch(seqs));
      const step = m.step(state, tf.tensor1d([21, 22], 'int32'), tf.tensor1d([6, 3], 'int32'));
      const full = m
        .forward(
          makeBatch([
            [...seqs[0], 21],
            [...seqs[1], 22],
          ]),
        )
        .logits.arraySync() as number[][][];
      const pre = logits.arraySync() as number[][],
        st = step.arraySync() as number[][];
      const fullPrev = m.forward(makeBatch(seqs)).logits.arraySync() as number[][][];
      assert.ok(maxDiff(pre[0], fullPrev[0][5]) < 1e-5 && maxDiff(pre[1], fullPrev[1][5]) < 1e-5);
      assert.ok(maxDiff(st[0], full[0][6]) < 1e-5 && maxDiff(st[1], full[1][6]) < 1e-5);
      state.dispose();
    });
    it(`${v.name}: 40 cached steps (past the cache's block size) match the full forward pass`, () => {
      const m = createPolicy(v.config('S', 9));
      const rng = makeRng(5);
      const prompts = [
          [2, 14, 15, 16],
          [2, 17],
        ],
        cont = [0, 1].map(() => Array.from({ length: 40 }, () => 3 + rng.int(V - 3)));
      const { state, logits } = m.prefill(makeBatch(prompts));
      const stepLogits: number[][][] = [];
      logits.dispose();
      for (let s = 0; s < 40; s++) {
        const lg = m.step(
          state,
          tf.tensor1d(
            cont.map((c) => c[s]),
            'int32',
          ),
          tf.tensor1d(
            prompts.map((p) => p.length + s),
            'int32',
          ),
        );
        stepLogits.push(lg.arraySync() as number[][]);
        lg.dispose();
      }
      state.dispose();
      const full = m.forward(makeBatch(prompts.map((p, i) => [...p, ...cont[i]]))).logits.arraySync() as number[][][];
      const T = full[0].length;
      for (let s = 0; s < 40; s++)
        for (let b = 0; b < 2; b++) {
          const col = T - 40 + s; // both rows end at the last column
          assert.ok(maxDiff(stepLogits[s][b], full[b][col]) < 1e-4, `step ${s} row ${b}`);
        }
    });
    it(`${v.name}: a decode state cut to some rows goes on exactly as the full forward pass of those rows`, () => {
      const m = createPolicy(v.config('S', 6));
      const seqs = [
        [2, 14, 15, 16],
        [2, 17],
        [2, 18, 19],
        [2, 20, 21, 22, 23],
      ];
      const { state, logits } = m.prefill(makeBatch(seqs));
      logits.dispose();
      m.step(
        state,
        tf.tensor1d([24, 25, 26, 27], 'int32'),
        tf.tensor1d(
          seqs.map((q) => q.length),
          'int32',
        ),
      ).dispose();
      state.select([3, 1]); // rows 0 and 2 finished; the order of the kept rows is the order given
      const st = m
        .step(state, tf.tensor1d([28, 29], 'int32'), tf.tensor1d([seqs[3].length + 1, seqs[1].length + 1], 'int32'))
        .arraySync() as number[][];
      state.dispose();
      const full = m
        .forward(
          makeBatch([
            [...seqs[3], 27, 28],
            [...seqs[1], 25, 29],
          ]),
        )
        .logits.arraySync() as number[][][];
      const T = full[0].length;
      assert.ok(maxDiff(st[0], full[0][T - 1]) < 1e-5 && maxDiff(st[1], full[1][T - 1]) < 1e-5);
    });
    it(`${v.name}: left padding does not change a row's outputs`, () => {
      const m = createPolicy(v.config('S', 4));
      const alone = m.forward(makeBatch([[2, 14, 15]])).logits.arraySync() as number[][][];
      const padded = m
        .forward(
          makeBatch([
            [2, 14, 15],
            [2, 16, 17, 18, 19, 20],
          ]),
        )
        .logits.arraySync() as number[][][];
      assert.ok(maxDiff(alone[0][2], padded[0][5]) < 1e-5);
    });
    it(`${v.name}: checkpoints save and load exactly; a wrong shape is named`, () => {
      const m = createPolicy(v.config('S', 5));
      const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-ck-')), 'm.json');
      saveCheckpoint(m, f, { step: 7 });
      const back = loadPolicy(f);
      for (const [k, v] of Object.entries(m.weights))
        assert.deepEqual(Array.from(back.weights[k].dataSync()), Array.from(v.dataSync()), k);
      assert.equal(readCheckpoint(f).meta.step, 7);
      const other = createPolicy(v.config('M', 5));
      assert.throws(() => loadWeights(other, readCheckpoint(f), f), /has shape \[.*\], the model expects/);
    });
  }
  for (const positions of ['alibi', 'learned'] as const) {
    it(`transformer (${positions} positions): the last-position forward equals the full forward at the last column`, () => {
      const m = createPolicy({ ...modelConfig('transformer', 'S', 8), positions });
      const b = makeBatch([
        [2, 14, 15, 16, 17],
        [2, 18],
        [2, 19, 20, 21],
      ]);
      const full = m.forward(b),
        lastOnly = m.forwardLast!(b);
      const T = b.T,
        fl = full.logits.arraySync() as number[][][],
        fv = full.values.arraySync() as number[][][];
      const ll = lastOnly.logits.arraySync() as number[][],
        lv = lastOnly.values.arraySync() as number[][];
      for (let r = 0; r < 3; r++)
        assert.ok(maxDiff(ll[r], fl[r][T - 1]) < 1e-5 && maxDiff(lv[r], fv[r][T - 1]) < 1e-5, `row ${r}`);
    });
  }
  it('refuses to save NaN weights', () => {
    const m = createPolicy(modelConfig('transformer', 'S', 6));
    const name = Object.keys(m.weights)[0];
    m.weights[name].assign(tf.fill(m.weights[name].shape, NaN));
    assert.throws(() => saveCheckpoint(m, path.join(os.tmpdir(), 'nan.json')), /contains NaN/);
  });
  it('samples within the context, stops rows at <eos>, and is reproducible from a seed', () => {
    const m = createPolicy(modelConfig('transformer', 'S', 7));
    const prompts = [
      [2, 14, 15],
      [2, 16],
    ];
    const a = sample(m, prompts, { maxNew: 20, temperature: 1, topP: 1 }, makeRng(1));
    const b = sample(m, prompts, { maxNew: 20, temperature: 1, topP: 1 }, makeRng(1));
    assert.deepEqual(a, b);
    for (const o of a) {
      assert.ok(o.length <= 20);
      assert.ok(o.indexOf(EOS) === -1 || o.indexOf(EOS) === o.length - 1);
    }
    assert.throws(
      () => sample(m, prompts, { maxNew: 5, temperature: 0, topP: 1 }, makeRng(1)),
      /temperature must be > 0/,
    );
  });
  it('top-p keeps the smallest set with enough mass', () => {
    const probs = new Float32Array(V);
    probs[3] = 0.6;
    probs[4] = 0.3;
    probs[5] = 0.1;
    const rng = makeRng(2),
      seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(sampleTopP(probs, 0, 0.8, rng));
    assert.deepEqual([...seen].sort(), [3, 4]);
  });
  it('token log-probs are log-softmax at the completion positions only', () => {
    const m = createPolicy(modelConfig('transformer', 'S', 8));
    const sb = makeSequenceBatch(
      [
        [2, 14],
        [2, 15, 16],
      ],
      [[17, EOS], [EOS]],
    );
    const { logp } = tokenLogProbs(m, sb);
    const lp = logp.arraySync() as number[][],
      logits = m.forward(sb).logits.arraySync() as number[][][];
    const ls = (row: number[], t: number) => row[t] - Math.log(row.reduce((s, v) => s + Math.exp(v), 0));
    // both rows have length 4 (no padding); row 0's completion is predicted at columns 1..2, row 1's at column 2
    assert.deepEqual(sb.start, [1, 2]);
    assert.ok(Math.abs(lp[0][1] - ls(logits[0][1], 17)) < 1e-5);
    assert.ok(Math.abs(lp[0][2] - ls(logits[0][2], EOS)) < 1e-5);
    assert.equal(Math.abs(lp[0][0]), 0);
    assert.equal(Math.abs(lp[0][3]), 0);
    assert.ok(Math.abs(lp[1][2] - ls(logits[1][2], EOS)) < 1e-5);
    assert.equal(Math.abs(lp[1][1]), 0);
  });
});

describe('gradient check of the whole model', function () {
  this.timeout(60000);
  for (const v of VARIANTS) {
    it(`${v.name}: autodiff gradients of the completion log-likelihood match central differences`, async () => {
      await initBackend();
      const p = createPolicy(v.config('S', 0));
      const sb = makeSequenceBatch(
        [
          [2, 14, 15, 16],
          [2, 17],
        ],
        [
          [18, 19, 1],
          [20, 1],
        ],
      );
      const f = () => tf.tidy(() => tokenLogProbs(p, sb).logp.sum().neg() as tf.Scalar);
      const vars = Object.values(p.weights),
        names = Object.keys(p.weights);
      const { grads } = tf.variableGrads(f, vars);
      vars.forEach((w, n) => {
        if (names[n].startsWith('value')) return; // the value heads do not enter the log-likelihood
        const gd = grads[w.name].dataSync(),
          base = w.dataSync().slice();
        let i = 0;
        for (let j = 0; j < gd.length; j++) if (Math.abs(gd[j]) > Math.abs(gd[i])) i = j;
        const at = (h: number) => {
          const v = base.slice();
          v[i] += h;
          w.assign(tf.tensor(v, w.shape));
          return f().dataSync()[0];
        };
        const num = (at(1e-2) - at(-1e-2)) / 2e-2;
        w.assign(tf.tensor(base, w.shape));
        assert.ok(
          Math.abs(num - gd[i]) <= 0.05 * Math.abs(num) + 2e-3,
          `${names[n]}: autodiff ${gd[i]} vs numeric ${num}`,
        );
      });
    });
  }
});
