// The world's default configuration, in one place. Pre-registered: these values are fixed from world-level
// criteria measured with the teacher, the cold-start model and RLVR only (results/world/criteria.csv), before
// any rubric method runs. Other values belong in a regime map reported in full.
import { sampleProblem, TRAIN_FAMILIES, type Family, type Problem, type ProblemKnobs } from './problems.js';
import type { Rng } from '../util/random.js';
import { EVAL_GRID } from './datasets.js';
import { ConfigError } from '../util/validate.js';
import { requireNotHeldOut } from './families.js';

export interface WorldConfig {
  /** families RL trains on (chain_ood is held out everywhere) */
  trainFamilies: Family[];
  /** operand digits per family */
  digits: Record<Family, number[]>;
  problems: ProblemKnobs;
  /**
   * training cells (family, operand digits) RL draws its prompts from, uniformly; null (default) = every
   * difficulty of every training family, drawn as before (the regime map's sparsity knob restricts it)
   */
  trainCells?: { family: Family; digits: number }[] | null;
  /**
   * probability that the training reward's correctness label of a rollout flips (RLVR and RLCER; RLCER's validity
   * reads the same label). Evaluation and logged accuracy stay exact. Default 0: no random draw at all.
   */
  labelNoise?: number;
}

export const defaultWorld: WorldConfig = {
  trainFamilies: TRAIN_FAMILIES,
  digits: EVAL_GRID,
  problems: { carryFreeShare: null },
  trainCells: null,
  labelNoise: 0,
};

/**
 * Throws a ConfigError naming the first bad world knob (an unknown or held-out training family, cells outside the
 * training families, a noise not in [0, 1)).
 */
export function checkWorldConfig(w: WorldConfig): void {
  requireNotHeldOut(w.trainFamilies, 'RL training');
  if (w.trainCells != null) {
    if (!Array.isArray(w.trainCells) || w.trainCells.length === 0)
      throw new ConfigError('world.trainCells must be null or a non-empty list');
    for (const c of w.trainCells) {
      if (!w.trainFamilies.includes(c.family))
        throw new ConfigError(
          `world.trainCells: family "${c.family}" is not a training family (${w.trainFamilies.join(', ')})`,
        );
      if (!Number.isInteger(c.digits) || c.digits < 1 || c.digits > 8)
        throw new ConfigError(`world.trainCells: digits must be an integer in 1..8 (got ${c.digits})`);
    }
  }
  const eps = w.labelNoise ?? 0;
  if (!(eps >= 0 && eps < 1)) throw new ConfigError(`world.labelNoise must be in [0, 1) (got ${eps})`);
}

/** One RL training problem: a training family, then one of its difficulties, uniformly (or a listed training cell). */
export function drawTrainingProblem(world: WorldConfig, rng: Rng): Problem {
  if (world.trainCells != null) {
    const cell = world.trainCells[rng.int(world.trainCells.length)];
    return sampleProblem(cell.family, cell.digits, rng, world.problems);
  }
  const f: Family = world.trainFamilies[rng.int(world.trainFamilies.length)],
    ds = world.digits[f];
  return sampleProblem(f, ds[rng.int(ds.length)], rng, world.problems);
}
