// The reward service (make serve-rewards): OpenRLHF's captured request bytes replayed verbatim, the real Python
// clients (Debian's python3-requests and python3-aiohttp) making OpenRLHF's calls, the verl/TRL shims, each reward
// against hand-computed values, RLCER's groups across requests, and bad requests. Loopback only, bounded counts.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { floatJson, floatText } from '../src/io/json-http.js';
import { startRewardServer, type RewardServer } from '../src/cli/reward-server.js';
import {
  defaultServiceConfig,
  extractAnswer,
  normaliseAnswer,
  responseOf,
} from '../src/methods/service/reward-routes.js';

const PY = '/usr/bin/python3';
const captures = JSON.parse(fs.readFileSync('test/fixtures/openrlhf-captures.json', 'utf8')) as Record<string, string>;
const hasPyClients = (() => {
  try {
    execFileSync(PY, ['-c', 'import requests, aiohttp'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Write raw bytes over one socket (half-close after), resolve with the whole raw reply. */
function rawRequest(port: number, raw: Buffer | string, opts: { end?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    s.on('data', (c) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    s.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    s.on('error', reject);
    if (opts.end === false) s.write(raw);
    else s.end(raw);
  });
}

function parseRaw(reply: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = reply.split('\r\n\r\n');
  const lines = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const k = l.indexOf(':');
    headers[l.slice(0, k).toLowerCase()] = l.slice(k + 1).trim();
  }
  return { status: Number(lines[0].split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const r = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

function py(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PY, [script, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe('reward service: floats', () => {
  it('writes every number with a decimal point, in json.dumps separators', () => {
    assert.equal(
      floatJson({ rewards: [1, 0, -1, 0.25, -0], extra_logs: { a: [2] } }),
      '{"rewards": [1.0, 0.0, -1.0, 0.25, 0.0], "extra_logs": {"a": [2.0]}}',
    );
    assert.equal(floatText(1e21), '1e+21');
    assert.throws(() => floatText(NaN), /non-finite/);
  });
  it('reads the response and its answer as OpenRLHF sends it', () => {
    const q = JSON.parse(captures['new-aiohttp-one'].split('\r\n\r\n')[1]);
    assert.equal(responseOf(q.query[0], q.prompts[0]), 'The answer is \\boxed{2} \u2014 caf\u00e9 \u2713');
    assert.equal(extractAnswer('a \\boxed{\\frac{1}{2}} b'), '\\frac{1}{2}');
    assert.equal(extractAnswer('x\n#### 1,234.0\n'), '1234');
    assert.equal(extractAnswer('no answer'), null);
    assert.equal(normaliseAnswer(' $2.0$. '), '2');
  });
});

describe('reward service: OpenRLHF clients', function () {
  this.timeout(120_000);
  let srv: RewardServer;
  const bodies: Buffer[] = [];
  before(async () => {
    srv = await startRewardServer({ port: 0, onBody: (b) => bodies.push(b) });
  });
  after(async () => {
    await srv.close();
  });

  const OLD_REPLY =
    '{"rewards": [1.0, -1.0], "scores": [1.0, 0.0], ' +
    '"extra_logs": {"correct": [1.0, 0.0], "has_answer": [1.0, 0.0]}}';
  const NEW_REPLY = '{"rewards": [1.0], "scores": [1.0], "extra_logs": {"correct": [1.0], "has_answer": [1.0]}}';
  const EMPTY_REPLY = '{"rewards": [], "scores": [], "extra_logs": {}}';

  it('answers the three captured requests, replayed byte for byte', async () => {
    const want: Record<string, string> = {
      'old-requests-batch2': OLD_REPLY,
      'new-aiohttp-one': NEW_REPLY,
      'new-aiohttp-second-url': EMPTY_REPLY,
    };
    for (const [name, raw] of Object.entries(captures)) {
      bodies.length = 0;
      const r = parseRaw(await rawRequest(srv.port, Buffer.from(raw, 'utf8')));
      assert.equal(r.status, 200, name);
      assert.equal(r.headers['content-type'], 'application/json', name);
      assert.equal(r.body, want[name], name);
      assert.equal(Number(r.headers['content-length']), Buffer.byteLength(want[name]), name);
      assert.equal(bodies[0].toString('utf8'), raw.split('\r\n\r\n')[1], name);
    }
  });

  it('serves the real requests and aiohttp clients; they send the captured bytes and read floats', async function () {
    if (!hasPyClients) this.skip();
    bodies.length = 0;
    const printed = await py('test/fixtures/openrlhf_clients.py', [`${srv.url}/get_reward`]);
    const out = printed
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // the bodies the real clients sent are the captured ones, byte for byte
    const sent = ['old-requests-batch2', 'new-aiohttp-one', 'new-aiohttp-second-url'].map(
      (n) => captures[n].split('\r\n\r\n')[1],
    );
    assert.deepEqual(
      bodies.map((b) => b.toString('utf8')),
      sent,
    );
    assert.deepEqual(
      out.map((o) => o.client),
      ['old', 'new', 'new-second-url'],
    );
    for (const o of out) assert.equal(o.content_type, 'application/json');
    assert.deepEqual(out[0].reply, JSON.parse(OLD_REPLY));
    assert.deepEqual(out[0].types, {
      rewards: ['float', 'float'],
      scores: ['float', 'float'],
      extra_logs: { correct: ['float', 'float'], has_answer: ['float', 'float'] },
    });
    assert.deepEqual(out[1].types, {
      rewards: ['float'],
      scores: ['float'],
      extra_logs: { correct: ['float'], has_answer: ['float'] },
    });
    assert.deepEqual(out[2].reply, { rewards: [], scores: [], extra_logs: {} });
  });

  it('serves the verl and TRL shims (sync and async)', async function () {
    if (!hasPyClients) this.skip();
    const o = JSON.parse(await py('test/fixtures/shim_clients.py', [srv.url]));
    assert.deepEqual(o.verl, { score: 1, correct: 1, has_answer: 1 });
    assert.deepEqual(o.verl_wrong, { score: -1, correct: 0, has_answer: 1 });
    assert.deepEqual(o.verl_batch, [
      { score: 1, correct: 1, has_answer: 1 },
      { score: -1, correct: 0, has_answer: 1 },
    ]);
    assert.deepEqual(o.trl, [1, -1]);
    // the service's extra_logs reach TRL's completions table through its log_extra callback
    assert.deepEqual(o.trl_extra, { service_correct: [1, 0], service_has_answer: [1, 1] });
    assert.deepEqual(o.trl_async, [1, 0]);
    assert.deepEqual(o.types, ['float', 'float', 'float', 'float', 'float']);
  });

  it('takes 200 concurrent one-sample requests, each on its own connection', async () => {
    const body = captures['new-aiohttp-one'];
    const replies = await Promise.all(Array.from({ length: 200 }, () => rawRequest(srv.port, body)));
    for (const r of replies) assert.equal(parseRaw(r).body, NEW_REPLY);
  });
});

describe('reward service: rewards', () => {
  let srv: RewardServer;
  before(async () => {
    srv = await startRewardServer({ port: 0, service: { ...defaultServiceConfig, groupTimeoutMs: 400 } });
  });
  after(async () => {
    await srv.close();
  });
  const req = (query: string[], labels: unknown[]) => JSON.stringify({ query, prompts: query.map(() => ''), labels });
  const call = async (route: string, query: string[], labels: unknown[]) => {
    const r = await post(`${srv.url}/${route}`, req(query, labels));
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text);
  };

  it('EvoLM judge score: normalised points of the satisfied criteria', async () => {
    // points 2, -1, 1; satisfied 2 and -1: raw 1, min -1, max 3 -> (1 + 1) / 4
    const r = await call(
      'evolm',
      ['x'],
      [
        {
          rubric: [
            { criterion: 'a', points: 2 },
            { criterion: 'b', points: -1 },
            { criterion: 'c', points: 1 },
          ],
          satisfied: [true, true, false],
        },
      ],
    );
    assert.deepEqual(r.rewards, [0.5]);
    assert.deepEqual(r.extra_logs, { unjudged: [0], judge_failures: [0] });
  });

  it("Rubicon's aggregators over the label's dimension scores", async () => {
    const dims = [
      { name: 'x', weight: 1 },
      { name: 'y', weight: 3, critical: true },
    ];
    const sum = await call('rubicon/weighted_sum', ['r'], [{ scores: [1, 0.5], dimensions: dims }]);
    assert.deepEqual(sum.rewards, [0.625]);
    assert.deepEqual((await call('rubicon/veto', ['r'], [{ scores: [1, 0.4], dimensions: dims }])).rewards, [0]);
    const bad = await post(`${srv.url}/rubicon/veto`, req(['r'], [{ scores: [1, 1.5], dimensions: dims }]));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /score of y must be in \[0, 1\]/);
    assert.equal((await post(`${srv.url}/rubicon/nope`, req(['r'], [{ scores: [1] }]))).status, 404);
  });

  it("CO-RL: agreement with the peer's majority vote", async () => {
    const peer = { peer_answers: ['3', '2', '3.0'] };
    const r = await call('corl', ['\\boxed{3}', '\\boxed{2}', '\\boxed{3}'], [peer, peer, { peer_answers: [null] }]);
    assert.deepEqual(r.rewards, [1, 0, 0]);
    assert.deepEqual(r.extra_logs.has_peer_label, [1, 1, 0]);
  });

  it('RLCER: a group forms across requests and is scored once complete', async () => {
    // z = [1, 0, 0]; c1 (+2) satisfied [1, 0, 0]: corr 1, valid; c2 (-1) satisfied [0, 1, 0]: corr -0.5, sign-aware
    // 0.5, valid. Pooled points 2, -1: min -1, max 2. A: raw 2 -> cot 1, reward 1 + 1; B: raw -1 -> cot 0,
    // reward -1; C (no rubric of its own): raw 0 -> cot 1/3, reward -1 + 1/3.
    const c1 = { criterion: 'c1', points: 2 },
      c2 = { criterion: 'c2', points: -1 };
    const a = { group: 'g1', group_size: 3, answer: '2', rubric: [c1], satisfied: { c1: true } };
    const b = { group: 'g1', group_size: 3, answer: '2', rubric: [c1, c2], satisfied: [false, true] };
    const c = { group: 'g1', group_size: 3, answer: '2', satisfied: { c1: false, c2: false } };
    // another group in flight at the same time must not mix with g1
    const other = { group: 'g2', group_size: 2, correct: true, rubric: [c1], satisfied: { c1: false } };
    const [ra, rOther, rb, rOther2, rc] = await Promise.all([
      call('rlcer', ['\\boxed{2}'], [a]),
      call('rlcer', ['y'], [other]),
      call('rlcer', ['\\boxed{3}'], [b]),
      call('rlcer', ['y'], [{ ...other, correct: false }]),
      call('rlcer', ['\\boxed{4}'], [c]),
    ]);
    assert.deepEqual([ra.rewards[0], rb.rewards[0]], [2, -1]);
    assert.ok(Math.abs(rc.rewards[0] - (-1 + 1 / 3)) < 1e-12, String(rc.rewards[0]));
    assert.deepEqual([ra.extra_logs.cot[0], rb.extra_logs.cot[0]], [1, 0]);
    const logs = ra.extra_logs;
    assert.deepEqual([logs.valid_criteria[0], logs.incomplete[0], logs.group_members[0]], [2, 0, 3]);
    assert.deepEqual(
      [ra, rb, rc].map((r) => r.extra_logs.rubricator_reward[0]),
      [2, 2, 0],
    );
    assert.deepEqual([ra.extra_logs.unjudged[0], rb.extra_logs.unjudged[0]], [1, 0]); // a gave no verdict on c2
    // g2: c1 never satisfied -> invalid, cot 0: outcome only
    assert.deepEqual([rOther.rewards[0], rOther2.rewards[0]], [1, -1]);
    assert.equal(srv.groups.pending(), 0);
  });

  it('RLCER: an incomplete group is scored as it stands after the timeout', async () => {
    const t0 = Date.now();
    const r = await call(
      'rlcer',
      ['\\boxed{2}'],
      [
        {
          group: 'lonely',
          group_size: 4,
          answer: '2',
          rubric: [{ criterion: 'c', points: 1 }],
          satisfied: { c: true },
        },
      ],
    );
    assert.ok(Date.now() - t0 >= 380, 'scored before the timeout');
    // one member: correctness constant, no criterion valid, cot 0
    assert.deepEqual([r.rewards[0], r.extra_logs.incomplete[0], r.extra_logs.group_members[0]], [1, 1, 1]);
  });

  it('RLCER: a batch holding a whole group is scored at once, grouped by prompt without a group field', async () => {
    const body = JSON.stringify({
      query: ['P\\boxed{1}', 'P\\boxed{0}'],
      prompts: ['P', 'P'],
      labels: [
        { group_size: 2, answer: '1', rubric: [{ criterion: 'k', points: 3 }], satisfied: { k: true } },
        { group_size: 2, answer: '1', satisfied: { k: false } },
      ],
    });
    const r = JSON.parse((await post(`${srv.url}/rlcer`, body)).text);
    assert.deepEqual(r.rewards, [2, -1]);
    assert.deepEqual(r.extra_logs.rubricator_format, [1, 0]);
    assert.deepEqual(r.extra_logs.incomplete, [0, 0]); // scored at once, not at the timeout
  });
});

describe('reward service: bad requests', function () {
  this.timeout(30_000);
  let srv: RewardServer;
  before(async () => {
    srv = await startRewardServer({ port: 0, maxBodyBytes: 1024, bodyTimeoutMs: 300, headersTimeoutMs: 1000 });
  });
  after(async () => {
    await srv.close();
  });

  const expect4xx = (r: { status: number; text: string }, status: number, re: RegExp) => {
    assert.equal(r.status, status, r.text);
    assert.match(JSON.parse(r.text).error, re);
    assert.equal(r.text.trim().split('\n').length, 1);
  };

  it('answers each with a 4xx and a one-line message, and keeps serving', async () => {
    const url = `${srv.url}/get_reward`;
    expect4xx(await post(url, '{"query": ['), 400, /malformed JSON/);
    expect4xx(
      await post(url, '{"query": ["a", "b"], "prompts": ["a"], "labels": ["", ""]}'),
      400,
      /lengths differ: 2 queries, 1 prompts/,
    );
    expect4xx(await post(url, '{"query": ["a"], "labels": []}'), 400, /lengths differ: 1 queries, 0 labels/);
    expect4xx(await post(url, '{"query": ["a"], "prompts": ["a", "b"]}'), 400, /lengths differ: 1 queries, 2 prompts/);
    expect4xx(await post(url, '{"query": [1]}'), 400, /query\[0\] must be a string/);
    expect4xx(await post(url, '[1]'), 400, /JSON object/);
    expect4xx(await post(url, `{"query": ["${'x'.repeat(2000)}"]}`), 413, /over the limit of 1024 bytes/);
    expect4xx(await post(url, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 400, /not valid UTF-8/);
    expect4xx(
      await post(`${srv.url}/evolm`, '{"query": ["a"], "labels": [{"rubric": []}]}'),
      400,
      /labels\[0\].rubric: empty rubric/,
    );
    expect4xx(await post(`${srv.url}/nowhere`, '{"query": ["a"]}'), 404, /no reward at \/nowhere/);
    const get = await fetch(`${srv.url}/get_reward`);
    expect4xx({ status: get.status, text: await get.text() }, 405, /GET not allowed/);
    // a client that sends half its body and stalls
    const half = 'POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"query"';
    const slow = parseRaw(await rawRequest(srv.port, half, { end: false }));
    assert.equal(slow.status, 408);
    assert.match(JSON.parse(slow.body).error, /not received within 300 ms/);
    // garbage instead of HTTP
    const junk = parseRaw(await rawRequest(srv.port, 'HELLO\r\n\r\n'));
    assert.equal(junk.status, 400);
    const ok = await post(`${srv.url}/get_reward`, '{"query": ["\\\\boxed{1}"], "labels": ["1"]}');
    assert.equal(ok.text, '{"rewards": [1.0], "scores": [1.0], "extra_logs": {"correct": [1.0], "has_answer": [1.0]}}');
  });
});

describe('the reward service names its rewards from one list', () => {
  it('spells out one rubicon route per aggregator, and serve-rewards refuses any other name', async () => {
    const { rewardNames } = await import('../src/cli/reward-server.js');
    const { AGGREGATORS } = await import('../src/rubrics/aggregators.js');
    assert.deepEqual(rewardNames(), ['outcome', 'rlcer', 'evolm', 'corl', ...AGGREGATORS.map((g) => `rubicon/${g}`)]);
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('./node_modules/.bin/tsx', ['src/cli/serve-rewards.ts', '--reward', 'rubicon/geometric'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 2);
    assert.match(
      r.stderr,
      /--reward must be one of outcome, rlcer, evolm, corl, rubicon\/weighted_sum, .*got "rubicon\/geometric"/,
    );
  });
});
