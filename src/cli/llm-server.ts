// An OpenAI-compatible chat-completions endpoint over a local llama.cpp engine: node-llama-cpp's prebuilt CPU binary,
// which `make setup` installs under tools/llm (apart from the workbench's packages, so that its GPU builds are never
// fetched). Routes: GET /v1/models, POST /v1/chat/completions (non-streaming; `response_format` json_schema or
// json_object becomes a grammar, so the output always parses; the schema keywords the grammar cannot enforce, such as
// numeric bounds, are named in the reply's X-Unenforced-Schema-Keywords header). One model and one context sequence: requests are
// served one at a time, in arrival order. The tests run it on the random-weight GGUF of src/models/gguf.ts (the text
// is gibberish by construction); `make serve-llm MODEL=file.gguf` serves any GGUF.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { HttpError } from '../io/json-http.js';

/** Where `make setup` installs the engine and the official OpenAI client. */
export const LLM_TOOLS = path.resolve('tools', 'llm');

/** A package installed under tools/llm, loaded as ESM; a one-line error when `make setup` has not installed it. */
export async function importLlmTool<T = unknown>(name: string): Promise<T> {
  const req = createRequire(path.join(LLM_TOOLS, 'package.json'));
  let entry: string;
  try {
    entry = req.resolve(name);
  } catch {
    throw new Error(`${name} is not installed under ${LLM_TOOLS} (run make setup)`);
  }
  return (await import(pathToFileURL(entry).href)) as T;
}

export interface LlmServerOptions {
  modelPath: string;
  /** the name /v1/models lists and replies carry (default: the file's stem) */
  modelName?: string;
  host?: string;
  port?: number;
  /** llama.cpp threads: 1 by default (with 2 on this 2-core VM, thread-sync stalls cost ~220 ms a token) */
  threads?: number;
  contextSize?: number;
  /** the most tokens a reply may have, whatever max_tokens asks */
  maxTokensCap?: number;
  /** the largest request body accepted */
  maxBody?: number;
  /** the sampler's seed where a request names none (default 0: the same request gets the same reply) */
  seed?: number;
}

export interface LlmServerStats {
  requests: number;
  completions: number;
  errors: number;
  maxQueued: number;
}

interface Message {
  role: string;
  content: string;
}

/** The request's chat turns as node-llama-cpp's history plus the last user turn (the prompt). */
export function toHistory(messages: Message[]): { history: Record<string, unknown>[]; prompt: string } {
  if (messages.length === 0) throw new HttpError(400, 'messages must not be empty');
  const last = messages[messages.length - 1];
  if (last.role !== 'user') throw new HttpError(400, "the last message must be the user's");
  const history = messages.slice(0, -1).map((m) => {
    if (m.role === 'system' || m.role === 'developer') return { type: 'system', text: m.content };
    if (m.role === 'user') return { type: 'user', text: m.content };
    if (m.role === 'assistant') return { type: 'model', response: [m.content] };
    throw new HttpError(400, `unknown message role "${m.role}"`);
  });
  return { history, prompt: last.content };
}

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** Keywords of JSON Schema that node-llama-cpp's grammar does not enforce (it ignores them without a word). */
const UNENFORCED = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
];

/**
 * The keywords of a schema that the engine's grammar will not enforce (sorted, once each), so that a client can be
 * told; throws on a `type` that JSON Schema does not have (node-llama-cpp would silently read it as "any").
 */
