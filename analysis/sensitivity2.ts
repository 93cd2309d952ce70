// The clean instrument's campaign (docs/sensitivity.md, "The clean instrument"): its pre-registration and sweeps,
// written from committed inputs alone (the clean pilot's seeds rule, the first campaign's spreads where the clean
// pilot has no horizon, the pilot's records for the engine, processor and costs), never from a compared mean.
// The default regime is pre-registered here; the sparse regime gets a pre-registration of its own once its cold start
// is chosen (results/sensitivity2/sparse-criterion*.md) and piloted.
// Usage: tsx analysis/sensitivity2.ts preregister [--out results/sensitivity2] [--sweeps sweeps]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../src/io/args.js';
import { loadJsonConfig } from '../src/io/run.js';
import { expandSweep, finishedDir, type SweepConfig } from '../src/io/sweep.js';
import { readCsv, writeFileAtomic, type Row } from '../src/io/table.js';
import { ConfigError } from '../src/util/validate.js';
import { CAMPAIGN_ARMS, CAMPAIGN_ARMS_300, CAMPAIGN_ARMS_M } from '../src/methods/tables/table2.js';
import { PROCESS_WEIGHT } from '../src/methods/trainers/process-oracle.js';
import { mde, seedsFor } from '../src/util/power.js';
import { mean } from '../src/util/stats.js';
import {
  ACCURACY_ENDPOINTS,
  MAX_SEEDS,
  MIN_SEEDS,
  RUBRIC_ARMS,
  runCosts,
  TARGET_MDE,
  type CampaignSweep,
} from './sensitivity.js';

/** The campaign's first seed: past the clean pilot's 10-15 and every earlier record's. */
export const CAMPAIGN2_FIRST_SEED = 20;
/** The seeds at M: the number (no clean pilot at M); the MDE they give is stated. */
export const M_SEEDS = 8;
/**
 * An M run's cost over an S run of the same steps, for the budget only: the first campaign's records (M-60 RLVR 164 s
 * against S-300 RLVR 256 s, a 60-step S run about a quarter of that).
 */
export const M_COST_RATIO = 2.5;
/** The pairs compared outside the pre-registered families: computed and labelled exploratory wherever shown. */
export const EXPLORATORY_PAIRS: [string, string][] = [
  ['rlcer', 'process_oracle'],
  ['rlcer_discriminative', 'rlcer'],
  ['process_oracle_dense', 'process_oracle'],
];

/** The engine, processor and code of a pilot's records (one each, or an error naming the mix). */
export function pilotEngine(c: SweepConfig): { kernels: number; cpuKey: string; cpu: string; code: string } {
  const seen = new Map<string, Set<string>>();
  for (const s of expandSweep(c)) {
    const dir = finishedDir(s);
    if (!dir) continue;
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    for (const [k, v] of [
      ['kernels', cfg.engine?.kernels],
      ['cpuKey', cfg.engine?.cpuKey],
      ['cpu', cfg.engine?.cpu],
      ['code', cfg.codeVersion],
    ])
      seen.set(k, new Set([...(seen.get(k) ?? []), String(v)]));
  }
  const one = (k: string) => {
    const v = [...(seen.get(k) ?? [])];
    if (v.length !== 1) throw new ConfigError(`the pilot's records name ${v.length} values of ${k}: ${v.join(', ')}`);
    return v[0];
  };
  return { kernels: Number(one('kernels')), cpuKey: one('cpuKey'), cpu: one('cpu'), code: one('code') };
}

/** Mean seconds per finished pilot run of each method (done.json; the pilot has one cell per method). */
export const pilotCosts = (c: SweepConfig): Map<string, number> =>
  new Map(runCosts(c).map((r) => [String(r.method), Number(r.seconds)]));

/** The largest paired-difference SD on the accuracy endpoints among a first-campaign cell's arms against RLVR. */
export function firstCampaignSd(power: Row[], size: string, horizon: number, arms: string[]): number {
  const sds = power
    .filter(
      (r) =>
        r.size === size &&
        r.regime === 'baseline' &&
        Number(r.horizon) === horizon &&
        ACCURACY_ENDPOINTS.includes(String(r.endpoint)) &&
        arms.some((a) => r.claim === `${a}_minus_rlvr`) &&
        r.sd !== '',
    )
    .map((r) => Number(r.sd));
  if (sds.length === 0) throw new ConfigError(`no first-campaign spread at ${size}-${horizon}`);
  return Math.max(...sds);
}

export interface Campaign2Seeds {
  rows: { size: string; horizon: number; source: string; sd: number; rule: number; mde: number }[];
  S: number;
  M: number;
}

