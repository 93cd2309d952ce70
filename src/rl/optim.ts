// Gradient utilities shared by SFT, PPO and GRPO.
import { tf } from '../models/backend.js';
import { decodeTensor, encodeTensor } from '../models/policy.js';

/** Clip gradients to a global norm in place; returns the norm before clipping. Throws on a non-finite gradient. */
export function clipByGlobalNorm(grads: Record<string, tf.Tensor>, maxNorm: number): number {
  // each gradient's float32 sum of squares, read back at once and added in float64 in the gradients' order
  const squares = tf.tidy(() => tf.stack(Object.values(grads).map((g) => g.square().sum())).dataSync() as Float32Array);
  const norm = Math.sqrt(squares.reduce((s, x) => s + x, 0));
  if (!Number.isFinite(norm))
    throw new Error(`non-finite gradient norm (${norm}): the update would write NaN into the weights`);
  if (norm > maxNorm)
    for (const k of Object.keys(grads)) {
      const g = grads[k];
      grads[k] = g.mul(maxNorm / norm);
      g.dispose();
    }
  return norm;
}

// ---- optimizer state, so that an interrupted run resumes exactly (Adam's step count and moments) ----
// tfjs's Adam keeps its moments by position, in the order applyGradients first meets the variables; a resumed run
// builds the same model and passes its gradients in the same order, so positions match.

// Adam's bias-correction products beta^t are kept as running products; setWeights recomputes them as pow(beta,
// t + 1), which differs in the last float32 bits, so they are saved and restored as they are (private fields).
// The rate is a protected field too, read and written by the KL-adaptive rate (kl-adaptive.ts).
type AdamInternals = { learningRate: number; accBeta1?: tf.Variable; accBeta2?: tf.Variable };
/** An Adam's internals: tfjs declares them protected or private, so they are read through this one cast. */
export const adamInternals = (opt: tf.Optimizer) => opt as unknown as AdamInternals;

export interface OptimizerState {
  kind: string;
  iterations: number;
  slots: { name: string; shape: number[]; data: string }[];
  products?: number[];
}

export async function optimizerState(opt: tf.Optimizer): Promise<OptimizerState> {
  const [iter, ...slots] = await opt.getWeights();
  const { accBeta1, accBeta2 } = adamInternals(opt);
  return {
    kind: opt.getClassName(),
    iterations: (await iter.tensor.data())[0],
    slots: slots.map((s) => ({ name: s.name, ...encodeTensor(s.tensor, `optimizer slot ${s.name}`) })),
    ...(accBeta1 && accBeta2 ? { products: [accBeta1.dataSync()[0], accBeta2.dataSync()[0]] } : {}),
  };
}

/**
 * Restore a state saved by `optimizerState` into a fresh optimizer of the same kind. Adam holds a first and a second
 * moment for each variable that has received a gradient, in `vars` order (variables without a gradient, such as an
 * untrained value head, have none), so the moments' shapes must follow `vars`' shapes in order.
 */
export async function restoreOptimizer(opt: tf.Optimizer, state: OptimizerState, vars: tf.Variable[]): Promise<void> {
  if (state.kind !== opt.getClassName())
    throw new Error(`optimizer state is for ${state.kind}, the run uses ${opt.getClassName()}`);
  const half = state.slots.length / 2,
    shape = (s: { shape: number[] }) => s.shape.join('x');
  let j = 0;
  for (let i = 0; i < half; i++) {
    if (shape(state.slots[i]) !== shape(state.slots[half + i]))
      throw new Error(`optimizer slots ${i} and ${half + i} (the moments of one variable) differ in shape`);
    while (j < vars.length && shape(vars[j]) !== shape(state.slots[i])) j++;
    if (j++ >= vars.length)
      throw new Error(
        `optimizer state does not fit the model: no variable left for slot ${i} of shape [${state.slots[i].shape}]`,
      );
  }
  const named = [
    { name: 'iter', tensor: tf.scalar(state.iterations, 'int32') },
    ...state.slots.map((s) => ({ name: s.name, tensor: decodeTensor(s) })),
  ];
  await opt.setWeights(named);
  tf.dispose(named.map((w) => w.tensor)); // setWeights keeps its own copies (new variables)
  const { accBeta1, accBeta2 } = adamInternals(opt);
  if (state.products && accBeta1 && accBeta2)
    tf.tidy(() => {
      accBeta1.assign(tf.scalar(state.products![0]));
      accBeta2.assign(tf.scalar(state.products![1]));
    });
}

/** The states of a trainer's named optimizers (its per-role Adams), for an exact resume. */
export async function optimizersState(opts: Record<string, tf.Optimizer>): Promise<Record<string, OptimizerState>> {
  const out: Record<string, OptimizerState> = {};
  for (const [k, o] of Object.entries(opts)) out[k] = await optimizerState(o);
  return out;
}

/** Restore `optimizersState`'s output into fresh optimizers; `vars(name)` lists the variables each one updates. */
export async function restoreOptimizers(
  opts: Record<string, tf.Optimizer>,
  states: Record<string, OptimizerState>,
  vars: (name: string) => tf.Variable[],
): Promise<void> {
  for (const [k, o] of Object.entries(opts)) {
    if (!states?.[k]) throw new Error(`the saved trainer state has no optimizer "${k}"`);
    await restoreOptimizer(o, states[k], vars(k));
  }
}
