// The chat-completions backend (src/models/chat.ts) against a fake OpenAI-compatible server on loopback with
// scripted replies: 429 then 200, a reply that never comes (timeout), malformed JSON, the cache, the concurrency
// limit, and one RLCER reward computation end to end through the backend's rubricator and judge.
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatBackend, checkRubric, llmRoles, RUBRIC_SCHEMA } from '../src/models/chat.js';
import { defaultServiceConfig } from '../src/methods/service/reward-routes.js';
import { startRewardServer } from '../src/cli/reward-server.js';

type Script = (
  body: { messages: { content: string }[]; response_format?: unknown },
  n: number,
) => { status?: number; body?: string; delayMs?: number; hang?: boolean; headers?: Record<string, string> };

const completion = (content: string) =>
  JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

/** A fake /v1/chat/completions that answers by `script`; counts calls and the most in flight at once. */
async function fakeOpenAI(script: Script) {
  const st = { calls: 0, inFlight: 0, maxInFlight: 0, bodies: [] as unknown[] };
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      st.bodies.push(body);
      const r = script(body, st.calls++);
      st.inFlight++;
      st.maxInFlight = Math.max(st.maxInFlight, st.inFlight);
      if (r.hang) {
        hung.push(res);
        res.on('close', () => st.inFlight--);
        return;
      }
      setTimeout(() => {
        st.inFlight--;
        res.writeHead(r.status ?? 200, { 'Content-Type': 'application/json', ...r.headers });
        res.end(r.body ?? '');
      }, r.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const close = () =>
    new Promise<void>((r) => {
      hung.forEach((h) => h.destroy());
      server.close(() => r());
      server.closeAllConnections();
    });
  opened.push(close);
  return { st, url, close };
}

/** Every fake server still open (closed after each test, also when it fails). */
const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c()));
});

const msgs = (s: string) => [{ role: 'user' as const, content: s }];

