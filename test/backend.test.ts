// Backend choice and the startup self-test of the gradient kernels the models need.
import { strict as assert } from 'node:assert';
import * as os from 'node:os';
import {
  engineInfo,
  engineSettings,
  initBackend,
  nativeEnvironment,
  REQUIRED_KERNELS,
  selfTest,
  startEngine,
  tf,
} from '../src/models/backend.js';

describe('tensor backend', () => {
  it('picks a working backend (native TensorFlow where setup built it, else wasm) and passes the self-test', async () => {
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
    assert.throws(
      () => selfTest('no-such-backend'),
      (e: Error) => e.message.includes('lacks kernel(s)') && e.message.includes(REQUIRED_KERNELS[0]),
    );
  });
});

describe('known tfjs-wasm traps stay known', () => {
  it('oneHot with a float32 dtype is still wrong on wasm (the models cast an int32 one-hot instead)', async () => {
    await initBackend();
    if (tf.getBackend() !== 'wasm') return;
    const direct = tf.oneHot(tf.tensor1d([1, 0], 'int32'), 2, 1, 0, 'float32').dataSync();
    const cast = tf
      .oneHot(tf.tensor1d([1, 0], 'int32'), 2)
      .toFloat()
      .dataSync();
    assert.deepEqual(Array.from(cast), [0, 1, 1, 0]);
    // it writes the int32 bits into a float buffer (1 reads as 1.4e-45); if this starts failing, tfjs fixed
    // the kernel and layers.ts's oneHotF can drop its cast
    assert.ok(direct[1] < 1e-30 && direct[2] < 1e-30);
  });
});

describe('wasm slicing and identity kernels (heap views, shared data)', () => {
  // reference: element by element on the flat data
  const refSlice = (data: ArrayLike<number>, shape: number[], begin: number[], size: number[]) => {
    const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, c) => a * c, 1)),
      n = size.reduce((a, c) => a * c, 1),
      out: number[] = [];
    for (let k = 0; k < n; k++) {
      let rest = k,
        off = 0;
      for (let a = size.length - 1; a >= 0; a--) {
        off += (begin[a] + (rest % size[a])) * strides[a];
        rest = Math.floor(rest / size[a]);
      }
      out.push(data[off]);
    }
    return out;
  };
  const rng = (() => {
    let s = 12345;
    return () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
  })();
  const int = (n: number) => Math.floor(rng() * n);

  it('are the ones registered on wasm', async () => {
    await initBackend();
    if (tf.getBackend() !== 'wasm') return;
    assert.ok((tf.getKernel('Slice', 'wasm')!.kernelFunc as { viewSlice?: boolean }).viewSlice);
  });

  it('slice, unstack and split equal an element-wise reference on random shapes (float32 and int32)', async () => {
    await initBackend();
    for (let trial = 0; trial < 200; trial++) {
      const rank = 1 + int(4),
        shape = Array.from({ length: rank }, () => 1 + int(5)),
        n = shape.reduce((a, c) => a * c, 1);
      const dtype = trial % 3 === 0 ? 'int32' : 'float32';
      const data = Array.from({ length: n }, () => (dtype === 'int32' ? int(1000) - 500 : rng() * 2 - 1));
      const x = tf.tensor(data, shape, dtype),
        flat = Array.from(x.dataSync());
      const begin = shape.map((d) => int(d)),
        size = shape.map((d, a) => (rng() < 0.2 ? -1 : int(d - begin[a] + 1)));
      const real = size.map((s, a) => (s === -1 ? shape[a] - begin[a] : s));
      assert.deepEqual(
        Array.from(tf.slice(x, begin, size).dataSync()),
        refSlice(flat, shape, begin, real),
        `slice ${shape} ${begin} ${size}`,
      );
      const axis = int(rank);
      tf.unstack(x, axis).forEach((t, i) => {
        const b = shape.map((_, a) => (a === axis ? i : 0)),
          s = shape.map((d, a) => (a === axis ? 1 : d));
        assert.deepEqual(Array.from(t.dataSync()), refSlice(flat, shape, b, s), `unstack ${shape} axis ${axis}`);
        assert.deepEqual(
          t.shape,
          shape.filter((_, a) => a !== axis),
        );
      });
      const first = int(shape[axis] + 1),
        parts = tf.split(x, [first, shape[axis] - first], axis);
      parts.forEach((t, i) => {
        const b = shape.map((_, a) => (a === axis ? (i ? first : 0) : 0)),
          s = shape.map((d, a) => (a === axis ? (i ? d - first : first) : d));
        assert.deepEqual(
          Array.from(t.dataSync()),
          refSlice(flat, shape, b, s),
          `split ${shape} axis ${axis} at ${first}`,
        );
      });
      tf.dispose([x]);
    }
  });

  it('identity shares data safely: a clone outlives its source, and a variable assigned later leaves its clones as they were', async () => {
    await initBackend();
    const x = tf.tensor([1, 2, 3]),
      y = x.clone();
    x.dispose();
    assert.deepEqual(Array.from(y.dataSync()), [1, 2, 3]);
    const v = tf.variable(tf.tensor([4, 5])),
      c = v.clone();
    v.assign(tf.tensor([6, 7]));
    assert.deepEqual(Array.from(c.dataSync()), [4, 5]);
    assert.deepEqual(Array.from(v.dataSync()), [6, 7]);
    if (tf.getBackend() === 'wasm')
      assert.ok((tf.getKernel('Identity', 'wasm')!.kernelFunc as { shared?: boolean }).shared);
    tf.dispose([y, v, c]);
  });

  it('keeps slicing gradients right (the gradient of slice is pad, of unstack stack)', async () => {
    await initBackend();
    const x = tf.tensor([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const g = tf.grad(
      (t: tf.Tensor) =>
        tf
          .unstack(t.slice([0, 1], [2, 2]), 1)[1]
          .mul(tf.tensor([10, 20]))
          .sum() as tf.Scalar,
    )(x);
    assert.deepEqual(Array.from(g.dataSync()), [0, 0, 10, 0, 0, 20]);
  });
});

