// `make reproduce-corl` (aggregation step): finished CO-RL runs of a profile -> the tidy Table 1 analogue
// (profile,agent,method,column,mean,ci_low,ci_high,seeds; accuracy per family and average, plus the within-group
// reward std at the end of training over its start), the error overlap of each pair before training (pair,kappa,c,w,u),
// the theory's per-problem predictions against training outcomes (summary and per problem, for the phase plane),
// per-step curves, the matched-budget ensembles, the paper's claims as paired differences, and CO-RL's reported
// Table 1 averages in their own table (labelled as reported).
// Usage: tsx analysis/table1.ts <profile> [runs/corl] [out dir]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, writeCsv, type Row } from '../src/io/table.js';
import { findFinishedRuns, readMetrics } from '../src/io/run.js';
import { CLAIM_COLUMNS, claimRows, interval, meanCi, scoresBySeed, type Claim } from './aggregate.js';
import { runMain } from '../src/cli/args.js';
import { CORL_REPORTED } from '../src/methods/table1.js';

const ci = (profile: string, r: Row, keys: string[]) => {
  const m = Number(r.value_mean);
  return { profile, ...Object.fromEntries(keys.map((k) => [k, r[k]])), mean: m, ...interval(m, r.value_ci95), seeds: r.n };
};

/** Within-group reward std over the last tenth of training divided by the first tenth (1 = kept, 0 = collapsed). */
export function rewardStdRatio(stds: number[]): number {
  const w = Math.max(1, Math.round(stds.length / 10)), mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  if (stds.length === 0) return NaN;
  const first = mean(stds.slice(0, w));
  return first > 0 ? mean(stds.slice(-w)) / first : NaN;
}

/**
 * CO-RL's claims (papers.md section 2), each a paired difference over seeds between two runs of one agent
 * ("agent|method"; the matched-budget pools are "ensemble|<pool>"). Reward-std claims use `reward_std_ratio`.
 */
export function corlClaims(): Claim[] {
  const perAgent = (agent: string): Claim[] => ([
    { claim: `CO-RL (different family) beats TTRL (${agent}, average accuracy)`, a: 'corl_diff_family', b: 'ttrl', measure: 'average', sign: 1 },
    { claim: `CO-RL (different family) beats GT-reward, as reported (${agent}, average accuracy)`, a: 'corl_diff_family', b: 'gt_reward', measure: 'average', sign: 1 },
    { claim: `CO-RL (different family) improves on the cold start (${agent}, average accuracy)`, a: 'corl_diff_family', b: 'base', measure: 'average', sign: 1 },
    { claim: `data decoupling helps (different family+ over different family; ${agent}, average accuracy)`, a: 'corl_diff_family_decoupled', b: 'corl_diff_family', measure: 'average', sign: 1 },
    { claim: `the three-agent ring beats TTRL (${agent}, average accuracy)`, a: 'corl_three_ring', b: 'ttrl', measure: 'average', sign: 1 },
    ...(['ttrl', 'intuitor', 'rent'] as const).map((m): Claim => ({ claim: `${m}'s within-group reward std decays more than CO-RL's (${agent}, end/start ratio)`, a: m, b: 'corl_diff_family', measure: 'reward_std_ratio', sign: -1 })),
  ] as Claim[]).map((c): Claim => ({ ...c, a: `${agent}|${c.a}`, b: `${agent}|${c.b}` }));
  return [...perAgent('transformer-S'), ...perAgent('gru-S'),
    { claim: 'CO-RL (same family) beats TTRL (transformer-S, average accuracy)', a: 'transformer-S|corl_same_family', b: 'transformer-S|ttrl', measure: 'average', sign: 1 },
    { claim: 'CO-RL (same family) beats GT-reward, as reported (transformer-S, average accuracy)', a: 'transformer-S|corl_same_family', b: 'transformer-S|gt_reward', measure: 'average', sign: 1 },
    { claim: 'cross-family co-training beats same-family (transformer-S, average accuracy)', a: 'transformer-S|corl_diff_family', b: 'transformer-S|corl_same_family', measure: 'average', sign: 1 },
    { claim: 'the co-trained pair pooled at inference beats two TTRL agents pooled the same way (matched budget, average maj accuracy)', a: 'ensemble|co_trained_pair', b: 'ensemble|self_rewarded_pair', measure: 'average', sign: 1 }];
}

