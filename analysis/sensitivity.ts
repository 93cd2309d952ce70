// The sensitivity pilot and campaign (docs/sensitivity.md): each run's pre-registered endpoints at every horizon it
// evaluated (endpoints.csv after its last step, endpoints-<h>.csv after step h), the paired differences of an arm
// against RLVR per (size, regime, horizon, endpoint), their spread, interval and minimum detectable effect, and the
// pilot's seeds rule: the seeds per arm that give an MDE <= 0.03 on the accuracy endpoints, from the pilot's SD only.
// Usage: tsx analysis/sensitivity.ts pilot [--config sweeps/sensitivity-pilot.json] [--out results/sensitivity]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { loadJsonConfig } from '../src/io/run.js';
import { defaultCommand, expandSweep, finishedDir, type SweepConfig } from '../src/io/sweep.js';
import { readCsv, writeCsv, writeFileAtomic, type Row } from '../src/io/table.js';
import { PROCESS_WEIGHT } from '../src/methods/trainers/process-oracle.js';
import { verifySums } from '../src/io/checksums.js';
import { ConfigError } from '../src/util/validate.js';
import { mean, meanInterval, median } from '../src/util/stats.js';
import {
  halfWidth,
  holm,
  mde,
  POOLED_COLUMNS,
  pooledCells,
  POWER_COLUMNS,
  powerCells,
  sampleSd,
  seedsFor,
  tTestP,
} from '../src/util/power.js';
import { CAMPAIGN_ARMS, CAMPAIGN_ARMS_60, CAMPAIGN_ARMS_M } from '../src/methods/tables/table2.js';
import { PARITY_COLUMNS, updateParity } from './parity.js';
import { readMetrics } from '../src/io/run.js';
import { TRAIN_FAMILIES } from '../src/world/families.js';

/**
 * The pre-registered primary endpoints, and the secondary ones written beside them. Records written before wave 4's
 * split hold trace_error as the share of right answers with any flawed step (a repeat included: flaw_rate now) and no
 * repeat_rate or flaw_rate rows; later records hold trace_error as a true step wrong or missing, and both others
 * (src/rl/evaluate.ts, endpointsOf; docs/sensitivity.md, "Trace error, split").
 */
export const PRIMARY_ENDPOINTS = ['in_distribution', 'chain_ood', 'trace_error'];
export const ACCURACY_ENDPOINTS = ['in_distribution', 'chain_ood'];
export const SECONDARY_ENDPOINTS = ['average', 'process_score', 'repeat_rate', 'flaw_rate'];
/** The effect the campaign must be able to see on the accuracy endpoints, and the most seeds a cell gets. */
export const TARGET_MDE = 0.03;
export const MAX_SEEDS = 20;

export const RECORD_COLUMNS = ['size', 'cell', 'method', 'seed', 'horizon', 'endpoint', 'value', 'n'];

/** Every finished run's endpoints at every horizon it evaluated, one tidy row each (unfinished runs are not read). */
export function sensitivityRecords(c: SweepConfig & { regime?: string }, kernels?: number): Row[] {
  const rows: Row[] = [];
  for (const s of expandSweep(c)) {
    const dir = finishedDir(s);
    if (!dir) continue;
    if (dir === s.archive) verifySums(dir);
    const gen = Number(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).engine?.kernels ?? 1);
    if (kernels !== undefined && gen !== kernels) {
      console.warn(`${dir} ran on kernels ${gen}, the campaign on ${kernels}: not read`);
      continue;
    }
    const files = fs
      .readdirSync(dir)
      .filter((f) => /^endpoints(-\d+)?\.csv$/.test(f))
      .sort();
    if (files.length === 0)
      throw new ConfigError(`${dir} has no endpoints table: was it run with the sensitivity profile?`);
    for (const f of files)
      for (const r of readCsv(path.join(dir, f))) {
        rows.push({
          size: s.size,
          cell: c.regime && c.regime !== 'baseline' ? `regime=${c.regime}` : s.cell,
          method: s.method,
          seed: s.seed,
          horizon: Number(r.step),
          endpoint: String(r.endpoint),
          value: r.value,
          n: r.n,
        });
      }
  }
  return rows.sort(
    (a, b) =>
      String(a.size).localeCompare(String(b.size)) ||
      String(a.cell).localeCompare(String(b.cell)) ||
      String(a.method).localeCompare(String(b.method)) ||
      Number(a.horizon) - Number(b.horizon) ||
      String(a.endpoint).localeCompare(String(b.endpoint)) ||
      Number(a.seed) - Number(b.seed),
  );
}

export const PAIRED_COLUMNS = [
  'size',
  'cell',
  'horizon',
  'endpoint',
  'a',
  'b',
  'seeds',
  'a_mean',
  'b_mean',
  'delta',
  'ci_low',
  'ci_high',
  'sd',
  'b_sd',
  'half_width',
  'mde',
];

/**
 * Arm `a` minus arm `b` per (size, cell, horizon, endpoint), paired by seed over the seeds where both have a value (a
 * trace error without right answers has none): the mean difference, its 95% t-interval, the SD of the differences,
 * `b`'s own SD, the interval's half-width and the MDE at 80% power for those seeds ('' below two seeds).
 */
export function pairedDifferences(
  records: Row[],
  a: string,
  b: string,
  endpoints = [...PRIMARY_ENDPOINTS, ...SECONDARY_ENDPOINTS],
): Row[] {
  const key = (r: Row) => `${r.size}|${r.cell}|${r.horizon}|${r.endpoint}`;
  const out: Row[] = [];
  for (const k of [...new Set(records.filter((r) => r.method === a).map(key))]) {
    const [size, cell, horizon, endpoint] = k.split('|');
    if (!endpoints.includes(endpoint)) continue;
    const at = (m: string) =>
      new Map(
        records
          .filter((r) => r.method === m && key(r) === k && r.value !== '')
          .map((r) => [Number(r.seed), Number(r.value)]),
      );
    const A = at(a),
      B = at(b),
      seeds = [...A.keys()].filter((s) => B.has(s)).sort((x, y) => x - y);
    if (seeds.length === 0) continue;
    const d = seeds.map((s) => A.get(s)! - B.get(s)!),
      ci = meanInterval(d),
      n = seeds.length;
    const sd = n > 1 ? sampleSd(d) : null,
      bsd = n > 1 ? sampleSd(seeds.map((s) => B.get(s)!)) : null;
    out.push({
      size,
      cell,
      horizon: Number(horizon),
      endpoint,
      a,
      b,
      seeds: n,
      a_mean: mean(seeds.map((s) => A.get(s)!)),
      b_mean: mean(seeds.map((s) => B.get(s)!)),
      delta: ci.mean,
      ci_low: ci.ci_low ?? '',
      ci_high: ci.ci_high ?? '',
      sd: sd ?? '',
      b_sd: bsd ?? '',
      half_width: sd !== null ? halfWidth(sd, n) : '',
      mde: sd !== null && sd > 0 ? mde(sd, n) : '',
    });
  }
  return out;
}

