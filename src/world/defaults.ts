// The world's default configuration, in one place. Pre-registered: these values are fixed from world-level
// criteria measured with the teacher, the cold-start model and RLVR only (results/world/criteria.csv), before
// any rubric method runs. Other values belong in a regime map reported in full.
import { sampleProblem, TRAIN_FAMILIES, type Family, type Problem, type ProblemKnobs } from './problems.js';
import type { Rng } from '../util/random.js';
import { EVAL_GRID } from './datasets.js';

export interface WorldConfig {
  /** families RL trains on (chain_ood is held out everywhere) */
  trainFamilies: Family[];
  /** operand digits per family */
  digits: Record<Family, number[]>;
  problems: ProblemKnobs;
}

export const defaultWorld: WorldConfig = {
  trainFamilies: TRAIN_FAMILIES,
  digits: EVAL_GRID,
  problems: { carryFreeShare: null },
};

/** One RL training problem: a training family, then one of its difficulties, uniformly. */
export function drawTrainingProblem(world: WorldConfig, rng: Rng): Problem {
  const f: Family = world.trainFamilies[rng.int(world.trainFamilies.length)], ds = world.digits[f];
  return sampleProblem(f, ds[rng.int(ds.length)], rng, world.problems);
}
