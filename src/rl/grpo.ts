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
import { ConfigError, requireInteger, requireNonNegative, requirePositive } from '../util/validate.js';

export interface GrpoConfig {
  clip: number;
  /** coefficient of the k3 KL loss to the reference policy (0: none) */
  klCoef: number;
  epochs: number;
  minibatches: number;
  maxGradNorm: number;
  lr: number;
  norm: GroupNorm;
  /** padded parts per minibatch, rows sorted by length (the same update, only faster; see PPO) */
  lengthBuckets: number;
}

export const defaultGrpoConfig: GrpoConfig = {
  clip: 0.2,
  klCoef: 0,
  epochs: 1,
  minibatches: 2,
  maxGradNorm: 1,
  lr: 1e-4,
  norm: defaultGroupNorm,
  lengthBuckets: 3,
};

export function checkGrpoConfig(c: GrpoConfig): void {
  requirePositive('grpo.clip', c.clip);
  requireNonNegative('grpo.klCoef', c.klCoef);
  requireInteger('grpo.epochs', c.epochs, 1);
  requireInteger('grpo.minibatches', c.minibatches, 1);
  requirePositive('grpo.maxGradNorm', c.maxGradNorm);
  requirePositive('grpo.lr', c.lr);
  requireInteger('grpo.lengthBuckets', c.lengthBuckets, 1);
}

/** Sequence advantages of rollouts grouped by their `group` id. */
export function grpoAdvantages(rs: Rollout[], norm: GroupNorm): number[] {
  const out = new Array(rs.length).fill(0),
    byGroup = new Map<number, number[]>();
  rs.forEach((r, i) => byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), i]));
  for (const idx of byGroup.values()) {
    const a = groupAdvantages(
      idx.map((i) => rs[i].reward),
      norm,
    );
    idx.forEach((i, j) => {
      out[i] = a[j];
    });
  }
  return out;
}

export function grpoUpdate(
  policy: Policy,
  opt: tf.Optimizer,
  rs: Rollout[],
  c: GrpoConfig,
  rng: Rng,
  ref?: Policy,
): Record<string, number> {
  checkGrpoConfig(c);
  if (c.klCoef > 0 && !ref)
    throw new ConfigError('grpo.klCoef > 0 needs a reference policy: the trainer must pass one (none was given)');
  const role = rs[0].role,
    vars = Object.values(policy.weights);
  const adv = grpoAdvantages(rs, c.norm);
  const old = scoreRollouts(policy, rs, role);
  const refLp = ref && c.klCoef > 0 ? scoreRollouts(ref, rs, role).logp : null;
  const acc = {
    pg: [] as number[],
    kl: [] as number[],
    clipfrac: [] as number[],
    approxKl: [] as number[],
    gradNorm: [] as number[],
  };
  for (let e = 0; e < c.epochs; e++) {
    for (const mb of minibatches(rs.length, c.minibatches, rng)) {
      // rows sorted by length and cut into padded parts; each part's token means weighted by its share of tokens
      const sorted =
        c.lengthBuckets === 1
          ? mb
          : [...mb].sort(
              (x, y) => rs[x].prompt.length + rs[x].completion.length - rs[y].prompt.length - rs[y].completion.length,
            );
      const size = Math.ceil(sorted.length / c.lengthBuckets);
      const parts = Array.from({ length: Math.ceil(sorted.length / size) }, (_, q) =>
        sorted.slice(q * size, (q + 1) * size),
      ).map((rows) => {
        const sb = makeSequenceBatch(
          rows.map((i) => rs[i].prompt),
          rows.map((i) => rs[i].completion),
        );
        return {
          sb,
          tokens: rows.reduce((a, i) => a + rs[i].completion.length, 0),
          oldLp: toGrid(
            sb,
            rows.map((i) => old.logp[i]),
          ),
          A: toGrid(
            sb,
            rows.map((i) => new Float64Array(rs[i].completion.length).fill(adv[i])),
          ),
          ref: refLp
            ? toGrid(
                sb,
                rows.map((i) => refLp[i]),
              )
            : null,
        };
      });
      const total = parts.reduce((a, p) => a + p.tokens, 0);
      let kept: tf.Scalar[] = [];
      const { value, grads } = tf.variableGrads(() => {
        const sums = [0, 0, 0, 0].map(() => tf.scalar(0) as tf.Tensor);
        for (const p of parts) {
          const o = tokenLogProbs(policy, p.sb, 0, false);
          const s = clippedSurrogate(o.logp, p.oldLp, p.A, p.sb.mask, c.clip);
          const kl = p.ref ? tokenMean(klK3(o.logp, p.ref), p.sb.mask) : tf.scalar(0);
          [s.loss, kl, s.clipfrac, s.approxKl].forEach((t, j) => {
            sums[j] = sums[j].add(t.mul(p.tokens / Math.max(1, total)));
          });
        }
        kept = sums.map((t) => tf.keep(t.clone()) as tf.Scalar);
        return sums[0].add(sums[1].mul(c.klCoef)) as tf.Scalar;
      }, vars);
      try {
        const loss = value.dataSync()[0];
        if (!Number.isFinite(loss)) throw new Error(`GRPO loss is ${loss}: stopping before it reaches the weights`);
        acc.gradNorm.push(clipByGlobalNorm(grads, c.maxGradNorm));
        opt.applyGradients(grads as tf.NamedTensorMap);
        const [pg, kl, cf, ak] = kept.map((t) => t.dataSync()[0]);
        acc.pg.push(pg);
        acc.kl.push(kl);
        acc.clipfrac.push(cf);
        acc.approxKl.push(ak);
      } finally {
        tf.dispose([value, ...Object.values(grads), ...kept]);
        for (const p of parts) {
          tf.dispose([p.oldLp, p.A, ...(p.ref ? [p.ref] : [])]);
          disposeSequenceBatch(p.sb);
        }
      }
    }
  }
  const zeroStd = [...new Set(rs.map((r) => r.group))].filter(
    (g) => new Set(rs.filter((r) => r.group === g).map((r) => r.reward)).size === 1,
  ).length;
  // approx_kl: the k1 estimate of KL(old || new) per update, as PPO logs it (the update-size parity check)
  return {
    pg_loss: mean(acc.pg),
    kl_ref: mean(acc.kl),
    clipfrac: mean(acc.clipfrac),
    approx_kl: mean(acc.approxKl),
    grad_norm: mean(acc.gradNorm),
    frac_reward_zero_std: zeroStd / new Set(rs.map((r) => r.group)).size,
  };
}