export const SEED_RULE_COLUMNS = [
  'size',
  'cell',
  'horizon',
  'pilot_seeds',
  'sd_in_distribution',
  'sd_chain_ood',
  'sd_used',
  'seeds',
  'mde_accuracy',
  'target_met',
  'sd_trace_error',
  'mde_trace_error',
];

/**
 * The pre-registered seeds rule: per (size, cell, horizon), the larger of the pilot's paired-difference SDs on the
 * two accuracy endpoints (of the arm that spreads most, where the pilot compares several with RLVR) fixes the fewest
 * seeds whose MDE is <= TARGET_MDE (at most MAX_SEEDS, then the MDE they give);
 * the MDE those seeds give on trace error is stated beside it. Reads the SDs only, never the means.
 */
export function seedRule(paired: Row[]): Row[] {
  const cells = [...new Set(paired.map((r) => `${r.size}|${r.cell}|${r.horizon}`))];
  return cells.map((k) => {
    const [size, cell, horizon] = k.split('|');
    // with several arms against RLVR, the arm whose difference spreads most on that endpoint
    const at = (e: string) =>
      paired
        .filter((r) => `${r.size}|${r.cell}|${r.horizon}` === k && r.endpoint === e)
        .sort((x, y) => Number(y.sd || 0) - Number(x.sd || 0))[0];
    const sdOf = (e: string) => {
      const r = at(e);
      return r && r.sd !== '' ? Number(r.sd) : null;
    };
    const sds = ACCURACY_ENDPOINTS.map(sdOf),
      used = Math.max(...sds.map((s) => s ?? 0));
    const rule = used > 0 ? seedsFor(used, TARGET_MDE, MAX_SEEDS) : null;
    const te = sdOf('trace_error');
    return {
      size,
      cell,
      horizon: Number(horizon),
      pilot_seeds: at('in_distribution')?.seeds ?? '',
      sd_in_distribution: sds[0] ?? '',
      sd_chain_ood: sds[1] ?? '',
      sd_used: used || '',
      seeds: rule?.seeds ?? '',
      mde_accuracy: rule?.mde ?? '',
      target_met: rule ? (rule.met ? 'yes' : 'no') : '',
      sd_trace_error: te ?? '',
      mde_trace_error: rule && te !== null && te > 0 ? mde(te, rule.seeds) : '',
    };
  });
}

export const SPREAD_COLUMNS = [
  'size',
  'endpoint',
  'a',
  'b',
  'seeds',
  'delta',
  'sd',
  'seeds_rule',
  'mde_at_seeds',
  'target_met',
];

/**
 * The committed full profile's spread at a size (where no pilot ran: M), read the way the endpoints are: per seed,
 * the in-distribution accuracy (the mean over add, sub and chain of each family's mean over its grid cells) and
 * chain_ood, from each run's eval.csv; `a` minus `b` paired by seed, its SD, and the seeds rule applied to that SD.
 */
export function committedSpread(size: string, a = 'rlcer', b = 'rlvr', root = 'results/runs/table2/full'): Row[] {
  const perSeed = (m: string) => {
    const dir = path.join(root, size, m),
      out = new Map<number, Record<string, number>>();
    for (const d of fs.readdirSync(dir).filter((x) => /^seed-\d+$/.test(x))) {
      verifySums(path.join(dir, d));
      const rows = readCsv(path.join(dir, d, 'eval.csv'));
      const fam = (f: string) => mean(rows.filter((r) => r.family === f).map((r) => Number(r.accuracy)));
      out.set(Number(d.slice(5)), {
        in_distribution: mean(TRAIN_FAMILIES.map(fam)),
        chain_ood: fam('chain_ood'),
      });
    }
    return out;
  };
  const A = perSeed(a),
    B = perSeed(b),
    seeds = [...A.keys()].filter((s) => B.has(s)).sort((x, y) => x - y);
  const rows = ACCURACY_ENDPOINTS.map((e) => {
    const d = seeds.map((s) => A.get(s)![e] - B.get(s)![e]),
      sd = sampleSd(d);
    return { size, endpoint: e, a, b, seeds: seeds.length, delta: mean(d), sd };
  });
  const used = Math.max(...rows.map((r) => r.sd)),
    rule = seedsFor(used, TARGET_MDE, MAX_SEEDS);
  return rows.map((r) => ({
    ...r,
    seeds_rule: rule.seeds,
    mde_at_seeds: mde(r.sd, rule.seeds),
    target_met: rule.met ? 'yes' : 'no',
  }));
}

/** The campaign's seeds: the first is past every seed the pilot and the earlier records used (0-2). */
export const CAMPAIGN_FIRST_SEED = 10;
/** The fewest seeds any campaign arm gets, whatever the rule says (the issue's floor). */
export const MIN_SEEDS = 8;

/** The campaign's seeds per sweep: each S regime the most its cells of the pilot's rule ask, M the committed spread's. */
export interface CampaignSeeds {
  S: Record<string, number>;
  M: number;
}

/** Seeds per arm: per S regime, the most any of its horizons asks (within [MIN_SEEDS, MAX_SEEDS]); at M likewise. */
export function campaignSeeds(rule: Row[], spread: Row[]): CampaignSeeds {
  const clamp = (n: number) => Math.min(MAX_SEEDS, Math.max(MIN_SEEDS, Number.isFinite(n) ? n : MAX_SEEDS));
  const S: Record<string, number> = {};
  for (const cell of [...new Set(rule.filter((r) => r.size === 'S').map((r) => String(r.cell)))].sort()) {
    S[regimeOf(cell)] = clamp(
      Math.max(...rule.filter((r) => r.size === 'S' && r.cell === cell && r.seeds !== '').map((r) => Number(r.seeds))),
    );
  }
  return { S, M: clamp(Math.max(...spread.filter((r) => r.size === 'M').map((r) => Number(r.seeds_rule)))) };
}

