// The rewards the reward service (src/cli/reward-server.ts, docs/reward-service.md) serves, over OpenRLHF's remote
// reward-model request {query, prompts, labels}: each sample's response is read from its query and scored by the
// workbench's own reward functions (no copies): outcome (RLVR's outcomeReward), RLCER (groupRewardsByKey over a
// group of samples), EvoLM's judge score (normalisedScore), Rubicon's aggregators (aggregate) and CO-RL's agreement
// with a peer's majority vote (majorityAnswer, agreementRewards). Criterion satisfaction, rubrics and dimension
// scores come with the label, or from an LLM judge (src/models/chat.ts) when the service has one.
import { HttpError } from '../../io/json-http.js';
import { ConfigError } from '../../util/validate.js';
import { makeRng } from '../../util/random.js';
import { normalisedScore } from '../../rubrics/rewards.js';
import {
  aggregate,
  AGGREGATORS,
  defaultAggregatorParams,
  type AggregatorName,
  type AggregatorParams,
  type Dimension,
} from '../../rubrics/aggregators.js';
import { majorityAnswer } from '../../rl/evaluate.js';
import { outcomeReward } from '../../rl/trainer.js';
import { agreementRewards } from '../trainers/label-free.js';
import { defaultRlcerConfig, groupRewardsByKey, type KeyedSet, type RewardSettings } from '../trainers/rlcer.js';

/** OpenRLHF's request: `prompts` and `labels` may be missing (clients before v0.6.0), then "" each. */
export interface RewardRequest {
  query: string[];
  prompts: string[];
  labels: unknown[];
}
/** OpenRLHF's reply: every list has one value per query. */
export interface RewardReply {
  rewards: number[];
  scores: number[];
  extra_logs: Record<string, number[]>;
}

/** The most samples one request may carry. */
export const MAX_SAMPLES = 4096;

/** Check a parsed request body; a 400 names what is wrong. Keys other than the three are ignored. */
export function parseRewardRequest(body: unknown): RewardRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'body must be a JSON object');
  }
  const o = body as Record<string, unknown>;
  if (!Array.isArray(o.query)) throw new HttpError(400, '"query" must be a list of strings');
  const n = o.query.length;
  if (n > MAX_SAMPLES) throw new HttpError(413, `${n} samples in one request (at most ${MAX_SAMPLES})`);
  const strings = (name: string, v: unknown): string[] => {
    if (v === undefined) return Array(n).fill('');
    if (!Array.isArray(v)) throw new HttpError(400, `"${name}" must be a list`);
    if (v.length !== n) throw new HttpError(400, `lengths differ: ${n} queries, ${v.length} ${name}`);
    const bad = v.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) throw new HttpError(400, `${name}[${bad}] must be a string`);
    return v as string[];
  };
  const query = strings('query', o.query),
    prompts = strings('prompts', o.prompts);
  if (o.labels !== undefined && (!Array.isArray(o.labels) || o.labels.length !== n)) {
    throw new HttpError(
      400,
      Array.isArray(o.labels) ? `lengths differ: ${n} queries, ${o.labels.length} labels` : '"labels" must be a list',
    );
  }
  return { query, prompts, labels: (o.labels as unknown[] | undefined) ?? Array(n).fill('') };
}

// ---- reading a sample ----

const SPECIAL = /<\|[^|<>\s]{1,40}\|>|<\/?s>|<eos>|<pad>/g;

/** The response: the query after its prompt (OpenRLHF's query is prompt + response), special tokens removed. */
export function responseOf(query: string, prompt: string): string {
  const rest = prompt !== '' && query.startsWith(prompt) ? query.slice(prompt.length) : query;
  return rest.replace(SPECIAL, '').trim();
}

/** The final answer: the last \boxed{...} (nested braces kept), else the text after the last "####"; null if none. */
export function extractAnswer(response: string): string | null {
  const at = response.lastIndexOf('\\boxed{');
  if (at >= 0) {
    let depth = 0;
    for (let i = at + 6; i < response.length; i++) {
      if (response[i] === '{') depth++;
      else if (response[i] === '}' && --depth === 0) return normaliseAnswer(response.slice(at + 7, i));
    }
    return null;
  }
  const hash = response.lastIndexOf('####');
  return hash >= 0 ? normaliseAnswer(response.slice(hash + 4).split('\n')[0]) : null;
}

