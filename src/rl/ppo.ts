// PPO as RLCER uses it: one shared policy plays several roles; token-level clipped surrogate, clipped value
// loss, GAE (gamma, lambda), reward on the last token, optional k1 KL penalty to a reference policy in the
// reward, advantages whitened per role, and a learning rate per role (one Adam per role over the shared weights).
import { tf } from '../models/backend.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenLogProbs, type SequenceBatch } from '../models/logprobs.js';
import { decodeTensor, encodeTensor, ROLE_INDEX, type Policy } from '../models/policy.js';
import { clipByGlobalNorm, optimizerState, restoreOptimizer, type OptimizerState } from './optim.js';
import { gae } from './advantages.js';
import { clippedSurrogate, clippedValueLoss, tokenMean } from './losses.js';
import { fromGrid, mean, minibatches, toGrid, type Rollout } from './rollout.js';
import type { Role } from '../world/vocab.js';
import type { Rng } from '../util/random.js';
import {
  ConfigError,
  requireInteger,
  requireNonNegative,
  requirePositive,
  requireProbability,
} from '../util/validate.js';

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
  /**
   * where each role's values come from: 'separate' (a critic network per role, as verl's and OpenRLHF's critic
   * model beside the actor: the policy's architecture started from the policy's weights, its value head included,
   * trained on that role's value loss alone by its own Adam at the role's rate; the policy then gets the surrogate's
   * gradient only) or 'shared' (the role's value head on the policy's trunk, its loss reaching the trunk at the role's
   * rate: the first three waves' instrument, whose value loss drags the policy when a reward moves the return's mean;
   * docs/sensitivity.md). 'separate' is the default of the clean instrument. The paper describes value networks; it
   * does not say which.
   */
  critic?: 'shared' | 'separate';
  /**
   * critic-only passes over the first update's batch before the policy's first step (a value warm-up; 0: none). The
   * critic then starts from a fitted baseline instead of the cold start's value head. Needs critic 'separate'.
   */
  valueWarmup?: number;
  /**
   * PPO's handling of a group (one prompt's rollouts) whose outcomes (Rollout.outcome) are all equal: 'keep' (the
   * per-token critic baseline gives them advantages, which whitening scales up to unit SD: the instrument of the
   * first campaign), 'zero' (no policy gradient from the outcome there, as GRPO: their advantages are each rollout's
   * reward minus its group's mean, plus its token rewards, so a rubric or process reward still ranks them by its own
   * signal; whitening's mean comes from the other groups only, so a zero stays zero) or 'resample' (DAPO's dynamic
   * sampling: the trainer draws further prompts for the all-equal groups, counted in the budget; any left are zeroed).
   * Groups without an outcome (a role whose reward has no outcome term) are kept. The default 'zero' was chosen by a
   * pre-registered drift criterion that reads no accuracy (results/sensitivity2/equal-groups-preregistration.md).
   */
  equalGroups?: EqualGroups;
}

export const EQUAL_GROUPS = ['keep', 'zero', 'resample'] as const;
export type EqualGroups = (typeof EQUAL_GROUPS)[number];

/** A role's own critic network and its optimiser (PpoConfig.critic 'separate'). */
export interface Critic {
  net: Policy;
  opt: tf.Optimizer;
}

export const defaultPpoConfig: PpoConfig = {
  clip: 0.2,
  valueClip: 0.2,
  valueCoef: 0.5,
  entropyCoef: 0,
  gamma: 1,
  lambda: 1,
  klCoef: 0,
  epochs: 2,
  minibatches: 2,
  maxGradNorm: 1,
  lr: { reason: 1e-4, rubric: 1e-4, hint: 1e-4 },
  roleMixing: 'separate_adam',
  lengthBuckets: 3,
  critic: 'separate',
  valueWarmup: 0,
  equalGroups: 'zero',
};

