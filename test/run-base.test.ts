// The config base every RL trainer extends (src/rl/trainer.ts RunBase), checked once by checkRunBase: each trainer's
// check reads it, with its own floors (RLCER's 2 rollouts, EvoLM's 2 prompts), and the held-out family is refused in
// every trainer's world (Rubicon's included).
import { strict as assert } from 'node:assert';
import { checkRunBase } from '../src/rl/trainer.js';
import { checkRlvrConfig, defaultRlvrConfig } from '../src/methods/trainers/rlvr.js';
import { checkRlcerConfig, defaultRlcerConfig } from '../src/methods/trainers/rlcer.js';
import { checkEvolmConfig, defaultEvolmConfig } from '../src/methods/trainers/evolm.js';
import { checkLabelFreeConfig, defaultLabelFreeConfig } from '../src/methods/trainers/label-free.js';
import { checkRubiconConfig, defaultRubiconConfig } from '../src/methods/trainers/rubicon-train.js';
import { ConfigError } from '../src/util/validate.js';

const fails = (f: () => void, re: RegExp) =>
  assert.throws(f, (e: Error) => e instanceof ConfigError && re.test(e.message));

describe('the run base of every RL trainer', () => {
  it('checks steps, prompts, rollouts, temperature and the world once', () => {
    const ok = { steps: 0, prompts: 1, rollouts: 1, temperature: 0.5, world: defaultRlvrConfig.world };
    checkRunBase(ok);
    fails(() => checkRunBase({ ...ok, steps: -1 }), /steps/);
    fails(() => checkRunBase({ ...ok, prompts: 0 }), /prompts/);
    fails(() => checkRunBase({ ...ok, rollouts: 1.5 }), /rollouts/);
    fails(() => checkRunBase({ ...ok, temperature: 0 }), /temperature/);
    fails(() => checkRunBase({ ...ok, rollouts: 1 }, { rollouts: 2 }), /rollouts/);
    fails(() => checkRunBase({ ...ok, world: { ...ok.world, trainFamilies: ['chain_ood'] } }), /chain_ood/);
  });

  it("is every trainer's check, with the trainer's own floors", () => {
    const checks: [string, (over: object) => void][] = [
      ['rlvr', (o) => checkRlvrConfig({ ...defaultRlvrConfig, ...o })],
      ['rlcer', (o) => checkRlcerConfig({ ...defaultRlcerConfig, ...o })],
      ['evolm', (o) => checkEvolmConfig({ ...defaultEvolmConfig, ...o })],
      ['label-free', (o) => checkLabelFreeConfig({ ...defaultLabelFreeConfig, ...o }, 2)],
      ['rubicon', (o) => checkRubiconConfig({ ...defaultRubiconConfig, ...o })],
    ];
    for (const [name, check] of checks) {
      check({});
      fails(() => check({ temperature: -1 }), /temperature/);
      fails(() => check({ steps: 1.5 }), /steps/);
      fails(() => check({ world: { ...defaultRlvrConfig.world, trainFamilies: ['add', 'chain_ood'] } }), /chain_ood/);
      assert.ok(name);
    }
    fails(() => checkRlcerConfig({ ...defaultRlcerConfig, rollouts: 1 }), /rollouts/);
    checkRlvrConfig({ ...defaultRlvrConfig, rollouts: 1 });
    fails(() => checkEvolmConfig({ ...defaultEvolmConfig, prompts: 1 }), /prompts/);
    checkRlvrConfig({ ...defaultRlvrConfig, prompts: 1 });
  });
});