/** Canonical form of an answer: spaces, $ and a final "." dropped; a number in JS's shortest form ("2.0" -> "2"). */
export function normaliseAnswer(a: string): string | null {
  const s = a.replace(/[\s$]/g, '').replace(/\.$/, '');
  if (s === '') return null;
  const x = Number(s.replace(/,/g, ''));
  return /^[+-]?[\d,]*\.?\d+(e[+-]?\d+)?$/i.test(s) && Number.isFinite(x) ? String(x) : s;
}

/** A label's fields: an object, a JSON object written as a string, or else the ground-truth answer itself. */
export function labelFields(label: unknown, i: number): Record<string, unknown> {
  if (typeof label === 'string' && label.trimStart().startsWith('{')) {
    try {
      label = JSON.parse(label);
    } catch {
      throw new HttpError(400, `labels[${i}]: malformed JSON object`);
    }
  }
  if (typeof label === 'object' && label !== null && !Array.isArray(label)) return label as Record<string, unknown>;
  return { answer: label };
}

/** Correctness of a sample: the label's `correct` when it is a boolean, else its answer against the `answer` field. */
export function isCorrectSample(response: string, f: Record<string, unknown>, i: number): boolean {
  if (f.correct !== undefined) {
    if (typeof f.correct !== 'boolean') throw new HttpError(400, `labels[${i}].correct must be true or false`);
    return f.correct;
  }
  const truth = f.answer;
  if (truth !== undefined && truth !== null && typeof truth !== 'string' && typeof truth !== 'number') {
    throw new HttpError(400, `labels[${i}].answer must be a string or a number`);
  }
  const want = truth === undefined || truth === null ? null : normaliseAnswer(String(truth));
  return want !== null && extractAnswer(response) === want;
}

/** A rubric from a label or a rubricator: a list of {criterion, points}, or RLCER's JSON {rubrics: [...]}. */
export function parseRubric(x: unknown): KeyedSet & { reason?: string } {
  const list = typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>).rubrics : x;
  const fail = (reason: string) => ({ ok: false, items: [], reason });
  if (!Array.isArray(list)) return fail('rubric must be a list of {criterion, points}');
  if (list.length === 0) return fail('empty rubric');
  if (list.length > 64) return fail('more than 64 criteria');
  const items: KeyedSet['items'] = [],
    seen = new Set<string>();
  for (const [k, it] of list.entries()) {
    const o = (typeof it === 'object' && it !== null ? it : {}) as Record<string, unknown>;
    if (typeof o.criterion !== 'string' || o.criterion.trim() === '') {
      return fail(`rubric[${k}].criterion must be a non-empty string`);
    }
    if (typeof o.points !== 'number' || !Number.isFinite(o.points) || o.points === 0) {
      return fail(`rubric[${k}].points must be a non-zero number`);
    }
    const key = o.criterion.trim();
    if (seen.has(key)) return fail(`duplicate criterion ${JSON.stringify(key)}`);
    seen.add(key);
    items.push({ key, points: o.points });
  }
  return { ok: true, items };
}

/** A label's `satisfied`: {criterion: bool}, or a list of bools in the order of the sample's own rubric. */
function satisfiedOf(f: Record<string, unknown>, own: KeyedSet, i: number): Map<string, boolean> {
  const s = f.satisfied,
    out = new Map<string, boolean>();
  if (s === undefined) return out;
  if (Array.isArray(s)) {
    if (s.length !== own.items.length || s.some((b) => typeof b !== 'boolean')) {
      throw new HttpError(
        400,
        `labels[${i}].satisfied: a list needs one true/false per rubric criterion (${own.items.length})`,
      );
    }
    own.items.forEach((it, k) => out.set(it.key, s[k] as boolean));
    return out;
  }
  if (typeof s !== 'object' || s === null) {
    throw new HttpError(400, `labels[${i}].satisfied must be an object or a list`);
  }
  for (const [k, v] of Object.entries(s)) {
    if (typeof v !== 'boolean') {
      throw new HttpError(400, `labels[${i}].satisfied[${JSON.stringify(k)}] must be true or false`);
    }
    out.set(k.trim(), v);
  }
  return out;
}

