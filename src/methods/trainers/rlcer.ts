// RLCER: one shared policy plays a reasoner and a rubricator. Per prompt: N reasoner rollouts; the rubricator
// writes rubric sets after reading reasoner CoTs; the frozen verifier fills the satisfaction matrix; criteria
// whose satisfaction correlates with correctness are valid; the reasoner earns outcome + CoT reward, the
// rubricator K_valid/K + format; one PPO update over both roles with role-specific advantages.
// One readable path per step: roll out -> write rubrics -> judge -> validity -> rewards -> PPO.
import type { Policy } from '../../models/policy.js';
import { oracleJudge, parseVerifierSetting, settingJudge, type VerifierSetting } from '../../models/verifier.js';
import type { AlignedVerifier } from '../../models/aligned-verifier.js';
import type { Rng } from '../../util/random.js';
import { decode } from '../../world/vocab.js';
import { domainOf } from '../../world/problems.js';
import { defaultWorld } from '../../world/defaults.js';
import {
  CRITERION_NAMES,
  criterionText,
  type CriterionName,
  criterionEnglish,
  isConcrete,
} from '../../rubrics/criteria.js';
import type { Parsed, RubricItem } from '../../rubrics/rubric.js';
import {
  cotRewards,
  criterionValidity,
  poolItems,
  randomValidity,
  rubricatorReward,
  type ConstantCorrectness,
  type CotNorm,
  type ValidityReading,
} from '../../rubrics/rewards.js';
import {
  checkPpoConfig,
  criticsState,
  defaultPpoConfig,
  makeCritics,
  makeRoleOptimizers,
  ppoUpdate,
  restoreCritics,
  type PpoConfig,
} from '../../rl/ppo.js';
import { createPolicy } from '../../models/index.js';
import { mean, type Rollout } from '../../rl/rollout.js';
import { optimizersState, restoreOptimizers, type OptimizerState } from '../../rl/optim.js';
import { adaptOptimizer, rateOf, setRate } from '../../rl/kl-adaptive.js';
import { classifyStyle } from '../../rl/evaluate.js';
import { ConfigError, requireInteger, requireNonNegative, requirePositive } from '../../util/validate.js';
import {
  outcomeReward,
  referencePolicy,
  rollOutReasoner,
  type ReasonerRollout,
  type Trainer,
  checkRunBase,
  type RunBase,
} from '../../rl/trainer.js';
import { sourceRubrics } from '../../rl/rubricator.js';

export interface RlcerConfig extends RunBase {
  /** reasoner rollouts per prompt (N) */
  rollouts: number;
  /**
   * where rubrics come from: 'self' (the policy's own rubricator, trained), 'fixed_untrained' (a frozen copy of
   * the cold-start policy's rubricator: the "prompted rubrics" analogue), 'teacher' (the teacher's reference rubric)
   */
  rubricSource: 'self' | 'fixed_untrained' | 'teacher';
  /** self-evolution: the rubricator's reward includes K_valid / K; false = format reward only ("w/o evolving") */
  evolve: boolean;
  /** weight of the outcome reward (0 = rubric-only training) */
  outcomeWeight: number;
  /** weight of the CoT reward */
  cotWeight: number;
  /** 'correlation' (the paper's filter) or 'random' (the same number of criteria chosen at random: the control) */
  validity: 'correlation' | 'random';
  /**
   * how the correlation test reads criteria with negative points: 'literal' (corr(v, z) > alpha for every
   * criterion, the formula as written) or 'sign_aware' (corr(sign(points) v, z) > alpha: a penalty is valid when its
   * flaw goes with wrong answers); see ValidityReading in src/rubrics/rewards.ts
   */
  validityReading: ValidityReading;
  /** Pearson threshold alpha */
  threshold: number;
  constantCorrectness: ConstantCorrectness;
  cotNorm: CotNorm;
  /**
   * which CoTs the rubricator reads: 'each_pooled' (default, the paper's reward figure: one rubric set per rollout,
   * valid criteria collected into one pool that scores every rollout), 'each_own' (EvoLM's re-implementation:
   * rollout i is scored by the valid criteria of the set written from its own CoT), 'one' (one set per prompt, from
   * the first rollout)
   */
  rubricatorSees: 'each_pooled' | 'each_own' | 'one';
  /**
   * the verifier's competence (docs/verifier.md): 'learned' (the frozen distilled verifier), 'competent' (the
   * column-aligned one), 'oracle' (the teacher's exact judgement) or 'oracle@A' (exact, each verdict flipped with
   * probability 1 - A from the run seed's own stream)
   */
  verifier: VerifierSetting;
  /** judged items per step re-checked against the teacher to log the learned verifier's agreement */
  agreementSample: number;
  /**
   * a deliberately weakened verifier (the regime map's knob): every verdict on a criterion of kind `kind` is flipped
   * with probability `delta`, after the chosen verifier (learned or oracle) has judged it; null (default): none
   */
  weakVerifier: { kind: CriterionName; delta: number } | null;
  /**
   * hold the reasoner's approx. KL per update to this target by adapting its rate between updates
   * (src/rl/kl-adaptive.ts; the KL-matched control rows set it to RLVR's at the same size and seed); null (default):
   * the reasoner's rate stays ppo.lr.reason
   */
  reasonKlTarget: number | null;
  ppo: PpoConfig;
}