export function checkPpoConfig(c: PpoConfig): void {
  requirePositive('ppo.clip', c.clip);
  requirePositive('ppo.valueClip', c.valueClip);
  requireNonNegative('ppo.valueCoef', c.valueCoef);
  requireNonNegative('ppo.entropyCoef', c.entropyCoef);
  requireProbability('ppo.gamma', c.gamma);
  requireProbability('ppo.lambda', c.lambda);
  requireNonNegative('ppo.klCoef', c.klCoef);
  requireInteger('ppo.epochs', c.epochs, 1);
  requireInteger('ppo.minibatches', c.minibatches, 1);
  requirePositive('ppo.maxGradNorm', c.maxGradNorm);
  for (const [r, v] of Object.entries(c.lr)) requirePositive(`ppo.lr.${r}`, v);
  requireInteger('ppo.lengthBuckets', c.lengthBuckets, 1);
  for (const [r, v] of Object.entries(c.roleLossScale ?? {})) requireNonNegative(`ppo.roleLossScale.${r}`, v);
  if (c.roleMixing !== 'weighted_sum' && c.roleMixing !== 'separate_adam')
    throw new ConfigError(`ppo.roleMixing must be "weighted_sum" or "separate_adam" (got "${c.roleMixing}")`);
  if (c.critic !== undefined && c.critic !== 'shared' && c.critic !== 'separate')
    throw new ConfigError(`ppo.critic must be "shared" or "separate" (got "${c.critic}")`);
  requireInteger('ppo.valueWarmup', c.valueWarmup ?? 0, 0);
  if ((c.valueWarmup ?? 0) > 0 && c.critic !== 'separate')
    throw new ConfigError('ppo.valueWarmup needs ppo.critic "separate" (a shared critic moves the policy)');
  if (c.equalGroups !== undefined && !EQUAL_GROUPS.includes(c.equalGroups))
    throw new ConfigError(`ppo.equalGroups must be one of ${EQUAL_GROUPS.join(', ')} (got "${c.equalGroups}")`);
}

/**
 * One critic per role for PpoConfig.critic 'separate' (none for 'shared'): a copy of the policy's network and
 * weights, each with an Adam at its role's rate.
 */
export function makeCritics(
  policy: Policy,
  c: Pick<PpoConfig, 'critic' | 'lr'>,
  create: (p: Policy) => Policy,
): Partial<Record<Role, Critic>> {
  if (c.critic !== 'separate') return {};
  return Object.fromEntries(
    Object.entries(c.lr).map(([role, lr]) => {
      const net = create(policy);
      for (const [k, v] of Object.entries(net.weights)) v.assign(policy.weights[k]);
      return [role, { net, opt: tf.train.adam(lr) }];
    }),
  ) as Partial<Record<Role, Critic>>;
}

type CriticState = { weights: Record<string, { shape: number[]; data: string }>; optimizer: OptimizerState };

/** What an exact resume needs of the critics: each one's weights and Adam moments. */
export async function criticsState(critics: Partial<Record<Role, Critic>>): Promise<Record<string, CriticState>> {
  const out: Record<string, CriticState> = {};
  for (const [role, k] of Object.entries(critics)) {
    out[role] = {
      weights: Object.fromEntries(
        Object.entries(k!.net.weights).map(([n, v]) => [n, encodeTensor(v, `critic ${role} ${n}`)]),
      ),
      optimizer: await optimizerState(k!.opt),
    };
  }
  return out;
}

/** Restore criticsState's output into the critics of makeCritics. */
export async function restoreCritics(
  critics: Partial<Record<Role, Critic>>,
  s: Record<string, CriticState> | undefined,
) {
  for (const [role, k] of Object.entries(critics)) {
    if (!s?.[role]) throw new Error(`the saved trainer state has no critic for role "${role}"`);
    for (const [n, v] of Object.entries(k!.net.weights)) {
      const t = decodeTensor(s[role].weights[n]);
      v.assign(t as tf.Tensor);
      t.dispose();
    }
    await restoreOptimizer(k!.opt, s[role].optimizer, Object.values(k!.net.weights));
  }
}