/** A campaign sweep: its runs are one regime's (`regime`, read by sensitivityRecords; sweep.ts ignores it). */
export type CampaignSweep = SweepConfig & { regime: string };

/** The campaign's sweeps: S baseline, S sparse (the regime's cells as overrides), M baseline at 60 steps. */
export function campaignSweeps(seeds: CampaignSeeds, sparseCells: Row[]): Record<string, CampaignSweep> {
  const range = (n: number) => Array.from({ length: n }, (_, i) => CAMPAIGN_FIRST_SEED + i);
  const trainCells = sparseCells
    .filter((r) => r.chosen === 'yes')
    .map((r) => ({ family: String(r.family), digits: Number(r.digits) }));
  const sweep = (
    name: string,
    regime: string,
    size: string,
    methods: string[],
    n: number,
    extra: string[] = [],
  ): CampaignSweep => ({
    name,
    regime,
    root: `runs/sweeps/${name}`,
    archive: `results/runs/sensitivity/${size}-${regime}`,
    command: defaultCommand('confirm', extra),
    methods,
    seeds: range(n),
    sizes: [size],
    minSeeds: MIN_SEEDS,
    knobs: [],
  });
  return {
    'sensitivity-S-baseline.json': sweep('sensitivity-S-baseline', 'baseline', 'S', CAMPAIGN_ARMS, seeds.S.baseline),
    'sensitivity-S-sparse.json': sweep('sensitivity-S-sparse', 'sparse', 'S', CAMPAIGN_ARMS, seeds.S.sparse, [
      '--overrides',
      JSON.stringify({ world: { trainCells } }),
    ]),
    'sensitivity-M-baseline.json': sweep('sensitivity-M-baseline', 'baseline', 'M', CAMPAIGN_ARMS_M, seeds.M, [
      '--steps',
      '60',
    ]),
  };
}

/**
 * The campaign's sweep configs, in the order the campaign runs them: amendment 1 replaced the sparse sweep of the
 * pre-registration (sensitivity-S-sparse.json, kept as written) with sensitivity-S-sparse-amended.json: the same runs
 * and record paths, and the cold start as a reference row.
 */
export const CAMPAIGN_SWEEPS = [
  'sweeps/sensitivity-S-baseline.json',
  'sweeps/sensitivity-S-sparse-amended.json',
  'sweeps/sensitivity-M-baseline.json',
];
/** The sweeps as the pre-registration named them (its text is fixed: make verify-results rewrites it byte for byte). */
export const PREREGISTERED_SWEEPS = [
  'sweeps/sensitivity-S-baseline.json',
  'sweeps/sensitivity-S-sparse.json',
  'sweeps/sensitivity-M-baseline.json',
];
/** Reference rows: read in the tables, compared with nothing (the cold start itself, amendment 1). */
export const REFERENCE_ARMS = ['sft'];
/** Endpoints not tested in a regime, by construction (amendment 1: the sparse cells need a column never seen). */
export const UNTESTED: { regime: string; endpoint: string; why: string }[] = [
  { regime: 'sparse', endpoint: 'trace_error', why: 'not testable (column 5 unseen: trace error 1 by construction)' },
];

/** Amendment 1's sparse sweep: the pre-registered sweep (same runs, same record paths) and the cold start as a reference. */
export function amendedSparseSweep(original: CampaignSweep): CampaignSweep {
  return { ...original, methods: [...REFERENCE_ARMS, ...original.methods] };
}

/** Amendment 1, written from the committed criteria (regime_criterion.csv and regime_criterion_wide.csv). */
export function amendmentText(wide: Row[]): string {
  const lowest = [...new Set(wide.map((r) => String(r.family)))].map((f) => {
    const rs = wide.filter((r) => r.family === f),
      min = rs.reduce((m, r) => (Number(r.pass_rate) < Number(m.pass_rate) ? r : m));
    return `${f}-${min.digits} ${Number(min.pass_rate).toFixed(3)}`;
  });
  const chosen = wide.filter((r) => r.chosen === 'yes').map((r) => `${r.family}-${r.digits}`);
  return `# Amendment 1 to the sensitivity pre-registration

Written by \`make sensitivity-amend\` (analysis/sensitivity.ts) and committed before any comparison of the campaign
was read (the campaign had finished RLVR and RLCER at seed 10 in the baseline regime and RLVR at seed 10 in the sparse
regime; no claims table held a verdict). Everything in results/sensitivity/preregistration.md not named here stands.

## Why

A read-only audit of the campaign's code found that the pre-registered sparse regime (add-6, sub-6, chain-5) needs a
column step \`C5\` that the committed cold start never saw in SFT (its mixture is the evaluation grid: at most five
columns, \`C0\`-\`C4\`). Its criterion checked that traces end well formed, not that the cold start could write the
regime's true steps: its share of perfect traces was 0 in every chosen cell (results/sensitivity/regime_criterion.csv).
In that regime trace error is 1 by construction (every right answer writes column 5 under the label \`C4\`, as the
pilot's rollout logs show) and the positive control's process score can never reach 1. A second finding: where every
group is all wrong, RLVR's PPO update is whitened noise that collapses the policy (the pilot's sparse RLVR ends with no
well-formed trace).

The issue asks, for this case, for a cold start trained for the regime with the same SFT budget. It was trained
(\`make coldstart-wide\`: the committed cold start's budget and settings, transformer-S, seed 0, 4,500 steps, batch 64,
its mixture over add 2-7, sub 2-7 and chain 2-6 operand digits, data/configs/coldstart-wide.json,
data/checkpoints/coldstart-transformer-S-wide.json) and read with the same criterion plus a perfect trace required
(\`make sparse-regime-wide\`; results/sensitivity/regime_criterion_wide.csv). Having seen every column, it passes well
above 0.05 at every difficulty the world allows (lowest per family: ${lowest.join(', ')}); the criterion chooses
${chosen.length ? chosen.join(', ') : 'no cell'}. With a cold start that has seen every column, this world has no
sparse-outcome regime at S: the sparse outcome of the pre-registered cells comes from a column the model never saw.

## What changes

1. **The sparse regime stays as pre-registered** (add-6, sub-6, chain-5 from the committed cold start): it is the
   only sparse-outcome regime the world gives, and on accuracy it reads what it was meant to (does a reward lift a
   regime where the outcome is almost always wrong). Read it as what it is: generalisation to a column never seen.
2. **Its trace error is not tested**: \`not testable\` by construction; the table still reports it.
3. **The cold start itself is a reference row** in the sparse sweep (\`sft\`, compared with nothing):
   sweeps/sensitivity-S-sparse-amended.json is the pre-registered sweep (the same runs and record paths) with that
   row added; sweeps/sensitivity-S-sparse.json stays as written.
4. **The analysis**: a family (size, regime, horizon, endpoint) is read only when every arm in it has all its runs, so
   Holm's family is whole and a rubric arm's null waits for the positive control; a comparison with fewer than two
   seeds where both sides have a value is \`not testable\`; the pooled reading pools the regimes of a size one
   horizon at a time (a run's step-60 and step-300 readings are the same seeds; with two regimes the sign test cannot
   reach 0.05, so the random-effects interval is the reading, with that caveat).
5. **The kernel generation** is pinned in \`make reproduce-sensitivity\` (WORKBENCH_KERNELS=2); a record on another
   generation is skipped with a warning instead of stopping the analysis.
`;
}

