// An LLM rubricator and judge over an OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
// Ollama, verl's GenRM router): POST {baseURL}/chat/completions. A concurrency limit, a timeout per attempt, retries
// with exponential backoff on 429, 5xx, timeouts and connection errors (Retry-After honoured, capped), and a cache
// of successful replies keyed by (model, prompt) (concurrent identical calls share one request). Nothing here
// throws on a bad endpoint or bad model output: a malformed reply or output is a format failure, counted in stats.
// The roles (RLCER's rubricator, the criterion judge, Rubicon's per-dimension scorer) ask for JSON with a JSON
// schema (response_format json_schema) and check the output; the reward arithmetic stays in src/rubrics/.
import { CATEGORY_NAMES } from '../rubrics/criteria.js';
import { MAX_ITEMS, POINTS } from '../rubrics/rubric.js';
import type { Dimension } from '../rubrics/aggregators.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
export interface JsonSchema {
  name: string;
  schema: Record<string, unknown>;
}

export interface ChatOptions {
  /** e.g. http://127.0.0.1:8000/v1 */
  baseURL: string;
  model: string;
  apiKey?: string;
  /** requests in flight at most */
  concurrency: number;
  /** per attempt */
  timeoutMs: number;
  /** attempts after the first, on 429, 5xx, a timeout or a connection error */
  retries: number;
  /** backoff before retry k (0-based): backoffMs * 2^k, at most maxBackoffMs (a Retry-After header wins, capped) */
  backoffMs: number;
  maxBackoffMs: number;
  /** cached replies at most (oldest dropped first); 0 = no cache */
  cacheSize: number;
  /** the reply cache, keyed by (model, prompt): pass one Map to several backends (a rubricator and a judge model) */
  cache?: Map<string, Promise<ChatResult>>;
  temperature: number;
  maxTokens: number;
}

export const defaultChatOptions: Omit<ChatOptions, 'baseURL' | 'model'> = {
  concurrency: 8,
  timeoutMs: 60_000,
  retries: 4,
  backoffMs: 500,
  maxBackoffMs: 20_000,
  cacheSize: 10_000,
  temperature: 0,
  maxTokens: 1024,
};

export interface ChatStats {
  requests: number;
  retries: number;
  timeouts: number;
  httpErrors: number;
  cacheHits: number;
  formatFailures: number;
  failures: number;
}

