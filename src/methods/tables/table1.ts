// CO-RL's Table 1 analogue: which models each method trains, and the profiles. Single-agent methods are run on
// each model of the cross-family pair; CO-RL settings name their ring of models (agent n supervised by n-1).
import { ConfigError } from '../../util/validate.js';
import type { Row } from '../../io/table.js';
import { TRAIN_FAMILIES } from '../../world/families.js';
import type { DeepPartial } from '../../io/config.js';
import type { LabelFreeConfig, LabelFreeMethod } from '../trainers/label-free.js';

/** Cold-start checkpoints that play agents (`make coldstart` writes them; the seed-1 transformer is a second run). */
export const AGENT_CHECKPOINTS: Record<string, string> = {
  'transformer-S': 'data/checkpoints/coldstart-transformer-S.json',
  'transformer-S-seed1': 'data/checkpoints/coldstart-transformer-S-seed1.json',
  'gru-S': 'data/checkpoints/coldstart-gru-S.json',
  'gru-M': 'data/checkpoints/coldstart-gru-M.json',
  'transformer-M': 'data/checkpoints/coldstart-transformer-M.json',
};

export interface CorlMethodSpec {
  method: LabelFreeMethod | 'base';
  agents: string[][];
  label: string;
  labelFree?: DeepPartial<LabelFreeConfig>;
}

/** The agents that the reference methods (cold start, GT-reward, TTRL) train alone. */
const SINGLE_AGENTS = [['transformer-S'], ['gru-S'], ['transformer-S-seed1'], ['gru-M']];

/** Each entry trains every listed group of agents (a single agent, or a ring) as one run. */
export const CORL_METHODS: Record<string, CorlMethodSpec> = {
  // the matched pair's agents (transformer-S-seed1, gru-M) also get the single-agent references their claims need
  base: { method: 'base', agents: SINGLE_AGENTS, label: 'cold start (no RL)' },
  gt_reward: { method: 'gt_reward', agents: SINGLE_AGENTS, label: 'GT-reward' },
  ttrl: { method: 'ttrl', agents: SINGLE_AGENTS, label: 'TTRL' },
  intuitor: { method: 'intuitor', agents: [['transformer-S'], ['gru-S']], label: 'Intuitor' },
  rent: { method: 'rent', agents: [['transformer-S'], ['gru-S']], label: 'RENT' },
  corl_same_family: { method: 'corl', agents: [['transformer-S', 'transformer-S-seed1']], label: 'CO-RL, same family' },
  // strong + weak: the partner's cold start is four times weaker (pairs.csv); family and strength are confounded
  corl_diff_family: {
    method: 'corl',
    agents: [['transformer-S', 'gru-S']],
    label: 'CO-RL, different family (strong + weak)',
  },
  // the cross-family pair matched in cold-start accuracy (matchedPair on results/coldstart/report.csv; tested)
  corl_diff_family_matched: {
    method: 'corl',
    agents: [['transformer-S-seed1', 'gru-M']],
    label: 'CO-RL, different family (matched strength)',
  },
  corl_diff_family_decoupled: {
    method: 'corl',
    agents: [['transformer-S', 'gru-S']],
    labelFree: { decoupled: true },
    label: 'CO-RL, different family + data decoupling',
  },
  corl_three_ring: {
    method: 'corl',
    agents: [['transformer-S', 'gru-S', 'transformer-S-seed1']],
    label: 'CO-RL, three-agent ring',
  },
};

export function corlMethodSpec(id: string): CorlMethodSpec {
  const m = CORL_METHODS[id];
  if (!m) throw new ConfigError(`unknown CO-RL method "${id}" (known: ${Object.keys(CORL_METHODS).join(', ')})`);
  return m;
}

export function agentCheckpoint(name: string): string {
  const f = AGENT_CHECKPOINTS[name];
  if (!f) throw new ConfigError(`unknown agent "${name}" (known: ${Object.keys(AGENT_CHECKPOINTS).join(', ')})`);
  return f;
}

/** Model family of an agent, from its name (transformer-S-seed1 -> transformer). */
export const agentFamily = (name: string) => name.split('-')[0];

/** Cross-family partners count as matched in strength when their cold-start accuracies differ by at most this. */
export const MATCH_TOLERANCE = 0.05;

/** The families an agent's cold-start accuracy is averaged over: the RL training families (chain_ood is held out). */
export const PAIR_FAMILIES: string[] = [...TRAIN_FAMILIES];

/**
 * Each model's cold-start accuracy from the cold-start report's rows (model, family, difficulty, accuracy): per family
 * the mean over its difficulty cells, then the unweighted mean over `families` (a model missing a family is left out).
 */
