// The engine's settings in one typed object, and the one place that reads them from the environment: the tensor
// backend (TFJS_BACKEND), the kernel generation (WORKBENCH_KERNELS), the native backend's graphs
// (WORKBENCH_DECODE_GRAPH), and what TensorFlow reads when its library loads (threads, oneDNN, deterministic ops, the
// CPU allocator, its log level). A CLI builds the object once (`engineSettings()`) and hands it to `startEngine`,
// `initBackend` and `engineInfo` (backend.ts), which record it in every run's config. The models' kernels ask
// `kernelVersion()` and `decodeGraphOn()` at each call: the same parsers over the same variables, so a test can switch
// a generation or the graphs for one call. No tensors here. Every variable the code reads: docs/settings.md.
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

/** The tensor backends, in the order tried when TFJS_BACKEND names none. */
export const BACKENDS = ['tensorflow', 'wasm', 'cpu'] as const;
export type BackendName = (typeof BACKENDS)[number];

/**
 * The engine's kernel generation: which formulation of the models' arithmetic runs (WORKBENCH_KERNELS, default the
 * newest). A generation changes the last bits of some numbers, never the model, so each run records it
 * (engineInfo) and a record reruns bit for bit under its own generation. 1: the kernels of every record made before
 * 2026-12-05 (records without `engine.kernels`); 2: layer norm's and GELU's backward passes in closed form, the
 * queries scaled before the score product (layers.ts, transformer.ts), and with the decode graph on the native backend
 * the transformer's prefill (decode-graph.ts, prefillGraphBytes) and its full forward and backward passes
 * (train-graph.ts) as graphs; 3: generation 2, and on the native backend the transformer's last-position pass (a
 * classifier's reading, the verifier's: decode-graph.ts, lastGraphBytes) and the GRU's recurrence, forward and
 * backward (gru-graph.ts), as graphs; 4: generation 3, and on the native backend sampling in chunks of decode steps with
 * the draws inside the graph, both families (decode-graph.ts, samplingLoop; policy.ts, sample).
 */
export const KERNEL_VERSIONS = [1, 2, 3, 4] as const;
export type KernelVersion = (typeof KERNEL_VERSIONS)[number];

/** What TensorFlow reads from the environment when its library loads. */
export interface NativeEnvironment {
  TF_NUM_INTRAOP_THREADS: string;
  TF_NUM_INTEROP_THREADS: string;
  TF_ENABLE_ONEDNN_OPTS: string;
  TF_DETERMINISTIC_OPS: string;
  TF_CPU_ALLOCATOR_USE_BFC: string;
  TF_CPP_MIN_LOG_LEVEL: string;
}

/** The engine's settings, as one process runs them. */
export interface EngineSettings {
  /** TFJS_BACKEND: the one backend to use; undefined: the first of BACKENDS that initialises */
  backend: BackendName | undefined;
  /** WORKBENCH_KERNELS: the kernel generation */
  kernels: KernelVersion;
  /** WORKBENCH_DECODE_GRAPH (anything but "0"): the native backend's graphs (decode steps, prefill, training passes) */
  decodeGraph: boolean;
  /** the native backend's environment: threads (WORKBENCH_THREADS), oneDNN, deterministic ops, the BFC allocator */
  native: NativeEnvironment;
}

/** The environment TensorFlow reads at load time, with the workbench's defaults (an explicit setting wins). */
export function nativeEnvironment(env: NodeJS.ProcessEnv = process.env): NativeEnvironment {
  const threads = env.WORKBENCH_THREADS ?? '1';
  if (!/^[1-9][0-9]*$/.test(threads))
    throw new Error(`WORKBENCH_THREADS must be a positive integer (got "${threads}")`);
  return {
    TF_NUM_INTRAOP_THREADS: env.TF_NUM_INTRAOP_THREADS ?? threads,
    TF_NUM_INTEROP_THREADS: env.TF_NUM_INTEROP_THREADS ?? threads,
    TF_ENABLE_ONEDNN_OPTS: env.TF_ENABLE_ONEDNN_OPTS ?? '1',
    TF_DETERMINISTIC_OPS: env.TF_DETERMINISTIC_OPS ?? '1',
    TF_CPU_ALLOCATOR_USE_BFC: env.TF_CPU_ALLOCATOR_USE_BFC ?? 'true',
    TF_CPP_MIN_LOG_LEVEL: env.TF_CPP_MIN_LOG_LEVEL ?? '2',
  };
}

/** WORKBENCH_KERNELS: the kernel generation (the newest when unset or empty); refuses an unknown one. */
export function kernelVersion(env: NodeJS.ProcessEnv = process.env): KernelVersion {
  const v = env.WORKBENCH_KERNELS;
  if (v === undefined || v === '') return KERNEL_VERSIONS[KERNEL_VERSIONS.length - 1];
  const n = Number(v) as KernelVersion;
  if (!KERNEL_VERSIONS.includes(n)) {
    throw new Error(`WORKBENCH_KERNELS must be one of ${KERNEL_VERSIONS.join(', ')} (got "${v}")`);
  }
  return n;
}

/** WORKBENCH_DECODE_GRAPH: the native backend's graphs run unless it is "0". */
export const decodeGraphOn = (env: NodeJS.ProcessEnv = process.env): boolean => env.WORKBENCH_DECODE_GRAPH !== '0';

/** TFJS_BACKEND: the one backend to use (undefined when unset or empty); refuses an unknown one. */
export function backendPreference(env: NodeJS.ProcessEnv = process.env): BackendName | undefined {
  const name = env.TFJS_BACKEND;
  if (!name) return undefined;
  if (!(BACKENDS as readonly string[]).includes(name)) {
    throw new Error(`TFJS_BACKEND must be tensorflow, wasm or cpu (got "${name}")`);
  }
  return name as BackendName;
}

/** The engine's settings from the environment (each refused in one line when malformed). */
export function engineSettings(env: NodeJS.ProcessEnv = process.env): EngineSettings {
  return {
    backend: backendPreference(env),
    kernels: kernelVersion(env),
    decodeGraph: decodeGraphOn(env),
    native: nativeEnvironment(env),
  };
}
