// The transformer's decode step as one TensorFlow graph, for the native backend. Eagerly, a step is about 130
// small ops, each a round trip through tfjs and TensorFlow's eager runtime (about 30 us each, most of a step's
// time); as a graph it is one session call. The graph is written here, op for op the eager step of
// transformer.ts (the same TensorFlow kernels in the same order: BatchMatMulV2 for every matmul, tfjs's moments,
// its GELU), held in a SavedModel with no variables (the weights are inputs, so one graph serves every update of
// the weights) under the system's temporary folder, and run through tfjs-node's session binding. The test
// (test/decode-graph.test.ts) checks its logits and caches equal the eager step's, bit for bit.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { nativePackage, tf } from './backend.js';

const DT_FLOAT = 1, DT_INT32 = 3;

/** The shapes a decode graph depends on. */
export interface DecodeGraphSpec { layers: number; heads: number; dModel: number; alibi: boolean; eps: number }

/** Input names of the graph, in the order `run` takes them. */
export function decodeInputs(s: DecodeGraphSpec): string[] {
  const perLayer = ['ln1_g', 'ln1_b', 'wqkv', 'wo', 'ln2_g', 'ln2_b', 'w1', 'b1', 'w2', 'b2'];
  return ['tokens', ...(s.alibi ? ['slopes'] : ['positions']), 'key_mask', 'tok_emb', ...(s.alibi ? [] : ['pos_emb']),
    ...Array.from({ length: s.layers }, (_, l) => [...perLayer.map((p) => `l${l}_${p}`), `l${l}_k`, `l${l}_v`]).flat(),
    'lnf_g', 'lnf_b', 'head'];
}

const dtypeOf = (input: string) => (input === 'tokens' || input === 'positions' ? DT_INT32 : DT_FLOAT);

/** Output names: the logits, the grown key mask, each layer's grown keys and values. */
export const decodeOutputs = (s: DecodeGraphSpec) =>
  ['logits', 'key_mask_out', ...Array.from({ length: s.layers }, (_, l) => [`l${l}_k_out`, `l${l}_v_out`]).flat()];

type Proto = Record<string, (...a: unknown[]) => unknown> & { [k: string]: any };

