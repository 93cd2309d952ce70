// Tensor backend selection, in one place. Order: native TensorFlow (tfjs-node-gpu, then tfjs-node, which
// `make setup` installs as `tfjs-node-native`), wasm, cpu. TFJS_BACKEND=tensorflow|wasm|cpu overrides. A
// self-test then checks the kernels whose gradients the models need, and a finite-difference gradient check,
// and fails with a message naming what is missing.
//
// The native backend's threads are pinned before TensorFlow loads: WORKBENCH_THREADS (default 1) intra-op
// and inter-op threads, because every `make reproduce-*` target runs one process per core. oneDNN stays on
// (TF_ENABLE_ONEDNN_OPTS=1: without it this TensorFlow build's element-wise kernels run ~9x slower on one thread,
// and the PPO update 4x) and TensorFlow's deterministic ops on (TF_DETERMINISTIC_OPS=1); with one thread a seed
// gives bit-identical numbers on every rerun (test/engine.test.ts). TensorFlow's CPU tensors come from its BFC
// allocator (TF_CPU_ALLOCATOR_USE_BFC=true), which keeps freed buffers for reuse: the default allocator returns each
// large buffer to the system and page-faults it in again, which cost the PPO update about a third of its time
// (`make bench`); the allocator changes no number (test/engine.test.ts runs the probe both ways). Each can be
// overridden in the environment.
// `engineInfo()` is what every run records in its config.
import * as tf from '@tensorflow/tfjs';
import { registerWasmKernels } from './wasm-kernels.js';

/** The environment TensorFlow reads at load time, with the workbench's defaults (an explicit setting wins). */
export function nativeEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const threads = env.WORKBENCH_THREADS ?? '1';
  if (!/^[1-9][0-9]*$/.test(threads)) throw new Error(`WORKBENCH_THREADS must be a positive integer (got "${threads}")`);
  return {
    TF_NUM_INTRAOP_THREADS: env.TF_NUM_INTRAOP_THREADS ?? threads,
    TF_NUM_INTEROP_THREADS: env.TF_NUM_INTEROP_THREADS ?? threads,
    TF_ENABLE_ONEDNN_OPTS: env.TF_ENABLE_ONEDNN_OPTS ?? '1',
    TF_DETERMINISTIC_OPS: env.TF_DETERMINISTIC_OPS ?? '1',
    TF_CPU_ALLOCATOR_USE_BFC: env.TF_CPU_ALLOCATOR_USE_BFC ?? 'true',
    TF_CPP_MIN_LOG_LEVEL: env.TF_CPP_MIN_LOG_LEVEL ?? '2',
  };
}

/**
 * The engine's kernel generation: which formulation of the models' arithmetic runs (WORKBENCH_KERNELS, default the
 * newest). A generation changes the last bits of some numbers, never the model, so each run records it
 * (engineInfo) and a record reruns bit for bit under its own generation. 1: the kernels of every record made before
 * 2026-12-05 (records without `engine.kernels`); 2: layer norm's and GELU's backward passes in closed form, the
 * queries scaled before the score product (layers.ts, transformer.ts), and with the decode graph on the native backend
 * the transformer's prefill (decode-graph.ts, prefillGraphBytes) and its full forward and backward passes
 * (train-graph.ts) as graphs.
 */
export const KERNEL_VERSIONS = [1, 2] as const;
export type KernelVersion = (typeof KERNEL_VERSIONS)[number];

export function kernelVersion(env: NodeJS.ProcessEnv = process.env): KernelVersion {
  const v = env.WORKBENCH_KERNELS;
  if (v === undefined || v === '') return KERNEL_VERSIONS[KERNEL_VERSIONS.length - 1];
  const n = Number(v) as KernelVersion;
  if (!KERNEL_VERSIONS.includes(n)) {
    throw new Error(`WORKBENCH_KERNELS must be one of ${KERNEL_VERSIONS.join(', ')} (got "${v}")`);
  }
  return n;
}

let tensorflowVersion: string | undefined, nativePkg: string | undefined;

/** The package the native backend was loaded from (tfjs-node-gpu or tfjs-node-native), once it is. */
export const nativePackage = () => nativePkg;

async function tryNative(pkg: string): Promise<boolean> {
  Object.assign(process.env, nativeEnvironment());              // read by TensorFlow when the library loads
  try { await import(pkg); } catch { return false; }            // absent, or its binding never built
  if (!tf.findBackendFactory('tensorflow')) return false;       // danfojs's alias makes tfjs-node plain tfjs
  if (!(await tf.setBackend('tensorflow'))) return false;
  tensorflowVersion = (tf.backend() as unknown as { binding: { TF_Version: string } }).binding.TF_Version;
  nativePkg = pkg;
  return true;
}