export function coldStartAccuracy(rows: Row[], families: string[] = PAIR_FAMILIES): Record<string, number> {
  const out: Record<string, number> = {};
  for (const model of [...new Set(rows.map((r) => String(r.model)))]) {
    const fam = families.map((f) =>
      rows.filter((r) => r.model === model && r.family === f).map((r) => Number(r.accuracy)),
    );
    if (fam.some((v) => v.length === 0)) continue;
    out[model] = fam.reduce((s, v) => s + v.reduce((a, b) => a + b, 0) / v.length, 0) / families.length;
  }
  return out;
}

/**
 * The cross-family pair matched in strength: among the candidate agents that have an accuracy, the pair of
 * different families with the smallest |acc_a - acc_b|, ties to the higher mean accuracy, then to name order; agent_a
 * is the pair's stronger agent. Throws when no pair is within `tolerance`.
 */
export function matchedPair(
  acc: Record<string, number>,
  candidates: string[],
  tolerance = MATCH_TOLERANCE,
): [string, string] {
  const names = candidates.filter((n) => Number.isFinite(acc[n]));
  const pairs = names.flatMap((a, i) =>
    names
      .slice(i + 1)
      .filter((b) => agentFamily(a) !== agentFamily(b))
      .map((b): [string, string] => (acc[a] >= acc[b] ? [a, b] : [b, a])),
  );
  const key = ([a, b]: [string, string]) => [Math.abs(acc[a] - acc[b]), -(acc[a] + acc[b]), `${a}+${b}`] as const;
  pairs.sort((x, y) => {
    const kx = key(x),
      ky = key(y);
    return kx[0] - ky[0] || kx[1] - ky[1] || (kx[2] < ky[2] ? -1 : 1);
  });
  const best = pairs[0];
  if (!best || Math.abs(acc[best[0]] - acc[best[1]]) > tolerance) {
    const closest = best ? ` (closest ${best.join('+')}, gap ${Math.abs(acc[best[0]] - acc[best[1]]).toFixed(3)})` : '';
    throw new ConfigError(`no cross-family pair within ${tolerance} in cold-start accuracy${closest}`);
  }
  return best;
}

/**
 * The partner pairs of the CO-RL methods with their cold-start accuracies: one row per method for a pair, one per
 * neighbour pair (agent, its supervisor) for a larger ring (`<method>:<agent>+<supervisor>`); gap = acc_a - acc_b.
 */
export type PairRow = { pair: string; agent_a: string; agent_b: string; acc_a: number; acc_b: number; gap: number };
export function pairRows(acc: Record<string, number>, profile = 'full'): PairRow[] {
  const corl = Object.entries(profileGroups(profile)).filter(([id]) => corlMethodSpec(id).method === 'corl');
  return corl.flatMap(([id, groups]) =>
    groups.flatMap((ring) => {
      const links =
        ring.length === 2 ? [[ring[0], ring[1]]] : ring.map((a, n) => [a, ring[(n + ring.length - 1) % ring.length]]);
      return links.map(([a, b]) => {
        const missing = [a, b].find((x) => !(x in acc));
        if (missing) throw new ConfigError(`no cold-start accuracy for ${missing} (method ${id})`);
        // a method with one pair names it; a ring or a method with several groups names each link
        const pair = ring.length === 2 && groups.length === 1 ? id : `${id}:${a}+${b}`;
        return { pair, agent_a: a, agent_b: b, acc_a: acc[a], acc_b: acc[b], gap: acc[a] - acc[b] };
      });
    }),
  );
}

/** Throws unless matchedPair over the agents picks the pair that corl_diff_family_matched trains. */
export function checkMatchedMethod(acc: Record<string, number>): void {
  const want = CORL_METHODS.corl_diff_family_matched.agents[0].join('+');
  const got = matchedPair(acc, Object.keys(AGENT_CHECKPOINTS)).join('+');
  if (got !== want) {
    throw new ConfigError(`the matched-strength rule now picks ${got}, but corl_diff_family_matched trains ${want}`);
  }
}

/**
 * How the error overlap (kappa, c, w, u) is measured. `paper`: one sample per problem at temperature 0.8, CO-RL's
 * protocol (the default, reported first); `multi_sample`: the theory's p-estimate draws (theory-samples per problem at
 * temperature 1, the k-th draw of A paired with the k-th of B), the protocol of the runs before the paper's.
 */
export const OVERLAP_PROTOCOLS = {
  paper: { samples: 1, temperature: 0.8 },
  multi_sample: { samples: 'theory', temperature: 1 },
} as const;
export type OverlapProtocol = keyof typeof OVERLAP_PROTOCOLS;

export interface CorlProfile {
  steps: number;
  seeds: number[];
  evalPerCell: number;
  evalSamples: number;
  theorySamples: number;
  /** keep each finished run's record (config, metrics, tables, samples; no weights) under CORL_ARCHIVE, committed */
  archived: boolean;
  /** the methods this profile runs and the agent groups each trains (default: every method on its own groups) */
  groups?: Record<string, string[][]>;
}