// ---- LLM roles the service may have (src/models/chat.ts); null = the model's output was malformed ----

export interface LlmRoles {
  /** which of `criteria` the response satisfies */
  judge?: (prompt: string, response: string, criteria: string[]) => Promise<boolean[] | null>;
  /** a rubric written after reading the response (RLCER's rubricator) */
  writeRubric?: (prompt: string, response: string) => Promise<KeyedSet>;
  /** a score in [0, 1] per dimension (Rubicon) */
  scoreDimensions?: (prompt: string, response: string, dims: Dimension[]) => Promise<number[] | null>;
}

export interface ServiceConfig {
  /** RLCER's reward settings (defaults: the workbench's RLCER defaults) */
  rlcer: RewardSettings;
  /** group size when a label gives none (OpenRLHF's n_samples_per_prompt) */
  groupSize: number;
  /** an incomplete group is scored as it stands this long after its first sample arrived */
  groupTimeoutMs: number;
  /** Rubicon's dimensions when a label gives none */
  dimensions: Dimension[];
  aggregatorParams: AggregatorParams;
  llm: LlmRoles;
}

const s = defaultRlcerConfig;
export const defaultServiceConfig: ServiceConfig = {
  rlcer: {
    validity: s.validity,
    validityReading: s.validityReading,
    threshold: s.threshold,
    constantCorrectness: s.constantCorrectness,
    evolve: s.evolve,
    cotNorm: s.cotNorm,
    rubricatorSees: 'each_pooled',
    outcomeWeight: s.outcomeWeight,
    cotWeight: s.cotWeight,
  },
  groupSize: 8,
  groupTimeoutMs: 120_000,
  dimensions: [],
  aggregatorParams: defaultAggregatorParams,
  llm: {},
};

interface Sample {
  i: number;
  query: string;
  prompt: string;
  response: string;
  f: Record<string, unknown>;
}

function samplesOf(r: RewardRequest): Sample[] {
  return r.query.map((q, i) => ({
    i,
    query: q,
    prompt: r.prompts[i],
    response: responseOf(q, r.prompts[i]),
    f: labelFields(r.labels[i], i),
  }));
}

/** Assemble a reply from per-sample results (each with the same extra_logs keys). */
function reply(results: { reward: number; score: number; logs: Record<string, number> }[]): RewardReply {
  const extra: Record<string, number[]> = {};
  for (const k of results.length ? Object.keys(results[0].logs) : []) extra[k] = results.map((r) => r.logs[k]);
  return { rewards: results.map((r) => r.reward), scores: results.map((r) => r.score), extra_logs: extra };
}

/** Satisfaction of `keys` on one sample: the label's, the rest from the judge (or false, counted as unjudged). */
async function satisfaction(
  x: Sample,
  given: Map<string, boolean>,
  keys: string[],
  llm: LlmRoles,
): Promise<{ sat: Map<string, boolean>; unjudged: number; judgeFailures: number }> {
  const missing = keys.filter((k) => !given.has(k)),
    sat = new Map(given);
  let unjudged = 0,
    judgeFailures = 0;
  if (missing.length > 0) {
    const verdicts = llm.judge ? await llm.judge(x.prompt, x.response, missing) : null;
    if (llm.judge && verdicts === null) judgeFailures = 1;
    if (!llm.judge) unjudged = missing.length;
    missing.forEach((k, j) => sat.set(k, verdicts ? verdicts[j] : false));
  }
  return { sat, unjudged, judgeFailures };
}

// ---- per-sample routes ----

