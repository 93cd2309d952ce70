// Tensor backend selection, in one place. Order: native TensorFlow (tfjs-node-gpu, then tfjs-node, which
// `make setup` installs as `tfjs-node-native`), wasm, cpu. TFJS_BACKEND=tensorflow|wasm|cpu overrides. A
// self-test then checks the kernels whose gradients the models need, and a finite-difference gradient check,
// and fails with a message naming what is missing.
//
// The engine's settings (the backend asked for, the kernel generation, the graphs, the native backend's threads,
// oneDNN, deterministic ops and allocator) are one typed object, read from the environment in engine-settings.ts and
// handed in here. `startEngine()` initialises the backend and describes it as every run records it in its config
// (`engineInfo()`; src/io/run.ts, openRun).
import * as tf from '@tensorflow/tfjs';
import type { EngineRecord } from '../io/run.js';
import { thisProcessor } from '../util/machine.js';
import { registerWasmKernels } from './wasm-kernels.js';
import { BACKENDS, engineSettings, type EngineSettings } from './engine-settings.js';

export {
  BACKENDS,
  KERNEL_VERSIONS,
  backendPreference,
  decodeGraphOn,
  engineSettings,
  kernelVersion,
  nativeEnvironment,
  type BackendName,
  type EngineSettings,
  type KernelVersion,
  type NativeEnvironment,
} from './engine-settings.js';

let tensorflowVersion: string | undefined, nativePkg: string | undefined;

/** The package the native backend was loaded from (tfjs-node-gpu or tfjs-node-native), once it is. */
export const nativePackage = () => nativePkg;

async function tryNative(pkg: string, native: EngineSettings['native']): Promise<boolean> {
  Object.assign(process.env, native); // read by TensorFlow when the library loads
  try {
    await import(pkg);
  } catch {
    return false;
  } // absent, or its binding never built
  if (!tf.findBackendFactory('tensorflow')) return false; // danfojs's alias makes tfjs-node plain tfjs
  if (!(await tf.setBackend('tensorflow'))) return false;
  tensorflowVersion = nativeBackend().binding.TF_Version;
  nativePkg = pkg;
  return true;
}

/** Kernels used by the policies' forward and backward passes (transformer and GRU). */
export const REQUIRED_KERNELS = [
  'BatchMatMul',
  'GatherV2',
  'UnsortedSegmentSum',
  'OneHot',
  'Softmax',
  'Exp',
  'Log',
  'Sum',
  'Max',
  'Mean',
  'Add',
  'Sub',
  'Multiply',
  'RealDiv',
  'Sigmoid',
  'Tanh',
  'Relu',
  'Rsqrt',
  'Sqrt',
  'Square',
  'Neg',
  'Maximum',
  'Minimum',
  'ClipByValue',
  'Select',
  'Transpose',
  'Reshape',
  'Concat',
  'Slice',
  'Tile',
  'Cast',
  'Multinomial',
];

/** Throws naming every required kernel the backend lacks, then checks a gradient numerically. */
export function selfTest(backend = tf.getBackend()): void {
  const missing = REQUIRED_KERNELS.filter((k) => !tf.getKernel(k, backend));
  if (missing.length) {
    throw new Error(
      `tensor backend "${backend}" lacks kernel(s) the models need: ${missing.join(', ')}. ` +
        'Set TFJS_BACKEND to another backend (wasm or cpu).',
    );
  }
  // Loss exercising embedding gather, matmul, sigmoid, softmax and a reduction; compare with central differences.
  const emb = tf.tensor2d([
    [0.3, -0.2],
    [0.1, 0.4],
    [-0.5, 0.2],
  ]);
  const w = tf.tensor2d([
    [0.7, -0.1, 0.2],
    [0.05, 0.3, -0.6],
  ]);
  const ids = tf.tensor1d([0, 2, 2, 1], 'int32');
  const loss = (e: tf.Tensor) =>
    tf.tidy(() => {
      const h = tf.sigmoid(tf.matMul(tf.gather(e, ids), w));
      return tf.mul(tf.softmax(h), tf.log(tf.add(h, 1))).sum() as tf.Scalar;
    });
  const grad = tf.tidy(() => tf.grad(loss)(emb).arraySync() as number[][]);
  const base = emb.arraySync() as number[][],
    h = 1e-2;
  let worst = 0;
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 2; j++) {
      const at = (d: number) => {
        const v = base.map((r) => r.slice());
        v[i][j] += d;
        return tf.tidy(() => loss(tf.tensor2d(v)).arraySync() as number);
      };
      const fd = (at(h) - at(-h)) / (2 * h);
      worst = Math.max(worst, Math.abs(fd - grad[i][j]) / Math.max(1e-3, Math.abs(fd)));
    }
  tf.dispose([emb, w, ids]);
  if (!(worst < 5e-2))
    throw new Error(`tensor backend "${backend}" failed its gradient self-test (relative error ${worst})`);
}