/** Seeds per arm: at S the most any horizon's rule asks (within [MIN_SEEDS, MAX_SEEDS]); at M the 8. */
export function campaign2Seeds(pilotRule: Row[], firstPower: Row[]): Campaign2Seeds {
  const s60 = pilotRule.find((r) => r.size === 'S' && r.cell === 'baseline' && Number(r.horizon) === 60);
  if (!s60) throw new ConfigError('results/sensitivity2/power.csv has no S baseline 60-step row');
  const sd60 = Number(s60.sd_used),
    sd300 = firstCampaignSd(
      firstPower,
      'S',
      300,
      CAMPAIGN_ARMS_300.filter((m) => m !== 'rlvr'),
    ),
    sdM = firstCampaignSd(
      firstPower,
      'M',
      60,
      CAMPAIGN_ARMS_M.filter((m) => m !== 'rlvr'),
    );
  const rule = (sd: number) => seedsFor(sd, TARGET_MDE, MAX_SEEDS);
  const rows = [
    { size: 'S', horizon: 60, source: 'clean pilot (results/sensitivity2/power.csv)', sd: sd60 },
    { size: 'S', horizon: 300, source: 'first campaign (results/sensitivity/confirm/power.csv)', sd: sd300 },
    { size: 'M', horizon: 60, source: 'first campaign (results/sensitivity/confirm/power.csv)', sd: sdM },
  ].map((r) => ({ ...r, rule: rule(r.sd).seeds, mde: rule(r.sd).mde }));
  const S = Math.min(MAX_SEEDS, Math.max(MIN_SEEDS, ...rows.filter((r) => r.size === 'S').map((r) => r.rule)));
  return { rows, S, M: M_SEEDS };
}

/** The campaign's sweeps: S (the first campaign's arms and horizons) and M, the pilot's verifier overrides. */
export function campaign2Sweeps(pilot: SweepConfig, seeds: Campaign2Seeds): Record<string, CampaignSweep> {
  const range = (n: number) => Array.from({ length: n }, (_, i) => CAMPAIGN2_FIRST_SEED + i);
  const sweep = (size: string, methods: string[], n: number): CampaignSweep => ({
    name: `sensitivity2-${size}-baseline`,
    regime: 'baseline',
    root: `runs/sweeps/sensitivity2-${size}-baseline`,
    archive: `results/runs/sensitivity2/${size}-baseline`,
    // the confirm profile: 300 steps read at 60 on the way, the two RLCER variants 60 steps only
    command: pilot.command.filter((x, i, a) => x !== '--steps' && a[i - 1] !== '--steps'),
    methods,
    seeds: range(n),
    sizes: [size],
    minSeeds: MIN_SEEDS,
    overrides: Object.fromEntries(Object.entries(pilot.overrides ?? {}).filter(([m]) => methods.includes(m))),
    knobs: [],
  });
  return {
    'sensitivity2-S-baseline.json': sweep('S', CAMPAIGN_ARMS, seeds.S),
    'sensitivity2-M-baseline.json': sweep('M', CAMPAIGN_ARMS_M, seeds.M),
  };
}

const f3 = (v: number) => v.toFixed(3);