/** The SavedModel bytes of the decode step. */
export function decodeGraphBytes(s: DecodeGraphSpec, pb: Proto): Uint8Array {
  const g = new pb.GraphDef();
  const attr = (set: (a: Proto) => void) => { const a = new pb.AttrValue(); set(a); return a; };
  const type = (t: number) => attr((a) => a.setType(t));
  const unknown = () => { const sh = new pb.TensorShape(); sh.setUnknownRank(true); return sh; };
  let n = 0;
  const op = (kind: string, inputs: string[], attrs: Record<string, unknown> = {}, name = `${kind}_${n++}`) => {
    const nd = new pb.NodeDef();
    nd.setName(name); nd.setOp(kind); nd.setInputList(inputs);
    for (const [k, v] of Object.entries(attrs)) nd.getAttrMap().set(k, v);
    g.addNode(nd);
    return name;
  };
  const T = { T: type(DT_FLOAT) };
  const bool = (v: boolean) => attr((a) => a.setB(v)), int = (v: number) => attr((a) => a.setI(v));
  const constant = (dtype: number, values: number[], shape: number[]) => {
    const t = new pb.Tensor();
    t.setDtype(dtype);
    const sh = new pb.TensorShape();
    for (const d of shape) { const dim = new pb.TensorShape.Dim(); dim.setSize(d); sh.addDim(dim); }
    t.setTensorShape(sh);
    if (dtype === DT_FLOAT) t.setFloatValList(values); else t.setIntValList(values);
    return op('Const', [], { dtype: type(dtype), value: attr((a) => a.setTensor(t)) });
  };
  const ints = (v: number[]) => constant(DT_INT32, v, [v.length]);
  const scalar = (v: number) => constant(DT_FLOAT, [v], []);
  const input = (name: string, dtype = DT_FLOAT) =>
    op('Placeholder', [], { dtype: type(dtype), shape: attr((a) => a.setShape(unknown())) }, name);
  const add = (a: string, b: string) => op('Add', [a, b], T), mul = (a: string, b: string) => op('Mul', [a, b], T);
  const matMul = (a: string, b: string, adjY = false) =>
    op('BatchMatMulV2', [a, b], { ...T, adj_x: bool(false), adj_y: bool(adjY) });
  const reshape = (x: string, shape: number[]) => op('Reshape', [x, ints(shape)], { ...T, Tshape: type(DT_INT32) });
  const reduce = (kind: string, x: string, axis: number) =>
    op(kind, [x, ints([axis])], { ...T, Tidx: type(DT_INT32), keep_dims: bool(true) });
  const mean = (x: string) => reduce('Mean', x, 1);
  const concat = (a: string, b: string, axis: number) =>
    op('ConcatV2', [a, b, constant(DT_INT32, [axis], [])], { ...T, N: int(2), Tidx: type(DT_INT32) });
  const gather = (params: string, ids: string) => op('GatherV2', [params, ids, constant(DT_INT32, [0], [])],
    { Tparams: type(DT_FLOAT), Tindices: type(DT_INT32), Taxis: type(DT_INT32), batch_dims: int(0) });
  const eps = scalar(s.eps);
  // tfjs's moments: mean, then the mean of square(x - mean); then (x - mean) * rsqrt(var + eps) * gain + bias
  const layerNorm = (x: string, g: string, b: string) => {
    const m = mean(x), v = mean(op('Square', [op('Sub', [x, m], T)], T));
    return add(mul(mul(op('Sub', [x, m], T), op('Rsqrt', [add(v, eps)], T)), g), b);
  };
  // Softmax as TensorFlow's CPU kernel computes it (exp(x - max), times 1 / sum): oneDNN's graph pass would swap
  // the Softmax op for its own kernel, which the eager step (Eigen's) does not use
  const softmax = (x: string) => {
    const e = op('Exp', [op('Sub', [x, reduce('Max', x, -1)], T)], T);
    return mul(e, op('Reciprocal', [reduce('Sum', e, -1)], T));
  };
  const { layers: L, heads: H, dModel: d } = s, dh = d / H;

  for (const name of decodeInputs(s)) input(name, dtypeOf(name));
  const km = concat('key_mask', op('ZerosLike', [op('Slice', ['key_mask', ints([0, 0, 0, 0]), ints([-1, 1, 1, 1])],
    { ...T, Index: type(DT_INT32) })], T), 3);
  op('Identity', [km], T, 'key_mask_out');
  let x = gather('tok_emb', 'tokens');
  if (!s.alibi) x = add(x, gather('pos_emb', 'positions'));
  // ALiBi: the new token's distance to key j is tk - 1 - j (tk keys, left padding included)
  let bias = km;
  if (s.alibi) {
    const shape = op('Shape', [km], { ...T, out_type: type(DT_INT32) });
    const tk = op('StridedSlice', [shape, ints([3]), ints([4]), ints([1])], { T: type(DT_INT32), Index: type(DT_INT32),
      shrink_axis_mask: int(1), begin_mask: int(0), end_mask: int(0), ellipsis_mask: int(0), new_axis_mask: int(0) });
    const start = op('Cast', [op('Sub', [tk, constant(DT_INT32, [1], [])], { T: type(DT_INT32) })],
      { SrcT: type(DT_INT32), DstT: type(DT_FLOAT), Truncate: bool(false) });
    const range = op('Range', [start, scalar(-1), scalar(-1)], { Tidx: type(DT_FLOAT) });
    bias = add(km, mul('slopes', op('Reshape', [range, ints([1, 1, 1, -1])], { ...T, Tshape: type(DT_INT32) })));
  }
  const scale = scalar(1 / Math.sqrt(dh)), c1702 = scalar(1.702);
  for (let l = 0; l < L; l++) {
    const p = (w: string) => `l${l}_${w}`;
    const h = layerNorm(x, p('ln1_g'), p('ln1_b'));
    const qkv = matMul(h, p('wqkv'));
    const split = op('SplitV', [qkv, ints([d, d, d]), constant(DT_INT32, [1], [])],
      { ...T, Tlen: type(DT_INT32), num_split: int(3) });
    const [q, k1, v1] = [0, 1, 2].map((i) => reshape(`${split}:${i}`, [-1, H, 1, dh]));
    const k = concat(p('k'), k1, 2), v = concat(p('v'), v1, 2);
    op('Identity', [k], T, p('k_out'));
    op('Identity', [v], T, p('v_out'));
    const att = softmax(add(mul(matMul(q, k, true), scale), bias));
    const y = reshape(matMul(att, v), [-1, d]);
    x = add(x, matMul(y, p('wo')));
    const h2 = layerNorm(x, p('ln2_g'), p('ln2_b'));
    const u = add(matMul(h2, p('w1')), p('b1'));
    const gelu = mul(u, op('Sigmoid', [mul(u, c1702)], T));
    x = add(x, add(matMul(gelu, p('w2')), p('b2')));
  }
  op('Identity', [matMul(layerNorm(x, 'lnf_g', 'lnf_b'), 'head')], T, 'logits');

  const meta = new pb.MetaGraphDef();
  const info = new pb.MetaGraphDef.MetaInfoDef();
  info.setTagsList(['serve']);
  meta.setMetaInfoDef(info);
  meta.setGraphDef(g);
  const sig = new pb.SignatureDef();
  sig.setMethodName('tensorflow/serving/predict');
  const tensorInfo = (name: string, dtype: number) => {
    const t = new pb.TensorInfo(); t.setName(`${name}:0`); t.setDtype(dtype); t.setTensorShape(unknown()); return t;
  };
  for (const name of decodeInputs(s)) sig.getInputsMap().set(name, tensorInfo(name, dtypeOf(name)));
  for (const name of decodeOutputs(s)) sig.getOutputsMap().set(name, tensorInfo(name, DT_FLOAT));
  meta.getSignatureDefMap().set('serving_default', sig);
  const sm = new pb.SavedModel();
  sm.setSavedModelSchemaVersion(1);
  sm.addMetaGraphs(meta);
  return sm.serializeBinary() as Uint8Array;
}

