// Pre-registration of the competing task pair (docs/rubicon-fairness.md, The competing pair): before any training run
// on it, measure at the cold start whether its two families trade off, i.e. whether the constraint family's score
// and the quality family's score of the same rollout are negatively correlated. The rule is fixed here and in
// results/rubicon/preregistration-rule.md (a test keeps the two the same); src/cli/rubicon-preregister.ts measures
// and writes preregistration.csv.
import { pearson, Z95 } from '../../util/stats.js';

/** The rule, stated before any run on the pair. */
export const PREREG_RULE = {
  tasks: 'competing',
  /** which correlation decides: within groups (one problem's rollouts of one prompt, centred), as GRPO compares */
  statistic: 'within_prompt',
  /** rollouts of both prompts of the pair (constraint and quality), pooled after centring */
  prompts: 'both',
  /** the trade-off exists when the correlation's 95% interval (Fisher z) lies below this */
  below: 0,
  problems: 64,
  rollouts: 8,
  temperature: 1,
  seed: 19,
} as const;

/** One cold-start rollout's two family scores (weighted sums of each family's dimensions). */
export interface PreregSample {
  group: number;
  prompt: 'constraints' | 'quality';
  constraints: number;
  quality: number;
}

/**
 * The correlation of the two scores (src/util/stats.ts, pearson), NaN where one side is constant: no interval then
 * (fisherInterval), and writing the row refuses the non-finite value, as a table must not hold an undefined r.
 */
const correlation = (x: readonly number[], y: readonly number[]): number => pearson(x, y) ?? NaN;

/** 95% interval of a correlation from Fisher's z with `dof` effective observations (empty when dof <= 3). */
export function fisherInterval(r: number, dof: number): { ci_low: number | ''; ci_high: number | '' } {
  if (!(dof > 3) || !Number.isFinite(r) || Math.abs(r) >= 1) return { ci_low: '', ci_high: '' };
  const z = Math.atanh(r),
    h = Z95 / Math.sqrt(dof - 3);
  return { ci_low: Math.tanh(z - h), ci_high: Math.tanh(z + h) };
}

/**
 * The correlations of the two family scores: `pooled` over all rollouts, and `within_prompt` after centring both
 * scores on the mean of their group (one problem's rollouts of one prompt), with n - groups effective observations.
 * Each for the constraint prompts, the quality prompts and both.
 */
export function preregRows(samples: PreregSample[]) {
  return (['constraints', 'quality', 'both'] as const).flatMap((prompts) => {
    const s = samples.filter((x) => prompts === 'both' || x.prompt === prompts);
    const groups = new Map<string, PreregSample[]>();
    for (const x of s) {
      const k = `${x.group}|${x.prompt}`;
      groups.set(k, [...(groups.get(k) ?? []), x]);
    }
    const centred = [...groups.values()].flatMap((g) => {
      const mc = g.reduce((a, x) => a + x.constraints, 0) / g.length;
      const mq = g.reduce((a, x) => a + x.quality, 0) / g.length;
      return g.map((x) => ({ c: x.constraints - mc, q: x.quality - mq }));
    });
    const pooled = correlation(
      s.map((x) => x.constraints),
      s.map((x) => x.quality),
    );
    const within = correlation(
      centred.map((x) => x.c),
      centred.map((x) => x.q),
    );
    const mean = (f: (x: PreregSample) => number) => s.reduce((a, x) => a + f(x), 0) / s.length;
    return [
      { statistic: 'pooled', r: pooled, dof: s.length },
      { statistic: 'within_prompt', r: within, dof: s.length - groups.size },
    ].map((t) => {
      const ci = fisherInterval(t.r, t.dof);
      const decisive = t.statistic === PREREG_RULE.statistic && prompts === PREREG_RULE.prompts;
      return {
        tasks: PREREG_RULE.tasks,
        prompts,
        statistic: t.statistic,
        r: t.r,
        ...ci,
        rollouts: s.length,
        groups: groups.size,
        constraints_mean: mean((x) => x.constraints),
        quality_mean: mean((x) => x.quality),
        decisive: decisive ? 'yes' : 'no',
        criterion_met: decisive ? (ci.ci_high !== '' && ci.ci_high < PREREG_RULE.below ? 'yes' : 'no') : '',
      };
    });
  });
}

/** The pre-registered verdict: the pair competes at the cold start iff the decisive row meets the criterion. */
export const competes = (rows: ReturnType<typeof preregRows>) =>
  rows.some((r) => r.decisive === 'yes' && r.criterion_met === 'yes');
