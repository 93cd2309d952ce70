// CO-RL's Table 1 analogue: which models each method trains, and the profiles. Single-agent methods are run on
// each model of the cross-family pair; CO-RL settings name their ring of models (agent n supervised by n-1).
import { ConfigError } from '../io/validate.js';
import type { LabelFreeConfig, LabelFreeMethod } from './label-free.js';

/** Cold-start checkpoints that play agents (`make coldstart` writes them; the seed-1 transformer is a second run). */
export const AGENT_CHECKPOINTS: Record<string, string> = {
  'transformer-S': 'data/checkpoints/coldstart-transformer-S.json',
  'transformer-S-seed1': 'data/checkpoints/coldstart-transformer-S-seed1.json',
  'gru-S': 'data/checkpoints/coldstart-gru-S.json',
};

export interface CorlMethodSpec { method: LabelFreeMethod | 'base'; agents: string[][]; label: string; labelFree?: Partial<LabelFreeConfig> }

/** Each entry trains every listed group of agents (a single agent, or a ring) as one run. */
export const CORL_METHODS: Record<string, CorlMethodSpec> = {
  base: { method: 'base', agents: [['transformer-S'], ['gru-S']], label: 'cold start (no RL)' },
  gt_reward: { method: 'gt_reward', agents: [['transformer-S'], ['gru-S']], label: 'GT-reward' },
  ttrl: { method: 'ttrl', agents: [['transformer-S'], ['gru-S']], label: 'TTRL' },
  intuitor: { method: 'intuitor', agents: [['transformer-S'], ['gru-S']], label: 'Intuitor' },
  rent: { method: 'rent', agents: [['transformer-S'], ['gru-S']], label: 'RENT' },
  corl_same_family: { method: 'corl', agents: [['transformer-S', 'transformer-S-seed1']], label: 'CO-RL, same family' },
  corl_diff_family: { method: 'corl', agents: [['transformer-S', 'gru-S']], label: 'CO-RL, different family' },
  corl_diff_family_decoupled: { method: 'corl', agents: [['transformer-S', 'gru-S']], labelFree: { decoupled: true }, label: 'CO-RL, different family + data decoupling' },
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

export interface CorlProfile { steps: number; seeds: number[]; evalPerCell: number; evalSamples: number; theorySamples: number }
export const CORL_PROFILES: Record<string, CorlProfile> = {
  quick: { steps: 10, seeds: [0, 1], evalPerCell: 8, evalSamples: 4, theorySamples: 8 },
  full: { steps: 60, seeds: [0, 1, 2], evalPerCell: 24, evalSamples: 8, theorySamples: 16 },
};

export function corlProfile(name: string): CorlProfile {
  const p = CORL_PROFILES[name];
  if (!p) throw new ConfigError(`unknown profile "${name}" (known: ${Object.keys(CORL_PROFILES).join(', ')})`);
  return p;
}

/**
 * CO-RL's Table 1 averages (7 benchmarks, %), as reported, for the 3B pair; our transformer-S plays Qwen2.5-3B and
 * our GRU plays Llama-3.2-3B-Instruct only as an analogy (two families), not as a scale match.
 */
export const CORL_REPORTED = [
  ['base', 40.7, 38.7], ['gt_reward', 47.4, 43.0], ['ttrl', 47.3, 43.1], ['rent', 44.9, 38.6], ['intuitor', 45.6, 39.7],
  ['corl_same_family', 48.7, 42.7], ['corl_diff_family', 48.5, 43.7], ['corl_diff_family_decoupled', 49.3, 43.9],
].flatMap(([method, qwen, llama]) => [
  { paper: 'CO-RL Table 1', method, model: 'Qwen2.5-3B', analogue: 'transformer-S', average: qwen },
  { paper: 'CO-RL Table 1', method, model: 'Llama-3.2-3B-Instruct', analogue: 'gru-S', average: llama },
]);
