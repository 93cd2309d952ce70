// `make reproduce-corl` (aggregation step): finished CO-RL runs of a profile -> the tidy Table 1 analogue
// (profile,agent,method,column,mean,ci_low,ci_high,seeds,partner_gap; accuracy per family and average, plus the
// within-group reward std at the end of training over its start; partner_gap = the agent's cold-start accuracy minus
// its supervisor's, blank for single-agent methods), the partner pairs (pairs.csv), the error overlap of each pair
// before training per protocol (pair,protocol,kappa,c,w,u), the theory's per-problem predictions against training
// outcomes per rule (summary, theory_rules.csv per problem, phase.csv for the phase plane), per-step curves, the
// matched-budget ensembles, the paper's claims as paired differences (claims.csv) with their power (power.csv), and
// CO-RL's reported Table 1 averages in their own table (labelled as reported). For an archived profile (full) the
// committed run records under results/runs/corl/<profile> count beside runs/ (a run present in both is read from
// runs/).
// Usage: tsx analysis/table1.ts <profile> [runs/corl] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import {
  CLAIM_COLUMNS,
  CLAIM_POWER_COLUMNS,
  claimPowerRows,
  claimRows,
  interval,
  meanCi,
  scoresBySeed,
  type Claim,
  withEndpoints,
  withInDistribution,
} from './aggregate.js';
import { runMain } from '../src/io/args.js';
import { mean } from '../src/util/stats.js';
import {
  coldStartAccuracy,
  CORL_ARCHIVE,
  CORL_METHODS,
  CORL_REPORTED,
  CORL_REPORTED_TABLE8,
  corlProfile,
  OVERLAP_PROTOCOLS,
  pairRows,
  profileGroups,
} from '../src/methods/tables/table1.js';

export const COLDSTART_REPORT = 'results/coldstart/report.csv';

/** Finished runs of a profile under `root`, with the archive's for every run (relative path) that `root` lacks. */
export function corlRunsWithArchive(root: string, archive: string | null, profile: string): string[] {
  const fresh = findFinishedRuns(path.join(root, profile));
  const rel = (base: string, d: string) => path.relative(path.join(base, profile), d);
  const have = new Set(fresh.map((d) => rel(root, d)));
  const kept = archive ? findFinishedRuns(path.join(archive, profile)).filter((d) => !have.has(rel(archive, d))) : [];
  return [...fresh, ...kept].sort((x, y) => (rel(root, x) < rel(root, y) ? -1 : 1));
}

/** Runs before the rule column named their rule by its condition; both conditions are the separatrix rule. */
const LEGACY_RULES: Record<string, string> = { 'pA + pB > 1': 'separatrix', 'p > 1/2': 'separatrix' };

const ci = (profile: string, r: Row, keys: string[]) => {
  const m = Number(r.value_mean);
  return {
    profile,
    ...Object.fromEntries(keys.map((k) => [k, r[k]])),
    mean: m,
    ...interval(m, r.value_ci95),
    seeds: r.n,
  };
};

/** Within-group reward std over the last tenth of training divided by the first tenth (1 = kept, 0 = collapsed). */
export function rewardStdRatio(stds: number[]): number {
  const w = Math.max(1, Math.round(stds.length / 10));
  if (stds.length === 0) return NaN;
  const first = mean(stds.slice(0, w));
  return first > 0 ? mean(stds.slice(-w)) / first : NaN;
}

/**
 * CO-RL's claims (docs/corl.md, Claims), each a paired difference over seeds between two runs of one agent
 * ("agent|method"; the matched-budget pools are "ensemble|<pool>"). Reward-std claims use `reward_std_ratio`.
 */
