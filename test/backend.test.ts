// Backend choice and the startup self-test of the gradient kernels the models need.
import { strict as assert } from 'node:assert';
import { initBackend, REQUIRED_KERNELS, selfTest, tf } from '../src/models/backend.js';

describe('tensor backend', () => {
  it('picks a working backend (wasm here) and passes the self-test', async () => {
    const name = await initBackend();
    assert.ok(['tensorflow', 'wasm', 'cpu'].includes(name));
    assert.equal(tf.getBackend(), name);
    if (!process.env.TFJS_BACKEND) assert.notEqual(name, 'cpu', 'wasm should be available wherever npm installed it');
    assert.doesNotThrow(() => selfTest());
  });
  it('has the gather gradient on wasm (registered by the picker)', async () => {
    await initBackend();
    assert.ok(tf.getKernel('UnsortedSegmentSum', tf.getBackend()));
  });
  it('fails the self-test with the names of missing kernels', () => {
    assert.throws(() => selfTest('no-such-backend'), (e: Error) => e.message.includes('lacks kernel(s)') && e.message.includes(REQUIRED_KERNELS[0]));
  });
});
