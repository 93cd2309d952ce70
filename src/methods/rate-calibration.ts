// The pre-registered rule that fixes the rubricator's learning rate (results/rlcer/rate_calibration_rule.md): the
// candidates, the run length, and the table and choice from the runs' metrics. `make rate-calibration` runs it.
import { defaultRlcerConfig } from './rlcer.js';
import { mean } from '../util/stats.js';

/** Candidates (multiples of the reasoner's rate), run length, seed, size, the pass criteria and where records go. */
export const CALIBRATION = {
  multipliers: [0.5, 1, 2, 5, 10], steps: 30, seed: 0, size: 'S', klRatioMax: 1.5, formatDrop: 0.02, window: 10,
  root: 'results/runs/rate-calibration', out: 'results/rlcer',
} as const;

/** The calibration table from the finished runs, and the chosen multiplier (the rule in the header). */
export function calibrationTable(runs: { id: string; metrics: Record<string, unknown>[] }[]) {
  const c = CALIBRATION, num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : NaN);
  const col = (ms: Record<string, unknown>[], k: string) => ms.map((m) => num(m[k])).filter((x) => !Number.isNaN(x));
  const ref = runs.find((r) => r.id === 'rlvr');
  if (!ref) throw new Error('rate calibration: the RLVR reference run is missing (tsx src/cli/rate-calibration.ts --run rlvr)');
  const klRef = mean(col(ref.metrics, 'reason/approx_kl'));
  const rows = (c.multipliers as readonly number[]).map((m) => {
    const r = runs.find((x) => Number(x.id) === m && x.id !== 'rlvr');
    if (!r) throw new Error(`rate calibration: the run for multiplier ${m} is missing`);
    const kl = mean(col(r.metrics, 'reason/approx_kl')), fmt = col(r.metrics, 'format_rate');
    const first = mean(fmt.slice(0, c.window)), last = mean(fmt.slice(-c.window));
    const passes = kl <= c.klRatioMax * klRef && last >= first - c.formatDrop;
    return { multiplier: m, rubric_lr: defaultRlcerConfig.ppo.lr.reason * m, reason_approx_kl: kl, rlvr_approx_kl: klRef,
      kl_ratio: kl / klRef, format_first: first, format_last: last, passes: passes ? 'yes' : 'no' };
  });
  const passing = rows.filter((r) => r.passes === 'yes');
  const chosen = passing.length ? passing[passing.length - 1] : rows[0];
  return { rows, chosen: { multiplier: chosen.multiplier, rubric_lr: chosen.rubric_lr, anyPassed: passing.length > 0 } };
}