export function corlClaims(): Claim[] {
  const perAgent = (agent: string): Claim[] =>
    (
      [
        {
          claim: `CO-RL (different family) beats TTRL (${agent}, average accuracy)`,
          a: 'corl_diff_family',
          b: 'ttrl',
          measure: 'average',
          sign: 1,
        },
        {
          claim: `CO-RL (different family) beats GT-reward, as reported (${agent}, average accuracy)`,
          a: 'corl_diff_family',
          b: 'gt_reward',
          measure: 'average',
          sign: 1,
        },
        {
          claim: `CO-RL (different family) improves on the cold start (${agent}, average accuracy)`,
          a: 'corl_diff_family',
          b: 'base',
          measure: 'average',
          sign: 1,
        },
        {
          claim: `data decoupling helps (different family+ over different family; ${agent}, average accuracy)`,
          a: 'corl_diff_family_decoupled',
          b: 'corl_diff_family',
          measure: 'average',
          sign: 1,
        },
        {
          claim: `the three-agent ring beats TTRL (${agent}, average accuracy)`,
          a: 'corl_three_ring',
          b: 'ttrl',
          measure: 'average',
          sign: 1,
        },
        ...(['ttrl', 'intuitor', 'rent'] as const).map(
          (m): Claim => ({
            claim: `${m}'s within-group reward std decays more than CO-RL's (${agent}, end/start ratio)`,
            a: m,
            b: 'corl_diff_family',
            measure: 'reward_std_ratio',
            sign: -1,
          }),
        ),
      ] as Claim[]
    ).map((c): Claim => ({ ...c, a: `${agent}|${c.a}`, b: `${agent}|${c.b}` }));
  return [
    ...perAgent('transformer-S'),
    ...perAgent('gru-S'),
    {
      claim: 'CO-RL (same family) beats TTRL (transformer-S, average accuracy)',
      a: 'transformer-S|corl_same_family',
      b: 'transformer-S|ttrl',
      measure: 'average',
      sign: 1,
    },
    {
      claim: 'CO-RL (same family) beats GT-reward, as reported (transformer-S, average accuracy)',
      a: 'transformer-S|corl_same_family',
      b: 'transformer-S|gt_reward',
      measure: 'average',
      sign: 1,
    },
    {
      claim: 'cross-family co-training beats same-family (transformer-S, average accuracy)',
      a: 'transformer-S|corl_diff_family',
      b: 'transformer-S|corl_same_family',
      measure: 'average',
      sign: 1,
    },
    {
      claim:
        'the co-trained pair pooled at inference beats two TTRL agents pooled the same way ' +
        '(matched budget, average maj accuracy)',
      a: 'ensemble|co_trained_pair',
      b: 'ensemble|self_rewarded_pair',
      measure: 'average',
      sign: 1,
    },
    ...matchedClaims(),
  ];
}

/**
 * CO-RL's Table 8 claims at size M (7B/8B in the paper), per agent: the differences Table 8 reports with the same
 * sign for both of its models (different family over TTRL and over the cold start, data decoupling, different
 * family+ over TTRL, and GT-reward staying above different family, unlike Table 1), and cross-family over
 * same-family where Table 8 reports it (Qwen2.5-7B: +1.7; Llama-3.1-8B ties).
 */
export function table8Claims(): Claim[] {
  return [
    ...['transformer-M', 'gru-M'].flatMap((agent) =>
      [
        { claim: `CO-RL (different family) beats TTRL (${agent}, average accuracy)`, a: 'corl_diff_family', b: 'ttrl' },
        {
          claim: `CO-RL (different family) improves on the cold start (${agent}, average accuracy)`,
          a: 'corl_diff_family',
          b: 'base',
        },
        {
          claim: `data decoupling helps (different family+ over different family; ${agent}, average accuracy)`,
          a: 'corl_diff_family_decoupled',
          b: 'corl_diff_family',
        },
        {
          claim: `CO-RL (different family+) beats TTRL (${agent}, average accuracy)`,
          a: 'corl_diff_family_decoupled',
          b: 'ttrl',
        },
        {
          claim: `GT-reward stays above CO-RL (different family) at 7B/8B (${agent}, average accuracy)`,
          a: 'gt_reward',
          b: 'corl_diff_family',
        },
      ].map((c) => ({ ...c, agent })),
    ),
    {
      claim: 'cross-family co-training beats same-family (transformer-M, average ' + 'accuracy)',
      a: 'corl_diff_family',
      b: 'corl_same_family',
      agent: 'transformer-M',
    },
  ].map(
    ({ agent, ...c }): Claim => ({ ...c, a: `${agent}|${c.a}`, b: `${agent}|${c.b}`, measure: 'average', sign: 1 }),
  );
}

/** A profile's claims and the paper's reported averages its rows stand beside (Table 8 for table8, else Table 1). */
const paperTable = (profile: string) =>
  profile === 'table8'
    ? { claims: withEndpoints(table8Claims()), reported: CORL_REPORTED_TABLE8, file: 'table8_reported.csv' }
    : { claims: withEndpoints(corlClaims()), reported: CORL_REPORTED, file: 'table1_reported.csv' };