/** The campaign's sweep configs, in the order the campaign runs them. */

/** Mean seconds per finished run of each (method, cell, steps) in a sweep's records (done.json), for the budget. */
export function runCosts(c: SweepConfig): Row[] {
  const acc = new Map<string, number[]>();
  for (const s of expandSweep(c)) {
    const dir = finishedDir(s);
    if (!dir) continue;
    const secs = Number(JSON.parse(fs.readFileSync(path.join(dir, 'done.json'), 'utf8')).seconds);
    const k = `${s.method}|${s.cell}`;
    acc.set(k, [...(acc.get(k) ?? []), secs]);
  }
  return [...acc].map(([k, v]) => {
    const [method, cell] = k.split('|');
    return { method, cell, runs: v.length, seconds: mean(v) };
  });
}

/** The kernel generation every campaign run uses (src/models/backend.ts). */
export const KERNELS = 2;
/** RLCER-type arms' cost per run over RLVR's (the committed long profile: 726 s against 320 s at 300 steps). */
export const RLCER_COST_RATIO = 2.3;

const f3 = (v: unknown) => (v === '' || v === undefined ? '-' : Number(v).toFixed(3));
const mdTable = (cols: string[], rows: (string | number)[][]) =>
  [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );

/**
 * The pre-registration, written from the committed inputs alone: the regime criterion, the pilot's SDs and seeds rule
 * (never its means), the committed spread at M, and the pilot's run costs. Fixed once committed: the campaign changes
 * nothing it names, its text included: file paths are as they stood when it was committed (src/methods/table2.ts is
 * src/methods/tables/table2.ts since), and `make verify-results` regenerates it byte for byte.
 */
