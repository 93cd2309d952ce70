// RLVR end to end on a tiny budget: run directory, one metrics line per step, summary per family; NaN guards.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initBackend, tf } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig, saveCheckpoint } from '../src/models/policy.js';
import { makeSequenceBatch } from '../src/models/logprobs.js';
import { defaultPpoConfig, makeRoleOptimizers, ppoGradientStep } from '../src/rl/ppo.js';
import { readCsv } from '../src/io/table.js';
import { checkRlvrConfig, defaultRlvrConfig } from '../src/methods/trainers/rlvr.js';
import { mergeConfig } from '../src/io/config.js';

describe('RLVR end to end', function () {
  this.timeout(180000);
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-rlvr-'));
  before(async () => {
    await initBackend();
  });
  it('writes one metrics line per step, every reward component, and a per-family summary', () => {
    const ck = path.join(d, 'init.json');
    saveCheckpoint(createPolicy(modelConfig('transformer', 'S', 1)), ck);
    fs.writeFileSync(path.join(d, 'cfg.json'), JSON.stringify({ prompts: 2, rollouts: 2 }));
    execFileSync(
      path.resolve('node_modules/.bin/tsx'),
      [
        'src/cli/rlvr.ts',
        '--checkpoint',
        ck,
        '--steps',
        '3',
        '--out',
        path.join(d, 'run'),
        '--config',
        path.join(d, 'cfg.json'),
        '--eval-problems',
        '1',
        '--eval-samples',
        '1',
        '--eval-every',
        '2',
      ],
      { stdio: 'pipe' },
    );
    const lines = fs
      .readFileSync(path.join(d, 'run', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.step),
      [0, 1, 2],
    );
    for (const k of [
      'accuracy',
      'reward/outcome',
      'reward_std',
      'response_length',
      'reason/entropy',
      'reason/approx_kl',
      'sample_ms',
    ])
      assert.ok(k in lines[0], k);
    const summary = readCsv(path.join(d, 'run', 'summary.csv'));
    assert.deepEqual(
      summary.map((r) => r.family),
      ['add', 'sub', 'chain', 'chain_ood'],
    );
    assert.ok('coldstart_accuracy' in summary[0] && 'final_accuracy' in summary[0]);
    assert.deepEqual([...new Set(readCsv(path.join(d, 'run', 'eval.csv')).map((r) => r.step))], [0, 2, 3]);
  });
  it('rejects bad configs by name', () => {
    assert.throws(
      () => checkRlvrConfig(mergeConfig(defaultRlvrConfig, { algo: 'dpo' })),
      /algo must be "ppo" or "grpo"/,
    );
    assert.throws(
      () => checkRlvrConfig(mergeConfig(defaultRlvrConfig, { ppo: { gamma: 2 } })),
      /ppo.gamma must be a probability/,
    );
    assert.throws(
      () => checkRlvrConfig(mergeConfig(defaultRlvrConfig, { world: { trainFamilies: ['chain_ood'] } })),
      /held out/,
    );
  });
  it('stops on a NaN loss before it reaches the weights', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 2));
    const before = Array.from(Object.values(policy.weights)[0].dataSync());
    const sb = makeSequenceBatch([[2, 14]], [[15, 1]]);
    const nan = tf.fill([1, sb.T], NaN),
      z = tf.zeros([1, sb.T]);
    assert.throws(
      () =>
        ppoGradientStep(
          policy,
          makeRoleOptimizers(defaultPpoConfig.lr).reason,
          sb,
          { oldLp: z, oldV: z, A: nan, R: z },
          'reason',
          defaultPpoConfig,
        ),
      /PPO loss is NaN/,
    );
    assert.deepEqual(Array.from(Object.values(policy.weights)[0].dataSync()), before);
  });
});