export function unenforcedKeywords(schema: unknown, at = 'schema'): string[] {
  const found = new Set<string>();
  const walk = (x: unknown, where: string) => {
    if (Array.isArray(x)) {
      x.forEach((v, k) => walk(v, `${where}[${k}]`));
      return;
    }
    if (typeof x !== 'object' || x === null) return;
    const o = x as Record<string, unknown>;
    for (const t of [o.type].flat()) {
      if (t !== undefined && !JSON_TYPES.has(t as string)) {
        throw new HttpError(400, `response_format: ${where}.type "${String(t)}" is not a JSON Schema type`);
      }
    }
    for (const k of UNENFORCED) if (k in o) found.add(k);
    for (const [k, v] of Object.entries(o)) {
      if (k === 'enum' || k === 'const') continue;
      if (k === 'properties' || k === '$defs' || k === 'definitions') {
        for (const [name, sub] of Object.entries((v ?? {}) as Record<string, unknown>))
          walk(sub, `${where}.${k}.${name}`);
      } else if (typeof v === 'object') walk(v, `${where}.${k}`);
    }
  };
  walk(schema, at);
  return [...found].sort();
}

/** The checked body of a chat-completions request. */
export function parseChatRequest(body: unknown): {
  messages: Message[];
  schema: Record<string, unknown> | 'json' | null;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  seed?: number;
} {
  const b = body as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    throw new HttpError(400, 'the body must be a JSON object');
  if (b.stream === true) throw new HttpError(400, 'streaming is not supported');
  if (!Array.isArray(b.messages)) throw new HttpError(400, 'messages must be a list');
  const messages = b.messages.map((m, k) => {
    const o = m as Record<string, unknown>;
    if (typeof o?.role !== 'string' || typeof o.content !== 'string') {
      throw new HttpError(400, `messages[${k}] must be {role, content} with string content`);
    }
    return { role: o.role, content: o.content };
  });
  const num = (k: string) => {
    if (b[k] === undefined || b[k] === null) return undefined;
    if (typeof b[k] !== 'number' || !Number.isFinite(b[k])) throw new HttpError(400, `${k} must be a number`);
    return b[k] as number;
  };
  const rf = b.response_format as Record<string, unknown> | undefined;
  let schema: Record<string, unknown> | 'json' | null = null;
  if (rf?.type === 'json_object') schema = 'json';
  else if (rf?.type === 'json_schema') {
    const s = (rf.json_schema as Record<string, unknown> | undefined)?.schema;
    if (typeof s !== 'object' || s === null)
      throw new HttpError(400, 'response_format.json_schema.schema must be an object');
    schema = s as Record<string, unknown>;
  } else if (rf !== undefined && rf?.type !== 'text')
    throw new HttpError(400, `unknown response_format type "${rf?.type}"`);
  const maxTokens = num('max_completion_tokens') ?? num('max_tokens');
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new HttpError(400, 'max_tokens must be a positive integer');
  }
  return { messages, schema, maxTokens, temperature: num('temperature'), topP: num('top_p'), seed: num('seed') };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- node-llama-cpp is loaded at run time from tools/llm */