/** RLVR's outcome reward: +1.0 correct, -1.0 otherwise (no answer included); score 1.0 / 0.0. */
export function outcomeRoute(r: RewardRequest): RewardReply {
  return reply(
    samplesOf(r).map((x) => {
      const correct = isCorrectSample(x.response, x.f, x.i);
      return {
        reward: outcomeReward({ correct }),
        score: +correct,
        logs: { correct: +correct, has_answer: +(extractAnswer(x.response) !== null) },
      };
    }),
  );
}

/** EvoLM's judge score J in [0, 1]: the min-max normalised points of the satisfied criteria of the label's rubric. */
export async function evolmRoute(r: RewardRequest, c: ServiceConfig): Promise<RewardReply> {
  const xs = samplesOf(r).map((x) => {
    const rubric = parseRubric(x.f.rubric);
    if (!rubric.ok) throw new HttpError(400, `labels[${x.i}].rubric: ${rubric.reason}`);
    return { x, rubric, given: satisfiedOf(x.f, rubric, x.i) };
  });
  return reply(
    await Promise.all(
      xs.map(async ({ x, rubric, given }) => {
        const keys = rubric.items.map((it) => it.key),
          s = await satisfaction(x, given, keys, c.llm);
        const j = normalisedScore(
          rubric.items.map((it) => it.points),
          keys.map((k) => s.sat.get(k)!),
        );
        return { reward: j, score: j, logs: { unjudged: s.unjudged, judge_failures: s.judgeFailures } };
      }),
    ),
  );
}

function dimensionsOf(v: unknown, fallback: Dimension[], i: number): Dimension[] {
  if (v === undefined) return fallback;
  if (!Array.isArray(v) || v.length === 0) throw new HttpError(400, `labels[${i}].dimensions must be a non-empty list`);
  return v.map((d, k) => {
    const o = (typeof d === 'object' && d !== null ? d : {}) as Record<string, unknown>;
    if (typeof o.name !== 'string') throw new HttpError(400, `labels[${i}].dimensions[${k}].name must be a string`);
    const weight = o.weight ?? 1;
    if (typeof weight !== 'number') throw new HttpError(400, `labels[${i}].dimensions[${k}].weight must be a number`);
    const description = typeof o.description === 'string' ? { description: o.description } : {};
    return { name: o.name, weight, critical: o.critical === true, ...description };
  });
}

/** Rubicon: the label's per-dimension scores in [0, 1] (or the LLM's) through one of the aggregators. */
export async function rubiconRoute(r: RewardRequest, name: string, c: ServiceConfig): Promise<RewardReply> {
  if (!(AGGREGATORS as readonly string[]).includes(name)) {
    throw new HttpError(404, `unknown aggregator "${name}" (known: ${AGGREGATORS.join(', ')})`);
  }
  const xs = samplesOf(r).map((x) => {
    const dims = dimensionsOf(x.f.dimensions, c.dimensions, x.i);
    if (dims.length === 0) {
      throw new HttpError(400, `labels[${x.i}]: no dimensions (give "dimensions" or start the server with some)`);
    }
    const scores = x.f.scores;
    if (scores === undefined && !c.llm.scoreDimensions) {
      throw new HttpError(400, `labels[${x.i}].scores missing and no LLM judge`);
    }
    if (scores !== undefined && (!Array.isArray(scores) || scores.some((v) => typeof v !== 'number'))) {
      throw new HttpError(400, `labels[${x.i}].scores must be a list of numbers`);
    }
    return { x, dims, scores: scores as number[] | undefined };
  });
  const results = await Promise.all(
    xs.map(async ({ x, dims, scores }) => {
      const v = scores ?? (await c.llm.scoreDimensions!(x.prompt, x.response, dims));
      if (v === null) return { reward: 0, score: 0, logs: { format_failure: 1 } };
      try {
        const a = aggregate(name as AggregatorName, v, dims, c.aggregatorParams);
        return { reward: a, score: a, logs: { format_failure: 0 } };
      } catch (e) {
        if (e instanceof ConfigError) throw new HttpError(400, `labels[${x.i}]: ${e.message}`);
        throw e;
      }
    }),
  );
  return reply(results);
}