describe('native backend environment', () => {
  // the thread pins and determinism settings applied before TensorFlow loads (an explicit setting wins)
  it(
    'pins WORKBENCH_THREADS intra- and inter-op threads, keeps oneDNN, deterministic ops and the BFC allocator, ' +
      'names a bad value',
    () => {
      assert.deepEqual(nativeEnvironment({}), {
        TF_NUM_INTRAOP_THREADS: '1',
        TF_NUM_INTEROP_THREADS: '1',
        TF_ENABLE_ONEDNN_OPTS: '1',
        TF_DETERMINISTIC_OPS: '1',
        TF_CPU_ALLOCATOR_USE_BFC: 'true',
        TF_CPP_MIN_LOG_LEVEL: '2',
      });
      const e = nativeEnvironment({ WORKBENCH_THREADS: '3', TF_NUM_INTEROP_THREADS: '1', TF_ENABLE_ONEDNN_OPTS: '0' });
      assert.equal(e.TF_NUM_INTRAOP_THREADS, '3');
      assert.equal(e.TF_NUM_INTEROP_THREADS, '1');
      assert.equal(e.TF_ENABLE_ONEDNN_OPTS, '0');
      assert.throws(
        () => nativeEnvironment({ WORKBENCH_THREADS: 'two' }),
        /WORKBENCH_THREADS must be a positive integer \(got "two"\)/,
      );
    },
  );
});

describe('engine settings', () => {
  it('are one object read from the environment: backend, kernel generation, graphs, the native environment', () => {
    assert.deepEqual(engineSettings({}), {
      backend: undefined,
      kernels: 4,
      decodeGraph: true,
      native: nativeEnvironment({}),
    });
    const env = {
      TFJS_BACKEND: 'wasm',
      WORKBENCH_KERNELS: '1',
      WORKBENCH_DECODE_GRAPH: '0',
      WORKBENCH_THREADS: '2',
      TF_CPU_ALLOCATOR_USE_BFC: 'false',
    };
    assert.deepEqual(engineSettings(env), {
      backend: 'wasm',
      kernels: 1,
      decodeGraph: false,
      native: nativeEnvironment(env),
    });
    assert.equal(engineSettings(env).native.TF_NUM_INTRAOP_THREADS, '2');
    assert.equal(engineSettings(env).native.TF_CPU_ALLOCATOR_USE_BFC, 'false');
    assert.equal(engineSettings({ TFJS_BACKEND: '', WORKBENCH_DECODE_GRAPH: '1' }).backend, undefined);
    assert.equal(engineSettings({ WORKBENCH_DECODE_GRAPH: '1' }).decodeGraph, true);
    assert.throws(
      () => engineSettings({ TFJS_BACKEND: 'gpu' }),
      /^Error: TFJS_BACKEND must be tensorflow, wasm or cpu \(got "gpu"\)$/,
    );
    assert.throws(() => engineSettings({ WORKBENCH_KERNELS: '0' }), /WORKBENCH_KERNELS must be one of 1, 2/);
    assert.throws(() => engineSettings({ WORKBENCH_THREADS: '0' }), /WORKBENCH_THREADS must be a positive integer/);
  });
  it('start the engine a run records: the backend initBackend chose and engineInfo, as openRun recorded them', async () => {
    const record = await startEngine(engineSettings());
    assert.deepEqual(record, { backend: await initBackend(), engine: engineInfo() });
    assert.equal(record.engine.backend, record.backend);
    // the processor it ran on (TensorFlow's CPU kernels round differently across processors)
    assert.equal(record.engine.cpu, os.cpus()[0].model.trim());
  });
});