export type ChatResult = { ok: true; content: string } | { ok: false; reason: string; format: boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChatBackend {
  readonly o: ChatOptions;
  readonly stats: ChatStats = {
    requests: 0,
    retries: 0,
    timeouts: 0,
    httpErrors: 0,
    cacheHits: 0,
    formatFailures: 0,
    failures: 0,
  };
  private active = 0;
  private waiting: (() => void)[] = [];
  private cache: Map<string, Promise<ChatResult>>;

  constructor(o: Partial<ChatOptions> & Pick<ChatOptions, 'baseURL' | 'model'>) {
    this.o = { ...defaultChatOptions, ...o };
    this.cache = this.o.cache ?? new Map();
    if (!(Number.isInteger(this.o.concurrency) && this.o.concurrency >= 1)) {
      throw new Error('concurrency must be an integer >= 1');
    }
  }

  /** Requests in flight now (never above the concurrency limit). */
  inFlight(): number {
    return this.active;
  }

  private async slot<T>(f: () => Promise<T>): Promise<T> {
    if (this.active >= this.o.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** One chat completion's text; cached by (model, messages, schema) when it succeeded. */
  complete(messages: ChatMessage[], schema?: JsonSchema): Promise<ChatResult> {
    const key = JSON.stringify([this.o.model, messages, schema ?? null]);
    const hit = this.cache.get(key);
    if (hit) {
      this.stats.cacheHits++;
      return hit;
    }
    const p = this.slot(() => this.attempts(messages, schema)).then((r) => {
      if (!r.ok) {
        this.cache.delete(key);
        this.stats.failures++;
        if (r.format) this.stats.formatFailures++;
      }
      return r;
    });
    if (this.o.cacheSize > 0) {
      this.cache.set(key, p);
      if (this.cache.size > this.o.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    }
    return p;
  }

  private async attempts(messages: ChatMessage[], schema?: JsonSchema): Promise<ChatResult> {
    const body = JSON.stringify({
      model: this.o.model,
      messages,
      temperature: this.o.temperature,
      max_tokens: this.o.maxTokens,
      ...(schema
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: schema.name, schema: schema.schema, strict: true },
            },
          }
        : {}),
    });
    let last = 'no attempt';
    for (let k = 0; ; k++) {
      let wait: number | null = null;
      this.stats.requests++;
      const ac = new AbortController(),
        timer = setTimeout(() => ac.abort(), this.o.timeoutMs);
      try {
        const res = await fetch(`${this.o.baseURL.replace(/\/+$/, '')}/chat/completions`, {
          method: 'POST',
          body,
          signal: ac.signal,
          headers: {
            'Content-Type': 'application/json',
            ...(this.o.apiKey ? { Authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
        });
        const text = await res.text();
        if (res.ok) return readCompletion(text);
        this.stats.httpErrors++;
        last = `HTTP ${res.status}: ${text.slice(0, 200).replace(/\s+/g, ' ')}`;
        if (res.status !== 429 && res.status < 500) return { ok: false, reason: last, format: false };
        // no header means no hint (Number(null) is 0, which would skip the backoff)
        const header = res.headers.get('retry-after'),
          after = header === null || header.trim() === '' ? NaN : Number(header);
        if (Number.isFinite(after) && after >= 0) wait = Math.min(after * 1000, this.o.maxBackoffMs);
      } catch (e) {
        const timedOut = ac.signal.aborted;
        if (timedOut) this.stats.timeouts++;
        last = timedOut ? `timed out after ${this.o.timeoutMs} ms` : `connection failed: ${(e as Error).message}`;
      } finally {
        clearTimeout(timer);
      }
      if (k >= this.o.retries) return { ok: false, reason: `${last} (after ${k + 1} attempts)`, format: false };
      this.stats.retries++;
      await sleep(wait ?? Math.min(this.o.backoffMs * 2 ** k, this.o.maxBackoffMs));
    }
  }

  /** A completion parsed as JSON and checked by `check` (a string is the reason it failed: a format failure). */
  async json<T>(
    messages: ChatMessage[],
    schema: JsonSchema,
    check: (x: unknown) => T | string,
  ): Promise<{ ok: true; value: T } | { ok: false; reason: string; format: boolean }> {
    const r = await this.complete(messages, schema);
    if (!r.ok) return r;
    let x: unknown;
    try {
      x = JSON.parse(stripFence(r.content));
    } catch {
      this.stats.formatFailures++;
      return { ok: false, reason: 'model output is not JSON', format: true };
    }
    const v = check(x);
    if (typeof v === 'string') {
      this.stats.formatFailures++;
      return { ok: false, reason: v, format: true };
    }
    return { ok: true, value: v };
  }
}

/** The text of an OpenAI chat.completion reply; anything else is a format failure. */
function readCompletion(text: string): ChatResult {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'reply is not JSON', format: true };
  }
  const content = (j as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  return typeof content === 'string'
    ? { ok: true, content }
    : { ok: false, reason: 'reply has no choices[0].message.content', format: true };
}

/** Models often wrap JSON in a ``` fence even when asked not to. */
const stripFence = (s: string) =>
  s
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');

// ---- roles ----

export interface LlmRubric {
  ok: boolean;
  items: { key: string; points: number }[];
  reason?: string;
}

export const RUBRIC_SCHEMA: JsonSchema = {
  name: 'rubric_set',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['question_domain', 'rubrics'],
    properties: {
      // bounded strings: a criterion is one sentence, and a sampler constrained by the schema (llama.cpp's grammar,
      // vLLM's guided decoding) then always closes the JSON within max_tokens
      question_domain: { type: 'string', maxLength: 60 },
      rubrics: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_ITEMS,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['category', 'criterion', 'points'],
          properties: {
            category: { enum: Object.values(CATEGORY_NAMES) },
            criterion: { type: 'string', maxLength: 200 },
            points: { enum: POINTS },
          },
        },
      },
    },
  },
};

/** RLCER's rubricator prompt: a rubric set (RLCER's JSON) of criteria on the reasoning that tell good CoTs from bad. */
export function rubricatorMessages(question: string, cot: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You write grading rubrics for step-by-step solutions. Reply with JSON only.' },
    {
      role: 'user',
      content:
        `Question:\n${question}\n\nA solution:\n${cot}\n\n` +
        `Write up to ${MAX_ITEMS} criteria on the reasoning (categories: ${Object.values(CATEGORY_NAMES).join('; ')}) ` +
        'that separate correct solutions of this question from wrong ones. Each criterion is one checkable sentence ' +
        `with points in {${POINTS.join(', ')}} (negative for a flaw). ` +
        'Reply as {"question_domain": ..., "rubrics": [{"category": ..., "criterion": ..., "points": ...}]}.',
    },
  ];
}

