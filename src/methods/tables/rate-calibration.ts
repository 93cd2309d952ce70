// The pre-registered rules that fix the other role's learning rate: the rubricator's (results/rlcer/
// rate_calibration_rule.md) and EvoLM's generator's (results/evolm/generator_rate_rule.md): the candidates, the run
// length, and the table and choice from the runs' metrics. `make rate-calibration` runs both.
import { defaultRlcerConfig } from '../trainers/rlcer.js';
import { defaultEvolmConfig } from '../trainers/evolm.js';
import { mean } from '../../util/stats.js';

/** Candidates (multiples of the reasoner's rate), run length, seed, size, the pass criteria and where records go. */
export const CALIBRATION = {
  multipliers: [0.5, 1, 2, 5, 10],
  steps: 30,
  seed: 0,
  size: 'S',
  klRatioMax: 1.5,
  formatDrop: 0.02,
  window: 10,
  root: 'results/runs/rate-calibration',
  out: 'results/rlcer',
} as const;

type Metrics = Record<string, unknown>[];
/** The finite numbers a metric takes over the steps that log it. */
const nums = (ms: Metrics, k: string) =>
  ms.map((m) => m[k]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/**
 * The rule both calibrations apply to one candidate: its mean approx. KL within klRatioMax x the reference's, and its
 * format rate's last window no more than formatDrop below its first.
 */
function ruleReading(
  kl: number,
  klRef: number,
  fmt: number[],
  c: { window: number; klRatioMax: number; formatDrop: number },
) {
  const first = mean(fmt.slice(0, c.window)),
    last = mean(fmt.slice(-c.window));
  return { first, last, passes: kl <= c.klRatioMax * klRef && last >= first - c.formatDrop };
}

/** The chosen candidate: the largest multiplier that passes, else the smallest. */
function choose<R extends { passes: string }>(rows: R[]): { chosen: R; anyPassed: boolean } {
  const passing = rows.filter((r) => r.passes === 'yes');
  return { chosen: passing.length ? passing[passing.length - 1] : rows[0], anyPassed: passing.length > 0 };
}

/** The calibration table from the finished runs, and the chosen multiplier (the rule in the header). */
export function calibrationTable(runs: { id: string; metrics: Metrics }[]) {
  const c = CALIBRATION;
  const ref = runs.find((r) => r.id === 'rlvr');
  if (!ref)
    throw new Error('rate calibration: the RLVR reference run is missing (tsx src/cli/rate-calibration.ts --run rlvr)');
  const klRef = mean(nums(ref.metrics, 'reason/approx_kl'));
  const rows = (c.multipliers as readonly number[]).map((m) => {
    const r = runs.find((x) => Number(x.id) === m && x.id !== 'rlvr');
    if (!r) throw new Error(`rate calibration: the run for multiplier ${m} is missing`);
    const kl = mean(nums(r.metrics, 'reason/approx_kl'));
    const { first, last, passes } = ruleReading(kl, klRef, nums(r.metrics, 'format_rate'), c);
    return {
      multiplier: m,
      rubric_lr: defaultRlcerConfig.ppo.lr.reason * m,
      reason_approx_kl: kl,
      rlvr_approx_kl: klRef,
      kl_ratio: kl / klRef,
      format_first: first,
      format_last: last,
      passes: passes ? 'yes' : 'no',
    };
  });
  const { chosen, anyPassed } = choose(rows);
  return { rows, chosen: { multiplier: chosen.multiplier, rubric_lr: chosen.rubric_lr, anyPassed } };
}

/** EvoLM's generator: the same candidates and run length; the reference is the two-model variant (run "evolm-ref"). */
export const GENERATOR_CALIBRATION = {
  multipliers: CALIBRATION.multipliers,
  steps: CALIBRATION.steps,
  seed: 0,
  size: 'S',
  klRatioMax: 1.5,
  formatDrop: 0.02,
  window: 10,
  method: 'evolm',
  reference: 'evolm_two_model',
  out: 'results/evolm',
} as const;

/**
 * The generator's calibration table from the finished runs "evolm-ref" and "evolm-<multiplier>": the policy's mean
 * approx. KL per update over its steps against the reference's, and the generator's format rate over its own steps
 * (phase 1) in the first and last windows; the chosen multiplier by the rule of generator_rate_rule.md.
 */
export function generatorCalibrationTable(runs: { id: string; metrics: Metrics }[]) {
  const c = GENERATOR_CALIBRATION,
    find = (id: string) => runs.find((r) => r.id === id);
  const ref = find('evolm-ref');
  if (!ref) throw new Error('generator rate calibration: the reference run is missing (--run evolm-ref)');
  const klRef = mean(nums(ref.metrics, 'policy/approx_kl'));
  const rows = (c.multipliers as readonly number[]).map((m) => {
    const r = find(`evolm-${m}`);
    if (!r) throw new Error(`generator rate calibration: the run for multiplier ${m} is missing (--run evolm-${m})`);
    const kl = mean(nums(r.metrics, 'policy/approx_kl'));
    const fmt = nums(
      r.metrics.filter((x) => x.phase === 1),
      'format_rate',
    );
    const { first, last, passes } = ruleReading(kl, klRef, fmt, c);
    return {
      multiplier: m,
      generator_lr: defaultEvolmConfig.policyLr * m,
      policy_approx_kl: kl,
      reference_approx_kl: klRef,
      kl_ratio: kl / klRef,
      format_first: first,
      format_last: last,
      passes: passes ? 'yes' : 'no',
    };
  });
  const { chosen, anyPassed } = choose(rows);
  return { rows, chosen: { multiplier: chosen.multiplier, generator_lr: chosen.generator_lr, anyPassed } };
}