/**
 * CO-RL: 1.0 when the sample's answer equals the majority vote of its peer's answers to the same question (the label's
 * `peer_answers`: agent n-1's in CO-RL's ring) or the label's `peer_label`; 0.0 otherwise, and when the peer gave no
 * answer.
 */
export function corlRoute(r: RewardRequest): RewardReply {
  return reply(
    samplesOf(r).map((x) => {
      let label: string | null;
      if (x.f.peer_label !== undefined) {
        if (x.f.peer_label !== null && typeof x.f.peer_label !== 'string' && typeof x.f.peer_label !== 'number') {
          throw new HttpError(400, `labels[${x.i}].peer_label must be a string, a number or null`);
        }
        label = x.f.peer_label === null ? null : normaliseAnswer(String(x.f.peer_label));
      } else {
        const peers = x.f.peer_answers;
        if (!Array.isArray(peers) || peers.some((a) => a !== null && typeof a !== 'string' && typeof a !== 'number')) {
          throw new HttpError(400, `labels[${x.i}] needs peer_answers (a list of strings or null) or peer_label`);
        }
        label = majorityAnswer(peers.map((a) => (a === null ? null : normaliseAnswer(String(a)))));
      }
      const [agree] = agreementRewards([extractAnswer(x.response)], label);
      return { reward: agree, score: agree, logs: { has_peer_label: +(label !== null) } };
    }),
  );
}

// ---- RLCER: group-level ----

interface Member extends Sample {
  correct: boolean;
  rubric: KeyedSet | null;
  given: Map<string, boolean>;
  done: (v: Result | Error) => void;
}
type Result = { reward: number; score: number; logs: Record<string, number> };
interface Group {
  key: string;
  client: string;
  size: number;
  members: Member[];
  timer: NodeJS.Timeout;
}

/** A scored RLCER group, as RlcerGroups' onScored hook sees it: its members in arrival order, and their results. */
export interface ScoredGroup {
  client: string;
  key: string;
  size: number;
  incomplete: boolean;
  members: { query: string; prompt: string; response: string }[];
  results: Result[];
}

/** How a request reaches the RLCER groups: the client's namespace, and whether it sends one sample per call. */
export interface GroupCall {
  /** groups of different clients never mix ('' when the service knows no clients) */
  client?: string;
  /** the client sends one sample per call and may wait for each reply before the next (X-Reward-Call: per-sample) */
  perSample?: boolean;
}

/**
 * RLCER's rewards over groups that form across requests. A sample joins the open group of its client and key (the
 * label's `group`, else its prompt text); a group is scored when it has its size (the label's `group_size`, else the
 * service's) or, as it stands, `groupTimeoutMs` after its first sample. A scored group's key opens a new group.
 */
export class RlcerGroups {
  private open = new Map<string, Group>();
  constructor(
    private c: ServiceConfig,
    private onScored?: (g: ScoredGroup) => void,
  ) {}

  /** Groups still waiting for samples. */
  pending(): number {
    return this.open.size;
  }