export function preregistrationText(o: {
  criterion: Row[];
  rule: Row[];
  spread: Row[];
  seeds: CampaignSeeds;
  costs: Row[];
  weight: number;
}): string {
  const chosen = o.criterion.filter((r) => r.chosen === 'yes');
  const cost = (m: string, cell: string) => o.costs.find((r) => r.method === m && r.cell === cell);
  const costLine = ['baseline', 'regime=sparse']
    .map((cell) => {
      const r = cost('rlvr', cell),
        p = cost('process_oracle', cell);
      return (
        `${cell === 'baseline' ? 'baseline' : 'sparse'}: RLVR ${r ? (Number(r.seconds) / 60).toFixed(1) : '-'} min, ` +
        `process_oracle ${p ? (Number(p.seconds) / 60).toFixed(1) : '-'} min`
      );
    })
    .join('; ');
  // the campaign's cost from the pilot's 300-step RLVR-kind runs: RLCER-kind arms at RLCER_COST_RATIO x, a 60-step
  // run at a fifth of its 300-step cost plus the same final evaluation (taken as a tenth of a 300-step run)
  const base = mean(o.costs.map((r) => Number(r.seconds))) / 60;
  const armCost = (m: string, steps: number) =>
    base *
    (['rlcer', 'fixed_teacher', 'rlcer_no_evolve', 'rlcer_discriminative'].includes(m) ? RLCER_COST_RATIO : 1) *
    (steps === 300 ? 1 : 0.3);
  const total =
    CAMPAIGN_ARMS.reduce(
      (a, m) =>
        a +
        (o.seeds.S.baseline + o.seeds.S.sparse) *
          armCost(m, ['rlcer_no_evolve', 'rlcer_discriminative'].includes(m) ? 60 : 300),
      0,
    ) +
    CAMPAIGN_ARMS_M.length * o.seeds.M * base * 0.6;
  return `# Pre-registration: the sensitivity campaign

Written by \`make sensitivity-preregister\` (analysis/sensitivity.ts) from the committed inputs named below, and
committed before the campaign's first run; the campaign (\`make reproduce-sensitivity\`) changes nothing fixed here.
Every number below is computed from a committed file; the pilot's means are not read here (they are reported in
docs/sensitivity.md).

## 1. Regimes

- **baseline**: the world's defaults (src/world/defaults.ts): training problems from every difficulty of add, sub
  and chain (2-5, 2-5 and 2-4 operand digits).
- **sparse**: training problems from one cell per family, chosen by a criterion on the cold start alone
  (\`make sparse-regime\`, src/cli/sparse-regime.ts; results/sensitivity/regime_criterion.csv): per family, the
  smallest difficulty past the evaluation grid's hardest at which the transformer-S cold start's per-sample pass
  rate is <= 0.05 and at least half its traces are well formed (64 problems x 8 samples per candidate cell, problems
  from another seed than the evaluation sets). Chosen: ${chosen.map((r) => `${r.family}-${r.digits}`).join(', ')}.

${mdTable(
  ['cell', 'pass rate', 'all-wrong groups of 8', 'well formed', 'process score mean', 'process score SD', 'chosen'],
  o.criterion.map((r) => [
    `${r.family}-${r.digits}`,
    f3(r.pass_rate),
    f3(r.all_wrong_groups),
    f3(r.well_formed),
    f3(r.process_mean),
    f3(r.process_sd),
    String(r.chosen),
  ]),
)}

## 2. Arms

- At S, 300 steps (and read at 60 steps on the way: a run's full evaluation after step 60 is byte for byte a 60-step
  run's, tested in test/process.test.ts): ${CAMPAIGN_ARMS.filter((m) => !['rlcer_no_evolve', 'rlcer_discriminative'].includes(m)).join(', ')}.
- At S, 60 steps: rlcer_no_evolve, rlcer_discriminative.
- Both regimes for every S arm. At M: ${CAMPAIGN_ARMS_M.join(', ')}, baseline regime, 60 steps.
- The positive controls: \`process_oracle\` = RLVR's outcome (+-1) + ${o.weight} x the exact process score (the share
  of the problem's true column steps written correctly at the right pass and column; missing, repeated and extra
  steps count as wrong; src/world/process.ts) on the last token; \`process_oracle_dense\` = the same information as
  per-step rewards on each step's last token. The weight ${o.weight} is RLCER's CoT-reward scale (cotWeight 1 on a score
  in [0, 1] beside an outcome of +-1), fixed without reading any accuracy. Every arm has RLVR's prompts (16 x 8
  rollouts per step), PPO settings, reasoner rate and evaluation (profile \`confirm\`, src/methods/table2.ts).

## 3. Endpoints

Primary, each measured after the last step of a run and after step 60 of the 300-step runs, 24 problems per cell x 8
samples on the committed evaluation sets:

1. **in_distribution**: accuracy on the training families at the training difficulty (baseline: every grid cell of
   add, sub, chain; sparse: ${chosen.map((r) => `${r.family}-${r.digits}`).join(', ')}), the mean over families of each family's mean over its cells;
2. **chain_ood**: accuracy on the held-out composition (chain_ood, 2-4 digits);
3. **trace_error**: among the in-distribution samples with a right final answer, the share whose process score is
   below 1 (a step missing, wrong or repeated). Lower is better.

Secondary (reported, not tested): \`average\` (the four families' mean, as Table 2) and the mean process score.

## 4. Seeds

The pilot (sweeps/sensitivity-pilot.json: RLVR and process_oracle, seeds 0-2, both regimes, 300 steps read at 60 and
300) gives per cell the SD of the paired (process_oracle - RLVR) difference on each accuracy endpoint
(results/sensitivity/pilot.csv). The rule (analysis/sensitivity.ts \`seedRule\`): the larger SD of the two accuracy
endpoints fixes the fewest seeds whose minimum detectable effect (two-sided paired t-test, alpha 0.05, 80% power,
exact noncentral t; src/util/power.ts) is <= 0.03, at most 20; the MDE those seeds give on trace error is stated.
Where no pilot ran (M) the same rule reads the committed full profile's RLCER - RLVR SD at M
(results/sensitivity/committed_spread.csv).

${mdTable(
  [
    'size',
    'regime',
    'horizon',
    'pilot seeds',
    'SD in-distribution',
    'SD chain_ood',
    'seeds for MDE <= 0.03',
    'MDE accuracy',
    'MDE trace error',
  ],
  o.rule.map((r) => [
    String(r.size),
    r.cell === 'baseline' ? 'baseline' : 'sparse',
    String(r.horizon),
    String(r.pilot_seeds),
    f3(r.sd_in_distribution),
    f3(r.sd_chain_ood),
    String(r.seeds),
    f3(r.mde_accuracy),
    f3(r.mde_trace_error),
  ]),
)}

${mdTable(
  ['size', 'endpoint', 'committed seeds', 'SD RLCER - RLVR', 'seeds for MDE <= 0.03'],
  o.spread.map((r) => [String(r.size), String(r.endpoint), String(r.seeds), f3(r.sd), String(r.seeds_rule)]),
)}

**Seeds per arm: ${o.seeds.S.baseline} at S in the baseline regime, ${o.seeds.S.sparse} at S in the sparse regime (the most either
horizon of the regime asks, at least ${MIN_SEEDS}, at most ${MAX_SEEDS}), and ${o.seeds.M} at M** (at least ${MIN_SEEDS}); seeds
${CAMPAIGN_FIRST_SEED}, ${CAMPAIGN_FIRST_SEED + 1}, ... (disjoint from the pilot's 0-2 and from every earlier record). The pilot's runs are not
campaign runs. A three-seed SD is itself uncertain: every comparison reports the MDE its own seeds give, beside its
verdict. Kernel generation ${KERNELS} (WORKBENCH_KERNELS) for every campaign run; a run on another generation is not
read.

## 5. Analysis

- **Per cell** (size, regime, horizon, endpoint), for every arm against RLVR: the paired difference over the seeds
  both have (trace error: the seeds where both have right answers), its 95% t-interval, the two-sided paired t-test's
  p-value and its MDE at 80% power.
- **Families of claims, Holm-corrected**: one family per (size, regime, horizon, endpoint), holding every arm's
  comparison with RLVR there (and RLCER - RLCER w/o evolving in the 60-step cells); Holm's step-down adjustment of the
  p-values within each family.
- **Verdicts** (expected sign: + on accuracy, - on trace error): \`helps\` / \`hurts\` when the Holm-adjusted p < 0.05
  (the side by the sign of the difference); else \`no effect larger than MDE\` when the 95% interval lies inside
  +-MDE; else \`inconclusive\`; and **\`uninformative\`** for a rubric arm's null (anything but helps/hurts) in a cell
  where \`process_oracle\` does not beat RLVR by at least its MDE (its verdict there is not \`helps\`, or its difference
  is below its MDE): there the world cannot express a process benefit, and a null says nothing.
- **Pooled reading** per arm and endpoint across the cells of a size (regimes x horizons): the DerSimonian-Laird
  random-effects mean of the per-cell differences (standard errors from the per-cell paired SDs) with its 95%
  interval, and the exact sign test over cells.
- Endpoint tables carry an \`endpoint\` column; \`average\` is secondary.

## 6. Budget

Measured on the pilot (two-core machine, two runs at a time, 300 steps incl. evaluations): ${costLine}. RLCER-type
arms cost about 2-3x RLVR's step (docs/engine.md). ${CAMPAIGN_ARMS.length * (o.seeds.S.baseline + o.seeds.S.sparse) + CAMPAIGN_ARMS_M.length * o.seeds.M} runs
(${CAMPAIGN_ARMS.length * (o.seeds.S.baseline + o.seeds.S.sparse)} at S, ${CAMPAIGN_ARMS_M.length * o.seeds.M} at M), two at a time (the two S regimes side by side, seeds outermost in
each), then M; records committed as they land. Sweeps: ${PREREGISTERED_SWEEPS.join(', ')}. Estimated from the pilot's mean
run (${base.toFixed(1)} min with two at a time), RLCER-type arms at ${RLCER_COST_RATIO}x, a 60-step run at 0.3x a 300-step
one and an M run at 0.6x: about ${(total / 60).toFixed(0)} run-hours, ${(total / 120).toFixed(0)} hours on two cores, over several sessions (a killed
run resumes from its last checkpoint).
`;
}

