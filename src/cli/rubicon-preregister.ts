// `make rubicon-preregister`: the competing pair's pre-registration from cold-start measurements only. Samples
// PREREG_RULE.rollouts rollouts of the cold start (transformer-S, temperature 1) on both prompts of the competing
// pair for PREREG_RULE.problems training problems, scores each rollout under both families (weighted sums, soft
// dimensions as the reward reads them: the verifier's probability), and writes the correlations of the two family
// scores to results/rubicon/preregistration.csv. The rule it is judged by is committed beforehand in
// results/rubicon/preregistration-rule.md; this refuses to run without it. A few CPU-minutes at the defaults.
// Usage: tsx src/cli/rubicon-preregister.ts [--problems N] [--rollouts K] [--out FILE]
import * as fs from 'node:fs';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { ConfigError } from '../util/validate.js';
import { writeCsv } from '../io/table.js';
import { initBackend } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, sample } from '../models/policy.js';
import { learnedProbability, loadVerifier } from '../models/verifier.js';
import { makeRng } from '../util/random.js';
import { decode, encode } from '../world/vocab.js';
import { defaultWorld, drawTrainingProblem } from '../world/defaults.js';
import { weightedSum } from '../rubrics/aggregators.js';
import { coldStartCheckpoint, VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { ANCHORS, rewardVectors, TASK_PAIRS } from '../rubrics/rubicon.js';
import { taskPrompt, type TaskFamily } from '../methods/trainers/rubicon-train.js';
import { competes, PREREG_RULE, preregRows, type PreregSample } from '../methods/tables/rubicon-prereg.js';

export const PREREG_RULE_FILE = 'results/rubicon/preregistration-rule.md';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    problems: { help: 'training problems', default: String(PREREG_RULE.problems) },
    rollouts: { help: 'rollouts per prompt', default: String(PREREG_RULE.rollouts) },
    out: { help: 'output table', default: 'results/rubicon/preregistration.csv' },
  });
  if (!fs.existsSync(PREREG_RULE_FILE)) {
    throw new ConfigError(`no pre-registered rule at ${PREREG_RULE_FILE}: commit the rule before measuring`);
  }
  const nProblems = intArg('problems', a.problems, 1);
  const k = intArg('rollouts', a.rollouts, 2);
  const out = a.out;
  const ckpt = coldStartCheckpoint('S');
  checkCheckpoints(ckpt, VERIFIER_CHECKPOINT);
  await initBackend();
  const policy = loadPolicy(ckpt),
    judge = learnedProbability(loadVerifier(VERIFIER_CHECKPOINT));
  const rng = makeRng(PREREG_RULE.seed);
  const problems = Array.from({ length: nProblems }, () => drawTrainingProblem(defaultWorld, rng));
  const pair = TASK_PAIRS[PREREG_RULE.tasks],
    families = ['constraints', 'quality'] as TaskFamily[];
  const jobs = problems.flatMap((p, group) =>
    families.flatMap((prompt) => Array.from({ length: k }, () => ({ p, group, prompt }))),
  );
  const outs: string[][] = [];
  for (let i = 0; i < jobs.length; i += 128) {
    const chunk = jobs.slice(i, i + 128);
    outs.push(
      ...sample(
        policy,
        chunk.map((j) => encode(taskPrompt(j.p, j.prompt, PREREG_RULE.tasks))),
        { maxNew: 96, temperature: PREREG_RULE.temperature, topP: 1 },
        rng,
      ).map(decode),
    );
  }
  const items = jobs.map((j, i) => ({ p: j.p, completion: outs[i] }));
  const score = Object.fromEntries(
    families.map((f) => {
      const anchors = pair[f].map((n) => ANCHORS[n]);
      return [f, rewardVectors(anchors, items, judge).map((v) => weightedSum(v, anchors))];
    }),
  ) as Record<TaskFamily, number[]>;
  const samples: PreregSample[] = jobs.map((j, i) => ({
    group: j.group,
    prompt: j.prompt as PreregSample['prompt'],
    constraints: score.constraints[i],
    quality: score.quality[i],
  }));
  const rows = preregRows(samples);
  writeCsv(out, rows, [
    'tasks',
    'prompts',
    'statistic',
    'r',
    'ci_low',
    'ci_high',
    'rollouts',
    'groups',
    'constraints_mean',
    'quality_mean',
    'decisive',
    'criterion_met',
  ]);
  const f = (v: number | '') => (v === '' ? '-' : v.toFixed(3));
  for (const r of rows) {
    const met = r.criterion_met === 'yes' ? 'met' : 'NOT met';
    const verdict = r.decisive === 'yes' ? `  decisive: criterion ${met}` : '';
    const ci = `[${f(r.ci_low)}, ${f(r.ci_high)}]`;
    console.log(`${r.prompts.padEnd(11)} ${r.statistic.padEnd(13)} r ${f(r.r)}  ${ci}  n ${r.rollouts}${verdict}`);
  }
  const says = competes(rows) ? 'competes' : 'does NOT compete';
  console.log(`competing pair ${says} at the cold start (rule: ${PREREG_RULE_FILE}) -> ${out}`);
});