/** One Adam per role, at the role's rate (in `lr`'s key order). */
export function makeRoleOptimizers(lr: Record<Role, number>): Record<Role, tf.Optimizer> {
  const out = {} as Record<Role, tf.Optimizer>;
  for (const r of Object.keys(lr) as Role[]) out[r] = tf.train.adam(lr[r]);
  return out;
}

/** Old log-probs and values of rollouts (no gradient), per row. */
export function scoreRollouts(policy: Policy, rs: Rollout[], role: Role) {
  const sb = makeSequenceBatch(
    rs.map((r) => r.prompt),
    rs.map((r) => r.completion),
  );
  const out = tf.tidy(() => {
    const o = tokenLogProbs(policy, sb, ROLE_INDEX[role]);
    return [o.logp, o.values, o.entropy];
  });
  const res = { logp: fromGrid(sb, out[0]), values: fromGrid(sb, out[1]), entropy: fromGrid(sb, out[2]) };
  tf.dispose(out);
  disposeSequenceBatch(sb);
  return res;
}

export interface PpoMetrics {
  [k: string]: number;
}

type StepData = { oldLp: tf.Tensor; oldV: tf.Tensor; A: tf.Tensor; R: tf.Tensor };

/** What one role's gradient step reports (criticGradNorm with a separate critic). */
type GradStats = Record<string, number> & {
  gradNorm: number;
  pg: number;
  v: number;
  ent: number;
  clipfrac: number;
  approxKl: number;
};

/**
 * Gradients of the PPO objective on a minibatch (old log-probs, old values, advantages, returns as [B, T]), not yet
 * applied. The minibatch may come as several padded parts (length buckets): each part's token means are weighted
 * by its share of the minibatch's completion tokens, which is exactly the token mean over the whole minibatch.
 * With `critic` (PpoConfig.critic 'separate') the value loss is the critic's: its gradients come back apart.
 */