export async function startLlmServer(o: LlmServerOptions) {
  if (!fs.existsSync(o.modelPath)) throw new Error(`no model file ${o.modelPath}`);
  // biome-ignore lint/suspicious/noExplicitAny: node-llama-cpp is imported at run time from tools/llm, untyped here
  const L: any = await importLlmTool('node-llama-cpp');
  const llama = await L.getLlama({ gpu: false, build: 'never', logLevel: 'error' });
  const model = await llama.loadModel({ modelPath: o.modelPath });
  const context = await model.createContext({ contextSize: o.contextSize ?? 4096, threads: o.threads ?? 1 });
  const sequence = context.getSequence();
  const completion = new L.LlamaCompletion({ contextSequence: sequence });
  const wrapper = L.resolveChatWrapper(model);
  const name = o.modelName ?? path.basename(o.modelPath).replace(/\.gguf$/, '');
  const cap = o.maxTokensCap ?? 1024,
    maxBody = o.maxBody ?? 4 * 1024 * 1024;
  const grammars = new Map<string, Promise<unknown>>();
  const grammarFor = (schema: Record<string, unknown> | 'json') => {
    const key = schema === 'json' ? 'json' : JSON.stringify(schema);
    if (!grammars.has(key)) {
      grammars.set(key, schema === 'json' ? llama.getGrammarFor('json') : llama.createGrammarForJsonSchema(schema));
    }
    return grammars.get(key)!;
  };
  const stats: LlmServerStats = { requests: 0, completions: 0, errors: 0, maxQueued: 0 };
  let queued = 0,
    chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    queued++;
    stats.maxQueued = Math.max(stats.maxQueued, queued);
    const p = chain.then(f).finally(() => {
      queued--;
    });
    chain = p.catch(() => undefined);
    return p;
  };

  const complete = async (req: ReturnType<typeof parseChatRequest>) => {
    const { history, prompt } = toHistory(req.messages);
    const unenforced = req.schema && req.schema !== 'json' ? unenforcedKeywords(req.schema) : [];
    let grammar: unknown;
    try {
      grammar = req.schema ? await grammarFor(req.schema) : undefined;
    } catch (e) {
      grammars.delete(req.schema === 'json' ? 'json' : JSON.stringify(req.schema));
      throw new HttpError(400, `response_format: the schema cannot be turned into a grammar (${(e as Error).message})`);
    }
    // the model's own chat template renders the turns (node-llama-cpp's wrapper for it); the reply is a plain
    // completion of that text, so that a newline inside constrained JSON never reads as the end of the turn
    const state = wrapper.generateContextState({
      chatHistory: [...history, { type: 'user', text: prompt }, { type: 'model', response: [] }],
    });
    return serial(async () => {
      await sequence.clearHistory();
      const before = sequence.tokenMeter.usedInputTokens,
        outBefore = sequence.tokenMeter.usedOutputTokens;
      const r = await completion.generateCompletionWithMeta(state.contextText, {
        grammar,
        maxTokens: Math.min(req.maxTokens ?? cap, cap),
        temperature: req.temperature ?? 0.8,
        topP: req.topP,
        seed: req.seed ?? o.seed ?? 0,
        customStopTriggers: grammar ? undefined : state.stopGenerationTriggers,
      });
      return {
        text: r.response as string,
        unenforced,
        finish: r.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        usage: {
          prompt_tokens: sequence.tokenMeter.usedInputTokens - before,
          completion_tokens: sequence.tokenMeter.usedOutputTokens - outBefore,
        },
      };
    });
  };

  const reply = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };
  const fail = (res: http.ServerResponse, status: number, message: string) => {
    stats.errors++;
    reply(res, status, { error: { message, type: status < 500 ? 'invalid_request_error' : 'server_error' } });
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    const url = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && url === '/v1/models') {
      reply(res, 200, { object: 'list', data: [{ id: name, object: 'model', created: 0, owned_by: 'local' }] });
      return;
    }
    if (url !== '/v1/chat/completions') {
      fail(res, 404, `no route ${url}`);
      return;
    }
    if (req.method !== 'POST') {
      fail(res, 405, 'use POST');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) {
        fail(res, 413, `body over ${maxBody} bytes`);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let parsed: ReturnType<typeof parseChatRequest>;
      try {
        parsed = parseChatRequest(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))));
      } catch (e) {
        fail(res, e instanceof HttpError ? e.status : 400, e instanceof HttpError ? e.message : 'malformed JSON');
        return;
      }
      complete(parsed).then(
        (r) => {
          stats.completions++;
          reply(
            res,
            200,
            {
              id: `chatcmpl-${stats.completions}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: name,
              choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: r.finish }],
              usage: { ...r.usage, total_tokens: r.usage.prompt_tokens + r.usage.completion_tokens },
            },
            // the schema's keywords the grammar did not enforce (the reply may break them): the client is told
            r.unenforced.length ? { 'X-Unenforced-Schema-Keywords': r.unenforced.join(',') } : {},
          );
        },
        (e) => fail(res, e instanceof HttpError ? e.status : 500, (e as Error).message),
      );
    });
  });
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', r));
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${addr.address}:${addr.port}/v1`,
    model: name,
    stats,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await chain;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