/** Kernels used by the policies' forward and backward passes (transformer and GRU). */
export const REQUIRED_KERNELS = [
  'BatchMatMul', 'GatherV2', 'UnsortedSegmentSum', 'OneHot', 'Softmax', 'Exp', 'Log', 'Sum', 'Max', 'Mean',
  'Add', 'Sub', 'Multiply', 'RealDiv', 'Sigmoid', 'Tanh', 'Relu', 'Rsqrt', 'Sqrt', 'Square', 'Neg', 'Maximum',
  'Minimum', 'ClipByValue', 'Select', 'Transpose', 'Reshape', 'Concat', 'Slice', 'Tile', 'Cast', 'Multinomial',
];

/** Throws naming every required kernel the backend lacks, then checks a gradient numerically. */
export function selfTest(backend = tf.getBackend()): void {
  const missing = REQUIRED_KERNELS.filter((k) => !tf.getKernel(k, backend));
  if (missing.length) {
    throw new Error(`tensor backend "${backend}" lacks kernel(s) the models need: ${missing.join(', ')}. ` +
      'Set TFJS_BACKEND to another backend (wasm or cpu).');
  }
  // Loss exercising embedding gather, matmul, sigmoid, softmax and a reduction; compare with central differences.
  const emb = tf.tensor2d([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2]]);
  const w = tf.tensor2d([[0.7, -0.1, 0.2], [0.05, 0.3, -0.6]]);
  const ids = tf.tensor1d([0, 2, 2, 1], 'int32');
  const loss = (e: tf.Tensor) => tf.tidy(() => {
    const h = tf.sigmoid(tf.matMul(tf.gather(e, ids), w));
    return tf.mul(tf.softmax(h), tf.log(tf.add(h, 1))).sum() as tf.Scalar;
  });
  const grad = tf.tidy(() => tf.grad(loss)(emb).arraySync() as number[][]);
  const base = emb.arraySync() as number[][], h = 1e-2;
  let worst = 0;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 2; j++) {
    const at = (d: number) => { const v = base.map((r) => r.slice()); v[i][j] += d; return tf.tidy(() => loss(tf.tensor2d(v)).arraySync() as number); };
    const fd = (at(h) - at(-h)) / (2 * h);
    worst = Math.max(worst, Math.abs(fd - grad[i][j]) / Math.max(1e-3, Math.abs(fd)));
  }
  tf.dispose([emb, w, ids]);
  if (!(worst < 5e-2)) throw new Error(`tensor backend "${backend}" failed its gradient self-test (relative error ${worst})`);
}

let chosen: Promise<string> | undefined;

/** Pick and initialise the backend once per process; returns its name ("tensorflow", "wasm" or "cpu"). */
export function initBackend(prefer: string | undefined = process.env.TFJS_BACKEND): Promise<string> {
  chosen ??= (async () => {
    const order = prefer ? [prefer] : ['tensorflow', 'wasm', 'cpu'];
    for (const name of order) {
      if (!['tensorflow', 'wasm', 'cpu'].includes(name)) throw new Error(`TFJS_BACKEND must be tensorflow, wasm or cpu (got "${name}")`);
      if (name === 'tensorflow') {
        if (await tryNative('@tensorflow/tfjs-node-gpu') || await tryNative('tfjs-node-native')) break;
        if (prefer) throw new Error('TFJS_BACKEND=tensorflow: the native backend is not installed here (`make setup` ' +
          'installs it where a TensorFlow library can be found; see its output)');
      } else if (name === 'wasm') {
        await import('@tensorflow/tfjs-backend-wasm');
        registerWasmKernels();
        if (await tf.setBackend('wasm')) break;
      } else if (await tf.setBackend(name)) break;
      if (prefer) throw new Error(`TFJS_BACKEND=${prefer} could not be initialised on this machine`);
    }
    await tf.ready();
    selfTest();
    return tf.getBackend();
  })();
  return chosen;
}

export { tf };

/** What a run records about its engine: backend, library versions and the native backend's thread settings. */
export function engineInfo(): Record<string, string | number> {
  const backend = tf.getBackend();
  const info: Record<string, string | number> = { backend, tfjs: tf.version_core, kernels: kernelVersion() };
  if (backend === 'tensorflow') {
    const env = nativeEnvironment();
    Object.assign(info, {
      tensorflow: tensorflowVersion ?? 'unknown', intraOpThreads: Number(env.TF_NUM_INTRAOP_THREADS),
      interOpThreads: Number(env.TF_NUM_INTEROP_THREADS), onednnOpts: env.TF_ENABLE_ONEDNN_OPTS,
      deterministicOps: env.TF_DETERMINISTIC_OPS, cpuAllocatorBfc: env.TF_CPU_ALLOCATOR_USE_BFC,
      // the graphs (WORKBENCH_DECODE_GRAPH=0 turns all off): sampling's decode step (src/models/decode-graph.ts; the
      // eager step's numbers at the tested shapes, last-bit differences past them: docs/engine.md) and, with kernels
      // 2, the transformer's prefill and its training passes (train-graph.ts), so a run records which ones ran
      decodeGraph: process.env.WORKBENCH_DECODE_GRAPH === '0' ? 'off' : 'on',
    });
  } else info.threads = 1;
  return info;
}