/** The same claims for the cross-family pair matched in cold-start strength (transformer-S-seed1 with gru-M). */
export function matchedClaims(): Claim[] {
  const [strong, weak] = CORL_METHODS.corl_diff_family_matched.agents[0],
    m = 'corl_diff_family_matched';
  const it = 'CO-RL (different family, matched strength)';
  const perAgent = (agent: string): Claim[] =>
    [
      { claim: `${it} beats TTRL (${agent}, average accuracy)`, a: m, b: 'ttrl' },
      { claim: `${it} beats GT-reward, as reported (${agent}, average accuracy)`, a: m, b: 'gt_reward' },
      { claim: `${it} improves on the cold start (${agent}, average accuracy)`, a: m, b: 'base' },
    ].map((c): Claim => ({ ...c, a: `${agent}|${c.a}`, b: `${agent}|${c.b}`, measure: 'average', sign: 1 }));
  return [
    ...perAgent(strong),
    ...perAgent(weak),
    {
      claim: `cross-family co-training at matched strength beats same-family (${strong}, average accuracy)`,
      a: `${strong}|${m}`,
      b: `${strong}|corl_same_family`,
      measure: 'average',
      sign: 1,
    },
    {
      claim:
        'the matched co-trained pair pooled at inference beats its two TTRL agents pooled the same way ' +
        '(matched budget, average maj accuracy)',
      a: 'ensemble|co_trained_matched_pair',
      b: 'ensemble|self_rewarded_matched_pair',
      measure: 'average',
      sign: 1,
    },
  ];
}

/** Where a profile's tables go: full in results/corl, another archived profile beside it, the others apart. */
export const corlOut = (profile: string) =>
  profile === 'full'
    ? 'results/corl'
    : corlProfile(profile).archived
      ? path.join('results/corl', profile)
      : path.join('results', profile, 'corl');