interface NativeBackend {
  loadSavedModelMetaGraph(dir: string, tags: string): number;
  runSavedModel(id: number, inputs: tf.Tensor[], infos: { name: string; tfDtype: string }[], outputs: string[]):
    tf.Tensor[];
}

export interface DecodeGraph { run(inputs: tf.Tensor[]): tf.Tensor[] }

const loaded = new Map<string, DecodeGraph>();

/**
 * The decode graph for `s`, loaded once per process (its SavedModel written once per machine, named by its
 * content's hash); null off the native backend, or where tfjs-node's session binding is missing.
 */
export function decodeGraph(s: DecodeGraphSpec): DecodeGraph | null {
  if (tf.getBackend() !== 'tensorflow' || process.env.WORKBENCH_DECODE_GRAPH === '0') return null;
  const key = JSON.stringify(s);
  if (loaded.has(key)) return loaded.get(key)!;
  const backend = tf.backend() as unknown as NativeBackend;
  let pb: Proto;
  try {
    const require = createRequire(import.meta.url);
    const dist = path.dirname(require.resolve(nativePackage() ?? 'tfjs-node-native'));
    pb = require(path.join(dist, 'proto', 'api_pb.js')) as Proto;
  } catch { return null; }
  const bytes = decodeGraphBytes(s, pb);
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `workbench-decode-${hash}`);
  if (!fs.existsSync(path.join(dir, 'saved_model.pb'))) {
    const tmp = `${dir}.${process.pid}`;
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(path.join(tmp, 'saved_model.pb'), bytes);
    try { fs.renameSync(tmp, dir); } catch { fs.rmSync(tmp, { recursive: true, force: true }); } // another process won
  }
  const id = backend.loadSavedModelMetaGraph(dir, 'serve');
  const infos = decodeInputs(s).map((name) =>
    ({ name: `${name}:0`, tfDtype: dtypeOf(name) === DT_INT32 ? 'DT_INT32' : 'DT_FLOAT' }));
  const outputs = decodeOutputs(s).map((name) => `${name}:0`);
  const graph = { run: (inputs: tf.Tensor[]) => backend.runSavedModel(id, inputs, infos, outputs) };
  loaded.set(key, graph);
  return graph;
}