// ---- the confirmatory campaign's analysis (results/sensitivity/confirm/) ----

export const CONFIRM_TABLE_COLUMNS = [
  'size',
  'regime',
  'horizon',
  'method',
  'endpoint',
  'mean',
  'ci_low',
  'ci_high',
  'seeds',
];
export const CONFIRM_CLAIM_COLUMNS = [
  'size',
  'regime',
  'horizon',
  'endpoint',
  'claim',
  'a',
  'b',
  'expected_sign',
  'seeds',
  'delta',
  'ci_low',
  'ci_high',
  'p',
  'p_holm',
  'mde',
  'positive_control',
  'verdict',
];
/** The rubric arms whose null is uninformative where the positive control does not beat RLVR. */
export const RUBRIC_ARMS = ['rlcer', 'rlcer_no_evolve', 'fixed_teacher', 'rlcer_discriminative'];
export const POSITIVE_CONTROL = 'process_oracle';
const regimeOf = (cell: string) => (cell === 'baseline' ? 'baseline' : cell.replace(/^regime=/, ''));

/** Per (size, regime, horizon, method, endpoint): the mean over seeds and its 95% t-interval. */
export function confirmTable(records: Row[]): Row[] {
  const key = (r: Row) => `${r.size}|${r.cell}|${r.horizon}|${r.method}|${r.endpoint}`;
  return [...new Set(records.map(key))].map((k) => {
    const [size, cell, horizon, method, endpoint] = k.split('|');
    const v = records.filter((r) => key(r) === k && r.value !== '').map((r) => Number(r.value)),
      ci = meanInterval(v);
    return {
      size,
      regime: regimeOf(cell),
      horizon: Number(horizon),
      method,
      endpoint,
      mean: v.length ? ci.mean : '',
      ci_low: ci.ci_low ?? '',
      ci_high: ci.ci_high ?? '',
      seeds: v.length,
    };
  });
}

/**
 * The pre-registered claims (preregistration.md section 5): per (size, regime, horizon, endpoint) a family holding
 * every arm's comparison with RLVR there, and RLCER - RLCER w/o evolving where both ran; paired t-tests, Holm's
 * adjustment within the family, the verdicts, and `uninformative` for a rubric arm's null where the positive control
 * does not beat RLVR by at least its MDE. A comparison short of `seeds` paired seeds is `pending` (not tested, not
 * counted in its family's adjustment); so is every comparison of a family while an arm `arms` names for it (the
 * pre-registered arms) is short of its seeds.
 */
export function confirmClaims(
  records: Row[],
  seeds: (size: string, regime: string) => number,
  arms?: (size: string, regime: string, horizon: number) => string[],
): Row[] {
  const out: Row[] = [];
  const families = [...new Set(records.map((r) => `${r.size}|${r.cell}|${r.horizon}|${r.endpoint}`))].filter((k) =>
    PRIMARY_ENDPOINTS.includes(k.split('|')[3]),
  );
  for (const fam of families) {
    const [size, cell, horizon, endpoint] = fam.split('|');
    const at = records.filter((r) => `${r.size}|${r.cell}|${r.horizon}|${r.endpoint}` === fam);
    const methods = [...new Set(at.map((r) => String(r.method)))];
    const pairs: [string, string][] = methods
      .filter((m) => m !== 'rlvr' && !REFERENCE_ARMS.includes(m) && methods.includes('rlvr'))
      .map((m) => [m, 'rlvr']);
    if (methods.includes('rlcer') && methods.includes('rlcer_no_evolve')) pairs.push(['rlcer', 'rlcer_no_evolve']);
    const sign = endpoint === 'trace_error' ? -1 : 1,
      need = seeds(size, regimeOf(cell));
    // a family is read only once every arm in it has all its runs (amendment 1: nothing read from an unfinished
    // family, so Holm's family is whole and a rubric arm's null waits for its positive control)
    const finished = (m: string) =>
      new Set(
        records
          .filter(
            (r) =>
              r.size === size &&
              r.cell === cell &&
              Number(r.horizon) === Number(horizon) &&
              r.method === m &&
              r.endpoint === 'in_distribution',
          )
          .map((r) => Number(r.seed)),
      ).size;
    // and every arm pre-registered for the family (`arms`) is among them: an arm with no finished run yet is absent
    // from the records, and the family would otherwise be read, and adjusted, without it
    const familyComplete =
      pairs.every(([a, b]) => Math.min(finished(a), finished(b)) >= need) &&
      (arms?.(size, regimeOf(cell), Number(horizon)) ?? []).every((m) => finished(m) >= need);
    const rows = pairs.map(([a, b]) => {
      const val = (m: string) =>
        new Map(at.filter((r) => r.method === m && r.value !== '').map((r) => [Number(r.seed), Number(r.value)]));
      const A = val(a),
        B = val(b),
        common = [...A.keys()].filter((x) => B.has(x)).sort((x, y) => x - y);
      const d = common.map((x) => A.get(x)! - B.get(x)!),
        n = d.length,
        ci = meanInterval(d);
      const sd = n > 1 ? sampleSd(d) : 0,
        testable = familyComplete && n >= 2;
      // no spread: the difference is exact, any non-zero one is detected (p 0, MDE 0)
      const p = testable ? (sd > 0 ? tTestP(ci.mean / (sd / Math.sqrt(n)), n - 1) : ci.mean === 0 ? 1 : 0) : '';
      return {
        size,
        regime: regimeOf(cell),
        horizon: Number(horizon),
        endpoint,
        claim: `${a}_minus_${b}`,
        a,
        b,
        expected_sign: sign,
        seeds: n,
        delta: n ? ci.mean : '',
        ci_low: ci.ci_low ?? '',
        ci_high: ci.ci_high ?? '',
        p,
        mde: testable ? (sd > 0 ? mde(sd, n) : 0) : '',
        testable,
      };
    });
    const tested = rows.filter((r) => r.testable),
      adj = holm(tested.map((r) => Number(r.p)));
    const pHolm = new Map(tested.map((r, i) => [r.claim, adj[i]]));
    const untested = UNTESTED.find((u) => u.regime === regimeOf(cell) && u.endpoint === endpoint);
    const verdictOf = (r: (typeof rows)[number]) => {
      if (untested) return untested.why;
      if (!familyComplete) return 'pending';
      if (!r.testable) return 'not testable'; // fewer than two seeds where both sides have a value (trace error)
      const ph = pHolm.get(r.claim)!;
      if (ph < 0.05) return Number(r.delta) * r.expected_sign > 0 ? 'helps' : 'hurts';
      // amendment 2: with no spread the MDE is 0 and an exact zero on every seed (interval [0, 0]) is a null
      const m = Number(r.mde),
        lo = Number(r.ci_low),
        hi = Number(r.ci_high);
      if (m > 0 ? lo > -m && hi < m : lo === 0 && hi === 0) return 'no effect larger than MDE';
      return 'inconclusive';
    };
    const pc = rows.find((r) => r.a === POSITIVE_CONTROL && r.b === 'rlvr');
    const pcVerdict = pc ? verdictOf(pc) : '';
    const pcBeats = pc !== undefined && pcVerdict === 'helps' && Math.abs(Number(pc.delta)) >= Number(pc.mde);
    for (const r of rows) {
      let v = verdictOf(r);
      if (
        RUBRIC_ARMS.includes(r.a) &&
        r.b === 'rlvr' &&
        !['helps', 'hurts', 'pending'].includes(v) &&
        !v.startsWith('not testable') &&
        pc &&
        !pcBeats
      ) {
        v = 'uninformative';
      }
      const { testable: _t, ...rest } = r;
      out.push({
        ...rest,
        p_holm: pHolm.get(r.claim) ?? '',
        positive_control: pc
          ? pcVerdict === 'pending'
            ? 'pending'
            : pcBeats
              ? 'beats RLVR'
              : 'does not beat RLVR'
          : 'not run',
        verdict: v,
      });
    }
  }
  return out;
}