export function aggregateTable1(profile: string, root = 'runs/corl', out = profile === 'full' ? 'results/corl' : path.join('results', profile, 'corl')): void {
  const dirs = findFinishedRuns(path.join(root, profile));
  if (dirs.length === 0) throw new Error(`no finished CO-RL runs under ${path.join(root, profile)}`);
  const read = (name: string) => dirs.filter((d) => fs.existsSync(path.join(d, `${name}.csv`))).flatMap((d) => readCsv(path.join(d, `${name}.csv`)));
  const configs = dirs.map((d) => ({ dir: d, ...(JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8')) as { method: string; agents: string[]; seed: number }) }));
  const stdRatios = configs.flatMap((c) => {
    const ms = readMetrics(c.dir);
    return ms.length ? c.agents.map((agent, n) => ({ method: c.method, agent, seed: c.seed, column: 'reward_std_ratio', value: rewardStdRatio(ms.map((m) => Number(m[`agent${n}/reward_std`]))) })) : [];
  }).filter((r) => Number.isFinite(r.value));
  const finals = [...read('final'), ...stdRatios];
  const table = meanCi(finals, ['agent', 'method', 'column'], ['value']).map((r) => ci(profile, r, ['agent', 'method', 'column']));
  writeCsv(path.join(out, 'table1.csv'), table, ['profile', 'agent', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
  // one measurement per unordered pair and seed (it is taken before training: runs of a seed that share a pair
  // repeat it, and a ring measures each neighbour pair in one direction)
  const seen = new Set<string>();
  const overlap = configs.filter((c) => fs.existsSync(path.join(c.dir, 'overlap.csv'))).flatMap((c) => readCsv(path.join(c.dir, 'overlap.csv'))
    .map((r) => ({ ...r, pair: String(r.pair).split('|').sort().join('|'), seed: c.seed })))
    .filter((r) => !seen.has(`${r.pair}|${r.seed}`) && seen.add(`${r.pair}|${r.seed}`));
  if (overlap.length) {
    const agg = meanCi(overlap, ['pair'], ['kappa', 'c', 'w', 'u']);
    writeCsv(path.join(out, 'error_overlap.csv'), agg.map((r) => ({ pair: r.pair, kappa: r.kappa_mean, c: r.c_mean, w: r.w_mean, u: r.u_mean, kappa_ci95: r.kappa_ci95, seeds: r.n })));
  }
  const theory = read('theory');
  if (theory.length) writeCsv(path.join(out, 'theory_vs_experiment.csv'), meanCi(theory, ['method', 'agent', 'rule'], ['agreement', 'predicted_correct', 'actual_correct']));
  // per problem: each agent's initial p, its partner's (the agent that supervises it), and the trained outcome
  const phase = configs.flatMap((c) => {
    const f = path.join(c.dir, 'per_problem.json');
    if (!fs.existsSync(f)) return [];
    const pp = JSON.parse(fs.readFileSync(f, 'utf8')) as { problems: string[]; p0: number[][]; outcome?: boolean[][] };
    if (!pp.outcome) return [];
    return c.agents.flatMap((agent, n) => pp.problems.map((problem, j) => {
      const m = (n + c.agents.length - 1) % c.agents.length;
      return { method: c.method, seed: c.seed, agent, partner: c.agents.length > 1 ? c.agents[m] : '', problem, p: pp.p0[n][j],
        p_partner: c.agents.length > 1 ? pp.p0[m][j] : '', outcome: +pp.outcome![n][j] };
    }));
  });
  if (phase.length) writeCsv(path.join(out, 'phase.csv'), phase);
  // matched budget: per-seed pooled majority accuracy written by src/cli/corl-ensemble.ts
  const ensembleFile = path.join(root, profile, 'matched_budget.csv');
  const ensemble = fs.existsSync(ensembleFile) ? readCsv(ensembleFile) : [];
  if (ensemble.length) {
    const withAverage = [...ensemble, ...meanCi(ensemble, ['ensemble', 'seed'], ['value']).map((r) => ({ ensemble: r.ensemble, seed: r.seed, family: 'average', value: r.value_mean }))];
    writeCsv(path.join(out, 'matched_budget.csv'), meanCi(withAverage, ['ensemble', 'family'], ['value']).map((r) => ({ profile, ensemble: r.ensemble, family: r.family, maj_accuracy: r.value_mean, ...interval(Number(r.value_mean), r.value_ci95), seeds: r.n })));
  }
  const scores = scoresBySeed([...finals.map((r) => ({ run: `${r.agent}|${r.method}`, seed: r.seed, measure: String(r.column), value: Number(r.value) })),
    ...ensemble.map((r) => ({ run: `ensemble|${r.ensemble}`, seed: r.seed, measure: String(r.family), value: Number(r.value) })),
    ...meanCi(ensemble, ['ensemble', 'seed'], ['value']).map((r) => ({ run: `ensemble|${r.ensemble}`, seed: r.seed, measure: 'average', value: Number(r.value_mean) }))]);
  writeCsv(path.join(out, 'claims.csv'), claimRows(scores, corlClaims(), profile), CLAIM_COLUMNS);
  const steps = configs.flatMap((cfg) => readMetrics(cfg.dir).flatMap((m) => cfg.agents.map((agent, n) => ({ method: cfg.method, agent, seed: cfg.seed, step: Number(m.step),
      accuracy: Number(m[`agent${n}/accuracy`]), reward_std: Number(m[`agent${n}/reward_std`]), response_length: Number(m[`agent${n}/response_length`]),
      pseudo_label_accuracy: Number(m[`agent${n}/pseudo_label_accuracy`]), agreement: m.agreement === undefined ? NaN : Number(m.agreement) }))));
  if (steps.length) {
    const curves = ['accuracy', 'reward_std', 'response_length', 'pseudo_label_accuracy', 'agreement'].flatMap((k) => {
      const rows = steps.filter((s) => Number.isFinite(s[k as keyof typeof s] as number)).map((s) => ({ method: s.method, agent: s.agent, step: s.step, value: s[k as keyof typeof s] as number }));
      return meanCi(rows, ['method', 'agent', 'step'], ['value']).map((r) => ({ method: r.method, agent: r.agent, step: r.step, metric: k, mean: r.value_mean, ci95: r.value_ci95, n: r.n }));
    });
    writeCsv(path.join(out, 'curves.csv'), curves);
  }
  writeCsv(path.join(out, 'table1_reported.csv'), CORL_REPORTED.map((r) => ({ ...r, note: 'reported by the paper, not measured here' })));
  console.log(`CO-RL tables (${profile}): ${dirs.length} runs -> ${out}`);
}

if (process.argv[1]?.endsWith('table1.ts') && process.argv[1].includes('analysis')) {
  runMain(async () => aggregateTable1(process.argv[2] ?? 'quick', process.argv[3] ?? 'runs/corl', process.argv[4]));
}