export function ppoGradients(
  policy: Policy,
  parts: { sb: SequenceBatch; d: StepData }[],
  role: Role,
  c: PpoConfig,
  critic?: Policy,
): { grads: tf.NamedTensorMap; criticGrads?: tf.NamedTensorMap; stats: GradStats } {
  const counts = parts.map((p) => p.sb.completionLengths.reduce((a, b) => a + b, 0)),
    total = counts.reduce((a, b) => a + b, 0);
  const scale = (loss: tf.Tensor) =>
    (c.roleLossScale?.[role] === undefined ? loss : loss.mul(c.roleLossScale[role]!)) as tf.Scalar;
  const valueLoss = (values: tf.Tensor, d: StepData, sb: SequenceBatch) =>
    clippedValueLoss(values, d.oldV, d.R, sb.mask, c.valueClip);
  let kept: tf.Scalar[] = [];
  const { value, grads } = tf.variableGrads(() => {
    const sums = [0, 0, 0, 0, 0].map(() => tf.scalar(0) as tf.Tensor);
    parts.forEach(({ sb, d }, k) => {
      // the entropy joins the graph only when it is in the loss; otherwise it is logged from the scoring pass
      const o = tokenLogProbs(policy, sb, ROLE_INDEX[role], c.entropyCoef > 0);
      const s = clippedSurrogate(o.logp, d.oldLp, d.A, sb.mask, c.clip);
      const v = critic ? tf.scalar(0) : valueLoss(o.values, d, sb); // a separate critic's loss is its own
      const terms = [s.loss, v, tokenMean(o.entropy, sb.mask), s.clipfrac, s.approxKl];
      terms.forEach((t, j) => {
        sums[j] = sums[j].add(t.mul(counts[k] / Math.max(1, total)));
      });
    });
    kept = sums.map((t) => tf.keep(t.clone()) as tf.Scalar);
    return scale(sums[0].add(sums[1].mul(c.valueCoef)).sub(sums[2].mul(c.entropyCoef)));
  }, Object.values(policy.weights));
  const loss = value.dataSync()[0];
  const [pg, v0, ent, clipfrac, approxKl] = kept.map((t) => t.dataSync()[0]);
  tf.dispose([value, ...kept]);
  if (!Number.isFinite(loss)) {
    tf.dispose(Object.values(grads));
    throw new Error(`PPO loss is ${loss} (role ${role}): stopping before it reaches the weights`);
  }
  const gradNorm = clipByGlobalNorm(grads, c.maxGradNorm);
  if (!critic) return { grads, stats: { gradNorm, pg, v: v0, ent, clipfrac, approxKl } };
  // the role's critic: its value loss on its own weights, clipped on its own
  let vSum!: tf.Scalar;
  const cv = tf.variableGrads(() => {
    const sum = parts.reduce(
      (acc, { sb, d }, k) =>
        acc.add(
          valueLoss(tokenLogProbs(critic, sb, ROLE_INDEX[role], false).values, d, sb).mul(
            counts[k] / Math.max(1, total),
          ),
        ),
      tf.scalar(0) as tf.Tensor,
    );
    vSum = tf.keep(sum.clone()) as tf.Scalar;
    return scale(sum.mul(c.valueCoef));
  }, Object.values(critic.weights));
  const v = vSum.dataSync()[0];
  tf.dispose([cv.value, vSum]);
  if (!Number.isFinite(v)) {
    tf.dispose([...Object.values(grads), ...Object.values(cv.grads)]);
    throw new Error(`PPO value loss is ${v} (role ${role}'s critic)`);
  }
  const criticGradNorm = clipByGlobalNorm(cv.grads, c.maxGradNorm);
  return { grads, criticGrads: cv.grads, stats: { gradNorm, pg, v, ent, clipfrac, approxKl, criticGradNorm } };
}

/**
 * One critic-only gradient step on a role's whole batch (the value warm-up): the clipped value loss of the critic's
 * values against the returns, around the old values; touches no policy weight. Returns the value loss.
 */
function criticOnlyPass(
  critic: Critic,
  p: { role: Role; rs: Rollout[]; old: { values: ArrayLike<number>[] }; ret: Float64Array[] },
  c: PpoConfig,
): number {
  const sb = makeSequenceBatch(
    p.rs.map((r) => r.prompt),
    p.rs.map((r) => r.completion),
  );
  const oldV = toGrid(sb, p.old.values),
    R = toGrid(sb, p.ret);
  try {
    const { value, grads } = tf.variableGrads(
      () =>
        clippedValueLoss(
          tokenLogProbs(critic.net, sb, ROLE_INDEX[p.role], false).values,
          oldV,
          R,
          sb.mask,
          c.valueClip,
        ).mul(c.valueCoef) as tf.Scalar,
      Object.values(critic.net.weights),
    );
    const v = value.dataSync()[0] / (c.valueCoef || 1);
    clipByGlobalNorm(grads, c.maxGradNorm);
    critic.opt.applyGradients(grads);
    tf.dispose([value, ...Object.values(grads)]);
    return v;
  } finally {
    tf.dispose([oldV, R]);
    disposeSequenceBatch(sb);
  }
}

/** One gradient step of the PPO objective on a minibatch. */
export function ppoGradientStep(
  policy: Policy,
  opt: tf.Optimizer,
  sb: SequenceBatch,
  d: StepData,
  role: Role,
  c: PpoConfig,
) {
  const { grads, stats } = ppoGradients(policy, [{ sb, d }], role, c);
  opt.applyGradients(grads as tf.NamedTensorMap);
  tf.dispose(Object.values(grads));
  return stats;
}