describe('chat backend', function () {
  this.timeout(30_000);

  it('retries a 429 after the backoff, then succeeds', async () => {
    const f = await fakeOpenAI((_, n) =>
      n === 0 ? { status: 429, body: '{"error": "slow down"}' } : { body: completion('hi') },
    );
    const b = new ChatBackend({ baseURL: f.url, model: 'm', backoffMs: 150, retries: 2 });
    const t0 = Date.now();
    const r = await b.complete(msgs('a'));
    assert.deepEqual(r, { ok: true, content: 'hi' });
    assert.ok(Date.now() - t0 >= 140, 'no backoff before the retry');
    assert.deepEqual([f.st.calls, b.stats.retries, b.stats.httpErrors], [2, 1, 1]);
  });

  it('retries 5xx with exponential backoff, honours Retry-After, and gives up after the retries', async () => {
    const f = await fakeOpenAI((_, n) =>
      n === 0 ? { status: 503, headers: { 'Retry-After': '0' } } : { status: 500, body: 'boom' },
    );
    const b = new ChatBackend({ baseURL: f.url, model: 'm', backoffMs: 20, retries: 2 });
    const r = await b.complete(msgs('a'));
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /HTTP 500: boom \(after 3 attempts\)/);
    assert.deepEqual([f.st.calls, b.stats.failures, b.stats.formatFailures], [3, 1, 0]);
  });

  it('does not retry a 400', async () => {
    const f = await fakeOpenAI(() => ({ status: 400, body: 'bad' }));
    const b = new ChatBackend({ baseURL: f.url, model: 'm', backoffMs: 1, retries: 3 });
    assert.equal((await b.complete(msgs('a'))).ok, false);
    assert.equal(f.st.calls, 1);
  });

  it('times out a reply that never comes, then retries', async () => {
    const f = await fakeOpenAI((_, n) => (n === 0 ? { hang: true } : { body: completion('late') }));
    const b = new ChatBackend({ baseURL: f.url, model: 'm', timeoutMs: 2000, backoffMs: 1, retries: 1 });
    const t0 = Date.now();
    assert.deepEqual(await b.complete(msgs('a')), { ok: true, content: 'late' });
    assert.ok(Date.now() - t0 >= 1990);
    assert.deepEqual([b.stats.timeouts, f.st.calls], [1, 2]);
    const f2 = await fakeOpenAI(() => ({ hang: true }));
    const r = await new ChatBackend({ baseURL: f2.url, model: 'm', timeoutMs: 100, retries: 0 }).complete(msgs('a'));
    assert.match((r as { reason: string }).reason, /timed out after 100 ms/);
  });

  it('counts malformed replies and malformed model output as format failures, never throws', async () => {
    const f = await fakeOpenAI((body) => {
      const c = body.messages[0].content;
      return c === 'reply'
        ? { body: '{"choices": [' }
        : c === 'shape'
          ? { body: '{"choices": []}' }
          : { body: completion('not json') };
    });
    const b = new ChatBackend({ baseURL: f.url, model: 'm', retries: 0 });
    assert.deepEqual(await b.complete(msgs('reply')), { ok: false, reason: 'reply is not JSON', format: true });
    assert.equal((await b.complete(msgs('shape'))).ok, false);
    const j = await b.json(msgs('output'), RUBRIC_SCHEMA, checkRubric);
    assert.deepEqual(j, { ok: false, reason: 'model output is not JSON', format: true });
    assert.equal(b.stats.formatFailures, 3);
    // a connection refused is a failure too, not an exception
    const dead = new ChatBackend({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', retries: 0 });
    assert.match(((await dead.complete(msgs('a'))) as { reason: string }).reason, /connection failed/);
  });

  it('caches by (model, prompt) and shares concurrent identical calls', async () => {
    const f = await fakeOpenAI((body) => ({ body: completion(body.messages[0].content.toUpperCase()), delayMs: 50 }));
    const b = new ChatBackend({ baseURL: f.url, model: 'm' });
    const rs = await Promise.all([b.complete(msgs('a')), b.complete(msgs('a')), b.complete(msgs('b'))]);
    assert.deepEqual(
      rs.map((r) => (r as { content: string }).content),
      ['A', 'A', 'B'],
    );
    await b.complete(msgs('a'));
    assert.deepEqual([f.st.calls, b.stats.cacheHits], [2, 2]);
    // a cache shared by two models: the same prompt is asked of each model once
    const cache = new Map();
    await new ChatBackend({ baseURL: f.url, model: 'm', cache }).complete(msgs('a'));
    await new ChatBackend({ baseURL: f.url, model: 'other', cache }).complete(msgs('a'));
    await new ChatBackend({ baseURL: f.url, model: 'other', cache }).complete(msgs('a'));
    assert.equal(f.st.calls, 4);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const f = await fakeOpenAI((body) => ({ body: completion(body.messages[0].content), delayMs: 80 }));
    const b = new ChatBackend({ baseURL: f.url, model: 'm', concurrency: 2 });
    await Promise.all(Array.from({ length: 7 }, (_, i) => b.complete(msgs(String(i)))));
    assert.deepEqual([f.st.calls, f.st.maxInFlight], [7, 2]);
  });

  it('sends the rubric JSON schema and checks the rubricator output', async () => {
    assert.deepEqual(checkRubric({ rubrics: [{ category: 'question-specific', criterion: ' Says 4 ', points: 2 }] }), {
      ok: true,
      items: [{ key: 'Says 4', points: 2 }],
    });
    const five = checkRubric({ rubrics: [{ category: 'question-specific', criterion: 'x', points: 5 }] });
    assert.match(five as string, /points/);
    assert.match(checkRubric({ rubrics: [] }) as string, /non-empty/);
  });

  it('RLCER end to end: rubricator and judge over chat completions, rewards through the service', async () => {
    // rubricator: one criterion "Shows the steps." (+2) for every CoT; judge: satisfied iff the solution says "step"
    const f = await fakeOpenAI((body) => {
      const c = body.messages[1].content;
      if (c.startsWith('Question:') && c.includes('Write up to')) {
        return {
          body: completion(
            JSON.stringify({
              question_domain: 'math',
              rubrics: [{ category: 'decomposition and planning', criterion: 'Shows the steps.', points: 2 }],
            }),
          ),
        };
      }
      const sol = c.slice(c.indexOf('Solution:'), c.indexOf('Criteria:'));
      return { body: completion(`\`\`\`json\n{"satisfied": [${sol.includes('step')}]}\n\`\`\``) };
    });
    const b = new ChatBackend({ baseURL: f.url, model: 'judge' });
    const service = { ...defaultServiceConfig, llm: llmRoles(b) };
    const srv = await startRewardServer({ port: 0, defaultReward: 'rlcer', service });
    opened.push(() => srv.close());
    const body = JSON.stringify({
      query: ['Q: 1+1?step one, \\boxed{2}', 'Q: 1+1?\\boxed{3}'],
      prompts: ['Q: 1+1?', 'Q: 1+1?'],
      labels: [
        { group_size: 2, answer: '2' },
        { group_size: 2, answer: '2' },
      ],
    });
    const r = await fetch(`${srv.url}/get_reward`, { method: 'POST', body });
    const j = JSON.parse(await r.text());
    // z = [1, 0]; the criterion's satisfaction [1, 0] is valid; pooled points 2: cot [1, 0]; reward outcome + cot
    assert.deepEqual(j.rewards, [2, -1]);
    assert.deepEqual(j.extra_logs.rubricator_reward, [2, 2]);
    assert.deepEqual(j.extra_logs.judge_failures, [0, 0]);
    // two rubricator calls (different CoTs) and two judge calls; the schema went with the rubricator's
    assert.equal(f.st.calls, 4);
    const withSchema = f.st.bodies.filter(
      (x) =>
        (x as { response_format?: { json_schema?: { name: string } } }).response_format?.json_schema?.name ===
        'rubric_set',
    );
    assert.equal(withSchema.length, 2);
  });
});
