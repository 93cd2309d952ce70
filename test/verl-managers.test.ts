// python/reward_shims.py driven through verl's reward managers' own call sequences (test/fixtures/verl_managers.py:
// the v0.7+ reward loop with sync and async compute_score, and v0.6's naive/dapo, prime's positional call and the
// batch manager), against the reward service on loopback with a rule-based judge (test/fixtures/rule-judge.ts), so
// RLCER's validity filter and CoT reward run on verl's groups. verl itself is in no local index; Debian's python3
// with aiohttp runs the script.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { startRewardServer, type RewardServer } from '../src/cli/reward-server.js';
import { defaultServiceConfig, type ScoredGroup } from '../src/methods/service/reward-routes.js';
import { ruleJudge } from './fixtures/rule-judge.js';

const PY = '/usr/bin/python3';
const hasAiohttp = (() => {
  try {
    execFileSync(PY, ['-c', 'import aiohttp'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Result {
  score: number;
  extra: Record<string, number>;
}
interface Scenario {
  results?: Result[];
  error?: string;
  status?: number;
  elapsed_s: number;
  calls?: number;
}

describe('reward service: verl reward managers', function () {
  this.timeout(120_000);
  let srv: RewardServer;
  const groups: ScoredGroup[] = [];
  let out: Record<string, Scenario> & { responses: string[]; types: string[] };

  before(async function () {
    if (!hasAiohttp) {
      console.log('    skipped: /usr/bin/python3 has no aiohttp (make setup installs python3-aiohttp)');
      this.skip();
    }
    // verl's rollout.n is the service's group size; a wrongly formed group would wait for this timeout
    srv = await startRewardServer({
      port: 0,
      onGroup: (g) => groups.push(g),
      service: { ...defaultServiceConfig, groupSize: 4, groupTimeoutMs: 30_000, llm: ruleJudge },
    });
    const printed = await new Promise<string>((resolve, reject) => {
      execFile(PY, ['test/fixtures/verl_managers.py', srv.url], { timeout: 100_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    out = JSON.parse(printed);
  });
  after(async () => {
    await srv?.close();
  });

  // 1+2=: correct [1, 1, 0, 0]; "so" [1, 1, 0, 0] (corr 1: valid, +2), "?" [0, 1, 1, 0] (corr 0: invalid). Only
  // "so" counts: cot 1 with it, 0 without; reward = outcome + cot. 2+2=: correct [1, 0, 0, 1]; "so" [0, 1, 1, 0]
  // (corr -1, sign-aware: points +2 against correctness, invalid), "?" [0, 0, 1, 1] (corr 0): none valid, outcome
  // only. 3+3=: correct [1, 1, 0, 0]; "so" [1, 0, 1, 0] (corr 0), "?" [0, 0, 0, 1] (corr -0.58, points -1: valid).
  // Only "?" counts: raw 0 -> cot 1, raw -1 -> cot 0.
  const EXPECTED = [2, 2, -1, -1, 1, -1, -1, 1, 2, 2, 0, -1];

  it('v0.7+ reward loop, compute_score_async: every sample in flight, groups form across requests', () => {
    const s = out.loop_async_rlcer;
    assert.equal(s.error, undefined, s.error);
    assert.deepEqual(
      s.results!.map((r) => r.score),
      EXPECTED,
    );
    for (const r of s.results!) {
      assert.deepEqual([r.extra.group_members, r.extra.incomplete], [4, 0]);
      assert.equal(r.extra.score, r.score);
    }
    assert.ok(s.elapsed_s < 20, `took ${s.elapsed_s} s`);
  });

  it("the service's groups are verl's: the n rollouts of one prompt, complete", () => {
    const byGroup = new Map<string, string[][]>();
    for (const g of groups) {
      assert.equal(g.incomplete, false);
      byGroup.set(g.key, [...(byGroup.get(g.key) ?? []), g.members.map((m) => m.response).sort()]);
    }
    // the async loop and the batch manager each form the three groups once
    assert.deepEqual([...byGroup.keys()].sort(), ['group:toy_arith/0', 'group:toy_arith/1', 'group:toy_arith/2']);
    byGroup.forEach((sets, key) => {
      const k = Number(key.slice(-1));
      assert.equal(sets.length, 2, key);
      for (const members of sets) assert.deepEqual(members, out.responses.slice(4 * k, 4 * k + 4).sort(), key);
    });
  });

  it('v0.6 batch manager, compute_score_batch (plural keywords): one request, the same rewards', () => {
    const s = out.legacy_batch_rlcer;
    assert.equal(s.error, undefined, s.error);
    assert.deepEqual(
      s.results!.map((r) => r.score),
      EXPECTED,
    );
    for (const r of s.results!) assert.deepEqual([r.extra.group_members, r.extra.incomplete], [4, 0]);
  });

  it('per-sample managers on RLCER: a clear error at the first call, naming what to use, never a wait', () => {
    for (const name of ['legacy_naive_rlcer', 'loop_sync_rlcer']) {
      const s = out[name];
      assert.equal(s.status, 409, name);
      assert.match(s.error!, /reward\.custom_reward_function\.name=compute_score_async/, name);
      assert.match(s.error!, /reward_model\.reward_manager=batch and custom_reward_function\.name=compute_score_batch/);
      assert.match(s.error!, /group_size.: 1/);
      assert.ok(s.elapsed_s < 5, `${name} took ${s.elapsed_s} s`);
    }
    assert.equal(out.legacy_naive_rlcer.calls, 1); // the first call fails
    assert.equal(srv.groups.pending(), 0); // and left nothing waiting
  });

  it('per-sample managers on a per-sample route: keyword and positional (prime) calls, float results', () => {
    const correct = [1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0];
    for (const name of ['legacy_naive_outcome', 'loop_sync_outcome']) {
      const s = out[name];
      assert.equal(s.error, undefined, s.error);
      assert.deepEqual(
        s.results!.map((r) => r.score),
        correct.map((c) => (c ? 1 : -1)),
        name,
      );
      assert.deepEqual(
        s.results!.map((r) => r.extra.correct),
        correct,
        name,
      );
      assert.deepEqual(Object.keys(s.results![0].extra), ['score', 'correct', 'has_answer']);
    }
    assert.deepEqual(out.positional.results, [{ score: 1, extra: { score: 1, correct: 1, has_answer: 1 } }]);
    assert.deepEqual(out.types, ['float']);
  });
});