/** One role's rollouts with their old per-token values and log-probs, and the reference's log-probs (null: no KL). */
export interface RoleScores {
  rs: (Pick<Rollout, 'reward' | 'completion' | 'tokenRewards'> & Partial<Pick<Rollout, 'group' | 'outcome'>>)[];
  values: ArrayLike<number>[];
  logp: ArrayLike<number>[];
  refLogp: ArrayLike<number>[] | null;
}

/**
 * Which rollouts belong to a group whose outcomes are all equal (every rollout of the group has an `outcome` and
 * they agree); a group of one counts, as GRPO's singleton gets no advantage.
 */
export function equalOutcomeRows(rs: Partial<Pick<Rollout, 'group' | 'outcome'>>[]): boolean[] {
  const seen = new Map<number | undefined, number | null>();
  for (const r of rs) {
    const o = r.outcome ?? null,
      was = seen.get(r.group);
    seen.set(r.group, was === undefined ? o : was === o ? o : null);
  }
  return rs.map((r) => seen.get(r.group) != null);
}

/**
 * Whiten advantages in place (mean 0, std 1, population std + eps), with the mean and std of the rows not `held`;
 * a held row is only divided by that std, so a zero stays zero. With every row held, the mean is 0 and the std is
 * the held rows' root mean square (all zero: left as they are).
 */
export function whitenKeeping(adv: Float64Array[], held: boolean[], eps = 1e-8): void {
  const free = adv.filter((_, i) => !held[i]);
  let n = 0,
    m = 0;
  for (const x of free)
    for (const v of x) {
      m += v;
      n++;
    }
  const base = n > 0 ? free : adv;
  if (n > 0) m /= n;
  else n = adv.reduce((a, x) => a + x.length, 0);
  if (n === 0) return;
  let ss = 0;
  for (const x of base) for (const v of x) ss += (v - m) ** 2;
  const sd = Math.sqrt(ss / n);
  if (sd === 0 && free.length === 0) return;
  adv.forEach((x, i) => {
    const shift = held[i] ? 0 : m;
    for (let t = 0; t < x.length; t++) x[t] = (x[t] - shift) / (sd + eps);
  });
}

/**
 * Per-token advantages and returns of each role's rollouts: the scalar reward on the last token (plus a rollout's
 * `tokenRewards`, where it has them) minus the k1 KL penalty on every token, GAE(gamma, lambda) against the old
 * values, then the advantages whitened within each role (mean 0, std 1 over that role's tokens). Under equalGroups
 * 'zero' or 'resample', a rollout of an all-equal-outcome group instead gets GAE without a baseline on its reward
 * minus its group's mean reward (its token rewards and KL penalty kept), and whitening leaves its zero at zero; its
 * returns, which train the critic, are unchanged. `kl`: the role's mean k1 KL to the reference per rollout.
 */
export function roleAdvantages(
  roles: RoleScores[],
  c: Pick<PpoConfig, 'gamma' | 'lambda' | 'klCoef' | 'equalGroups'>,
): { adv: Float64Array[]; ret: Float64Array[]; kl: number; equalShare: number }[] {
  return roles.map(({ rs, values, logp, refLogp }) => {
    const held = (c.equalGroups ?? 'keep') === 'keep' ? rs.map(() => false) : equalOutcomeRows(rs);
    const groupMean = new Map<number | undefined, { sum: number; n: number }>();
    for (const r of rs) {
      const g = groupMean.get(r.group) ?? { sum: 0, n: 0 };
      g.sum += r.reward;
      g.n++;
      groupMean.set(r.group, g);
    }
    const adv: Float64Array[] = [],
      ret: Float64Array[] = [];
    let kl = 0;
    rs.forEach((r, i) => {
      // per-token rewards: the scalar on the last token, minus the k1 KL penalty on every token
      const T = r.completion.length,
        rew = new Float64Array(T);
      rew[T - 1] = r.reward;
      if (r.tokenRewards) for (let t = 0; t < T; t++) rew[t] += r.tokenRewards[t] ?? 0;
      if (refLogp) {
        for (let t = 0; t < T; t++) {
          const k = logp[i][t] - refLogp[i][t];
          rew[t] -= c.klCoef * k;
          kl += k / T;
        }
      }
      const g = gae(rew, values[i], c.gamma, c.lambda);
      ret.push(g.returns);
      if (!held[i]) {
        adv.push(g.advantages);
        return;
      }
      const gm = groupMean.get(r.group)!;
      rew[T - 1] -= gm.sum / gm.n; // the outcome, equal across the group, cancels; the rest of the reward stays
      adv.push(gae(rew, new Float64Array(T), c.gamma, c.lambda).advantages);
    });
    whitenKeeping(adv, held); // advantages normalised per role
    return { adv, ret, kl: refLogp ? kl / rs.length : 0, equalShare: mean(held.map(Number)) };
  });
}