let chosen: Promise<string> | undefined;

/**
 * Pick and initialise the backend once per process (the settings' backend, else the first of BACKENDS that
 * initialises); returns its name ("tensorflow", "wasm" or "cpu").
 */
export function initBackend(settings: Pick<EngineSettings, 'backend' | 'native'> = engineSettings()): Promise<string> {
  chosen ??= (async () => {
    const prefer = settings.backend;
    const order = prefer ? [prefer] : BACKENDS;
    for (const name of order) {
      if (name === 'tensorflow') {
        const { native } = settings;
        if ((await tryNative('@tensorflow/tfjs-node-gpu', native)) || (await tryNative('tfjs-node-native', native)))
          break;
        if (prefer)
          throw new Error(
            'TFJS_BACKEND=tensorflow: the native backend is not installed here (`make setup` ' +
              'installs it where a TensorFlow library can be found; see its output)',
          );
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

/** What a run records about its engine: backend, library versions, the processor, the native thread settings. */
export function engineInfo(settings: EngineSettings = engineSettings()): Record<string, string | number> {
  const backend = tf.getBackend();
  const info: Record<string, string | number> = {
    backend,
    tfjs: tf.version_core,
    kernels: settings.kernels,
    // the processor: TensorFlow's CPU kernels round differently across processors (a run is bit for bit on its own);
    // cpuKey is what decides the kernels' code paths (vendor, family, model, vector extensions: src/util/machine.ts)
    cpu: thisProcessor().name,
    cpuKey: thisProcessor().key,
  };
  if (backend === 'tensorflow') {
    const native = settings.native;
    Object.assign(info, {
      tensorflow: tensorflowVersion ?? 'unknown',
      intraOpThreads: Number(native.TF_NUM_INTRAOP_THREADS),
      interOpThreads: Number(native.TF_NUM_INTEROP_THREADS),
      onednnOpts: native.TF_ENABLE_ONEDNN_OPTS,
      deterministicOps: native.TF_DETERMINISTIC_OPS,
      cpuAllocatorBfc: native.TF_CPU_ALLOCATOR_USE_BFC,
      // the graphs (WORKBENCH_DECODE_GRAPH=0 turns all off): sampling's decode step (src/models/decode-graph.ts; the
      // eager step's numbers at the tested shapes, last-bit differences past them: docs/engine.md) and, with kernels
      // 2, the transformer's prefill and its training passes (train-graph.ts), so a run records which ones ran
      decodeGraph: settings.decodeGraph ? 'on' : 'off',
    });
  } else info.threads = 1;
  return info;
}

/**
 * Initialise the backend for `settings` (built once by the CLI from the environment) and describe the engine as a
 * run records it: the backend's name and engineInfo (src/io/run.ts, openRun).
 */
export async function startEngine(settings: EngineSettings = engineSettings()): Promise<EngineRecord> {
  const backend = await initBackend(settings);
  return { backend, engine: engineInfo(settings) };
}

/**
 * The engine's variables as a fresh process has them, for a long-lived worker's next run (src/cli/worker.ts): every
 * variable disposed, and tfjs's counter that names unnamed variables back at 0 (the weights are unnamed, an optimizer's
 * slots are named after them, and checkpoints record those names: `0/m`, not `279/m`, in a worker's second run).
 */
export function resetVariables(): void {
  tf.disposeVariables();
  Object.assign(tf.engine().constructor, { nextVariableId: 0 }); // the Engine class's static counter
}

/**
 * What the workbench reads of tfjs-node's backend beyond tfjs' types: its binding's TensorFlow version, and the
 * SavedModel session calls the decode and training graphs run through (decode-graph.ts).
 */
export interface NativeBackend {
  binding: { TF_Version: string };
  loadSavedModelMetaGraph(dir: string, tags: string): number;
  runSavedModel(
    id: number,
    inputs: tf.Tensor[],
    infos: { name: string; tfDtype: string }[],
    outputs: string[],
  ): tf.Tensor[];
}

/** The native backend's internals: tfjs types `tf.backend()` as the abstract KernelBackend, which declares none of them. */
export const nativeBackend = () => tf.backend() as unknown as NativeBackend;
