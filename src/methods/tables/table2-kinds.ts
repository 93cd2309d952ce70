// The kinds of Table 2 rows, one entry each: how a row's RL config is built from its spec and the user's overrides,
// how it is checked and recorded, the world it trains in, and its trainer. src/cli/table2-run.ts reads a row's kind
// here and nowhere else: a row of a new kind is its trainer (src/methods/trainers/) and one entry in KINDS
// (docs/architecture.md, "Add a Table 2 row of a new kind").
import * as fs from 'node:fs';
import { mergeConfig, type DeepPartial } from '../../io/config.js';
import { sha256Hex } from '../../io/checksums.js';
import { loadAlignedVerifier, type AlignedVerifier } from '../../models/aligned-verifier.js';
import { parseVerifierSetting } from '../../models/verifier.js';
import type { Policy } from '../../models/policy.js';
import { makeRng, type Rng } from '../../util/random.js';
import type { WorldConfig } from '../../world/defaults.js';
import { decode } from '../../world/vocab.js';
import type { ReasonerRollout, RewardFn, Trainer } from '../../rl/trainer.js';
import {
  checkRlvrConfig,
  defaultRlvrConfig,
  formatRewardFn,
  makeRlvrTrainer,
  randomRewardFn,
  type RlvrConfig,
} from '../trainers/rlvr.js';
import { checkRlcerConfig, defaultRlcerConfig, makeRlcerTrainer, type RlcerConfig } from '../trainers/rlcer.js';
import {
  checkEvolmConfig,
  defaultEvolmConfig,
  makeEvolmTrainer,
  needsGeneratorPolicy,
  type EvolmConfig,
} from '../trainers/evolm.js';
import { denseProcessOracleRewardFn, processOracleRewardFn } from '../trainers/process-oracle.js';
import { rmScores } from '../trainers/scalar-rm.js';
import { COMPETENT_VERIFIER_CHECKPOINT, VERIFIER_CHECKPOINT, type MethodSpec } from './table2.js';

/** A Table 2 run's trainer: EvoLM's global steps interleave policy and generator steps; other kinds' are all policy's. */
export interface RowTrainer extends Pick<Trainer, 'state' | 'restore'> {
  totalSteps: number;
  step: (step: number, rng: Rng) => Record<string, number>;
  phaseOf: (step: number) => string;
  lastRubrics?: () => unknown[];
  lastRollouts?: () => Pick<ReasonerRollout, 'role' | 'group' | 'completion' | 'problem'>[];
}

/** What a row's config is built from. */
export interface RowInputs {
  spec: MethodSpec;
  /** the user's overrides (--config, then --overrides over it): they apply to the config of the row's kind only */
  user: Record<string, unknown>;
  steps: number;
  /** a KL-matched row's target: RLVR's approx. KL per update at the same profile, size and seed */
  klTarget: number | null;
  /** the static scalar RM's checkpoint of the run's size (recorded by the scalar RM row) */
  scalarRmCheckpoint: string;
}

/** The models a row's trainer is built with, loaded by the CLI. */
export interface RowModels {
  policy: Policy;
  verifier: Policy;
  /** a fresh copy of the run's cold start (a frozen rubric writer) */
  coldStart: () => Policy;
  /** EvoLM's second policy (`needsGenerator`), else undefined */
  generator?: Policy;
  /** the static scalar RM, where the row reads it */
  scalarRm: Policy | null;
  seed: number;
  /** the step the run starts at (after a resume) */
  start: number;
}

/** One row of a kind, its config built. */
export interface Row {
  /** checks the config before the run's directory is made */
  check: () => void;
  /** what the run's config.json records of the kind, after the identity every row records */
  record: Record<string, unknown>;
  /** the world the row trains in, where its in-distribution endpoint is measured */
  world: WorldConfig;
  /** false where the schedule reads the run's length (EvoLM), so a step before the last is no shorter run */
  horizons: boolean;
  /** reads the static scalar RM */
  scalarRm: boolean;
  /** loads a second policy from the cold start (EvoLM's generator) */
  needsGenerator: boolean;
  /** how the row's own rubric writer reads when its rubric quality is measured */
  writerReads: 'own_cot' | 'question';
  trainer: (m: RowModels) => RowTrainer;
}

