// Update parity (docs/rlcer.md, Results): the size of each role's policy update, read from the runs' metrics, against
// RLVR's at the same size and seed. The reasoner of a multi-role method should move as far per update as RLVR's policy
// does on the same kind of batch; a ratio outside PARITY_BAND says the comparison gave the shared role another budget.
import type { Row } from '../src/io/table.js';
import { mean } from '../src/util/stats.js';

/** The band the reasoner's approx. KL per update must keep to, as a ratio to RLVR's (same size and seed). */
export const PARITY_BAND: [number, number] = [0.5, 2];
/** Updates over which the early ratio is read: all runs start from the same cold start, before rewards diverge. */
export const PARITY_EARLY = 10;

/** Logged metric (approx. KL per update, k1) -> role. RLCER/RLVR log PPO roles; EvoLM logs its two GRPO phases. */
export const ROLE_METRICS: Record<string, string> = {
  'reason/approx_kl': 'reasoner',
  'policy/approx_kl': 'reasoner',
  'rubric/approx_kl': 'rubricator',
  'generator/approx_kl': 'rubricator',
  'hint/approx_kl': 'hint',
};

export const PARITY_COLUMNS = [
  'size',
  'method',
  'seed',
  'role',
  'updates',
  'approx_kl_per_update',
  'rlvr_approx_kl_per_update',
  'ratio_to_rlvr',
  'ratio_to_rlvr_first_updates',
  'within_band',
  'mixed_groups',
  'mean_rate',
  'min_rate',
];

export interface RunMetrics {
  size: string;
  method: string;
  seed: number;
  metrics: Record<string, unknown>[];
}

/** The finite values of one metric over a run's steps, in step order. */
function series(metrics: Record<string, unknown>[], key: string): number[] {
  return [...metrics]
    .sort((a, b) => Number(a.step) - Number(b.step))
    .map((m) => m[key])
    .filter((v) => v !== null && v !== undefined && Number.isFinite(Number(v)))
    .map(Number);
}

/**
 * One row per (run, role that logged an update): the mean approx. KL per update over the run and over its first
 * PARITY_EARLY updates, their ratios to RLVR's at the same size and seed over as many of RLVR's first updates, whether the reasoner's whole-run ratio lies
 * in PARITY_BAND (yes/no; empty for other roles or without an RLVR run), and the run's mean share of mixed-outcome
 * groups (a uniform group gives RLVR zero advantages, so fewer mixed groups mean smaller RLVR updates). Where the
 * role's rate was adapted (the KL-matched rows log `<role>/lr`, the rate each update used): its mean and smallest.
 */
export function updateParity(runs: RunMetrics[]): Row[] {
  const rlvr = new Map(
    runs.filter((r) => r.method === 'rlvr').map((r) => [`${r.size}|${r.seed}`, series(r.metrics, 'reason/approx_kl')]),
  );
  const out: Row[] = [];
  for (const r of [...runs].sort(
    (a, b) => a.size.localeCompare(b.size) || a.method.localeCompare(b.method) || a.seed - b.seed,
  )) {
    for (const [key, role] of Object.entries(ROLE_METRICS)) {
      const kl = series(r.metrics, key);
      if (kl.length === 0) continue;
      // RLVR's updates matched to this run's: as many as it made, from the first (a 60-step arm against a 300-step
      // RLVR run reads RLVR's first 60, not its mean over 300, which falls as RLVR's groups stop being mixed)
      const ref = rlvr.get(`${r.size}|${r.seed}`)?.slice(0, kl.length);
      const all = mean(kl),
        refAll = ref?.length ? mean(ref) : NaN;
      const early = mean(kl.slice(0, PARITY_EARLY)),
        refEarly = ref?.length ? mean(ref.slice(0, PARITY_EARLY)) : NaN;
      const ratio = all / refAll,
        mixed = series(r.metrics, 'mixed_groups');
      const rate = series(r.metrics, key.replace('/approx_kl', '/lr'));
      out.push({
        size: r.size,
        method: r.method,
        seed: r.seed,
        role,
        updates: kl.length,
        approx_kl_per_update: all,
        rlvr_approx_kl_per_update: Number.isFinite(refAll) ? refAll : '',
        ratio_to_rlvr: Number.isFinite(ratio) ? ratio : '',
        ratio_to_rlvr_first_updates: Number.isFinite(early / refEarly) ? early / refEarly : '',
        within_band:
          role !== 'reasoner' || !Number.isFinite(ratio)
            ? ''
            : ratio >= PARITY_BAND[0] && ratio <= PARITY_BAND[1]
              ? 'yes'
              : 'no',
        mixed_groups: mixed.length ? mean(mixed) : '',
        mean_rate: rate.length ? mean(rate) : '',
        min_rate: rate.length ? Math.min(...rate) : '',
      });
    }
  }
  return out;
}

export const CLAIM_PARITY_COLUMNS = [
  'size',
  'claim',
  'run',
  'against',
  'seeds',
  'kl_ratio_min',
  'kl_ratio_max',
  'seeds_within_band',
];

/**
 * The fairness check behind each claim "A beats B" (the developers' guide: the same size of policy update for the
 * shared role): per size, the ratio of A's reasoner approx. KL per update to B's at the same seed, from
 * `updateParity`'s rows. One row per (size, claim) whose two rows differ and both logged reasoner updates: the
 * seeds compared, the smallest and largest ratio, and how many seeds lie in PARITY_BAND ("2/3").
 */
export function claimParity(parity: Row[], claims: { claim: string; a: string; b: string }[]): Row[] {
  const kl = new Map(
    parity
      .filter((r) => r.role === 'reasoner')
      .map((r) => [`${r.size}|${r.method}|${r.seed}`, Number(r.approx_kl_per_update)]),
  );
  const sizes = [...new Set(parity.map((r) => String(r.size)))].sort();
  const seeds = [...new Set(parity.map((r) => Number(r.seed)))].sort((x, y) => x - y);
  const out: Row[] = [];
  for (const size of sizes) {
    for (const c of claims.filter((x) => x.a !== x.b)) {
      const ratios = seeds
        .map((s) => kl.get(`${size}|${c.a}|${s}`)! / kl.get(`${size}|${c.b}|${s}`)!)
        .filter((r) => Number.isFinite(r) && r > 0);
      if (ratios.length === 0) continue;
      const inBand = ratios.filter((r) => r >= PARITY_BAND[0] && r <= PARITY_BAND[1]).length;
      out.push({
        size,
        claim: c.claim,
        run: `${size}|${c.a}`,
        against: `${size}|${c.b}`,
        seeds: ratios.length,
        kl_ratio_min: Math.min(...ratios),
        kl_ratio_max: Math.max(...ratios),
        seeds_within_band: `${inBand}/${ratios.length}`,
      });
    }
  }
  return out;
}
