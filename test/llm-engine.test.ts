// The LLM path against a real inference engine: llama.cpp (node-llama-cpp's prebuilt CPU binary, tools/llm) serving
// the random-weight GGUF of src/models/gguf.ts behind the project's /v1/chat/completions (src/cli/llm-server.ts),
// called by the official `openai` npm client and by the workbench's ChatBackend; and one RLCER reward computation end
// to end through the reward service with that engine as rubricator and judge. The model's text is gibberish by
// construction: these tests check plumbing, schema-constrained output, errors, timeouts and concurrency, not quality.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultTinyLlama, TINY_CHAT_TEMPLATE, tinyLlamaGguf, tinyVocab } from '../src/models/gguf.js';
import {
  importLlmTool,
  parseChatRequest,
  startLlmServer,
  toHistory,
  unenforcedKeywords,
} from '../src/cli/llm-server.js';
import { ChatBackend, llmRoles } from '../src/models/chat.js';
import { MAX_ITEMS, POINTS } from '../src/rubrics/rubric.js';
import { defaultServiceConfig } from '../src/methods/service/reward-routes.js';
import { startRewardServer } from '../src/cli/reward-server.js';

// any here: the engine and the OpenAI client are loaded at run time, untyped (biome.json turns the rule off for this file)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-llm-'));
const modelPath = path.join(dir, 'tiny-random-llama.gguf');

describe('tiny random-weight GGUF (src/models/gguf.ts)', () => {
  it('writes GGUF v3 with the llama layout, the same bytes for the same seed', () => {
    const a = tinyLlamaGguf(),
      b = tinyLlamaGguf(),
      c = tinyLlamaGguf({ seed: 1 });
    assert.equal(a.subarray(0, 4).toString('ascii'), 'GGUF');
    assert.equal(a.readUInt32LE(4), 3);
    // tensors: token embedding, 9 per layer, the output norm and the output projection
    assert.equal(Number(a.readBigUInt64LE(8)), 1 + 9 * defaultTinyLlama.layers + 2);
    assert.equal(Number(a.readBigUInt64LE(16)), 19);
    assert.ok(a.equals(b));
    assert.equal(a.length, c.length);
    assert.ok(!a.equals(c));
    assert.deepEqual(
      [tinyVocab().tokens.length, tinyVocab().tokens[3], tinyVocab().tokens[258]],
      [354, '<0x00>', '<0xFF>'],
    );
    fs.writeFileSync(modelPath, a);
  });

  it("reads back with node-llama-cpp's own GGUF parser", async () => {
    const L: any = await importLlmTool('node-llama-cpp');
    const info = await L.readGgufFileInfo(modelPath);
    assert.equal(info.version, 3);
    assert.equal(info.metadata.general.architecture, 'llama');
    assert.equal(info.metadata.llama.embedding_length, 64);
    assert.equal(info.metadata.llama.block_count, 2);
    assert.equal(info.metadata.tokenizer.ggml.tokens.length, 354);
    assert.equal(info.metadata.tokenizer.chat_template, TINY_CHAT_TEMPLATE);
    assert.equal(info.tensorInfo.length, 21);
    assert.deepEqual(info.tensorInfo[0].dimensions.map(Number), [64, 354]);
  });
});

describe('request checks of the chat-completions endpoint', () => {
  it('turns messages into a history and a prompt, and names what is wrong', () => {
    assert.deepEqual(
      toHistory([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q' },
      ]),
      {
        history: [
          { type: 'system', text: 's' },
          { type: 'user', text: 'u' },
          { type: 'model', response: ['a'] },
        ],
        prompt: 'q',
      },
    );
    assert.throws(() => toHistory([]), /must not be empty/);
    assert.throws(() => toHistory([{ role: 'assistant', content: 'a' }]), /last message must be the user/);
    assert.throws(
      () =>
        toHistory([
          { role: 'tool', content: 'a' },
          { role: 'user', content: 'q' },
        ]),
      /unknown message role/,
    );
    const m = [{ role: 'user', content: 'q' }];
    assert.deepEqual(parseChatRequest({ messages: m, max_tokens: 5, temperature: 0 }), {
      messages: m,
      schema: null,
      maxTokens: 5,
      temperature: 0,
      topP: undefined,
      seed: undefined,
    });
    assert.equal(parseChatRequest({ messages: m, response_format: { type: 'json_object' } }).schema, 'json');
    assert.throws(() => parseChatRequest({ messages: m, stream: true }), /streaming/);
    assert.throws(() => parseChatRequest({ messages: m, max_tokens: 0 }), /max_tokens/);
    assert.throws(() => parseChatRequest({ messages: m, temperature: 'hot' }), /temperature must be a number/);
    assert.throws(() => parseChatRequest({ messages: [{ role: 'user' }] }), /messages\[0\]/);
    assert.throws(() => parseChatRequest({ messages: m, response_format: { type: 'xml' } }), /response_format/);
    assert.throws(() => parseChatRequest([]), /JSON object/);
  });
});