/** A trainer of one role, as a row's trainer: every step is a policy step. */
export function oneRole(t: Trainer & { lastRubrics?: () => unknown[] }, totalSteps: number): RowTrainer {
  return {
    totalSteps,
    step: (_: number, rng: Rng) => t.step(rng),
    lastRubrics: t.lastRubrics,
    lastRollouts: t.lastRollouts,
    phaseOf: () => 'policy',
    state: t.state,
    restore: t.restore,
  };
}

/**
 * A row's config of a kind with its own spec overrides: the defaults, the spec's overrides, a KL-matched row's target
 * (under the kind's name for it), the user's overrides, the steps.
 */
const specConfig = <C>(defaults: C, spec: DeepPartial<C> | undefined, klKey: string, x: RowInputs): C =>
  mergeConfig(defaults, {
    ...spec,
    ...(x.klTarget !== null ? { [klKey]: x.klTarget } : {}),
    ...x.user,
    steps: x.steps,
  });

/** RLVR's config of a row: the defaults, the user's overrides where the row is of an RLVR kind, the steps. */
const rlvrConfig = (x: RowInputs, own: boolean): RlvrConfig =>
  mergeConfig(defaultRlvrConfig, { ...(own ? x.user : {}), steps: x.steps });

/** The reward an RLVR-kind row trains on: the outcome, or a control, or a positive control. */
function rlvrReward(x: RowInputs, c: RlvrConfig, m: RowModels): RewardFn | undefined {
  switch (x.spec.kind === 'rlvr' ? x.spec.reward : undefined) {
    case 'random': {
      // one number per rollout from its own stream: a resumed run skips the draws of the steps already taken
      const r = makeRng(7_000_000 + m.seed);
      for (let i = 0; i < m.start * c.prompts * c.rollouts; i++) r.next();
      return randomRewardFn(r);
    }
    case 'format':
      return formatRewardFn;
    case 'process_oracle':
      return processOracleRewardFn();
    case 'process_oracle_dense':
      return denseProcessOracleRewardFn();
    default:
      return undefined;
  }
}

const common = { horizons: true, scalarRm: false, needsGenerator: false, writerReads: 'own_cot' } as const;

/**
 * The verifier setting's share of a row (docs/verifier.md): what the row records of it beside the learned verifier's
 * checkpoint (which every RLCER and EvoLM row records, and which measures rubric quality whatever the setting), a
 * check that its checkpoint loads, and the competent verifier, loaded once for the trainer. Only the 'competent'
 * setting adds to the record (its checkpoint and the checkpoint's hash), so that a row at any other setting records
 * what it did before the knob.
 */
function verifierShare(setting: string) {
  const competent = (() => {
    try {
      return parseVerifierSetting(setting).kind === 'competent';
    } catch {
      return false; // a bad setting fails in the row's check, with its own message
    }
  })();
  let loaded: AlignedVerifier | undefined;
  const load = () => (loaded ??= loadAlignedVerifier(COMPETENT_VERIFIER_CHECKPOINT));
  return {
    record: {
      verifier: VERIFIER_CHECKPOINT,
      ...(competent && fs.existsSync(COMPETENT_VERIFIER_CHECKPOINT)
        ? {
            competentVerifier: {
              checkpoint: COMPETENT_VERIFIER_CHECKPOINT,
              sha256: sha256Hex(fs.readFileSync(COMPETENT_VERIFIER_CHECKPOINT)).slice(0, 12),
            },
          }
        : {}),
    },
    check: () => {
      if (competent) load();
    },
    competent: () => (competent ? load() : undefined),
  };
}

/** A kind: whether its rows train (take steps), and its row built from a row's inputs. */
export interface Kind {
  trains: boolean;
  /**
   * The METHODS rows of this kind that `make bench-steps` times (src/cli/bench-steps.ts), in order: a new kind names
   * its own here (an empty list: the bench does not time it)
   */
  benchMethods: string[];
  row: (x: RowInputs) => Row;
}