export const CONFIRM_POWER_COLUMNS = ['size', 'regime', 'horizon', 'endpoint', 'claim', ...POWER_COLUMNS];

/** A claim row's per-seed paired differences (its arm minus its reference, over the seeds both have a value for). */
function claimDiffs(records: Row[], c: Row): number[] {
  const at = (m: string) =>
    new Map(
      records
        .filter(
          (r) =>
            r.size === c.size &&
            regimeOf(String(r.cell)) === c.regime &&
            Number(r.horizon) === Number(c.horizon) &&
            r.endpoint === c.endpoint &&
            r.method === m &&
            r.value !== '',
        )
        .map((r) => [Number(r.seed), Number(r.value)]),
    );
  const A = at(String(c.a)),
    B = at(String(c.b));
  return [...A.keys()]
    .filter((x) => B.has(x))
    .sort((x, y) => x - y)
    .map((x) => A.get(x)! - B.get(x)!);
}

/** Every claim's power from its paired differences (src/util/power.ts). */
export function confirmPower(records: Row[], claims: Row[]): Row[] {
  return claims.map((c) => ({
    size: c.size,
    regime: c.regime,
    horizon: c.horizon,
    endpoint: c.endpoint,
    claim: c.claim,
    ...powerCells(claimDiffs(records, c)),
  }));
}

export const CONFIRM_POOLED_COLUMNS = ['size', 'horizon', 'endpoint', 'claim', ...POOLED_COLUMNS];

/**
 * Each claim pooled across the regimes of its size, one horizon at a time (amendment 1: a run's step-60 and step-300
 * readings are the same seeds, so the horizons are not independent cells); only read families count.
 */
export function confirmPooled(records: Row[], claims: Row[]): Row[] {
  const read = claims.filter((c) => c.verdict !== 'pending' && !String(c.verdict).startsWith('not testable'));
  const keys = [...new Set(read.map((c) => `${c.size}|${c.horizon}|${c.endpoint}|${c.claim}`))];
  return keys.map((k) => {
    const [size, horizon, endpoint, claim] = k.split('|');
    const cells = read.filter((c) => `${c.size}|${c.horizon}|${c.endpoint}|${c.claim}` === k);
    const diffs = cells.map((c) => claimDiffs(records, c));
    return { size, horizon: Number(horizon), endpoint, claim, ...pooledCells(diffs) };
  });
}

/**
 * Each run's update size against RLVR's at the same size, regime and seed (analysis/parity.ts: the mean approx. KL per
 * update per role and its ratio to RLVR's), the budget check every comparison carries: one table per campaign.
 */
export function sensitivityParity(sweeps: CampaignSweep[]): Row[] {
  const runs = sweeps.flatMap((c) =>
    expandSweep(c).flatMap((s) => {
      const dir = finishedDir(s);
      const regime = c.regime ?? (s.cell === 'baseline' ? 'baseline' : s.cell.replace(/^regime=/, ''));
      return dir ? [{ regime, size: s.size, method: s.method, seed: s.seed, metrics: readMetrics(dir) }] : [];
    }),
  );
  return [...new Set(runs.map((r) => r.regime))]
    .sort()
    .flatMap((regime) => updateParity(runs.filter((r) => r.regime === regime)).map((r) => ({ regime, ...r })));
}

export const PARITY_BY_ARM_COLUMNS = [
  'regime',
  'size',
  'method',
  'runs',
  'updates',
  'ratio_median',
  'ratio_min',
  'ratio_max',
  'runs_within_band',
];

/**
 * The budget check per arm, the confound stated beside its claims: the reasoner's approx. KL per update against
 * RLVR's (same regime, size and seed, over as many updates) over an arm's finished runs, its median, range and how
 * many runs lie in PARITY_BAND ("14/20"). `updates`: the updates each run made (the range where they differ).
 */
export function parityByArm(parity: Row[]): Row[] {
  const rows = parity.filter((r) => r.role === 'reasoner' && r.ratio_to_rlvr !== '' && r.method !== 'rlvr');
  const keys = [...new Set(rows.map((r) => `${r.regime}|${r.size}|${r.method}`))];
  return keys.map((k) => {
    const [regime, size, method] = k.split('|');
    const at = rows.filter((r) => `${r.regime}|${r.size}|${r.method}` === k),
      ratios = at.map((r) => Number(r.ratio_to_rlvr)),
      updates = at.map((r) => Number(r.updates));
    const lo = Math.min(...updates),
      hi = Math.max(...updates);
    return {
      regime,
      size,
      method,
      runs: at.length,
      updates: lo === hi ? lo : `${lo}-${hi}`,
      ratio_median: median(ratios),
      ratio_min: Math.min(...ratios),
      ratio_max: Math.max(...ratios),
      runs_within_band: `${at.filter((r) => r.within_band === 'yes').length}/${at.length}`,
    };
  });
}

