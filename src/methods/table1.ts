// CO-RL's Table 1 analogue: which models each method trains, and the profiles. Single-agent methods are run on
// each model of the cross-family pair; CO-RL settings name their ring of models (agent n supervised by n-1).
import { ConfigError } from '../io/validate.js';
import type { LabelFreeMethod } from './label-free.js';

/** Cold-start checkpoints that play agents (`make coldstart` writes them; the seed-1 transformer is a second run). */
export const AGENT_CHECKPOINTS: Record<string, string> = {
  'transformer-S': 'data/checkpoints/coldstart-transformer-S.json',
  'transformer-S-seed1': 'data/checkpoints/coldstart-transformer-S-seed1.json',
  'gru-S': 'data/checkpoints/coldstart-gru-S.json',
};

export interface CorlMethodSpec { method: LabelFreeMethod | 'base'; agents: string[][]; label: string }

/** Each entry trains every listed group of agents (a single agent, or a ring) as one run. */
export const CORL_METHODS: Record<string, CorlMethodSpec> = {
  base: { method: 'base', agents: [['transformer-S'], ['gru-S']], label: 'cold start (no RL)' },
  gt_reward: { method: 'gt_reward', agents: [['transformer-S'], ['gru-S']], label: 'GT-reward' },
  ttrl: { method: 'ttrl', agents: [['transformer-S'], ['gru-S']], label: 'TTRL' },
  intuitor: { method: 'intuitor', agents: [['transformer-S'], ['gru-S']], label: 'Intuitor' },
  rent: { method: 'rent', agents: [['transformer-S'], ['gru-S']], label: 'RENT' },
  corl_same_family: { method: 'corl', agents: [['transformer-S', 'transformer-S-seed1']], label: 'CO-RL, same family' },
  corl_diff_family: { method: 'corl', agents: [['transformer-S', 'gru-S']], label: 'CO-RL, different family' },
  corl_three_ring: { method: 'corl', agents: [['transformer-S', 'gru-S', 'transformer-S-seed1']], label: 'CO-RL, three-agent ring' },
};

export function corlMethodSpec(id: string): CorlMethodSpec {
  const m = CORL_METHODS[id];
  if (!m) throw new ConfigError(`unknown CO-RL method "${id}" (known: ${Object.keys(CORL_METHODS).join(', ')})`);
  return m;
}

export function agentCheckpoint(name: string): string {
  const f = AGENT_CHECKPOINTS[name];
  if (!f) throw new ConfigError(`unknown agent "${name}" (known: ${Object.keys(AGENT_CHECKPOINTS).join(', ')})`);
  return f;
}
