// TRL end to end through the reward service: python/examples/trl_grpo.py (the script `make example-trl` runs) trains
// a tiny random GPT-2 with TRL 1.13's GRPOTrainer on CPU for 3 optimiser steps, with two reward functions (the sync
// RewardService and the async one) pointed at this process's reward service (RLCER, groups of TRL's
// num_generations), then scores the last step's groups again the way TRL's async GRPO trainer does, in a spawned
// process. Checked: the rewards TRL logs are the service's replies for the same completions (float32 of the
// service's floats), the service's groups are TRL's groups, TRL's advantages are computed over those groups, the
// loss is finite, the weights moved. Runs in the Python clients' environment that `make setup` makes
// (.venv-clients, bin/setup-python-clients); skipped with a message where it is absent, and failed under CI.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRewardServer, type RewardServer } from '../src/cli/reward-server.js';
import {
  defaultServiceConfig,
  type RewardReply,
  type RewardRequest,
  type ScoredGroup,
} from '../src/methods/service/reward-routes.js';

const PY = '.venv-clients/bin/python';
const G = 4; // TRL's num_generations in the script

interface Logged {
  prompt: string[];
  completion: string[];
  reward_service: number[];
  reward_service_async: number[];
  advantage: number[];
  service_group_members: number[];
  service_incomplete: number[];
}
interface Out {
  steps: Logged[];
  losses: number[];
  weight_change: number;
  global_step: number;
  params: number;
  reward_names: string[];
  versions: Record<string, string>;
  train_s: number;
  async_s: number;
  async_worker: { name: string; rewards: number[]; advantages: number[]; completions: string[] }[];
}

const f32 = Math.fround;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const chunks = <T>(xs: T[], n: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, k) => xs.slice(k * n, k * n + n));

