// The update's arithmetic (src/models/flops.ts) by hand on a tiny transformer, the S model's against the issue's
// "about 7.5 GFLOP" for the bench's batch, and one core's FMA peak (src/util/machine.ts) per vector extension.
import { strict as assert } from 'node:assert';
import { transformerFlops } from '../src/models/flops.js';
import { modelConfig } from '../src/models/policy.js';
import { fmaPeakGflops } from '../src/util/machine.js';

describe('flops of an update', () => {
  it('counts each product of a tiny transformer by hand', () => {
    // d 4, 1 layer, vocab 10, 3 value heads; 2 sequences of 5 tokens (10 tokens)
    const f = transformerFlops({ dModel: 4, layers: 1, vocab: 10, roles: 3 }, 2, 5);
    assert.equal(f.embedding, 10 * 2 * 10 * 4); // one-hot [10] x [10, 4] per token
    assert.equal(f.projections, 10 * 4 * 2 * 16); // q, k, v, o: [4] x [4, 4]
    assert.equal(f.mlp, 10 * (2 * 4 * 16 + 2 * 16 * 4)); // [4] x [4, 16], then [16] x [16, 4]
    assert.equal(f.attention, 10 * (2 * 5 * 4 + 2 * 5 * 4)); // q . k over 5 keys, then the weighted sum of 5 values
    assert.equal(f.heads, 10 * (2 * 4 * 10 + 2 * 4 * 3));
    assert.equal(f.forward, 800 + 1280 + 2560 + 800 + 1040);
    assert.equal(f.update, 3 * 6480);
  });

  it("gives the S model's update about 7.5 GFLOP on the bench's batch (128 x 80 tokens)", () => {
    const g = transformerFlops(modelConfig('transformer', 'S', 0), 128, 80).update / 1e9;
    assert.ok(g > 7 && g < 8.5, `${g}`);
  });

  it("puts one core's peak at lanes x 2 flops x 2 units x the clock", () => {
    assert.deepEqual(fmaPeakGflops('avx2+fma+avx', 2500), { gflops: 80, lanes: 8, units: 2 });
    assert.equal(fmaPeakGflops('avx512f+avx512bw+avx2+fma+avx', 2000).gflops, 128);
    assert.equal(fmaPeakGflops('none', 1000).gflops, 16);
  });
});