/**
 * CO-RL's Table 8 (7B/8B models) at our size M: transformer-M plays Qwen2.5-7B and gru-M plays Llama-3.1-8B (two
 * families, cold starts 0.573 and 0.396 on the training families). The paper's same-family partner of Qwen2.5-7B is
 * the smaller Qwen2.5-3B: ours is the S model of each family (transformer-S, gru-S). Different family: the two M
 * models; different family+: the same pair with data decoupling. Co-rewarding-II has no analogue (as in Table 1).
 */
export const TABLE8_GROUPS: Record<string, string[][]> = {
  base: [['transformer-M'], ['gru-M']],
  gt_reward: [['transformer-M'], ['gru-M']],
  ttrl: [['transformer-M'], ['gru-M']],
  intuitor: [['transformer-M'], ['gru-M']],
  rent: [['transformer-M'], ['gru-M']],
  corl_same_family: [
    ['transformer-M', 'transformer-S'],
    ['gru-M', 'gru-S'],
  ],
  corl_diff_family: [['transformer-M', 'gru-M']],
  corl_diff_family_decoupled: [['transformer-M', 'gru-M']],
};

export const CORL_PROFILES: Record<string, CorlProfile> = {
  quick: { steps: 10, seeds: [0, 1], evalPerCell: 8, evalSamples: 4, theorySamples: 8, archived: false },
  full: { steps: 60, seeds: [0, 1, 2], evalPerCell: 24, evalSamples: 8, theorySamples: 16, archived: true },
  // Table 8 at size M, on the full profile's budget
  table8: {
    steps: 60,
    seeds: [0, 1, 2],
    evalPerCell: 24,
    evalSamples: 8,
    theorySamples: 16,
    archived: true,
    groups: TABLE8_GROUPS,
  },
};

/** The agent groups each method of a profile trains, in run order. */
export function profileGroups(name: string): Record<string, string[][]> {
  return corlProfile(name).groups ?? Object.fromEntries(Object.entries(CORL_METHODS).map(([id, m]) => [id, m.agents]));
}

/** Where archived profiles keep their finished runs' records: <archive>/<profile>/<method>/<agents>/seed-<n>. */
export const CORL_ARCHIVE = 'results/runs/corl';

export function corlProfile(name: string): CorlProfile {
  const p = CORL_PROFILES[name];
  if (!p) throw new ConfigError(`unknown profile "${name}" (known: ${Object.keys(CORL_PROFILES).join(', ')})`);
  return p;
}

/** A reported table's rows: per method, one average per model, each beside the agent that plays that model. */
const reported = (paper: string, models: [string, string][], rows: [string, ...number[]][]) =>
  rows.flatMap(([method, ...averages]) =>
    models.map(([model, analogue], i) => ({ paper, method, model, analogue, average: averages[i] })),
  );

/** CO-RL's methods in its tables' row order. */
const ROWS = [
  'base',
  'gt_reward',
  'ttrl',
  'rent',
  'intuitor',
  'corl_same_family',
  'corl_diff_family',
  'corl_diff_family_decoupled',
];

/**
 * CO-RL's Table 1 averages (7 benchmarks, %), as reported, for the 3B pair; our transformer-S plays Qwen2.5-3B and
 * our GRU plays Llama-3.2-3B-Instruct only as an analogy (two families), not as a scale match.
 */
export const CORL_REPORTED = reported(
  'CO-RL Table 1',
  [
    ['Qwen2.5-3B', 'transformer-S'],
    ['Llama-3.2-3B-Instruct', 'gru-S'],
  ],
  ROWS.map((m, i): [string, number, number] => [
    m,
    [40.7, 47.4, 47.3, 44.9, 45.6, 48.7, 48.5, 49.3][i],
    [38.7, 43.0, 43.1, 38.6, 39.7, 42.7, 43.7, 43.9][i],
  ]),
);

/** CO-RL's Table 8 averages (7 benchmarks, %), as reported; transformer-M plays Qwen2.5-7B, gru-M Llama-3.1-8B. */
export const CORL_REPORTED_TABLE8 = reported(
  'CO-RL Table 8',
  [
    ['Qwen2.5-7B', 'transformer-M'],
    ['Llama-3.1-8B-Instruct', 'gru-M'],
  ],
  ROWS.map((m, i): [string, number, number] => [
    m,
    [49.0, 54.5, 51.7, 52.8, 52.6, 51.4, 53.1, 53.6][i],
    [44.7, 47.1, 46.1, 44.7, 44.8, 46.8, 46.8, 47.7][i],
  ]),
);