describe('llama.cpp behind /v1/chat/completions', function () {
  this.timeout(120_000);
  let srv: Awaited<ReturnType<typeof startLlmServer>>;
  let client: any;
  const verdicts = (n: number) => ({
    type: 'json_schema',
    json_schema: {
      name: 'verdicts',
      strict: true,
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['satisfied'],
        properties: { satisfied: { type: 'array', items: { type: 'boolean' }, minItems: n, maxItems: n } },
      },
    },
  });

  before(async () => {
    if (!fs.existsSync(modelPath)) fs.writeFileSync(modelPath, tinyLlamaGguf());
    srv = await startLlmServer({ modelPath, maxTokensCap: 1024 });
    const { default: OpenAI }: any = await importLlmTool('openai');
    client = new OpenAI({ baseURL: srv.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await srv?.close();
  });

  it('lists its model and answers the official OpenAI client with schema-constrained JSON', async () => {
    assert.deepEqual(
      (await client.models.list()).data.map((m: any) => m.id),
      ['tiny-random-llama'],
    );
    for (const n of [1, 3, 5]) {
      const r = await client.chat.completions.create({
        model: srv.model,
        max_tokens: 200,
        response_format: verdicts(n),
        messages: [
          { role: 'system', content: 'Reply with JSON.' },
          { role: 'user', content: `judge ${n} criteria` },
        ],
      });
      assert.equal(r.object, 'chat.completion');
      assert.equal(r.choices[0].finish_reason, 'stop');
      const s = JSON.parse(r.choices[0].message.content).satisfied;
      assert.equal(s.length, n);
      assert.ok(s.every((v: unknown) => typeof v === 'boolean'));
      assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
    }
  });

  it('stops at max_tokens with finish_reason "length", and is reproducible under its seed', async () => {
    const ask = (seed?: number) =>
      client.chat.completions.create({
        model: srv.model,
        max_tokens: 12,
        seed,
        messages: [{ role: 'user', content: 'write anything' }],
      });
    const a = await ask(),
      b = await ask(),
      c = await ask(7);
    assert.equal(a.choices[0].finish_reason, 'length');
    assert.equal(a.usage.completion_tokens, 12);
    assert.equal(a.choices[0].message.content, b.choices[0].message.content);
    assert.notEqual(a.choices[0].message.content, c.choices[0].message.content);
  });

  it('answers bad requests with a 4xx and a message, and keeps serving', async () => {
    const post = (body: string) =>
      fetch(`${srv.url}/chat/completions`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    const cases: [Promise<Response>, number, RegExp][] = [
      [post('{"messages": ['), 400, /malformed JSON/],
      [post(JSON.stringify({ messages: [{ role: 'user', content: 'x' }], stream: true })), 400, /streaming/],
      [post(JSON.stringify({ messages: 'x' })), 400, /messages must be a list/],
      [
        post(
          JSON.stringify({
            messages: [{ role: 'user', content: 'x' }],
            response_format: {
              type: 'json_schema',
              json_schema: {
                name: 'x',
                schema: {
                  type: 'object',
                  properties: {
                    x: { type: 'no-such-type' },
                  },
                },
              },
            },
          }),
        ),
        400,
        /schema\.properties\.x\.type "no-such-type" is not a JSON/,
      ],
      [fetch(`${srv.url}/chat/completions`), 405, /POST/],
      [fetch(`${srv.url}/completions`, { method: 'POST', body: '{}' }), 404, /no route/],
    ];
    for (const [p, status, message] of cases) {
      const r = await p;
      assert.equal(r.status, status);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      assert.match((await r.json()).error.message, message);
    }
    assert.equal((await client.models.list()).data.length, 1);
  });

  it('names the schema keywords its grammar does not enforce', async () => {
    assert.deepEqual(
      unenforcedKeywords({
        type: 'object',
        properties: {
          scores: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 } },
          name: { type: 'string', pattern: '[a-z]+', enum: ['pattern'] },
        },
      }),
      ['maximum', 'minimum', 'pattern'],
    );
    assert.deepEqual(unenforcedKeywords({ type: ['string', 'null'], maxLength: 3 }), []);
    assert.throws(() => unenforcedKeywords({ anyOf: [{ type: 'str' }] }), /schema\.anyOf\[0\]\.type "str"/);
    const r = await fetch(`${srv.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'score' }],
        max_tokens: 40,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 's',
            schema: {
              type: 'object',
              required: ['s'],
              properties: {
                s: { type: 'number', minimum: 0, maximum: 1 },
              },
            },
          },
        },
      }),
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-unenforced-schema-keywords'), 'maximum,minimum');
  });

  it('serves concurrent requests one at a time, each answered', async () => {
    const before = srv.stats.completions;
    const rs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        client.chat.completions.create({
          model: srv.model,
          max_tokens: 100,
          response_format: verdicts(2),
          messages: [{ role: 'user', content: `q ${i}` }],
        }),
      ),
    );
    assert.equal(rs.length, 4);
    rs.forEach((r) => assert.equal(JSON.parse(r.choices[0].message.content).satisfied.length, 2));
    assert.equal(srv.stats.completions - before, 4);
    assert.ok(srv.stats.maxQueued >= 2, `queued at most ${srv.stats.maxQueued}`);
  });

  it("the workbench's roles: a rubric in RLCER's format, one verdict per criterion, failures counted", async () => {
    const b = new ChatBackend({ baseURL: srv.url, model: srv.model, temperature: 0.8 });
    const roles = llmRoles(b);
    const rubric = await roles.writeRubric('What is 12 + 7?', 'Step 1: 12 + 7 = 19. \\boxed{19}');
    assert.equal(rubric.ok, true, rubric.reason);
    assert.ok(rubric.items.length >= 1 && rubric.items.length <= MAX_ITEMS);
    assert.ok(rubric.items.every((it) => POINTS.includes(it.points) && it.key.length <= 200));
    const v = await roles.judge('What is 12 + 7?', '\\boxed{19}', ['Adds the units.', 'Carries.', 'Boxes 19.']);
    assert.equal(v?.length, 3);
    // the grammar has no bounds on numbers: a score out of [0, 1] is a format failure, counted and never thrown
    const fails = b.stats.formatFailures;
    const s = await roles.scoreDimensions('Write a haiku.', 'words', [{ name: 'form', weight: 1, critical: false }]);
    assert.ok(s === null ? b.stats.formatFailures === fails + 1 : s.length === 1 && s[0] >= 0 && s[0] <= 1);
    // a reply cut by max_tokens is malformed JSON: a format failure, not an exception
    const short = llmRoles(new ChatBackend({ baseURL: srv.url, model: srv.model, maxTokens: 3 }));
    const cut = await short.writeRubric('What is 1 + 1?', '\\boxed{2}');
    assert.equal(cut.ok, false);
    assert.match(cut.reason ?? '', /JSON/);
  });

  it("a request that outlives the backend's timeout fails as a timeout, and the engine keeps serving", async () => {
    const b = new ChatBackend({ baseURL: srv.url, model: srv.model, timeoutMs: 1, retries: 0 });
    const r = await b.complete([{ role: 'user', content: 'slow' }]);
    assert.equal(r.ok, false);
    assert.equal(b.stats.timeouts, 1);
    const ok = await new ChatBackend({ baseURL: srv.url, model: srv.model, maxTokens: 4 }).complete([
      { role: 'user', content: 'fast' },
    ]);
    assert.equal(ok.ok, true);
  });

  it('RLCER end to end: the engine writes and judges the rubrics, the service returns float rewards', async () => {
    const b = new ChatBackend({ baseURL: srv.url, model: srv.model, temperature: 0.8 });
    const rewards = await startRewardServer({
      port: 0,
      defaultReward: 'rlcer',
      service: { ...defaultServiceConfig, llm: llmRoles(b) },
    });
    try {
      const prompt = 'What is 23 + 19?';
      const body = JSON.stringify({
        query: [`${prompt}Step 1: 3 + 9 = 12, carry 1. Step 2: 2 + 1 + 1 = 4. \\boxed{42}`, `${prompt}\\boxed{32}`],
        prompts: [prompt, prompt],
        labels: [
          { group_size: 2, answer: '42' },
          { group_size: 2, answer: '42' },
        ],
      });
      const r = await fetch(`${rewards.url}/get_reward`, { method: 'POST', body });
      assert.equal(r.status, 200);
      const text = await r.text(),
        j = JSON.parse(text);
      assert.equal(j.rewards.length, 2);
      // every number written as a float, as OpenRLHF needs
      assert.doesNotMatch(text.replace(/"[^"]*"/g, '""'), /[[,:]\s*-?\d+\s*[,\]}]/);
      // reward = outcome + CoT reward, with the outcome of the labels: correct then wrong
      assert.deepEqual(j.extra_logs.correct, [1, 0]);
      for (let i = 0; i < 2; i++) {
        assert.ok(Math.abs(j.rewards[i] - (j.extra_logs.outcome[i] + j.extra_logs.cot[i])) < 1e-9);
        assert.ok(j.extra_logs.rubricator_format[i] === 0 || j.extra_logs.rubricator_format[i] === 1);
      }
      assert.ok(b.stats.requests >= 2, `the engine got ${b.stats.requests} requests`);
    } finally {
      await rewards.close();
    }
  });
});