export function aggregateTable1(
  profile: string,
  root = 'runs/corl',
  out = corlOut(profile),
  coldStartReport = COLDSTART_REPORT,
  archive: string | null = corlProfile(profile).archived ? CORL_ARCHIVE : null,
): void {
  const dirs = corlRunsWithArchive(root, archive, profile);
  const where = `${path.join(root, profile)}${archive ? ` or ${path.join(archive, profile)}` : ''}`;
  if (dirs.length === 0) throw new Error(`no finished CO-RL runs under ${where}`);
  const read = (name: string) =>
    dirs.filter((d) => fs.existsSync(path.join(d, `${name}.csv`))).flatMap((d) => readCsv(path.join(d, `${name}.csv`)));
  const configs = dirs.map((d) => ({
    dir: d,
    ...(JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')) as {
      method: string;
      agents: string[];
      seed: number;
    }),
  }));
  const stdRatios = configs
    .flatMap((c) => {
      const ms = readMetrics(c.dir);
      return ms.length
        ? c.agents.map((agent, n) => ({
            method: c.method,
            agent,
            seed: c.seed,
            column: 'reward_std_ratio',
            value: rewardStdRatio(ms.map((m) => Number(m[`agent${n}/reward_std`]))),
          }))
        : [];
    })
    .filter((r) => Number.isFinite(r.value));
  const finals = [...read('final'), ...stdRatios];
  // each co-trained agent's supervisor (agent n-1 of its ring) and their cold-start gap, beside every row
  const acc = fs.existsSync(coldStartReport) ? coldStartAccuracy(readCsv(coldStartReport)) : {};
  const supervisor = new Map<string, string>();
  for (const c of configs.filter((x) => x.agents.length > 1)) {
    const k = c.agents.length;
    c.agents.forEach((agent, n) => supervisor.set(`${agent}|${c.method}`, c.agents[(n + k - 1) % k]));
  }
  const partnerGap = (agent: string, method: string) => {
    const s = supervisor.get(`${agent}|${method}`);
    return s !== undefined && agent in acc && s in acc ? acc[agent] - acc[s] : '';
  };
  const table = meanCi(finals, ['agent', 'method', 'column'], ['value']).map((r) => ({
    ...ci(profile, r, ['agent', 'method', 'column']),
    partner_gap: partnerGap(String(r.agent), String(r.method)),
  }));
  writeCsv(path.join(out, 'table1.csv'), table, [
    'profile',
    'agent',
    'method',
    'column',
    'mean',
    'ci_low',
    'ci_high',
    'seeds',
    'partner_gap',
  ]);
  // the partner pairs, when the report has every agent (src/cli/corl-pairs.ts writes the same from the report alone)
  if (
    Object.values(profileGroups(profile))
      .flat(2)
      .every((n) => n in acc)
  ) {
    writeCsv(path.join(out, 'pairs.csv'), pairRows(acc, profile), [
      'pair',
      'agent_a',
      'agent_b',
      'acc_a',
      'acc_b',
      'gap',
    ]);
  }
  // one measurement per unordered pair and seed (it is taken before training: runs of a seed that share a pair
  // repeat it, and a ring measures each neighbour pair in one direction)
  const seen = new Set<string>();
  // (runs before the protocol column measured with multi_sample); the paper's protocol is listed first
  const overlap = configs
    .filter((c) => fs.existsSync(path.join(c.dir, 'overlap.csv')))
    .flatMap((c) =>
      readCsv(path.join(c.dir, 'overlap.csv')).map((r) => ({
        ...r,
        pair: String(r.pair).split('|').sort().join('|'),
        protocol: String(r.protocol ?? 'multi_sample'),
        seed: c.seed,
      })),
    )
    .filter((r) => !seen.has(`${r.pair}|${r.protocol}|${r.seed}`) && seen.add(`${r.pair}|${r.protocol}|${r.seed}`));
  if (overlap.length) {
    const order = Object.keys(OVERLAP_PROTOCOLS);
    const agg = meanCi(overlap, ['pair', 'protocol'], ['kappa', 'c', 'w', 'u']).sort(
      (x, y) =>
        order.indexOf(String(x.protocol)) - order.indexOf(String(y.protocol)) ||
        (String(x.pair) < String(y.pair) ? -1 : 1),
    );
    writeCsv(
      path.join(out, 'error_overlap.csv'),
      agg.map((r) => ({
        pair: r.pair,
        protocol: r.protocol,
        kappa: r.kappa_mean,
        c: r.c_mean,
        w: r.w_mean,
        u: r.u_mean,
        kappa_ci95: r.kappa_ci95,
        seeds: r.n,
      })),
    );
  }
  const theory = read('theory').map((r) => ({ ...r, rule: LEGACY_RULES[String(r.rule)] ?? r.rule }));
  if (theory.length)
    writeCsv(
      path.join(out, 'theory_vs_experiment.csv'),
      meanCi(theory, ['method', 'agent', 'rule'], ['agreement', 'predicted_correct', 'actual_correct']),
    );
  // per problem: what each rule predicted and what training did (runs that recorded both rules)
  const rules = configs.flatMap((c) => {
    const f = path.join(c.dir, 'per_problem.json');
    if (!fs.existsSync(f)) return [];
    const pp = JSON.parse(fs.readFileSync(f, 'utf8')) as {
      problems: string[];
      p0: number[][];
      outcome?: boolean[][];
      predicted?: Record<string, boolean[][]>;
    };
    if (!pp.outcome || !pp.predicted?.separatrix || !pp.predicted.plurality) return [];
    const { separatrix, plurality } = pp.predicted;
    return c.agents.flatMap((agent, n) =>
      pp.problems.map((problem, j) => {
        const m = (n + c.agents.length - 1) % c.agents.length,
          pair = c.agents.length > 1;
        return {
          method: c.method,
          seed: c.seed,
          agent,
          partner: pair ? c.agents[m] : '',
          problem,
          p: pp.p0[n][j],
          p_partner: pair ? pp.p0[m][j] : '',
          separatrix: +separatrix[n][j],
          plurality: +plurality[n][j],
          rules_differ: +(separatrix[n][j] !== plurality[n][j]),
          outcome: +pp.outcome![n][j],
        };
      }),
    );
  });
  if (rules.length) writeCsv(path.join(out, 'theory_rules.csv'), rules);
  // per problem: each agent's initial p, its partner's (the agent that supervises it), and the trained outcome
  const phase = configs.flatMap((c) => {
    const f = path.join(c.dir, 'per_problem.json');
    if (!fs.existsSync(f)) return [];
    const pp = JSON.parse(fs.readFileSync(f, 'utf8')) as { problems: string[]; p0: number[][]; outcome?: boolean[][] };
    if (!pp.outcome) return [];
    return c.agents.flatMap((agent, n) =>
      pp.problems.map((problem, j) => {
        const m = (n + c.agents.length - 1) % c.agents.length;
        return {
          method: c.method,
          seed: c.seed,
          agent,
          partner: c.agents.length > 1 ? c.agents[m] : '',
          problem,
          p: pp.p0[n][j],
          p_partner: c.agents.length > 1 ? pp.p0[m][j] : '',
          outcome: +pp.outcome![n][j],
        };
      }),
    );
  });
  if (phase.length) writeCsv(path.join(out, 'phase.csv'), phase);
  // matched budget: per-seed pooled majority accuracy written by src/cli/corl-ensemble.ts
  // (beside the runs, else the archive's copy: the agents' weights it needs are not archived, so it is a record)
  const ensembleFile = [
    path.join(root, profile, 'matched_budget.csv'),
    ...(archive ? [path.join(archive, profile, 'matched_budget.csv')] : []),
  ].find((f) => fs.existsSync(f));
  const ensemble = ensembleFile ? readCsv(ensembleFile) : [];
  if (ensemble.length) {
    const withAverage = [
      ...ensemble,
      ...meanCi(ensemble, ['ensemble', 'seed'], ['value']).map((r) => ({
        ensemble: r.ensemble,
        seed: r.seed,
        family: 'average',
        value: r.value_mean,
      })),
    ];
    writeCsv(
      path.join(out, 'matched_budget.csv'),
      meanCi(withAverage, ['ensemble', 'family'], ['value']).map((r) => ({
        profile,
        ensemble: r.ensemble,
        family: r.family,
        maj_accuracy: r.value_mean,
        ...interval(Number(r.value_mean), r.value_ci95),
        seeds: r.n,
      })),
    );
  }
  const scores = scoresBySeed([
    ...withInDistribution([
      ...finals.map((r) => ({
        run: `${r.agent}|${r.method}`,
        seed: r.seed,
        measure: String(r.column),
        value: Number(r.value),
      })),
      ...ensemble.map((r) => ({
        run: `ensemble|${r.ensemble}`,
        seed: r.seed,
        measure: String(r.family),
        value: Number(r.value),
      })),
    ]),
    ...meanCi(ensemble, ['ensemble', 'seed'], ['value']).map((r) => ({
      run: `ensemble|${r.ensemble}`,
      seed: r.seed,
      measure: 'average',
      value: Number(r.value_mean),
    })),
  ]);
  const paper = paperTable(profile);
  writeCsv(path.join(out, 'claims.csv'), claimRows(scores, paper.claims, profile), CLAIM_COLUMNS);
  // beside it, each claim's power (the same per-seed differences; MDE, power at a difference of 0.03)
  writeCsv(path.join(out, 'power.csv'), claimPowerRows(scores, paper.claims, profile), CLAIM_POWER_COLUMNS);
  const steps = configs.flatMap((cfg) =>
    readMetrics(cfg.dir).flatMap((m) =>
      cfg.agents.map((agent, n) => ({
        method: cfg.method,
        agent,
        seed: cfg.seed,
        step: Number(m.step),
        accuracy: Number(m[`agent${n}/accuracy`]),
        reward_std: Number(m[`agent${n}/reward_std`]),
        response_length: Number(m[`agent${n}/response_length`]),
        pseudo_label_accuracy: Number(m[`agent${n}/pseudo_label_accuracy`]),
        agreement: m.agreement === undefined ? NaN : Number(m.agreement),
      })),
    ),
  );
  if (steps.length) {
    const curves = ['accuracy', 'reward_std', 'response_length', 'pseudo_label_accuracy', 'agreement'].flatMap((k) => {
      const rows = steps
        .filter((s) => Number.isFinite(s[k as keyof typeof s] as number))
        .map((s) => ({ method: s.method, agent: s.agent, step: s.step, value: s[k as keyof typeof s] as number }));
      return meanCi(rows, ['method', 'agent', 'step'], ['value']).map((r) => ({
        method: r.method,
        agent: r.agent,
        step: r.step,
        metric: k,
        mean: r.value_mean,
        ci95: r.value_ci95,
        n: r.n,
      }));
    });
    writeCsv(path.join(out, 'curves.csv'), curves);
  }
  writeCsv(
    path.join(out, paper.file),
    paper.reported.map((r) => ({ ...r, note: 'reported by the paper, not measured here' })),
  );
  console.log(`CO-RL tables (${profile}): ${dirs.length} runs -> ${out}`);
}

if (process.argv[1]?.endsWith('table1.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateTable1(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/corl', process.argv[4]));
}