describe('TRL end to end: GRPOTrainer through the reward service', function () {
  this.timeout(240_000);
  let srv: RewardServer;
  const replies: { client: string; request: RewardRequest; reply: RewardReply }[] = [];
  const groups: ScoredGroup[] = [];
  let out: Out;
  let wallS = 0;

  before(async function () {
    if (!fs.existsSync(PY)) {
      const why = `${PY} is absent: run make setup (bin/setup-python-clients makes the Python clients' environment)`;
      if (process.env.CI) throw new Error(why);
      console.log(`    skipped: ${why}`);
      this.skip();
    }
    // the server's own group size differs from TRL's: the shim's group_size (TRL's num_generations) must win
    srv = await startRewardServer({
      port: 0,
      defaultReward: 'rlcer',
      service: { ...defaultServiceConfig, groupSize: 8, groupTimeoutMs: 60_000 },
      onReply: (r) => replies.push(r),
      onGroup: (g) => groups.push(g),
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trl-grpo-'));
    const json = path.join(dir, 'out.json');
    const t0 = Date.now();
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(
          PY,
          ['python/examples/trl_grpo.py', '--url', srv.url, '--json', json],
          { timeout: 200_000, maxBuffer: 16 << 20, env: { ...process.env, TRL_EXPERIMENTAL_SILENCE: '1' } },
          (err, _stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr.slice(-4000)}`)) : resolve()),
        );
      });
      wallS = (Date.now() - t0) / 1000;
      out = JSON.parse(fs.readFileSync(json, 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  after(async () => {
    await srv?.close();
  });

  it('runs TRL 1.13 on CPU PyTorch 2.13: a tiny model, 3 optimiser steps, finite loss, weights moved', () => {
    console.log(
      `      ${JSON.stringify(out.versions)}: ${out.params} parameters; ` +
        `training ${out.train_s.toFixed(1)} s, async scoring ${out.async_s.toFixed(1)} s, ` +
        `script ${wallS.toFixed(1)} s`,
    );
    assert.equal(out.versions.trl, '1.13.0');
    assert.equal(out.versions.torch, '2.13.0+cpu');
    assert.ok(out.params < 1_000_000, String(out.params));
    assert.equal(out.global_step, 3);
    assert.equal(out.losses.length, 3);
    for (const l of out.losses) assert.ok(Number.isFinite(l), String(l));
    assert.ok(out.weight_change > 0, 'the weights did not move');
    assert.deepEqual(out.reward_names, ['reward_service', 'reward_service_async']);
  });

  it("logs the service's rewards for the same completions, as TRL's float32", () => {
    assert.equal(out.steps.length, 3);
    for (const [name, client] of [
      ['reward_service', '/trl-sync'],
      ['reward_service_async', '/trl-async'],
    ] as const) {
      const mine = replies.filter((r) => r.client === client);
      out.steps.forEach((s, k) => {
        const { request, reply } = mine[k];
        assert.deepEqual(
          request.query,
          s.prompt.map((p, i) => p + s.completion[i]),
          `${name} step ${k + 1}`,
        );
        assert.deepEqual(request.prompts, s.prompt);
        assert.deepEqual(s[name], reply.rewards.map(f32), `${name} step ${k + 1}`);
        for (const l of request.labels) assert.equal((l as { group_size: number }).group_size, G);
      });
    }
    // the service's extra_logs reach TRL's completions table through log_extra
    for (const s of out.steps) assert.deepEqual([...new Set(s.service_group_members)], [G]);
  });

  it("forms the service's groups from TRL's: num_generations completions of one prompt, in TRL's order", () => {
    for (const client of ['/trl-sync', '/trl-async']) {
      const gs = groups.filter((g) => g.client === client).slice(0, 3 * 2);
      assert.equal(gs.length, 6);
      const trl = out.steps.flatMap((s) =>
        chunks(
          s.prompt.map((p, i) => p + s.completion[i]),
          G,
        ),
      );
      assert.deepEqual(
        gs.map((g) => g.members.map((m) => m.query)),
        trl,
      );
      for (const g of gs) assert.deepEqual([g.size, g.incomplete], [G, false]);
      for (const s of out.steps) assert.deepEqual([...new Set(s.service_incomplete)], [0]);
    }
  });

  it("computes TRL's advantages over the service's groups, and some group had a reward spread", () => {
    let spread = 0;
    for (const s of out.steps) {
      const r = s.reward_service.map((x, i) => f32(x + s.reward_service_async[i]));
      chunks(r, G).forEach((g, k) => {
        const m = mean(g),
          sd = Math.sqrt(g.reduce((a, x) => a + (x - m) ** 2, 0) / (G - 1));
        if (sd > 0) spread++;
        g.forEach((x, i) =>
          assert.ok(
            Math.abs(s.advantage[k * G + i] - (x - m) / (sd + 1e-4)) < 1e-4,
            `advantage ${s.advantage[k * G + i]} vs ${(x - m) / (sd + 1e-4)}`,
          ),
        );
      });
    }
    assert.ok(spread > 0, 'every group had one reward: no learning signal');
  });

  it("TRL's async GRPO trainer: both reward functions pickle into a spawned process and score its groups", () => {
    const last = out.steps[2];
    assert.equal(out.async_worker.length, 4);
    assert.deepEqual(
      out.async_worker.map((w) => w.name),
      ['reward_service', 'reward_service', 'reward_service_async', 'reward_service_async'],
    );
    out.async_worker.forEach((w, k) => {
      const g = k % 2;
      assert.deepEqual(w.completions, last.completion.slice(g * G, g * G + G));
      // the same groups get the same RLCER rewards as in training
      assert.deepEqual(w.rewards.map(f32), last.reward_service.slice(g * G, g * G + G));
      const m = mean(w.rewards),
        sd = Math.sqrt(mean(w.rewards.map((x) => (x - m) ** 2)));
      w.advantages.forEach((a, i) => assert.ok(Math.abs(a - (w.rewards[i] - m) / (sd + 1e-8)) < 1e-9));
    });
  });
});
