// GRPO (CO-RL, EvoLM): group-normalised sequence advantages broadcast to tokens, token-level clipped ratio,
// optional k3 KL loss to a reference policy.
import { tf } from '../models/backend.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenLogProbs } from '../models/logprobs.js';
import type { Policy } from '../models/policy.js';
import { clipByGlobalNorm } from './optim.js';
import { defaultGroupNorm, groupAdvantages, type GroupNorm } from './advantages.js';
import { clippedSurrogate, klK3, tokenMean } from './losses.js';
import { mean, minibatches, toGrid, type Rollout } from './rollout.js';
import { scoreRollouts } from './ppo.js';
import type { Rng } from '../util/random.js';
import { requireInteger, requireNonNegative, requirePositive } from '../io/validate.js';

export interface GrpoConfig {
  clip: number;
  /** coefficient of the k3 KL loss to the reference policy (0: none) */
  klCoef: number;
  epochs: number;
  minibatches: number;
  maxGradNorm: number;
  lr: number;
  norm: GroupNorm;
}

export const defaultGrpoConfig: GrpoConfig = { clip: 0.2, klCoef: 0, epochs: 1, minibatches: 2, maxGradNorm: 1, lr: 1e-4, norm: defaultGroupNorm };

export function checkGrpoConfig(c: GrpoConfig): void {
  requirePositive('grpo.clip', c.clip); requireNonNegative('grpo.klCoef', c.klCoef);
  requireInteger('grpo.epochs', c.epochs, 1); requireInteger('grpo.minibatches', c.minibatches, 1);
  requirePositive('grpo.maxGradNorm', c.maxGradNorm); requirePositive('grpo.lr', c.lr);
}

/** Sequence advantages of rollouts grouped by their `group` id. */
export function grpoAdvantages(rs: Rollout[], norm: GroupNorm): number[] {
  const out = new Array(rs.length).fill(0), byGroup = new Map<number, number[]>();
  rs.forEach((r, i) => byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), i]));
  for (const idx of byGroup.values()) {
    const a = groupAdvantages(idx.map((i) => rs[i].reward), norm);
    idx.forEach((i, j) => { out[i] = a[j]; });
  }
  return out;
}

export function grpoUpdate(policy: Policy, opt: tf.Optimizer, rs: Rollout[], c: GrpoConfig, rng: Rng, ref?: Policy): Record<string, number> {
  checkGrpoConfig(c);
  const role = rs[0].role, vars = Object.values(policy.weights);
  const adv = grpoAdvantages(rs, c.norm);
  const old = scoreRollouts(policy, rs, role);
  const refLp = ref && c.klCoef > 0 ? scoreRollouts(ref, rs, role).logp : null;
  const acc = { pg: [] as number[], kl: [] as number[], clipfrac: [] as number[], gradNorm: [] as number[] };
  for (let e = 0; e < c.epochs; e++) {
    for (const mb of minibatches(rs.length, c.minibatches, rng)) {
      const sb = makeSequenceBatch(mb.map((i) => rs[i].prompt), mb.map((i) => rs[i].completion));
      const oldLp = toGrid(sb, mb.map((i) => old.logp[i]));
      const A = toGrid(sb, mb.map((i) => new Float64Array(rs[i].completion.length).fill(adv[i])));
      const ref = refLp ? toGrid(sb, mb.map((i) => refLp[i])) : null;
      let parts: tf.Scalar[] = [];
      const { value, grads } = tf.variableGrads(() => {
        const o = tokenLogProbs(policy, sb, 0, false);
        const s = clippedSurrogate(o.logp, oldLp, A, sb.mask, c.clip);
        const kl = ref ? tokenMean(klK3(o.logp, ref), sb.mask) : tf.scalar(0);
        parts = [s.loss, kl, s.clipfrac].map((t) => tf.keep(t.clone()));
        return s.loss.add(kl.mul(c.klCoef)) as tf.Scalar;
      }, vars);
      const loss = value.dataSync()[0];
      if (!Number.isFinite(loss)) throw new Error(`GRPO loss is ${loss}: stopping before it reaches the weights`);
      acc.gradNorm.push(clipByGlobalNorm(grads, c.maxGradNorm));
      opt.applyGradients(grads as tf.NamedTensorMap);
      const [pg, kl, cf] = parts.map((t) => t.dataSync()[0]);
      acc.pg.push(pg); acc.kl.push(kl); acc.clipfrac.push(cf);
      tf.dispose([value, ...Object.values(grads), ...parts, oldLp, A, ...(ref ? [ref] : [])]);
      disposeSequenceBatch(sb);
    }
  }
  const zeroStd = [...new Set(rs.map((r) => r.group))].filter((g) => new Set(rs.filter((r) => r.group === g).map((r) => r.reward)).size === 1).length;
  return { pg_loss: mean(acc.pg), kl_ref: mean(acc.kl), clipfrac: mean(acc.clipfrac), grad_norm: mean(acc.gradNorm),
    frac_reward_zero_std: zeroStd / new Set(rs.map((r) => r.group)).size };
}
