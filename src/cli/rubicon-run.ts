// One Rubicon run: an aggregator and a training schedule from the cold start, with one metrics line per step
// (reward, hack rate, every dimension's mean, accuracy) and at the end final.csv: each dimension's score on both
// task families' prompts of the held-out evaluation problems (the verifier's verdicts, whatever softScores the reward
// used), accuracy per family, and the hack measures (hack_rate, check_rate, dishonest_share, stamp_share,
// mismatch_rate: src/rubrics/rubicon.ts, hackMeasures).
// Usage: tsx src/cli/rubicon-run.ts --aggregator veto --schedule stagewise [--filter yes] [--defence auto|yes|no]
//   [--tasks standard|competing] [--seed 0] [--steps N] [--out DIR]
// (--steps 0 evaluates the cold start: the `base` row of its task pair)
import { intArg, parseArgs, runMain } from '../io/args.js';
import { openRun, loadJsonConfig } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { mergeConfig } from '../io/config.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, sample } from '../models/policy.js';
import { learnedJudge, loadVerifier } from '../models/verifier.js';
import { makeRng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import { TRAIN_FAMILIES } from '../world/problems.js';
import { decode, encode } from '../world/vocab.js';
import { evalReport, familyAccuracy } from '../rl/evaluate.js';
import { mean } from '../util/stats.js';
import { coldStartCheckpoint, VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { ANCHORS, hackMeasures, rewardVectors, TASK_PAIRS } from '../rubrics/rubicon.js';
import { AGGREGATORS } from '../rubrics/aggregators.js';
import {
  defaultRubiconConfig,
  hasDefence,
  makeRubiconTrainer,
  rubiconRunDir,
  taskPrompt,
  type TaskFamily,
} from '../methods/trainers/rubicon-train.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    aggregator: `one of ${AGGREGATORS.join(', ')}`,
    schedule: 'joint, constraints_only, quality_only or stagewise',
    filter: '"yes" for central-quantile filtering (25-75%)',
    seed: { help: 'seed', default: '0' },
    steps: "RL steps (default: the config's)",
    out: 'run directory (default runs/rubicon/<the run directory of the configuration and seed>)',
    config: 'JSON overriding defaultRubiconConfig',
    'eval-problems': { help: 'problems per evaluation cell', default: '8' },
    'eval-samples': { help: 'samples per problem', default: '2' },
    defence: 'the defence rubric: auto (with the veto only, default), yes or no',
    tasks: 'task pair: standard (default) or competing',
  });
  const seed = intArg('seed', a.seed, 0);
  const cfg = mergeConfig(defaultRubiconConfig, {
    ...(a.config ? loadJsonConfig(a.config) : {}),
    ...(a.steps ? { steps: intArg('steps', a.steps, 0) } : {}),
    ...(a.aggregator ? { aggregator: a.aggregator } : {}),
    ...(a.schedule ? { schedule: a.schedule } : {}),
    ...(a.filter === 'yes' ? { filterQuantiles: [0.25, 0.75] } : {}),
    ...(a.defence ? { defence: a.defence } : {}),
    ...(a.tasks ? { tasks: a.tasks } : {}),
  });
  const perCell = intArg('eval-problems', a['eval-problems'], 1),
    n = intArg('eval-samples', a['eval-samples'], 1);
  const filtered = cfg.filterQuantiles !== null;
  const out = a.out ?? `runs/rubicon/${rubiconRunDir({ ...cfg, filter: filtered }, seed)}`;
  const ckpt = coldStartCheckpoint('S');
  checkCheckpoints(ckpt, VERIFIER_CHECKPOINT);
  const run = await openRun(
    out,
    {
      experiment: 'rubicon',
      seed,
      checkpoint: ckpt,
      verifier: VERIFIER_CHECKPOINT,
      rubicon: cfg,
      eval: { perCell, n },
    },
    await startEngine(),
  );
  const policy = loadPolicy(ckpt),
    verifier = loadVerifier(VERIFIER_CHECKPOINT);
  const trainer = makeRubiconTrainer(policy, cfg, verifier, loadPolicy(ckpt));
  const t0 = Date.now();
  for (let step = 0; step < cfg.steps; step++) {
    const m = trainer.step(step, makeRng(seed * 1_000_003 + step));
    run.log({ step, ...m });
    if ((step + 1) % 5 === 0 || step === cfg.steps - 1) {
      const rate = (step + 1) / ((Date.now() - t0) / 1000);
      console.log(
        `[rubicon ${cfg.aggregator} ${cfg.schedule}${filtered ? ' filtered' : ''} seed ${seed}] step ${step + 1}/${cfg.steps}  reward ${m.reward.toFixed(3)}  acc ${m.accuracy.toFixed(3)}  hack ${m.hack_rate.toFixed(3)}  eta ${((cfg.steps - step - 1) / rate / 60).toFixed(1)} min`,
      );
    }
  }
  // every dimension on both families' prompts (held-out problems), so the seesaw shows in one table
  const judge = learnedJudge(verifier),
    rng = makeRng(9_000_000 + seed);
  const problems = TRAIN_FAMILIES.flatMap((f) => EVAL_GRID[f].flatMap((d) => loadEvalSet(f, d).slice(0, perCell)));
  // zero steps is the untrained cold start: the reference row (aggregator none, schedule base) the seesaw is read against
  const defence = cfg.steps > 0 && hasDefence(cfg.defence, cfg.aggregator) ? 'yes' : 'no';
  const base =
    cfg.steps === 0
      ? { tasks: cfg.tasks, aggregator: 'none', defence, schedule: 'base', seed }
      : {
          tasks: cfg.tasks,
          aggregator: cfg.aggregator,
          defence,
          seed,
          schedule: `${cfg.schedule}${filtered ? '_filtered' : ''}`,
        };
  const final: (typeof base & { column: string; value: number })[] = [];
  for (const family of ['constraints', 'quality'] as TaskFamily[]) {
    const prompts = problems.flatMap((p) => Array.from({ length: n }, () => encode(taskPrompt(p, family, cfg.tasks))));
    const outs = sample(policy, prompts, { maxNew: 96, temperature: 1, topP: 1 }, rng).map(decode);
    const items = outs.map((completion, i) => ({ p: problems[Math.floor(i / n)], completion }));
    const anchors = TASK_PAIRS[cfg.tasks][family].map((nm) => ANCHORS[nm]);
    const v = rewardVectors(anchors, items, judge);
    anchors.forEach((an, k) =>
      final.push({ ...base, column: `${family}/${an.name}`, value: mean(v.map((x) => x[k])) }),
    );
    for (const [k, value] of Object.entries(hackMeasures(items))) {
      final.push({ ...base, column: `${family}/${k}`, value });
    }
  }
  for (const [family, value] of Object.entries(
    familyAccuracy(evalReport(policy, perCell, n, makeRng(1_000_000 + seed))),
  ))
    final.push({ ...base, column: `accuracy/${family}`, value });
  run.table('final', final);
  run.finish({ seconds: (Date.now() - t0) / 1000 });
  const summary = final
    .filter((r) => /accuracy|hack/.test(r.column))
    .map((r) => `${r.column} ${r.value.toFixed(3)}`)
    .join(', ');
  console.log(`[rubicon ${base.tasks} ${base.aggregator} ${base.schedule} seed ${seed}] done: ${summary}`);
});