  async route(r: RewardRequest, call: GroupCall = {}): Promise<RewardReply> {
    // validate every sample before any joins a group, so a bad request leaves the groups untouched
    const xs = samplesOf(r).map((x) => {
      const rubric = x.f.rubric === undefined ? null : parseRubric(x.f.rubric);
      const key = x.f.group === undefined ? `prompt:${x.prompt}` : `group:${String(x.f.group)}`;
      if (x.f.group !== undefined && typeof x.f.group !== 'string' && typeof x.f.group !== 'number') {
        throw new HttpError(400, `labels[${x.i}].group must be a string or a number`);
      }
      const size = x.f.group_size ?? this.c.groupSize;
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_SAMPLES) {
        throw new HttpError(400, `labels[${x.i}].group_size must be an integer in [1, ${MAX_SAMPLES}]`);
      }
      return {
        x,
        key,
        size,
        correct: isCorrectSample(x.response, x.f, x.i),
        rubric,
        given: satisfiedOf(x.f, rubric ?? { ok: false, items: [] }, x.i),
      };
    });
    const grouped = xs.find((x) => x.size > 1);
    if (call.perSample && grouped) {
      throw new HttpError(
        409,
        `RLCER scores groups of ${grouped.size} samples (labels[${grouped.x.i}]), and this ` +
          'client sends one sample per call (X-Reward-Call: per-sample), so each group would be scored only at the ' +
          `${this.c.groupTimeoutMs / 1000} s timeout, as a group of one: send a group's samples in one request or ` +
          'concurrently, or give group_size 1 in the label to score each sample alone (outcome reward only)',
      );
    }
    const client = call.client ?? '';
    const results = xs.map(
      ({ x, key, size, correct, rubric, given }) =>
        new Promise<Result>((resolve, reject) => {
          const done = (v: Result | Error) => (v instanceof Error ? reject(v) : resolve(v));
          this.join(client, key, size, { ...x, correct, rubric, given, done });
        }),
    );
    return reply(await Promise.all(results));
  }

  private join(client: string, key: string, size: number, m: Member): void {
    const id = JSON.stringify([client, key]);
    let g = this.open.get(id);
    if (!g) {
      g = { key, client, size, members: [], timer: setTimeout(() => this.close(id, true), this.c.groupTimeoutMs) };
      g.timer.unref();
      this.open.set(id, g);
    }
    g.members.push(m);
    if (g.members.length >= g.size) this.close(id, false);
  }

  private close(id: string, timedOut: boolean): void {
    const g = this.open.get(id);
    if (!g) return;
    this.open.delete(id);
    clearTimeout(g.timer);
    const incomplete = timedOut || g.members.length < g.size;
    scoreGroup(g.members, incomplete, this.c).then(
      (rs) => {
        this.onScored?.({
          client: g.client,
          key: g.key,
          size: g.size,
          incomplete,
          results: rs,
          members: g.members.map((m) => ({ query: m.query, prompt: m.prompt, response: m.response })),
        });
        g.members.forEach((m, k) => m.done(rs[k]));
      },
      (e: Error) => g.members.forEach((m) => m.done(e)),
    );
  }

  /** Score every open group now, as it stands (the server's shutdown). */
  flush(): void {
    for (const k of [...this.open.keys()]) this.close(k, true);
  }
}

/** One group's RLCER rewards: rubrics (label or rubricator), satisfaction (label or judge), then groupRewardsByKey. */
export async function scoreGroup(ms: Omit<Member, 'done'>[], incomplete: boolean, c: ServiceConfig): Promise<Result[]> {
  const sets = await Promise.all(
    ms.map(
      async (m) =>
        m.rubric ?? (c.llm.writeRubric ? await c.llm.writeRubric(m.prompt, m.response) : { ok: false, items: [] }),
    ),
  );
  const keys = [...new Set(sets.flatMap((st) => (st.ok ? st.items.map((it) => it.key) : [])))];
  const judged = await Promise.all(ms.map((m) => satisfaction(m, m.given, keys, c.llm)));
  const sat = new Map(keys.map((k) => [k, judged.map((j) => j.sat.get(k)!)]));
  const r = groupRewardsByKey(
    sets,
    sat,
    ms.map((m) => m.correct),
    c.rlcer,
    makeRng(0),
  );
  const pooledValid = new Set(r.sets.flatMap((v) => v.items.filter((_, k) => v.valid[k]).map((it) => it.key))).size;
  return ms.map((m, k) => ({
    reward: r.reward[k],
    score: +m.correct,
    logs: {
      outcome: r.outcome[k],
      cot: r.cot[k],
      correct: +m.correct,
      valid_criteria: pooledValid,
      group_members: ms.length,
      incomplete: +incomplete,
      rubricator_reward: r.sets[k].rubricator.evolving + r.sets[k].rubricator.format,
      rubricator_format: r.sets[k].rubricator.format,
      unjudged: judged[k].unjudged,
      judge_failures: judged[k].judgeFailures,
    },
  }));
}