/** The pre-registration's text: every number from the committed inputs it names. */
export function preregistration2Text(o: {
  seeds: Campaign2Seeds;
  engine: ReturnType<typeof pilotEngine>;
  costs: Map<string, number>;
  sweeps: Record<string, CampaignSweep>;
  overrides: Record<string, unknown>;
}): string {
  const verifierArms = Object.keys(o.overrides).sort();
  // a 60-step run's measured cost; a 300-step run taken as 5x its steps plus the same evaluation (a quarter of it)
  const c60 = (m: string) => o.costs.get(m) ?? mean([...o.costs.values()]);
  const runMin = (m: string, steps: number) => (steps === 60 ? c60(m) : c60(m) * (0.25 + 0.75 * 5)) / 60;
  const hours = (arms: string[], n: number, scale = 1) =>
    (arms.reduce((a, m) => a + runMin(m, CAMPAIGN_ARMS_300.includes(m) ? 300 : 60), 0) * n * scale) / 60 / 2;
  const hS = hours(CAMPAIGN_ARMS, o.seeds.S),
    hM = hours(CAMPAIGN_ARMS_M, o.seeds.M, M_COST_RATIO);
  const seedRows = o.seeds.rows
    .map((r) => `| ${r.size} | ${r.horizon} | ${r.source} | ${f3(r.sd)} | ${r.rule} | ${f3(r.mde)} |`)
    .join('\n');
  const mdeAt = (size: string, h: number, n: number) =>
    f3(mde(o.seeds.rows.find((r) => r.size === size && r.horizon === h)!.sd, n));
  const S300 = CAMPAIGN_ARMS_300.join(', '),
    S60 = CAMPAIGN_ARMS.filter((m) => !CAMPAIGN_ARMS_300.includes(m)).join(', '),
    exploratory = EXPLORATORY_PAIRS.map(([a, b]) => `${a} - ${b}`).join(', '),
    first = CAMPAIGN2_FIRST_SEED,
    mdeM = mdeAt('M', 60, o.seeds.M);
  const sw = Object.keys(o.sweeps)
    .map((f) => `sweeps/${f}`)
    .join(', ');
  return `# Pre-registration: the clean instrument's campaign, default regime

Written by \`make sensitivity2-preregister\` (analysis/sensitivity2.ts) from the committed inputs named below, and
committed before the campaign's first run; the campaign changes nothing fixed here. No mean of the clean pilot or of
any compared arm is read: the seeds come from spreads, the costs from run times. This is a new pre-registration, not
an amendment of results/sensitivity/preregistration.md (the first campaign, kept as it is: a record of the shared
critic). The sparse regime where every step is known gets its own pre-registration once its cold start is chosen
(results/sensitivity2/sparse-criterion.md and its amendment) and piloted; nothing here is read there.

## 1. The instrument

PPO as \`defaultPpoConfig\` has it since the clean instrument (src/rl/ppo.ts): \`critic: 'separate'\` (per role a
copy of the cold start's network and weights, value head included, with its own Adam at the role's rate; the value
loss touches no policy weight) and \`equalGroups: 'zero'\` (groups whose outcomes are all equal give no outcome
advantage; a process or rubric reward still gives advantages inside them), chosen by the pre-registered drift rule
(results/sensitivity2/equal-groups-preregistration.md). \`klCoef\` 0 (the papers' default). Kernel generation
${o.engine.kernels}, processor \`${o.engine.cpuKey}\` (${o.engine.cpu}): the pilot's (its records ran from
${o.engine.code.slice(0, 7)}). Every campaign record must name that generation and that processor (one processor per
family); a record naming another is not read, and the analysis lists it. Every record names a clean code version
(the sweeps refuse a dirty tree; the campaign never passes \`--allow-dirty\`).

## 2. Arms

- **S**, the first campaign's arms and horizons (src/methods/tables/table2.ts, profile \`confirm\`):
  ${S300} run 300 steps and are read at 60 on the way (a run's evaluation after step 60 is byte for byte a
  60-step run's);
  ${S60} run 60 steps.
- **M**: ${CAMPAIGN_ARMS_M.join(', ')}, 300 steps read at 60.
- The arms reading a verifier (${verifierArms.join(', ')}) read the competent verifier
  (\`verifier: 'competent'\`, data/checkpoints/verifier-competent-S.json), as in the clean pilot; RLCER's rubricator
  and reasoner share one policy, both trained by PPO.
- The positive controls: \`process_oracle\` = RLVR's outcome (+-1) + ${PROCESS_WEIGHT} x the exact process score on
  the last token; \`process_oracle_dense\` = the same information as per-step rewards. Every arm has RLVR's
  prompts (16 x 8 rollouts per step), PPO settings, reasoner rate and evaluation (24 problems per cell x 8 samples).

## 3. Endpoints

Primary, after the last step and after step 60 of a 300-step run:

1. **in_distribution**: accuracy on the training families at the training difficulties, the mean over add, sub and
   chain of each family's mean over its cells;
2. **chain_ood**: accuracy on the held-out composition;
3. **trace_error** (Uesato's sense, the clean instrument's split): among in-distribution samples with a right answer,
   the share with a true step written wrong or missing. Lower is better.

Secondary (reported, not tested): \`repeat_rate\` (right answers that repeat or add steps), \`flaw_rate\` (either),
the mean process score, and \`average\` (Table 2's four-family mean).

## 4. Seeds

The rule (analysis/sensitivity.ts \`seedsFor\`): the larger SD of the paired (arm - RLVR) differences on the two
accuracy endpoints fixes the fewest seeds whose MDE (two-sided paired t-test, alpha 0.05, 80% power, exact noncentral
t) is <= ${TARGET_MDE}, at most ${MAX_SEEDS}. At S-60 the SD is the clean pilot's (6 seeds, every arm against RLVR, the
arm that spreads most); the clean pilot has no 300-step horizon and no M, so there the SD is the first campaign's
(20 seeds at S-300, 8 at M-60, the largest over the arms run here): a spread measured through the shared critic, the
best committed estimate.

| size | horizon | SD from | SD used | seeds for MDE <= ${TARGET_MDE} | MDE at those seeds |
|---|---|---|---|---|---|
${seedRows}

**Seeds per arm: ${o.seeds.S} at S** (the most either horizon asks, within [${MIN_SEEDS}, ${MAX_SEEDS}])
**and ${o.seeds.M} at M** (the issue's number; MDE ${mdeM} at M-60 from that SD), seeds ${first}, ${first + 1}, ...
(disjoint from the pilot's 10-15 and from every earlier record). Every comparison reports the MDE its own seeds give.

## 5. Analysis

- **Per cell** (size, horizon, endpoint), every arm against RLVR: the paired difference over the seeds both have
  (trace error: the seeds where both have right answers), its 95% t-interval, the two-sided paired t-test's p-value
  (exact: src/util/stats.ts) and its MDE at 80% power.
- **Families, Holm-corrected**: one family per (size, horizon, endpoint) holding every arm's comparison with RLVR
  there, and RLCER - RLCER w/o evolving in the 60-step cells. A family is read only when every arm in it has all
  its seeds.
- **Verdicts** (expected sign + on accuracy, - on trace error): \`helps\` / \`hurts\` when the Holm-adjusted p < 0.05;
  else \`no effect larger than MDE\` when the 95% interval lies inside +-MDE; else \`inconclusive\`; and
  **\`uninformative\`** for a rubric arm's null (${RUBRIC_ARMS.join(', ')}) in a
  family where \`process_oracle\` does not beat RLVR by at least its MDE: there the world cannot express a process
  benefit, and a null says nothing. The clean pilot found the positive control level with RLVR at S-60 in this
  regime (docs/sensitivity.md), so nulls here are expected to be uninformative; a \`hurts\` is read as it stands.
- **Exploratory** (not in any family, no Holm, labelled exploratory wherever shown):
  ${exploratory}, per cell, with interval and MDE.
- **Pooled reading** per arm and endpoint across a size's horizons: the DerSimonian-Laird random-effects mean and
  the exact sign test, as in the first campaign.
- **Beside the first campaign**: each verdict is shown next to the first campaign's verdict for the same cell.
- **Update parity**: the mean approx. KL per update of the reasoner, per arm against RLVR, is reported per cell.

## 6. Budget and order

${CAMPAIGN_ARMS.length * o.seeds.S} runs at S and ${CAMPAIGN_ARMS_M.length * o.seeds.M} at M (sweeps: ${sw}),
two at a time, seeds outermost, S first, then M;
records committed as they land; a killed run resumes from its last checkpoint. Estimated from the clean pilot's
60-step run times (two at a time on the shared machine; a 300-step run taken as 5x its steps plus the same
evaluation, an M run at ${M_COST_RATIO}x an S run, the first campaign's ratio): about ${hS.toFixed(0)} hours at S
and ${hM.toFixed(0)} at M on two cores, over several sessions.
`;
}

