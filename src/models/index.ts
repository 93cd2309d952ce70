// Build a policy of either family from its config, optionally from a checkpoint.
import { createTransformer } from './transformer.js';
import { createGru } from './gru.js';
import { loadWeights, readCheckpoint, type ModelConfig, type Policy } from './policy.js';

export function createPolicy(config: ModelConfig): Policy {
  return config.arch === 'transformer' ? createTransformer(config) : createGru(config);
}

/** A new network of `p`'s architecture holding a copy of its weights (a frozen reference, a critic's start). */
export function copyPolicy(p: Policy): Policy {
  const q = createPolicy(p.config);
  for (const [k, v] of Object.entries(q.weights)) v.assign(p.weights[k]);
  return q;
}

export function loadPolicy(file: string): Policy {
  const ck = readCheckpoint(file);
  const p = createPolicy(ck.config);
  loadWeights(p, ck, file);
  return p;
}