export const defaultRlcerConfig: RlcerConfig = {
  steps: 100,
  prompts: 16,
  rollouts: 8,
  temperature: 1,
  rubricSource: 'self',
  evolve: true,
  outcomeWeight: 1,
  cotWeight: 1,
  validity: 'correlation',
  validityReading: 'sign_aware',
  threshold: 0.2,
  constantCorrectness: 'none_valid',
  cotNorm: 'rubric',
  rubricatorSees: 'each_pooled',
  verifier: 'learned',
  agreementSample: 256,
  weakVerifier: null,
  reasonKlTarget: null,
  ppo: { ...defaultPpoConfig, epochs: 1, minibatches: 2 },
  world: defaultWorld,
};

const oneOf = <T extends string>(name: string, v: T, allowed: readonly T[]) => {
  if (!allowed.includes(v))
    throw new ConfigError(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(', ')} (got "${v}")`);
};

export function checkRlcerConfig(c: RlcerConfig): void {
  checkRunBase(c, { rollouts: 2 });
  requireNonNegative('outcomeWeight', c.outcomeWeight);
  requireNonNegative('cotWeight', c.cotWeight);
  requireInteger('agreementSample', c.agreementSample, 0);
  if (!(c.threshold >= -1 && c.threshold < 1))
    throw new ConfigError(`threshold must be in [-1, 1) (got ${c.threshold})`);
  oneOf('rubricSource', c.rubricSource, ['self', 'fixed_untrained', 'teacher']);
  oneOf('validity', c.validity, ['correlation', 'random']);
  oneOf('validityReading', c.validityReading, ['literal', 'sign_aware']);
  oneOf('constantCorrectness', c.constantCorrectness, ['none_valid', 'discriminative']);
  oneOf('cotNorm', c.cotNorm, ['rubric', 'group']);
  oneOf('rubricatorSees', c.rubricatorSees, ['each_pooled', 'each_own', 'one']);
  parseVerifierSetting(c.verifier);
  if (c.reasonKlTarget !== null) requirePositive('reasonKlTarget', c.reasonKlTarget);
  if (c.weakVerifier !== null) {
    if (typeof c.weakVerifier !== 'object' || !CRITERION_NAMES.includes(c.weakVerifier.kind))
      throw new ConfigError(
        `weakVerifier.kind must be one of ${CRITERION_NAMES.join(', ')} (got "${c.weakVerifier?.kind}")`,
      );
    if (!(c.weakVerifier.delta >= 0 && c.weakVerifier.delta <= 1))
      throw new ConfigError(`weakVerifier.delta must be in [0, 1] (got ${c.weakVerifier.delta})`);
  }
  checkPpoConfig(c.ppo);
  if (c.ppo.equalGroups === 'resample')
    throw new ConfigError('ppo.equalGroups "resample" is RLVR-kind only; RLCER takes "keep" or "zero"');
}

export interface RlcerModels {
  /** the frozen learned verifier (required when verifier = 'learned') */
  verifier?: Policy;
  /** the frozen competent verifier (required when verifier = 'competent') */
  competent?: AlignedVerifier;
  /** the run's seed: the noisy oracle's stream (required when verifier = 'oracle@A') */
  seed?: number;
  /** the frozen cold-start policy (required when rubricSource = 'fixed_untrained') */
  frozenRubricator?: Policy;
}

/** The settings that turn one prompt's satisfaction matrix and correctness into rewards. */
export type RewardSettings = Pick<
  RlcerConfig,
  | 'validity'
  | 'validityReading'
  | 'threshold'
  | 'constantCorrectness'
  | 'evolve'
  | 'cotNorm'
  | 'rubricatorSees'
  | 'outcomeWeight'
  | 'cotWeight'
>;

/** One rubric set's verdicts: its items (none if unparsed), their corr(v, z) and validity, the rubricator's reward. */
export interface SetRewards {
  items: RubricItem[];
  corr: (number | null)[];
  valid: boolean[];
  rubricator: { evolving: number; format: number };
}

/**
 * One prompt's reward assembly in an RLCER step, as plain arithmetic: `sets` are the prompt's rubric sets (one per
 * rollout, or one), `sat` maps a criterion's text to its satisfaction over the prompt's N rollouts, `correct` is their
 * correctness. Per set: each criterion's validity against z = correctness (or the random control, which draws from
 * `rng`) and the rubricator's reward K_valid / K + format. Per rollout: the CoT reward over the valid criteria (pooled
 * over the sets, or its own set's), the outcome reward, and the reasoner's reward
 * outcomeWeight * outcome + cotWeight * cot.
 */
export function groupRewards(
  sets: Parsed[],
  sat: ReadonlyMap<string, boolean[]>,
  correct: boolean[],
  c: RewardSettings,
  rng: Rng,
): { sets: SetRewards[]; outcome: number[]; cot: number[]; reward: number[] } {
  const items = sets.map((s) => (s.ok ? s.rubric.items : []));
  const keyed = sets.map((s, n) => ({
    ok: s.ok,
    items: items[n].map((i) => ({ key: criterionText(i.criterion), points: i.points })),
  }));
  const r = groupRewardsByKey(keyed, sat, correct, c, rng);
  return { ...r, sets: r.sets.map((v, n) => ({ ...v, items: items[n] })) };
}

/** A rubric set reduced to what the reward arithmetic reads: whether it parsed, each criterion's key and points. */
export interface KeyedSet {
  ok: boolean;
  items: { key: string; points: number }[];
}

/**
 * groupRewards over criteria named by any key (free-text criteria of an LLM rubricator, served by
 * src/cli/serve-rewards.ts): the same arithmetic, `sat` maps a key to its satisfaction over the group's rollouts.
 */
export function groupRewardsByKey(
  sets: KeyedSet[],
  sat: ReadonlyMap<string, boolean[]>,
  correct: boolean[],
  c: RewardSettings,
  rng: Rng,
): {
  sets: (Omit<SetRewards, 'items'> & { items: KeyedSet['items'] })[];
  outcome: number[];
  cot: number[];
  reward: number[];
} {
  const z = correct.map(Number);
  type Item = KeyedSet['items'][number];
  const satOf = (i: Item) => sat.get(i.key)!;
  const verdicts = sets.map((s) => {
    const items = s.ok ? s.items : [];
    const signs = c.validityReading === 'sign_aware' ? items.map((i) => Math.sign(i.points)) : undefined;
    const val = criterionValidity(
      items.map((i) => satOf(i).map(Number)),
      z,
      c.threshold,
      c.constantCorrectness,
      signs,
    );
    const valid = c.validity === 'random' ? randomValidity(val.valid, rng) : val.valid;
    const rubricator = rubricatorReward(s.ok, items.length, valid.filter(Boolean).length, c.evolve);
    return { items, corr: val.corr, valid, rubricator };
  });
  const validSets = verdicts.map((v) => v.items.filter((_, k) => v.valid[k]));
  // the reasoner's CoT reward: pooled valid criteria, or each rollout's own set's
  const scoreWith = (items: Item[]) =>
    cotRewards(
      items.map((i) => i.points),
      z.map((_, r) => items.map((i) => satOf(i)[r])),
      c.cotNorm,
    );
  const cot =
    c.rubricatorSees === 'each_own'
      ? z.map((_, r) => scoreWith(validSets[r])[r])
      : scoreWith(poolItems(validSets, (i) => i.key));
  const outcome = correct.map((x) => outcomeReward({ correct: x }));
  return { sets: verdicts, outcome, cot, reward: outcome.map((o, r) => c.outcomeWeight * o + c.cotWeight * cot[r]) };
}

/**
 * The weakened verifier: each verdict on a criterion of kind `weak.kind` flipped with probability `weak.delta`
 * (one draw from `rng` per such verdict, in order); returns the verdicts unchanged, drawing nothing, when `weak` is null.
 */
export function weakenVerdicts(
  verdicts: boolean[],
  kinds: CriterionName[],
  weak: RlcerConfig['weakVerifier'],
  rng: Rng,
): boolean[] {
  if (weak === null) return verdicts;
  return verdicts.map((v, i) => (kinds[i] === weak.kind && rng.next() < weak.delta ? !v : v));
}

/** One rubric set as logged: who wrote it, whether it parsed, each criterion in English with its correlation and validity. */
export interface RubricLog {
  step?: number;
  problem: string;
  parsed: boolean;
  reason?: string;
  reward?: number;
  items: { criterion: string; english: string; points: number; corr: number | null; valid: boolean }[];
}

export function makeRlcerTrainer(
  policy: Policy,
  c: RlcerConfig,
  models: RlcerModels = {},
): Trainer & { lastRubrics: () => RubricLog[] } {
  checkRlcerConfig(c);
  if (c.verifier === 'learned' && !models.verifier)
    throw new ConfigError('verifier "learned" needs a verifier checkpoint');
  if (c.rubricSource === 'fixed_untrained' && !models.frozenRubricator)
    throw new ConfigError('rubricSource "fixed_untrained" needs the frozen cold-start policy');
  const opts = makeRoleOptimizers(c.ppo.lr);
  const critics = makeCritics(policy, c.ppo, (p) => createPolicy(p.config)); // none unless ppo.critic is 'separate'
  const ref = referencePolicy(policy, c.ppo.klCoef); // the cold start, frozen (none without a KL penalty)
  // the verifier of the setting: 'learned' and 'oracle' judge as they did before the knob
  const verifier = settingJudge(c.verifier, {
    learned: models.verifier,
    competent: models.competent,
    seed: models.seed,
  });
  const batchJudge = verifier.judge;
  const noisy = parseVerifierSetting(c.verifier).accuracy !== null;
  let logged: RubricLog[] = [];
  let last: ReasonerRollout[] = [];

  return {
    lastRubrics: () => logged,
    lastRollouts: () => last,
    // an exact resume needs the roles' Adam moments besides the weights (the frozen rubricator and verifier are inputs)
    state: async () => ({
      optimizers: await optimizersState(opts),
      ...(c.ppo.critic === 'separate' ? { critics: await criticsState(critics) } : {}),
      ...(c.reasonKlTarget !== null ? { reasonLr: rateOf(opts.reason) } : {}),
      ...(noisy ? { verifierDraws: verifier.draws() } : {}),
    }),
    restore: async (s) => {
      await restoreOptimizers(opts, s.optimizers as Record<string, OptimizerState>, () =>
        Object.values(policy.weights),
      );
      if (c.reasonKlTarget !== null) setRate(opts.reason, s.reasonLr as number);
      if (noisy) verifier.skip(s.verifierDraws as number);
      if (c.ppo.critic === 'separate') await restoreCritics(critics, s.critics as Parameters<typeof restoreCritics>[1]);
    },
    step(rng) {
      const t0 = Date.now();
      // 1. reasoner rollouts, grouped by prompt
      const rs = rollOutReasoner(policy, c, rng);
      last = rs;
      const groups = Array.from({ length: c.prompts }, (_, g) => rs.filter((r) => r.group === g));
      const text = new Map(rs.map((r) => [r, decode(r.completion)])); // each CoT decoded once, read by every query
      const t1 = Date.now();

      // 2. rubric sets: one per rollout's CoT (or one per prompt), from the chosen source
      const readers = groups.flatMap((g) => (c.rubricatorSees === 'one' ? [g[0]] : g));
      const writer = c.rubricSource === 'self' ? policy : models.frozenRubricator;
      const { sets, written } = sourceRubrics(
        writer,
        readers.map((r) => r.problem),
        readers.map((r) => text.get(r)!),
        rng,
        c.temperature,
      );
      const perGroup = c.rubricatorSees === 'one' ? 1 : c.rollouts;
      const t2 = Date.now();

      // 3. satisfaction matrix: every distinct criterion of a prompt's sets, judged on each of its rollouts
      const universe = groups.map((_, g) => {
        const items = sets.slice(g * perGroup, (g + 1) * perGroup).flatMap((s) => (s.ok ? s.rubric.items : []));
        return [...new Map(items.map((i) => [criterionText(i.criterion), i.criterion])).values()];
      });
      const queries = universe.flatMap((u, g) =>
        u.flatMap((crit) => groups[g].map((r) => ({ c: crit, p: r.problem, completion: text.get(r)! }))),
      );
      const answers = weakenVerdicts(
        batchJudge(queries),
        queries.map((x) => x.c.name),
        c.weakVerifier,
        rng,
      );
      // per prompt: criterion text -> its satisfaction over the prompt's rollouts
      const sat = universe.map(() => new Map<string, boolean[]>());
      let q = 0;
      universe.forEach((u, g) =>
        u.forEach((crit) => {
          sat[g].set(
            criterionText(crit),
            groups[g].map(() => answers[q++]),
          );
        }),
      );
      // the learned verifier's agreement on a sample (drawn from the run's stream, as before the knob); the competent
      // and the noisy verifier measure theirs over every query without a draw; the exact one's is NaN
      let agreement = verifier.lastAgreement();
      if (c.verifier === 'learned' && c.agreementSample > 0 && queries.length > 0) {
        const idx = Array.from({ length: Math.min(c.agreementSample, queries.length) }, () => rng.int(queries.length));
        agreement = mean(
          idx.map((i) => +(oracleJudge(queries[i].c, queries[i].p, queries[i].completion) === answers[i])),
        );
      }
      const t3 = Date.now();

      // 4. validity per set, 5. rewards
      const rubricRollouts: Rollout[] = [];
      const stats = {
        proposed: [] as number[],
        valid: [] as number[],
        corrProposed: [] as number[],
        corrValid: [] as number[],
        concrete: 0,
        items: 0,
        format: [] as number[],
        rubricReward: [] as number[],
      };
      const kinds: Record<string, number> = {};
      logged = [];
      groups.forEach((g, gi) => {
        // the training label (the exact correctness unless the world's labels are noisy)
        const res = groupRewards(
          sets.slice(gi * perGroup, (gi + 1) * perGroup),
          sat[gi],
          g.map((r) => r.label),
          c,
          rng,
        );
        res.sets.forEach(({ items, corr, valid, rubricator: rr }, j) => {
          const s = sets[gi * perGroup + j];
          const nValid = valid.filter(Boolean).length;
          stats.format.push(rr.format);
          stats.rubricReward.push(rr.evolving + rr.format);
          if (s.ok) {
            stats.proposed.push(items.length);
            stats.valid.push(nValid);
            corr.forEach((r, k) => {
              if (r !== null) {
                stats.corrProposed.push(r);
                if (valid[k]) stats.corrValid.push(r);
              }
            });
            for (const i of items) {
              kinds[i.criterion.name] = (kinds[i.criterion.name] ?? 0) + 1;
              stats.items++;
              stats.concrete += +isConcrete(i.criterion);
            }
          }
          if (written && c.rubricSource === 'self') {
            rubricRollouts.push({
              role: 'rubric',
              group: gi,
              prompt: written[gi * perGroup + j].prompt,
              completion: written[gi * perGroup + j].completion,
              reward: rr.evolving + rr.format,
              components: { evolving: rr.evolving, format: rr.format },
            });
          }
          if (logged.length < 4 && j === 0) {
            const p = g[0].problem;
            logged.push({
              problem: `${p.operands.join(' ')} (${domainOf(p.family)})`,
              parsed: s.ok,
              ...(s.ok ? {} : { reason: s.reason }),
              reward: rr.evolving + rr.format,
              items: items.map((i, k) => ({
                criterion: criterionText(i.criterion),
                english: criterionEnglish(i.criterion),
                points: i.points,
                corr: corr[k],
                valid: valid[k],
              })),
            });
          }
        });
        g.forEach((r, i) => {
          r.components = { outcome: res.outcome[i], cot: res.cot[i] };
          r.reward = res.reward[i];
          if (c.outcomeWeight > 0) r.outcome = res.outcome[i]; // PPO's equalGroups reads it
        });
      });

      // 6. one PPO update over both roles
      const upd = ppoUpdate(policy, opts, [...rs, ...rubricRollouts], c.ppo, rng, ref, critics);
      // the KL-matched control: the reasoner's next rate from this update's size (the rate used is logged)
      const rate: Record<string, number> =
        c.reasonKlTarget === null
          ? {}
          : {
              'reason/lr': rateOf(opts.reason),
              'reason/next_lr': adaptOptimizer(opts.reason, upd['reason/approx_kl'], c.reasonKlTarget),
            };
      const styles: Record<string, number> = {};
      for (const r of rs) {
        const s = classifyStyle(r.trace, r.problem);
        styles[s] = (styles[s] ?? 0) + 1 / rs.length;
      }
      const meanOr = (xs: number[]) => (xs.length ? mean(xs) : NaN);
      return {
        accuracy: mean(rs.map((r) => +r.correct)),
        'reward/outcome': mean(rs.map((r) => r.components.outcome)),
        'reward/cot': mean(rs.map((r) => r.components.cot)),
        'reward/reasoner': mean(rs.map((r) => r.reward)),
        'reward/rubricator': mean(stats.rubricReward),
        format_rate: mean(stats.format),
        criteria_proposed: meanOr(stats.proposed),
        criteria_valid: meanOr(stats.valid),
        valid_fraction: stats.proposed.length
          ? stats.valid.reduce((a, b) => a + b, 0) /
            Math.max(
              1,
              stats.proposed.reduce((a, b) => a + b, 0),
            )
          : NaN,
        corr_proposed: meanOr(stats.corrProposed),
        corr_valid: meanOr(stats.corrValid),
        concrete_share: stats.items ? stats.concrete / stats.items : NaN,
        ...Object.fromEntries(Object.entries(kinds).map(([k, v]) => [`kind/${k}`, v / Math.max(1, stats.items)])),
        mixed_groups: mean(groups.map((g) => +(new Set(g.map((r) => r.correct)).size > 1))),
        response_length: mean(rs.map((r) => r.completion.length)),
        rubric_length: written ? mean(written.map((w) => w.completion.length)) : NaN,
        verifier_agreement: agreement,
        ...Object.fromEntries(Object.entries(styles).map(([k, v]) => [`style/${k}`, v])),
        ...upd,
        ...rate,
        sample_ms: t1 - t0,
        rubric_ms: t2 - t1,
        judge_ms: t3 - t2,
        update_ms: Date.now() - t3,
      };
    },
  };
}
