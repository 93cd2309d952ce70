// PPO as RLCER uses it: one shared policy plays several roles; token-level clipped surrogate, clipped value
// loss, GAE (gamma, lambda), reward on the last token, optional k1 KL penalty to a reference policy in the
// reward, advantages whitened per role, and a learning rate per role (one Adam per role over the shared weights).
import { tf } from '../models/backend.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenLogProbs, type SequenceBatch } from '../models/logprobs.js';
import { ROLE_INDEX, type Policy } from '../models/policy.js';
import { clipByGlobalNorm } from './optim.js';
import { gae, whiten } from './advantages.js';
import { clippedSurrogate, clippedValueLoss, tokenMean } from './losses.js';
import { fromGrid, mean, minibatches, toGrid, type Rollout } from './rollout.js';
import type { Role } from '../world/vocab.js';
import type { Rng } from '../util/random.js';
import { ConfigError, requireInteger, requireNonNegative, requirePositive, requireProbability } from '../io/validate.js';

export interface PpoConfig {
  clip: number;
  valueClip: number;
  valueCoef: number;
  entropyCoef: number;
  gamma: number;
  lambda: number;
  /** k1 KL penalty coefficient, subtracted per token from the reward (0: no reference model needed) */
  klCoef: number;
  epochs: number;
  minibatches: number;
  maxGradNorm: number;
  /**
   * learning rate per role. The rubricator's equals the reasoner's: the largest of {0.5, 1, 2, 5, 10}x at which the
   * reasoner's approx. KL per update stayed within 1.5x of RLVR's and the rubricator's format rate did not fall
   * (pre-registered rule results/rlcer/rate_calibration_rule.md; results/rlcer/rate_calibration.csv: at 10x, the
   * paper's ratio, the reasoner's KL is 90x RLVR's and the format rate falls 0.57 -> 0.24)
   */
  lr: Record<Role, number>;
  /**
   * how the roles' objectives meet on the shared weights: 'separate_adam' (default: one Adam per role at its own
   * rate, each role's gradient clipped on its own, applied in turn, so the reasoner's step is RLVR's step; tested in
   * test/parity.test.ts) or 'weighted_sum' (one Adam at the reasoner's rate over the sum of the roles' clipped
   * gradients, each weighted by its rate / the reasoner's rate: Adam's scale invariance then leaves the reasoner a
   * fraction of its step; kept as the `rlcer_paper_rate` ablation row)
   */
  roleMixing: 'weighted_sum' | 'separate_adam';
  /** padded parts per minibatch, rows sorted by length (1 = one padded batch; the result is the same, only faster) */
  lengthBuckets: number;
  /** a factor on each role's loss (default 1; 0 switches a role's update off, as the update-parity test does) */
  roleLossScale?: Partial<Record<Role, number>>;
}

export const defaultPpoConfig: PpoConfig = {
  clip: 0.2, valueClip: 0.2, valueCoef: 0.5, entropyCoef: 0, gamma: 1, lambda: 1, klCoef: 0,
  epochs: 2, minibatches: 2, maxGradNorm: 1, lr: { reason: 1e-4, rubric: 1e-4, hint: 1e-4 }, roleMixing: 'separate_adam', lengthBuckets: 3,
};

export function checkPpoConfig(c: PpoConfig): void {
  requirePositive('ppo.clip', c.clip); requirePositive('ppo.valueClip', c.valueClip);
  requireNonNegative('ppo.valueCoef', c.valueCoef); requireNonNegative('ppo.entropyCoef', c.entropyCoef);
  requireProbability('ppo.gamma', c.gamma); requireProbability('ppo.lambda', c.lambda); requireNonNegative('ppo.klCoef', c.klCoef);
  requireInteger('ppo.epochs', c.epochs, 1); requireInteger('ppo.minibatches', c.minibatches, 1); requirePositive('ppo.maxGradNorm', c.maxGradNorm);
  for (const [r, v] of Object.entries(c.lr)) requirePositive(`ppo.lr.${r}`, v);
  requireInteger('ppo.lengthBuckets', c.lengthBuckets, 1);
  for (const [r, v] of Object.entries(c.roleLossScale ?? {})) requireNonNegative(`ppo.roleLossScale.${r}`, v);
  if (c.roleMixing !== 'weighted_sum' && c.roleMixing !== 'separate_adam') throw new ConfigError(`ppo.roleMixing must be "weighted_sum" or "separate_adam" (got "${c.roleMixing}")`);
}

export const makeRoleOptimizers = (lr: Record<Role, number>) =>
  Object.fromEntries(Object.entries(lr).map(([r, v]) => [r, tf.train.adam(v)])) as unknown as Record<Role, tf.Optimizer>;

