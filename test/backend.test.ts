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

describe('known tfjs-wasm traps stay known', () => {
  it('oneHot with a float32 dtype is still wrong on wasm (the models cast an int32 one-hot instead)', async () => {
    await initBackend();
    if (tf.getBackend() !== 'wasm') return;
    const direct = tf.oneHot(tf.tensor1d([1, 0], 'int32'), 2, 1, 0, 'float32').dataSync();
    const cast = tf.oneHot(tf.tensor1d([1, 0], 'int32'), 2).toFloat().dataSync();
    assert.deepEqual(Array.from(cast), [0, 1, 1, 0]);
    // it writes the int32 bits into a float buffer (1 reads as 1.4e-45); if this starts failing, tfjs fixed
    // the kernel and layers.ts's oneHotF can drop its cast
    assert.ok(direct[1] < 1e-30 && direct[2] < 1e-30);
  });
});