/** Every kind of Table 2 row. */
export const KINDS: Record<MethodSpec['kind'], Kind> = {
  // the cold start itself: no steps; recorded with RLVR's config as every row without a config of its own, in the
  // user's world where one is given (a sweep's regime: where its in-distribution endpoint is measured)
  sft: {
    trains: false,
    benchMethods: [],
    row: (x) => {
      const c = mergeConfig(rlvrConfig(x, false), x.user.world ? { world: x.user.world } : {});
      return {
        ...common,
        check: () => {},
        record: { rlvr: c },
        world: c.world,
        trainer: (m) => oneRole(makeRlvrTrainer(m.policy, c), x.steps),
      };
    },
  },
  rlvr: {
    trains: true,
    benchMethods: ['rlvr', 'process_oracle', 'process_oracle_dense'],
    row: (x) => {
      const c = rlvrConfig(x, true);
      return {
        ...common,
        check: () => checkRlvrConfig(c),
        record: { rlvr: c },
        world: c.world,
        trainer: (m) => oneRole(makeRlvrTrainer(m.policy, c, rlvrReward(x, c, m)), x.steps),
      };
    },
  },
  // RLVR's trainer with the static scalar RM's score (2 s - 1) as the reward
  scalar_rm: {
    trains: true,
    benchMethods: [],
    row: (x) => {
      const c = rlvrConfig(x, true);
      const reward =
        (rm: Policy): RewardFn =>
        (rs) =>
          rmScores(
            rm,
            rs.map((r) => ({ p: r.problem, completion: decode(r.completion) })),
          ).map((s) => ({ reward: 2 * s - 1, components: { scalar_rm: 2 * s - 1 } }));
      return {
        ...common,
        scalarRm: true,
        check: () => checkRlvrConfig(c),
        record: { rlvr: c, scalarRm: x.scalarRmCheckpoint },
        world: c.world,
        trainer: (m) => oneRole(makeRlvrTrainer(m.policy, c, reward(m.scalarRm!)), x.steps),
      };
    },
  },
  rlcer: {
    trains: true,
    benchMethods: ['rlcer', 'fixed_teacher'],
    row: (x) => {
      const c = specConfig<RlcerConfig>(
        defaultRlcerConfig,
        x.spec.kind === 'rlcer' ? x.spec.rlcer : undefined,
        'reasonKlTarget',
        x,
      );
      const v = verifierShare(c.verifier);
      return {
        ...common,
        check: () => {
          checkRlcerConfig(c);
          v.check();
        },
        record: { rlcer: c, ...v.record },
        world: c.world,
        trainer: (m) =>
          oneRole(
            makeRlcerTrainer(m.policy, c, {
              verifier: m.verifier,
              competent: v.competent(),
              seed: m.seed,
              frozenRubricator: c.rubricSource === 'fixed_untrained' ? m.coldStart() : undefined,
            }),
            x.steps,
          ),
      };
    },
  },
  evolm: {
    trains: true,
    benchMethods: ['evolm'],
    row: (x) => {
      const c = specConfig<EvolmConfig>(
        defaultEvolmConfig,
        x.spec.kind === 'evolm' ? x.spec.evolm : undefined,
        'policyKlTarget',
        x,
      );
      const v = verifierShare(c.verifier);
      return {
        ...common,
        // EvoLM's schedule reads the total steps (its alternation period): its step 60 of 300 is no 60-step run
        horizons: false,
        needsGenerator: needsGeneratorPolicy(c),
        // the generator may read the question alone; the cold start's rubricator (quality 'coldstart') reads its CoT
        writerReads: x.spec.quality !== 'coldstart' ? c.generatorReads : 'own_cot',
        check: () => {
          checkEvolmConfig(c);
          v.check();
        },
        record: { evolm: c, ...v.record },
        world: c.world,
        trainer: (m) =>
          makeEvolmTrainer(m.policy, c, m.verifier, m.generator, { competent: v.competent(), seed: m.seed }),
      };
    },
  },
};

/** A row of the spec's kind, its config built from `x`. */
export const table2Row = (x: RowInputs): Row => KINDS[x.spec.kind].row(x);

/**
 * The methods `make bench-steps` times, in order: the cold start's SFT step, the Table 2 rows each kind names
 * (`benchMethods`, by their METHODS id), and CO-RL's pair.
 */
export const BENCH_METHODS: readonly string[] = [
  'sft',
  ...Object.values(KINDS).flatMap((k) => k.benchMethods),
  'corl_transformer_gru',
];