/** Old log-probs and values of rollouts (no gradient), per row. */
export function scoreRollouts(policy: Policy, rs: Rollout[], role: Role) {
  const sb = makeSequenceBatch(rs.map((r) => r.prompt), rs.map((r) => r.completion));
  const out = tf.tidy(() => { const o = tokenLogProbs(policy, sb, ROLE_INDEX[role]); return [o.logp, o.values, o.entropy]; });
  const res = { logp: fromGrid(sb, out[0]), values: fromGrid(sb, out[1]), entropy: fromGrid(sb, out[2]) };
  tf.dispose(out);
  disposeSequenceBatch(sb);
  return res;
}

export interface PpoMetrics { [k: string]: number }

type StepData = { oldLp: tf.Tensor; oldV: tf.Tensor; A: tf.Tensor; R: tf.Tensor };

/**
 * Gradients of the PPO objective on a minibatch (old log-probs, old values, advantages, returns as [B, T]), not yet
 * applied. The minibatch may come as several padded parts (length buckets): each part's token means are weighted
 * by its share of the minibatch's completion tokens, which is exactly the token mean over the whole minibatch.
 */
export function ppoGradients(policy: Policy, parts: { sb: SequenceBatch; d: StepData }[], role: Role, c: PpoConfig) {
  const counts = parts.map((p) => p.sb.completionLengths.reduce((a, b) => a + b, 0)), total = counts.reduce((a, b) => a + b, 0);
  let kept: tf.Scalar[] = [];
  const { value, grads } = tf.variableGrads(() => {
    const sums = [0, 0, 0, 0, 0].map(() => tf.scalar(0) as tf.Tensor);
    parts.forEach(({ sb, d }, k) => {
      // the entropy joins the graph only when it is in the loss; otherwise it is logged from the scoring pass
      const o = tokenLogProbs(policy, sb, ROLE_INDEX[role], c.entropyCoef > 0);
      const s = clippedSurrogate(o.logp, d.oldLp, d.A, sb.mask, c.clip);
      const terms = [s.loss, clippedValueLoss(o.values, d.oldV, d.R, sb.mask, c.valueClip), tokenMean(o.entropy, sb.mask), s.clipfrac, s.approxKl];
      terms.forEach((t, j) => { sums[j] = sums[j].add(t.mul(counts[k] / Math.max(1, total))); });
    });
    kept = sums.map((t) => tf.keep(t.clone()) as tf.Scalar);
    const loss = sums[0].add(sums[1].mul(c.valueCoef)).sub(sums[2].mul(c.entropyCoef));
    return (c.roleLossScale?.[role] === undefined ? loss : loss.mul(c.roleLossScale[role]!)) as tf.Scalar;
  }, Object.values(policy.weights));
  const loss = value.dataSync()[0];
  const [pg, v, ent, clipfrac, approxKl] = kept.map((t) => t.dataSync()[0]);
  tf.dispose([value, ...kept]);
  if (!Number.isFinite(loss)) { tf.dispose(Object.values(grads)); throw new Error(`PPO loss is ${loss} (role ${role}): stopping before it reaches the weights`); }
  const gradNorm = clipByGlobalNorm(grads, c.maxGradNorm);
  return { grads, stats: { gradNorm, pg, v, ent, clipfrac, approxKl } };
}

/** One gradient step of the PPO objective on a minibatch. */
export function ppoGradientStep(policy: Policy, opt: tf.Optimizer, sb: SequenceBatch, d: StepData, role: Role, c: PpoConfig) {
  const { grads, stats } = ppoGradients(policy, [{ sb, d }], role, c);
  opt.applyGradients(grads as tf.NamedTensorMap);
  tf.dispose(Object.values(grads));
  return stats;
}

/** One role's rollouts with their old per-token values and log-probs, and the reference's log-probs (null: no KL). */
export interface RoleScores {
  rs: Pick<Rollout, 'reward' | 'completion'>[];
  values: ArrayLike<number>[];
  logp: ArrayLike<number>[];
  refLogp: ArrayLike<number>[] | null;
}

/**
 * Per-token advantages and returns of each role's rollouts: the scalar reward on the last token minus the k1 KL
 * penalty on every token, GAE(gamma, lambda) against the old values, then the advantages whitened within each role
 * (mean 0, std 1 over that role's tokens). `kl`: the role's mean k1 KL to the reference per rollout (0 without one).
 */
export function roleAdvantages(roles: RoleScores[], c: Pick<PpoConfig, 'gamma' | 'lambda' | 'klCoef'>):
  { adv: Float64Array[]; ret: Float64Array[]; kl: number }[] {
  return roles.map(({ rs, values, logp, refLogp }) => {
    // per-token rewards: the scalar on the last token, minus the k1 KL penalty on every token
    const adv: Float64Array[] = [], ret: Float64Array[] = [];
    let kl = 0;
    rs.forEach((r, i) => {
      const T = r.completion.length, rew = new Float64Array(T);
      rew[T - 1] = r.reward;
      if (refLogp) {
        for (let t = 0; t < T; t++) { const k = logp[i][t] - refLogp[i][t]; rew[t] -= c.klCoef * k; kl += k / T; }
      }
      const g = gae(rew, values[i], c.gamma, c.lambda);
      adv.push(g.advantages); ret.push(g.returns);
    });
    whiten(adv); // advantages normalised per role
    return { adv, ret, kl: refLogp ? kl / rs.length : 0 };
  });
}