/** A rubricator's JSON as a rubric (RLCER's format rules: 1..MAX_ITEMS items, known categories, POINTS, no repeats). */
export function checkRubric(x: unknown): LlmRubric | string {
  const list = (x as { rubrics?: unknown })?.rubrics;
  if (!Array.isArray(list) || list.length === 0) return 'rubrics must be a non-empty list';
  if (list.length > MAX_ITEMS) return `more than ${MAX_ITEMS} criteria`;
  const seen = new Set<string>(),
    items: LlmRubric['items'] = [];
  for (const [k, it] of list.entries()) {
    const o = (it ?? {}) as Record<string, unknown>;
    if (!Object.values(CATEGORY_NAMES).includes(o.category as string)) return `rubrics[${k}]: unknown category`;
    if (typeof o.criterion !== 'string' || o.criterion.trim() === '') {
      return `rubrics[${k}]: criterion must be a sentence`;
    }
    if (!POINTS.includes(o.points as number)) return `rubrics[${k}]: points must be one of ${POINTS.join(', ')}`;
    const key = o.criterion.trim();
    if (seen.has(key)) return `rubrics[${k}]: duplicate criterion`;
    seen.add(key);
    items.push({ key, points: o.points as number });
  }
  return { ok: true, items };
}

const verdictSchema = (n: number): JsonSchema => ({
  name: 'verdicts',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['satisfied'],
    properties: { satisfied: { type: 'array', items: { type: 'boolean' }, minItems: n, maxItems: n } },
  },
});

/** The verifier/judge prompt: which criteria a response satisfies, one true/false each, in order. */
export function judgeMessages(question: string, response: string, criteria: string[]): ChatMessage[] {
  return [
    { role: 'system', content: 'You check whether a solution meets each criterion. Reply with JSON only.' },
    {
      role: 'user',
      content:
        `Question:\n${question}\n\nSolution:\n${response}\n\nCriteria:\n` +
        `${criteria.map((c, k) => `${k + 1}. ${c}`).join('\n')}\n\n` +
        'Reply as {"satisfied": [true or false for each criterion, in order]}.',
    },
  ];
}

const scoreSchema = (n: number): JsonSchema => ({
  name: 'dimension_scores',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['scores'],
    properties: {
      scores: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 }, minItems: n, maxItems: n },
    },
  },
});

/** Rubicon's per-dimension scoring prompt: a score in [0, 1] for each dimension, in order. */
export function dimensionMessages(
  question: string,
  response: string,
  dims: (Dimension & { description?: string })[],
): ChatMessage[] {
  const line = (d: Dimension & { description?: string }, k: number) =>
    `${k + 1}. ${d.name}${d.description ? `: ${d.description}` : ''}${d.critical ? ' (critical)' : ''}`;
  return [
    { role: 'system', content: 'You grade a response on several dimensions. Reply with JSON only.' },
    {
      role: 'user',
      content:
        `Prompt:\n${question}\n\nResponse:\n${response}\n\nDimensions:\n` +
        `${dims.map(line).join('\n')}` +
        '\n\nReply as {"scores": [a number in [0, 1] for each dimension, in order]}.',
    },
  ];
}

/** The three roles over one backend; null (or a rubric with ok false) where the model's output was malformed. */
export function llmRoles(b: ChatBackend) {
  return {
    async writeRubric(question: string, cot: string): Promise<LlmRubric> {
      const r = await b.json(rubricatorMessages(question, cot), RUBRIC_SCHEMA, checkRubric);
      return r.ok ? r.value : { ok: false, items: [], reason: r.reason };
    },
    async judge(question: string, response: string, criteria: string[]): Promise<boolean[] | null> {
      if (criteria.length === 0) return [];
      const r = await b.json(judgeMessages(question, response, criteria), verdictSchema(criteria.length), (x) => {
        const s = (x as { satisfied?: unknown })?.satisfied;
        return Array.isArray(s) && s.length === criteria.length && s.every((v) => typeof v === 'boolean')
          ? (s as boolean[])
          : `satisfied must be ${criteria.length} true/false values`;
      });
      return r.ok ? r.value : null;
    },
    async scoreDimensions(question: string, response: string, dims: Dimension[]): Promise<number[] | null> {
      const r = await b.json(dimensionMessages(question, response, dims), scoreSchema(dims.length), (x) => {
        const s = (x as { scores?: unknown })?.scores;
        return Array.isArray(s) && s.length === dims.length && s.every((v) => typeof v === 'number' && v >= 0 && v <= 1)
          ? (s as number[])
          : `scores must be ${dims.length} numbers in [0, 1]`;
      });
      return r.ok ? r.value : null;
    },
  };
}