let rootOverride: string | undefined;
function loadSweep(file: string): CampaignSweep {
  const c = loadJsonConfig(file) as unknown as CampaignSweep;
  return rootOverride ? { ...c, root: rootOverride } : c;
}

runMain(async () => {
  if (process.argv[1] && !/sensitivity\.ts$/.test(process.argv[1])) return; // imported, not run
  const [cmd, ...rest] = process.argv.slice(2);
  const a = parseArgs(rest, {
    config: "sweep config (default the pilot's)",
    out: 'output directory (default results/sensitivity)',
    sweeps: "where preregister writes the campaign's sweep configs (default sweeps)",
    root: "run directory root instead of the sweeps' (e.g. /nonexistent: read the committed archive only)",
  });
  rootOverride = a.root;
  const out = a.out ?? 'results/sensitivity';
  if (cmd === 'preregister') {
    const rule = readCsv(path.join(out, 'power.csv')),
      spread = readCsv(path.join(out, 'committed_spread.csv'));
    const criterion = readCsv(path.join(out, 'regime_criterion.csv')),
      seeds = campaignSeeds(rule, spread);
    const costs = runCosts(loadSweep(a.config ?? 'sweeps/sensitivity-pilot.json'));
    writeFileAtomic(
      path.join(out, 'preregistration.md'),
      preregistrationText({ criterion, rule, spread, seeds, costs, weight: PROCESS_WEIGHT }),
    );
    for (const [f, c] of Object.entries(campaignSweeps(seeds, criterion)))
      writeFileAtomic(path.join(a.sweeps ?? 'sweeps', f), JSON.stringify(c, null, 1) + '\n');
    console.log(`pre-registration -> ${out}/preregistration.md; seeds ${JSON.stringify(seeds)}`);
    return;
  }
  if (cmd === 'confirm') {
    const sweeps = CAMPAIGN_SWEEPS.filter((f) => fs.existsSync(f)).map(loadSweep);
    if (sweeps.length === 0)
      throw new ConfigError('no campaign sweeps (sweeps/sensitivity-*.json): run make sensitivity-preregister first');
    const records = sweeps.flatMap((c) => sensitivityRecords(c, KERNELS));
    // a comparison is complete with the seeds its sweep was given (the least over a size's sweeps)
    const need = (size: string, regime: string) =>
      sweeps.find((c) => c.sizes.includes(size) && c.regime === regime)?.seeds.length ?? MAX_SEEDS;
    const dir = a.out ?? path.join('results/sensitivity', 'confirm');
    // the arms each family was pre-registered with: every arm of the sweep at 60 steps, those that run 300 at 300
    const arms = (size: string, regime: string, horizon: number) =>
      (sweeps.find((c) => c.sizes.includes(size) && c.regime === regime)?.methods ?? [])
        .filter((m) => !REFERENCE_ARMS.includes(m))
        .filter((m) => horizon === 60 || !CAMPAIGN_ARMS_60.includes(m));
    const claims = confirmClaims(records, need, arms);
    writeCsv(path.join(dir, 'records.csv'), records, RECORD_COLUMNS);
    writeCsv(path.join(dir, 'table.csv'), confirmTable(records), CONFIRM_TABLE_COLUMNS);
    writeCsv(path.join(dir, 'claims.csv'), claims, CONFIRM_CLAIM_COLUMNS);
    writeCsv(path.join(dir, 'power.csv'), confirmPower(records, claims), CONFIRM_POWER_COLUMNS);
    writeCsv(path.join(dir, 'pooled.csv'), confirmPooled(records, claims), CONFIRM_POOLED_COLUMNS);
    const parity = sensitivityParity(sweeps);
    writeCsv(path.join(dir, 'parity.csv'), parity, ['regime', ...PARITY_COLUMNS]);
    writeCsv(path.join(dir, 'parity_by_arm.csv'), parityByArm(parity), PARITY_BY_ARM_COLUMNS);
    console.log(
      `sensitivity campaign: ${records.length} endpoint values, ${claims.filter((c) => c.verdict !== 'pending').length}/${claims.length} claims complete -> ${dir}`,
    );
    return;
  }
  if (cmd === 'amend') {
    const wide = readCsv(path.join(out, 'regime_criterion_wide.csv'));
    const sweepsDir = a.sweeps ?? 'sweeps',
      original = loadJsonConfig(path.join(sweepsDir, 'sensitivity-S-sparse.json')) as unknown as CampaignSweep;
    writeFileAtomic(
      path.join(sweepsDir, 'sensitivity-S-sparse-amended.json'),
      JSON.stringify(amendedSparseSweep(original), null, 1) + '\n',
    );
    writeFileAtomic(path.join(out, 'amendment-1.md'), amendmentText(wide));
    console.log(`amendment 1 -> ${out}/amendment-1.md, ${sweepsDir}/sensitivity-S-sparse-amended.json`);
    return;
  }
  if (cmd !== 'pilot')
    throw new ConfigError(
      `usage: tsx analysis/sensitivity.ts pilot|preregister|amend|confirm [--config F] [--out DIR] (got "${cmd ?? ''}")`,
    );
  const pilot = loadSweep(a.config ?? 'sweeps/sensitivity-pilot.json');
  const records = sensitivityRecords(pilot);
  // every arm of the pilot against RLVR (the first campaign's pilot had one: the positive control)
  const paired = pilot.methods.filter((m) => m !== 'rlvr').flatMap((m) => pairedDifferences(records, m, 'rlvr'));
  writeCsv(path.join(out, 'pilot_records.csv'), records, RECORD_COLUMNS);
  writeCsv(path.join(out, 'pilot.csv'), paired, PAIRED_COLUMNS);
  writeCsv(path.join(out, 'power.csv'), seedRule(paired), SEED_RULE_COLUMNS);
  writeCsv(path.join(out, 'pilot_parity.csv'), sensitivityParity([pilot]), ['regime', ...PARITY_COLUMNS]);
  // where no pilot ran (M), the committed full profile's RLCER - RLVR spread; S beside it as a check
  writeCsv(path.join(out, 'committed_spread.csv'), [...committedSpread('S'), ...committedSpread('M')], SPREAD_COLUMNS);
  console.log(
    `sensitivity pilot: ${records.length} endpoint values from ${new Set(records.map((r) => `${r.method}${r.cell}${r.seed}`)).size} runs -> ${out}`,
  );
});