/**
 * One PPO update on a batch of rollouts (any mix of roles). Each role has its own advantages (whitened per role)
 * and value head; in every (epoch, minibatch) the roles' gradients are all taken at the same parameters, then
 * combined as `roleMixing` says: the roles' objectives summed on the shared weights, with a rate per role.
 */
export function ppoUpdate(policy: Policy, opts: Record<Role, tf.Optimizer>, rollouts: Rollout[], c: PpoConfig, rng: Rng, ref?: Policy): PpoMetrics {
  checkPpoConfig(c);
  const roles = [...new Set(rollouts.map((r) => r.role))];
  const scored = roles.map((role) => {
    const rs = rollouts.filter((r) => r.role === role);
    const old = scoreRollouts(policy, rs, role);
    const refLogp = ref && c.klCoef > 0 ? scoreRollouts(ref, rs, role).logp : null;
    return { role, rs, old, refLogp };
  });
  const advantages = roleAdvantages(
    scored.map(({ rs, old, refLogp }) => ({ rs, values: old.values, logp: old.logp, refLogp })), c);
  const prepared = scored.map(({ role, rs, old }, k) => {
    const acc = { pg: [] as number[], v: [] as number[], ent: [] as number[], clipfrac: [] as number[], approxKl: [] as number[], gradNorm: [] as number[] };
    return { role, rs, old, ...advantages[k], acc };
  });
  // every epoch's minibatches drawn role by role, so a role's splits do not depend on the other roles (the reasoner
  // of a multi-role method sees exactly RLVR's minibatches)
  const epochSplits = prepared.map((p) => Array.from({ length: c.epochs }, () => minibatches(p.rs.length, c.minibatches, rng)));
  for (let e = 0; e < c.epochs; e++) {
    const splits = epochSplits.map((s) => s[e]);
    for (let m = 0; m < Math.max(...splits.map((s) => s.length)); m++) {
      const pending: { role: Role; grads: tf.NamedTensorMap }[] = [];
      try {
        prepared.forEach((p, k) => {
          const mb = splits[k][m];
          if (!mb) return;
          // the minibatch's rows sorted by length and cut into padded parts
          const sorted = c.lengthBuckets === 1 ? mb : [...mb].sort((x, y) => p.rs[x].prompt.length + p.rs[x].completion.length - p.rs[y].prompt.length - p.rs[y].completion.length);
          const size = Math.ceil(sorted.length / c.lengthBuckets);
          const parts = Array.from({ length: Math.ceil(sorted.length / size) }, (_, q) => sorted.slice(q * size, (q + 1) * size)).map((rows) => {
            const sb = makeSequenceBatch(rows.map((i) => p.rs[i].prompt), rows.map((i) => p.rs[i].completion));
            return { sb, d: { oldLp: toGrid(sb, rows.map((i) => p.old.logp[i])), oldV: toGrid(sb, rows.map((i) => p.old.values[i])),
              A: toGrid(sb, rows.map((i) => p.adv[i])), R: toGrid(sb, rows.map((i) => p.ret[i])) } };
          });
          try {
            const { grads, stats } = ppoGradients(policy, parts, p.role, c);
            pending.push({ role: p.role, grads: grads as tf.NamedTensorMap });
            for (const key of Object.keys(p.acc) as (keyof typeof p.acc)[]) p.acc[key].push(stats[key]);
          } finally {
            for (const part of parts) { tf.dispose(Object.values(part.d)); disposeSequenceBatch(part.sb); }
          }
        });
        if (c.roleMixing === 'separate_adam' || pending.length === 0) for (const g of pending) opts[g.role].applyGradients(g.grads);
        else {
          // one Adam (the reasoner's) over the weighted sum of the roles' gradients
          const summed = tf.tidy(() => Object.fromEntries(Object.keys(pending[0].grads).map((name) =>
            [name, tf.addN(pending.map((g) => g.grads[name].mul(c.lr[g.role] / c.lr.reason)))])));
          try { opts.reason.applyGradients(summed); } finally { tf.dispose(Object.values(summed)); }
        }
      } finally {
        for (const g of pending) tf.dispose(Object.values(g.grads));
      }
    }
  }
  const metrics: PpoMetrics = {};
  for (const { role, old, acc, kl } of prepared) {
    Object.assign(metrics, {
      [`${role}/pg_loss`]: mean(acc.pg), [`${role}/value_loss`]: mean(acc.v), [`${role}/entropy`]: mean(old.entropy.map(mean)),
      [`${role}/clipfrac`]: mean(acc.clipfrac), [`${role}/approx_kl`]: mean(acc.approxKl), [`${role}/grad_norm`]: mean(acc.gradNorm),
      [`${role}/kl_ref`]: kl, [`${role}/value_mean`]: mean(old.values.map(mean)),
    });
  }
  return metrics;
}
