// Kernels for tfjs-wasm 4.22 that it lacks or runs slowly, registered when the wasm backend is chosen.
// - UnsortedSegmentSum (tf.gather's gradient) is missing: a plain JS kernel fills in.
// - Slice, Unpack (tf.unstack) and SplitV (tf.split) copy their whole input out of the wasm heap (`readSync`) for
//   every output, so cutting a [B, T, d] tensor into T steps copies it T times. The replacements read the input
//   through a view of the heap and copy only what each output holds. Same values, bit for bit (tested).
// - Identity copies its input; autodiff clones every tensor it saves for the backward pass through Identity, so
//   each op of a training step copied its inputs once more. The replacement shares the data and counts a
//   reference, as the cpu backend's Identity and wasm's own Reshape do (tensor data is never written in place:
//   a variable's assign swaps its data for new data).
import * as tf from '@tensorflow/tfjs';

type TypedArray = Float32Array | Int32Array | Uint8Array;
/** The parts of tfjs-wasm's backend these kernels use. */
interface WasmBackend {
  readSync(id: unknown): TypedArray;
  makeOutput(shape: number[], dtype: string, memoryOffset?: number, values?: TypedArray): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): TypedArray;
  incRef(id: unknown): void;
}

/** The kernel's backend, which tfjs types as `{}`: a kernel registered for 'wasm' runs on the wasm backend only. */
const wasm = (b: object) => b as WasmBackend;

/** A kernel's input as the tensor tfjs' shape helpers type it as (they read its shape only). */
const asTensor = (x: tf.TensorInfo) => x as tf.Tensor;

function registerUnsortedSegmentSum(): void {
  if (tf.getKernel('UnsortedSegmentSum', 'wasm')) return;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      const b = wasm(backend);
      const xv = b.readSync(x.dataId),
        ids = b.readSync(segmentIds.dataId);
      const n = segmentIds.shape.reduce((a, c) => a * c, 1),
        inner = xv.length / n;
      const out = new Float32Array(numSegments * inner);
      for (let i = 0; i < n; i++) {
        const s = ids[i];
        if (s < 0 || s >= numSegments) continue;
        for (let j = 0; j < inner; j++) out[s * inner + j] += xv[i * inner + j];
      }
      return b.makeOutput([numSegments, ...x.shape.slice(segmentIds.shape.length)], x.dtype, undefined, out);
    },
  });
}

const sizeOf = (shape: number[]) => shape.reduce((a, c) => a * c, 1);
const originalKernel = (name: string) => tf.getKernel(name, 'wasm')!.kernelFunc;
const replaceKernel = (name: string, kernelFunc: tf.KernelFunc) => {
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ kernelName: name, backendName: 'wasm', kernelFunc });
};

/**
 * x[begin : begin + size] as a new tensor, copying row by row (a row: the run of the last axis). The heap views
 * are taken after makeOutput, which may grow the heap and detach views taken before it.
 */
export function sliceByView(b: WasmBackend, x: tf.TensorInfo, begin: number[], size: number[]): tf.TensorInfo {
  const out = b.makeOutput(size, x.dtype);
  const n = sizeOf(size),
    rank = x.shape.length;
  if (n === 0) return out;
  const xv = b.typedArrayFromHeap(x),
    ov = b.typedArrayFromHeap(out);
  if (rank === 0) {
    ov.set(xv.subarray(0, 1));
    return out;
  }
  const strides = x.shape.map((_, i) => sizeOf(x.shape.slice(i + 1)));
  // merge the trailing axes that the slice takes whole into one contiguous run
  let inner = rank - 1;
  while (inner > 0 && begin[inner] === 0 && size[inner] === x.shape[inner]) inner--;
  const run = size[inner] * strides[inner],
    rows = n / run,
    idx = new Array(inner).fill(0);
  for (let r = 0, o = 0; r < rows; r++, o += run) {
    let offset = begin[inner] * strides[inner];
    for (let a = 0; a < inner; a++) offset += (begin[a] + idx[a]) * strides[a];
    ov.set(xv.subarray(offset, offset + run), o);
    for (let a = inner - 1; a >= 0; a--) {
      if (++idx[a] < size[a]) break;
      idx[a] = 0;
    } // next row, odometer order
  }
  return out;
}

function registerViewSlices(): void {
  if ((originalKernel('Slice') as { viewSlice?: boolean }).viewSlice) return;
  const [slice0, unpack0, splitV0] = ['Slice', 'Unpack', 'SplitV'].map(originalKernel);

  const slice: tf.KernelFunc = (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return slice0(args);
    const [begin, size] = tf.slice_util.parseSliceParams(
      asTensor(x),
      (args.attrs as { begin: number[] }).begin,
      (args.attrs as { size: number[] }).size,
    );
    return sliceByView(wasm(args.backend), x, begin, size);
  };
  (slice as { viewSlice?: boolean }).viewSlice = true;

  const unpack: tf.KernelFunc = (args) => {
    const x = args.inputs.value as tf.TensorInfo;
    if (x.dtype === 'string') return unpack0(args);
    let axis = (args.attrs as { axis: number }).axis;
    if (axis < 0) axis += x.shape.length;
    const outShape = x.shape.filter((_, i) => i !== axis),
      size = x.shape.slice();
    size[axis] = 1;
    return Array.from({ length: x.shape[axis] }, (_, i) => {
      const begin = x.shape.map((_, a) => (a === axis ? i : 0));
      const { dataId, dtype } = sliceByView(wasm(args.backend), x, begin, size);
      return { dataId, dtype, shape: outShape };
    });
  };

  const splitV: tf.KernelFunc = (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return splitV0(args);
    const { numOrSizeSplits, axis } = args.attrs as { numOrSizeSplits: number | number[]; axis: number };
    const ax = tf.util.parseAxisParam(axis, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(asTensor(x), numOrSizeSplits, ax);
    const begin = new Array(x.shape.length).fill(0);
    return sizes.map((s) => {
      const size = x.shape.slice();
      size[ax] = s;
      const out = sliceByView(wasm(args.backend), x, begin.slice(), size);
      begin[ax] += s;
      return out;
    });
  };

  replaceKernel('Slice', slice);
  replaceKernel('Unpack', unpack);
  replaceKernel('SplitV', splitV);
}

function registerSharedIdentity(): void {
  const identity0 = originalKernel('Identity');
  if ((identity0 as { shared?: boolean }).shared) return;
  const identity: tf.KernelFunc = (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return identity0(args);
    wasm(args.backend).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  };
  (identity as { shared?: boolean }).shared = true;
  replaceKernel('Identity', identity);
}

/** Register the fixes (idempotent); call after importing @tensorflow/tfjs-backend-wasm. */
export function registerWasmKernels(): void {
  registerUnsortedSegmentSum();
  registerViewSlices();
  registerSharedIdentity();
}
