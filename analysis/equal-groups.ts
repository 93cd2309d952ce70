// The pre-registered choice of PPO's all-equal-group default (results/sensitivity2/equal-groups-preregistration.md),
// from the pilot's records alone: per run, the approx. KL of the policy's updates summed over its steps, the
// terminated share over its last 10 steps and the process score at its end; per option, their means; the default by
// the rule (the smallest mean summed KL; `zero` over `resample` when the two are within 10%). Reads no accuracy.
//   tsx analysis/equal-groups.ts [<records> [<out.csv>]]
//   (defaults: results/runs/sensitivity2/equal-groups, results/sensitivity2/equal-groups.csv)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readMetrics } from '../src/io/run.js';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { mean } from '../src/util/stats.js';
import { EQUAL_GROUPS, type EqualGroups } from '../src/rl/ppo.js';

/** One pilot run's drift: summed approx. KL, last-10-step terminated share, final process score. */
export function runDrift(dir: string): { kl_sum: number; terminated_last10: number; process_score: number } {
  const m = readMetrics(dir);
  const last = m.slice(-10);
  const score = readCsv(path.join(dir, 'endpoints.csv')).find((r) => r.endpoint === 'process_score');
  return {
    kl_sum: m.reduce((a, x) => a + Number(x['reason/approx_kl'] ?? 0), 0),
    terminated_last10: mean(last.map((x) => Number(x.terminated))),
    process_score: Number(score?.value ?? Number.NaN),
  };
}

/** The rule: the option with the smallest mean summed KL; `zero` when `zero` and `resample` are within 10%. */
export function chooseDefault(klByOption: Partial<Record<EqualGroups, number>>): EqualGroups {
  const ranked = (Object.entries(klByOption) as [EqualGroups, number][]).sort((a, b) => a[1] - b[1]);
  const best = ranked[0][0];
  const { zero, resample } = klByOption;
  if (best === 'resample' && zero !== undefined && resample !== undefined && zero <= resample * 1.1) return 'zero';
  return best;
}

if (process.argv[1]?.endsWith('equal-groups.ts')) {
  const [records = 'results/runs/sensitivity2/equal-groups', out = 'results/sensitivity2/equal-groups.csv'] =
    process.argv.slice(2);
  const rows: Row[] = [];
  for (const option of EQUAL_GROUPS) {
    const base = path.join(records, option);
    if (!fs.existsSync(base)) continue;
    for (const seed of fs
      .readdirSync(base)
      .filter((d) => fs.existsSync(path.join(base, d, 'done.json')))
      .sort())
      rows.push({ option, seed: seed.replace('seed-', ''), ...runDrift(path.join(base, seed)) });
  }
  const means = Object.fromEntries(
    EQUAL_GROUPS.filter((o) => rows.some((r) => r.option === o)).map((o) => [
      o,
      mean(rows.filter((r) => r.option === o).map((r) => Number(r.kl_sum))),
    ]),
  ) as Partial<Record<EqualGroups, number>>;
  writeCsv(out, rows);
  const complete = EQUAL_GROUPS.every((o) => rows.filter((r) => r.option === o).length >= 3);
  console.log(`${rows.length} runs -> ${out}; mean summed approx. KL: ${JSON.stringify(means)}`);
  console.log(
    complete ? `the pre-registered default: ${chooseDefault(means)}` : 'the pilot is incomplete: no default chosen yet',
  );
}
