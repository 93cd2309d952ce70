// A tiny llama-architecture model with random weights, written as GGUF v3 (llama.cpp's file format), so that the
// LLM-judge path can be tested against a real inference engine with no weights to download. Its text is gibberish
// by construction: it tests plumbing (chat template, JSON-schema-constrained output, timeouts, concurrency), never
// quality. Layout (ggml's GGUF spec): header, metadata key/values, tensor infos, padding to the alignment, data.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeRng } from '../util/random.js';

export interface TinyLlamaOptions {
  /** embedding width (n_embd), heads, layers, feed-forward width, context length */
  embd: number;
  heads: number;
  layers: number;
  ff: number;
  context: number;
  seed: number;
}

export const defaultTinyLlama: TinyLlamaOptions = { embd: 64, heads: 4, layers: 2, ff: 128, context: 4096, seed: 0 };

const ALIGN = 32;
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, STRING: 8, ARRAY: 9 } as const;
type Value =
  | { type: 'u32' | 'f32'; v: number }
  | { type: 'str'; v: string }
  | { type: 'strs'; v: string[] }
  | { type: 'f32s'; v: number[] }
  | { type: 'i32s'; v: number[] };

/** A sentencepiece-style vocabulary: <unk>, <s>, </s>, the 256 byte tokens, printable ASCII, and ▁ (a space). */
export function tinyVocab(): { tokens: string[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'],
    types = [2, 3, 3]; // unknown, control, control
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
  }
  for (let c = 33; c < 127; c++) {
    tokens.push(String.fromCharCode(c));
    types.push(1);
  }
  tokens.push('\u2581');
  types.push(1);
  return { tokens, types };
}

/** A chat template (Jinja, as llama.cpp and node-llama-cpp read it): `<|role|>\ncontent\n` turns, then the reply's. */
export const TINY_CHAT_TEMPLATE =
  "{% for m in messages %}{{ '<|' + m['role'] + '|>\\n' + m['content'] + '\\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}";

class Writer {
  private parts: Buffer[] = [];
  size = 0;
  push(b: Buffer) {
    this.parts.push(b);
    this.size += b.length;
  }
  u32(n: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  u64(n: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  f32(n: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad() {
    const n = (ALIGN - (this.size % ALIGN)) % ALIGN;
    if (n) this.push(Buffer.alloc(n));
  }
  value(v: Value) {
    switch (v.type) {
      case 'u32':
        this.u32(T.UINT32);
        this.u32(v.v);
        break;
      case 'f32':
        this.u32(T.FLOAT32);
        this.f32(v.v);
        break;
      case 'str':
        this.u32(T.STRING);
        this.str(v.v);
        break;
      case 'strs':
        this.u32(T.ARRAY);
        this.u32(T.STRING);
        this.u64(v.v.length);
        v.v.forEach((s) => this.str(s));
        break;
      case 'f32s':
        this.u32(T.ARRAY);
        this.u32(T.FLOAT32);
        this.u64(v.v.length);
        v.v.forEach((x) => this.f32(x));
        break;
      case 'i32s':
        this.u32(T.ARRAY);
        this.u32(T.INT32);
        this.u64(v.v.length);
        v.v.forEach((x) => this.i32(x));
        break;
    }
  }
  bytes() {
    return Buffer.concat(this.parts);
  }
}

/** The tensors of a llama model, ggml's shapes (innermost dimension first). */
function tensorShapes(o: TinyLlamaOptions, vocab: number): [string, number[]][] {
  const shapes: [string, number[]][] = [['token_embd.weight', [o.embd, vocab]]];
  for (let l = 0; l < o.layers; l++) {
    const b = `blk.${l}.`;
    shapes.push(
      [`${b}attn_norm.weight`, [o.embd]],
      [`${b}attn_q.weight`, [o.embd, o.embd]],
      [`${b}attn_k.weight`, [o.embd, o.embd]],
      [`${b}attn_v.weight`, [o.embd, o.embd]],
      [`${b}attn_output.weight`, [o.embd, o.embd]],
      [`${b}ffn_norm.weight`, [o.embd]],
      [`${b}ffn_gate.weight`, [o.embd, o.ff]],
      [`${b}ffn_up.weight`, [o.embd, o.ff]],
      [`${b}ffn_down.weight`, [o.ff, o.embd]],
    );
  }
  shapes.push(['output_norm.weight', [o.embd]], ['output.weight', [o.embd, vocab]]);
  return shapes;
}

/** The GGUF file's bytes: F32 weights drawn N(0, 0.02²) from `seed`, the norms' weights at 1. */
export function tinyLlamaGguf(opts: Partial<TinyLlamaOptions> = {}): Buffer {
  const o = { ...defaultTinyLlama, ...opts };
  if (o.embd % o.heads !== 0) throw new Error(`embd ${o.embd} is not a multiple of heads ${o.heads}`);
  const { tokens, types } = tinyVocab();
  const meta: [string, Value][] = [
    ['general.architecture', { type: 'str', v: 'llama' }],
    ['general.name', { type: 'str', v: 'tiny-random-llama' }],
    ['general.alignment', { type: 'u32', v: ALIGN }],
    ['llama.context_length', { type: 'u32', v: o.context }],
    ['llama.embedding_length', { type: 'u32', v: o.embd }],
    ['llama.block_count', { type: 'u32', v: o.layers }],
    ['llama.feed_forward_length', { type: 'u32', v: o.ff }],
    ['llama.attention.head_count', { type: 'u32', v: o.heads }],
    ['llama.attention.head_count_kv', { type: 'u32', v: o.heads }],
    ['llama.rope.dimension_count', { type: 'u32', v: o.embd / o.heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', v: 1e-5 }],
    ['tokenizer.ggml.model', { type: 'str', v: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strs', v: tokens }],
    ['tokenizer.ggml.scores', { type: 'f32s', v: tokens.map((_, i) => -i) }],
    ['tokenizer.ggml.token_type', { type: 'i32s', v: types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', v: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', v: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', v: 2 }],
    ['tokenizer.chat_template', { type: 'str', v: TINY_CHAT_TEMPLATE }],
  ];
  const shapes = tensorShapes(o, tokens.length);
  const w = new Writer();
  w.push(Buffer.from('GGUF', 'ascii'));
  w.u32(3);
  w.u64(shapes.length);
  w.u64(meta.length);
  for (const [k, v] of meta) {
    w.str(k);
    w.value(v);
  }
  let offset = 0;
  for (const [name, dims] of shapes) {
    w.str(name);
    w.u32(dims.length);
    dims.forEach((d) => w.u64(d));
    w.u32(0 /* F32 */);
    w.u64(offset);
    offset += Math.ceil((dims.reduce((a, b) => a * b, 1) * 4) / ALIGN) * ALIGN;
  }
  w.pad();
  const rng = makeRng(o.seed);
  for (const [name, dims] of shapes) {
    const n = dims.reduce((a, b) => a * b, 1),
      data = Buffer.alloc(Math.ceil((n * 4) / ALIGN) * ALIGN);
    const norm = name.endsWith('norm.weight');
    for (let i = 0; i < n; i++) data.writeFloatLE(norm ? 1 : 0.02 * rng.normal(), i * 4);
    w.push(data);
  }
  return w.bytes();
}

/** The default tiny model written to `dir`/tiny-random-llama.gguf (made if missing); returns the file's path. */
export function writeTinyLlamaGguf(dir: string): string {
  const file = path.join(dir, 'tiny-random-llama.gguf');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, tinyLlamaGguf());
  return file;
}
