// The reward service off loopback: beyond loopback it refuses to start without a shared token, answers a POST
// without a known bearer token with a 401 and never writes a token to its log or a reply, and keys RLCER's groups
// per client (per token, then per X-Client-Id) so that no client can write into another's open group. The server
// binds 0.0.0.0 where a test needs a non-loopback bind; every request goes to 127.0.0.1.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { startRewardServer, isLoopbackHost, type RewardServer } from '../src/cli/reward-server.js';
import { defaultServiceConfig, type ScoredGroup } from '../src/methods/service/reward-routes.js';
import { ConfigError } from '../src/util/validate.js';

const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-fedcba9876543210';
const WRONG = 'wrong-token-not-known-5555';

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
  });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  return { status: r.status, text: await r.text(), auth: r.headers.get('www-authenticate') };
}

describe('reward service: off loopback', function () {
  this.timeout(60_000);

  it('tells loopback from other addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
      assert.ok(isLoopbackHost(h), h);
    }
    for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'gpu-node-1', '']) assert.ok(!isLoopbackHost(h), h);
  });

  it('refuses to start beyond loopback without a token, or with a short one', async () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5']) {
      await assert.rejects(
        startRewardServer({ host, port: 0 }),
        (e: Error) => e instanceof ConfigError && /beyond loopback, without a shared token/.test(e.message),
      );
    }
    await assert.rejects(
      startRewardServer({ host: '0.0.0.0', port: 0, tokens: ['short'] }),
      (e: Error) => e instanceof ConfigError && /at least 16 printable/.test(e.message) && !e.message.includes('short'),
    );
    await assert.rejects(startRewardServer({ host: '0.0.0.0', port: 0, tokens: [TOKEN_A, TOKEN_A] }), /twice/);
  });

  it('the CLI exits with one line naming --token and REWARD_SERVICE_TOKEN', async () => {
    const env = { ...process.env };
    delete env.REWARD_SERVICE_TOKEN;
    const r = await run(
      './node_modules/.bin/tsx',
      ['src/cli/serve-rewards.ts', '--host', '0.0.0.0', '--port', '0'],
      env,
    );
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /^error: refusing to serve rewards on 0\.0\.0\.0.*--token.*REWARD_SERVICE_TOKEN/m);
  });

  describe('with tokens', () => {
    let srv: RewardServer;
    const logs: string[] = [];
    const groups: ScoredGroup[] = [];
    before(async () => {
      srv = await startRewardServer({
        host: '0.0.0.0',
        port: 0,
        tokens: [TOKEN_A, TOKEN_B],
        log: (l) => logs.push(l),
        onGroup: (g) => groups.push(g),
        service: { ...defaultServiceConfig, groupTimeoutMs: 20_000 },
      });
    });
    after(async () => {
      await srv.close();
    });
    const url = (path: string) => `http://127.0.0.1:${srv.port}${path}`;
    const one = { query: ['\\boxed{1}'], prompts: [''], labels: ['1'] };

    it('answers 401 without a known token, logs why and never the token; /health stays open', async () => {
      const none = await post(url('/outcome'), one);
      assert.equal(none.status, 401);
      assert.equal(none.auth, 'Bearer');
      assert.match(JSON.parse(none.text).error, /^no Authorization header/);
      const wrong = await post(url('/outcome'), one, { Authorization: `Bearer ${WRONG}` });
      assert.equal(wrong.status, 401);
      assert.match(JSON.parse(wrong.text).error, /^not a known bearer token/);
      const basic = await post(url('/outcome'), one, { Authorization: `Basic ${TOKEN_A}` });
      assert.equal(basic.status, 401);
      assert.equal(logs.length, 3);
      for (const l of logs) assert.match(l, /^reward server: 401 from \S+ on \/outcome: /);
      for (const text of [...logs, none.text, wrong.text, basic.text]) {
        for (const t of [TOKEN_A, TOKEN_B, WRONG]) assert.ok(!text.includes(t), `token in "${text}"`);
      }
      assert.equal((await fetch(url('/health'))).status, 200);
      const ok = await post(url('/outcome'), one, { Authorization: `Bearer ${TOKEN_B}` });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(JSON.parse(ok.text).rewards, [1]);
    });

    it("keys RLCER groups per token and per X-Client-Id: no client joins another's open group", async () => {
      groups.length = 0;
      const label = (correct: boolean) => ({ group: 'g', group_size: 2, correct });
      const send = (token: string, correct: boolean, id?: string) =>
        post(
          url('/rlcer'),
          { query: ['x'], prompts: ['p'], labels: [label(correct)] },
          { Authorization: `Bearer ${token}`, ...(id ? { 'X-Client-Id': id } : {}) },
        );
      // four clients open group "g" at once: A, B, A as client x, A as client y; none completes another's
      const first = [send(TOKEN_A, true), send(TOKEN_B, false), send(TOKEN_A, true, 'x'), send(TOKEN_A, false, 'y')];
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(srv.groups.pending(), 4);
      const second = [send(TOKEN_A, false), send(TOKEN_B, false), send(TOKEN_A, true, 'x'), send(TOKEN_A, true, 'y')];
      const replies = await Promise.all([...first, ...second]);
      for (const r of replies) assert.equal(r.status, 200, r.text);
      assert.equal(srv.groups.pending(), 0);
      assert.deepEqual(groups.map((g) => g.client).sort(), ['token1', 'token1/x', 'token1/y', 'token2']);
      for (const g of groups) assert.deepEqual([g.members.length, g.incomplete], [2, false]);
      const logsOf = replies.map((r) => JSON.parse(r.text).extra_logs);
      for (const l of logsOf) assert.deepEqual([l.group_members[0], l.incomplete[0]], [2, 0]);
      // each group's correctness is its own client's: A [1, 0], B [0, 0], A/x [1, 1], A/y [0, 1]
      assert.deepEqual(
        logsOf.map((l) => l.correct[0]),
        [1, 0, 1, 0, 0, 0, 1, 1],
      );
      const bad = await post(url('/rlcer'), one, { Authorization: `Bearer ${TOKEN_A}`, 'X-Client-Id': 'a b' });
      assert.equal(bad.status, 400);
    });

    it('the Python shims send $REWARD_SERVICE_TOKEN and $REWARD_CLIENT_ID', async () => {
      const script =
        'import sys; sys.path.insert(0, "python"); import reward_shims as rs\n' +
        'try:\n  print(rs.compute_score(data_source="d", solution_str="\\\\boxed{1}", ground_truth="1", ' +
        `extra_info=None, reward_url="${url('/outcome')}")["score"])\n` +
        'except rs.RewardServiceError as e:\n  print(e.status, e.reason)\n';
      const env: NodeJS.ProcessEnv = { ...process.env, REWARD_CLIENT_ID: 'trainer-1' };
      delete env.REWARD_SERVICE_TOKEN;
      const refused = await run('/usr/bin/python3', ['-c', script], env);
      assert.match(refused.out, /^401 no Authorization header/);
      const ok = await run('/usr/bin/python3', ['-c', script], { ...env, REWARD_SERVICE_TOKEN: TOKEN_A });
      assert.equal(ok.out.trim(), '1.0');
    });
  });

  it("on loopback without tokens, X-Client-Id still keeps clients' groups apart", async () => {
    const groups: ScoredGroup[] = [];
    const srv = await startRewardServer({ port: 0, onGroup: (g) => groups.push(g) });
    try {
      const body = { query: ['x'], prompts: ['same prompt'], labels: [{ group_size: 2, correct: true }] };
      const rs = await Promise.all(
        ['a', 'b', 'a', 'b'].map((id) => post(`${srv.url}/rlcer`, body, { 'X-Client-Id': id })),
      );
      for (const r of rs) assert.equal(r.status, 200, r.text);
      assert.deepEqual(groups.map((g) => g.client).sort(), ['/a', '/b']);
    } finally {
      await srv.close();
    }
  });
});
