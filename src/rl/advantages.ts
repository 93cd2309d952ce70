// The advantage estimators (GRPO's group normalisation, GAE, whitening) are tensor-free and live below the theory layer,
// in src/util/advantages.ts, so that CO-RL's tabular agents can use them without importing the RL layer; re-exported
// here for the trainers.
export { defaultGroupNorm, gae, groupAdvantages, whiten, type GroupNorm } from '../util/advantages.js';