runMain(async () => {
  if (process.argv[1] && !/sensitivity2\.ts$/.test(process.argv[1])) return; // imported, not run
  const [cmd, ...rest] = process.argv.slice(2);
  const a = parseArgs(rest, {
    out: { help: 'output directory', default: 'results/sensitivity2' },
    sweeps: { help: "where preregister writes the campaign's sweep configs", default: 'sweeps' },
    pilot: { help: "the clean pilot's sweep", default: 'sweeps/sensitivity2-pilot.json' },
    'first-power': { help: "the first campaign's power table", default: 'results/sensitivity/confirm/power.csv' },
  });
  if (cmd !== 'preregister')
    throw new ConfigError(`usage: tsx analysis/sensitivity2.ts preregister [--out DIR] (got "${cmd ?? ''}")`);
  const pilot = loadJsonConfig(a.pilot) as unknown as SweepConfig;
  const seeds = campaign2Seeds(readCsv(path.join(a.out, 'power.csv')), readCsv(a['first-power']));
  const sweeps = campaign2Sweeps(pilot, seeds);
  writeFileAtomic(
    path.join(a.out, 'preregistration.md'),
    preregistration2Text({
      seeds,
      engine: pilotEngine(pilot),
      costs: pilotCosts(pilot),
      sweeps,
      overrides: (pilot.overrides ?? {}) as Record<string, unknown>,
    }),
  );
  for (const [f, c] of Object.entries(sweeps))
    writeFileAtomic(path.join(a.sweeps, f), JSON.stringify(c, null, 1) + '\n');
  console.log(`pre-registration -> ${a.out}/preregistration.md; seeds S ${seeds.S}, M ${seeds.M}`);
});