/**
 * One PPO update on a batch of rollouts (any mix of roles). Each role has its own advantages (whitened per role)
 * and value head; in every (epoch, minibatch) the roles' gradients are all taken at the same parameters, then
 * combined as `roleMixing` says: the roles' objectives summed on the shared weights, with a rate per role.
 */
export function ppoUpdate(
  policy: Policy,
  opts: Record<Role, tf.Optimizer>,
  rollouts: Rollout[],
  c: PpoConfig,
  rng: Rng,
  ref?: Policy,
  critics: Partial<Record<Role, Critic>> = {},
): PpoMetrics {
  checkPpoConfig(c);
  if (c.klCoef > 0 && !ref)
    throw new ConfigError('ppo.klCoef > 0 needs a reference policy: the trainer must pass one (none was given)');
  const roles = [...new Set(rollouts.map((r) => r.role))];
  const criticOf = (role: Role) => {
    if (c.critic !== 'separate') return undefined;
    if (!critics[role]) throw new ConfigError(`ppo.critic "separate": role ${role} has no critic (makeCritics)`);
    return critics[role];
  };
  const scored = roles.map((role) => {
    const rs = rollouts.filter((r) => r.role === role);
    const old = scoreRollouts(policy, rs, role),
      critic = criticOf(role);
    if (critic) old.values = scoreRollouts(critic.net, rs, role).values; // the old values are the critic's
    const refLogp = ref && c.klCoef > 0 ? scoreRollouts(ref, rs, role).logp : null;
    return { role, rs, old, refLogp };
  });
  const advantages = roleAdvantages(
    scored.map(({ rs, old, refLogp }) => ({ rs, values: old.values, logp: old.logp, refLogp })),
    c,
  );
  const prepared = scored.map(({ role, rs, old }, k) => {
    const acc = {
      pg: [] as number[],
      v: [] as number[],
      ent: [] as number[],
      clipfrac: [] as number[],
      approxKl: [] as number[],
      gradNorm: [] as number[],
      criticGradNorm: [] as number[],
    };
    return { role, rs, old, ...advantages[k], acc };
  });
  // the value warm-up: critic-only passes over the first update's batch (the critic's Adam has not stepped yet)
  const warmups: Record<string, number[]> = {};
  for (const p of prepared) {
    const k = criticOf(p.role);
    if (!k || !c.valueWarmup || k.opt.iterations > 0) continue;
    warmups[p.role] = Array.from({ length: c.valueWarmup }, () => criticOnlyPass(k, p, c));
  }
  // every epoch's minibatches drawn role by role, so a role's splits do not depend on the other roles (the reasoner
  // of a multi-role method sees exactly RLVR's minibatches)
  const epochSplits = prepared.map((p) =>
    Array.from({ length: c.epochs }, () => minibatches(p.rs.length, c.minibatches, rng)),
  );
  for (let e = 0; e < c.epochs; e++) {
    const splits = epochSplits.map((s) => s[e]);
    for (let m = 0; m < Math.max(...splits.map((s) => s.length)); m++) {
      const pending: { role: Role; grads: tf.NamedTensorMap; criticGrads?: tf.NamedTensorMap }[] = [];
      try {
        prepared.forEach((p, k) => {
          const mb = splits[k][m];
          if (!mb) return;
          // the minibatch's rows sorted by length and cut into padded parts
          const sorted =
            c.lengthBuckets === 1
              ? mb
              : [...mb].sort(
                  (x, y) =>
                    p.rs[x].prompt.length +
                    p.rs[x].completion.length -
                    p.rs[y].prompt.length -
                    p.rs[y].completion.length,
                );
          const size = Math.ceil(sorted.length / c.lengthBuckets);
          const parts = Array.from({ length: Math.ceil(sorted.length / size) }, (_, q) =>
            sorted.slice(q * size, (q + 1) * size),
          ).map((rows) => {
            const sb = makeSequenceBatch(
              rows.map((i) => p.rs[i].prompt),
              rows.map((i) => p.rs[i].completion),
            );
            return {
              sb,
              d: {
                oldLp: toGrid(
                  sb,
                  rows.map((i) => p.old.logp[i]),
                ),
                oldV: toGrid(
                  sb,
                  rows.map((i) => p.old.values[i]),
                ),
                A: toGrid(
                  sb,
                  rows.map((i) => p.adv[i]),
                ),
                R: toGrid(
                  sb,
                  rows.map((i) => p.ret[i]),
                ),
              },
            };
          });
          try {
            const { grads, criticGrads, stats } = ppoGradients(policy, parts, p.role, c, criticOf(p.role)?.net);
            pending.push({ role: p.role, grads, criticGrads });
            for (const key of Object.keys(p.acc) as (keyof typeof p.acc)[])
              if (key in stats) p.acc[key].push(stats[key]);
          } finally {
            for (const part of parts) {
              tf.dispose(Object.values(part.d));
              disposeSequenceBatch(part.sb);
            }
          }
        });
        if (c.roleMixing === 'separate_adam' || pending.length === 0)
          for (const g of pending) opts[g.role].applyGradients(g.grads);
        else {
          // one Adam (the reasoner's) over the weighted sum of the roles' gradients
          const summed = tf.tidy(() =>
            Object.fromEntries(
              Object.keys(pending[0].grads).map((name) => [
                name,
                tf.addN(pending.map((g) => g.grads[name].mul(c.lr[g.role] / c.lr.reason))),
              ]),
            ),
          );
          try {
            opts.reason.applyGradients(summed);
          } finally {
            tf.dispose(Object.values(summed));
          }
        }
        for (const g of pending) if (g.criticGrads) criticOf(g.role)!.opt.applyGradients(g.criticGrads);
      } finally {
        for (const g of pending) tf.dispose([...Object.values(g.grads), ...Object.values(g.criticGrads ?? {})]);
      }
    }
  }
  const metrics: PpoMetrics = {};
  for (const { role, old, acc, kl, equalShare } of prepared) {
    if ((c.equalGroups ?? 'keep') !== 'keep') metrics[`${role}/equal_groups`] = equalShare;
    if (warmups[role]) metrics[`${role}/warmup_value_loss`] = warmups[role][warmups[role].length - 1];
    Object.assign(metrics, {
      [`${role}/pg_loss`]: mean(acc.pg),
      [`${role}/value_loss`]: mean(acc.v),
      [`${role}/entropy`]: mean(old.entropy.map(mean)),
      [`${role}/clipfrac`]: mean(acc.clipfrac),
      [`${role}/approx_kl`]: mean(acc.approxKl),
      [`${role}/grad_norm`]: mean(acc.gradNorm),
      [`${role}/kl_ref`]: kl,
      [`${role}/value_mean`]: mean(old.values.map(mean)),
      ...(acc.criticGradNorm.length ? { [`${role}/critic_grad_norm`]: mean(acc.criticGradNorm) } : {}),
    });
  }
  return metrics;
}
