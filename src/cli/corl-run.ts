// One label-free run: a method on one group of agents (one model, or a CO-RL ring), from their cold starts.
// Before training: each agent's per-problem probability of a correct answer on the held-out evaluation problems
// (and, for a ring, the error overlap of neighbours under each protocol of --overlap-protocols). Every step: one
// metrics line. At the end: accuracy per family and agent (final.csv), the theory's per-problem predictions (the
// separatrix and the plurality rule) against what training did (theory.csv, per_problem.json), and 3 final
// completions per family and agent (samples.csv).
// Usage: tsx src/cli/corl-run.ts --method corl_diff_family [--group 0] [--seed 0] [--steps N] [--out DIR] [--config F]
//        [--agents transformer-S,gru-S]  (override the method's agents, e.g. for a smoke run)
//        [--overlap-protocols paper,multi_sample]  (src/methods/tables/table1.ts OVERLAP_PROTOCOLS; default both)
import * as fs from 'node:fs';
import { choiceListArg, intArg, parseArgs, runMain } from '../io/args.js';
import { openRun, loadJsonConfig } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { mergeConfig } from '../io/config.js';
import { ConfigError } from '../util/validate.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, saveCheckpoint } from '../models/policy.js';
import { makeRng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import { TRAIN_FAMILIES } from '../world/problems.js';
import { evalReport, familyAccuracy, majorityAnswer } from '../rl/evaluate.js';
import { defaultLabelFreeConfig, makeLabelFreeTrainer } from '../methods/trainers/label-free.js';
import {
  completionRows,
  correctShare,
  pairOverlap,
  predictCoTraining,
  predictionAgreement,
  predictPlurality,
  predictPooledPlurality,
  predictSelfReward,
  sampleAnswers,
  sampleProblems,
  THEORY_RULES,
} from '../rl/corl-analysis.js';
import { agentCheckpoint, corlMethodSpec, OVERLAP_PROTOCOLS, type OverlapProtocol } from '../methods/tables/table1.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    method: { help: 'method id (src/methods/tables/table1.ts)', default: 'corl_diff_family' },
    group: { help: 'which agent group of the method', default: '0' },
    seed: { help: 'seed', default: '0' },
    steps: "RL steps (default: the config's)",
    out: 'run directory (default runs/corl/<method>/<agents>/seed-<seed>)',
    config: 'JSON overriding defaultLabelFreeConfig',
    agents: "comma-separated agent names (overrides the method's)",
    'eval-problems': { help: 'problems per evaluation cell', default: '16' },
    'eval-samples': { help: 'samples per problem', default: '4' },
    'theory-samples': { help: 'samples per problem for p estimates', default: '8' },
    'overlap-protocols': {
      help: 'comma-separated error-overlap protocols',
      default: Object.keys(OVERLAP_PROTOCOLS).join(','),
    },
  });
  const id = a.method,
    spec = corlMethodSpec(id),
    seed = intArg('seed', a.seed, 0);
  const group = intArg('group', a.group, 0);
  if (group >= spec.agents.length)
    throw new ConfigError(`method ${id} has ${spec.agents.length} agent group(s); --group ${group} does not exist`);
  const names = a.agents ? a.agents.split(',') : spec.agents[group];
  const cfg = mergeConfig(defaultLabelFreeConfig, {
    ...spec.labelFree,
    ...(a.config ? loadJsonConfig(a.config) : {}),
    ...(a.steps ? { steps: intArg('steps', a.steps, 0) } : {}),
    ...(spec.method === 'base' ? { steps: 0 } : { method: spec.method }),
  });
  const perCell = intArg('eval-problems', a['eval-problems'], 1),
    evalN = intArg('eval-samples', a['eval-samples'], 1);
  const thN = intArg('theory-samples', a['theory-samples'], 1);
  const known = Object.keys(OVERLAP_PROTOCOLS) as OverlapProtocol[];
  const protocols = choiceListArg('overlap-protocols', a['overlap-protocols'], known);
  const out = a.out ?? `runs/corl/${id}/${names.join('+')}/seed-${seed}`;
  checkCheckpoints(...names.map(agentCheckpoint));
  const run = await openRun(
    out,
    {
      experiment: 'corl',
      method: id,
      agents: names,
      checkpoints: names.map(agentCheckpoint),
      seed,
      labelFree: cfg,
      eval: { perCell, evalN, thN, overlapProtocols: protocols },
    },
    await startEngine(),
  );
  const agents = names.map((n) => loadPolicy(agentCheckpoint(n)));

  // held-out problems for the theory link: the training families' evaluation sets, past the accuracy-eval slice
  const problems = TRAIN_FAMILIES.flatMap((f) =>
    EVAL_GRID[f].flatMap((d) => loadEvalSet(f, d).slice(50, 50 + perCell)),
  );
  const before = agents.map((ag, n) => sampleAnswers(ag, problems, thN, makeRng(7_000_000 + 31 * seed + n)));
  if (agents.length > 1) {
    // each agent with the one that supervises it (for two agents, the one pair), under each protocol: multi_sample
    // pairs the p-estimate draws above; paper draws one answer per problem at 0.8 from an RNG of its own
    const { samples, temperature } = OVERLAP_PROTOCOLS.paper;
    const draws = (p: OverlapProtocol) =>
      p === 'multi_sample'
        ? before
        : agents.map((ag, n) => sampleAnswers(ag, problems, samples, makeRng(9_000_000 + 31 * seed + n), temperature));
    run.table(
      'overlap',
      protocols.flatMap((protocol) => {
        const ans = draws(protocol);
        return (agents.length === 2 ? [0] : agents.map((_, n) => n)).map((n) => {
          const m = (n + agents.length - 1) % agents.length,
            o = pairOverlap(problems, ans[n], ans[m]);
          const pair = `${names[n]}|${names[m]}`;
          return { pair, protocol, kappa: o.kappa, c: o.complementarity, w: o.wrongAgreement, u: o.oracle };
        });
      }),
    );
  }

  const t0 = Date.now();
  if (spec.method !== 'base') {
    const trainer = makeLabelFreeTrainer(agents, cfg);
    for (let step = 0; step < cfg.steps; step++) {
      const m = trainer.step(makeRng(seed * 1_000_003 + step));
      run.log({ step, ...m });
      if ((step + 1) % 10 === 0 || step === cfg.steps - 1) {
        const rate = (step + 1) / ((Date.now() - t0) / 1000);
        console.log(
          `[${id} ${names.join('+')} seed ${seed}] step ${step + 1}/${cfg.steps}  ${names.map((nm, n) => `${nm} acc ${m[`agent${n}/accuracy`].toFixed(3)} std ${m[`agent${n}/reward_std`].toFixed(3)}`).join('  ')}${m.agreement !== undefined ? `  agreement ${m.agreement.toFixed(2)}` : ''}  eta ${((cfg.steps - step - 1) / rate / 60).toFixed(1)} min`,
        );
      }
    }
  }

  // final accuracy per family and agent; the theory's prediction against each agent's outcome per problem
  const final = agents.flatMap((ag, n) =>
    Object.entries(familyAccuracy(evalReport(ag, perCell, evalN, makeRng(1_000_000 + seed)))).map(
      ([column, value]) => ({ method: id, agent: names[n], seed, column, value }),
    ),
  );
  for (const n of names.keys()) {
    const rows = final.filter((r) => r.agent === names[n]);
    final.push({
      method: id,
      agent: names[n],
      seed,
      column: 'average',
      value: rows.reduce((s, r) => s + r.value, 0) / rows.length,
    });
  }
  run.table('final', final);
  const after = agents.map((ag, n) => sampleAnswers(ag, problems, thN, makeRng(8_000_000 + 31 * seed + n)));
  const p0 = before.map((ans) => correctShare(problems, ans));
  const outcomes = after.map((ans) => problems.map((p, j) => majorityAnswer(ans[j]) === p.answer.join('')));
  // two rules per agent: the binary separatrix (pA + pB > 1 with the supervisor; p > 1/2 alone) and the plurality of
  // the initial answers (pooled with the supervisor's for co-training)
  const co = spec.method === 'corl',
    sup = (n: number) => (n + agents.length - 1) % agents.length;
  const predictions = {
    separatrix: agents.map((_, n) => (co ? predictCoTraining(p0[n], p0[sup(n)]) : predictSelfReward(p0[n]))),
    plurality: agents.map((_, n) =>
      co ? predictPooledPlurality(problems, before[n], before[sup(n)]) : predictPlurality(problems, before[n]),
    ),
  };
  const conditions = {
    separatrix: co ? 'pA + pB > 1' : 'p > 1/2',
    plurality: co ? 'pooled plurality correct' : 'plurality correct',
  };
  const share = (x: boolean[]) => x.filter(Boolean).length / problems.length;
  const theory = THEORY_RULES.flatMap((rule) =>
    agents.map((_, n) => {
      const outcome = outcomes[n],
        predicted = predictions[rule][n];
      return {
        method: id,
        agent: names[n],
        seed,
        problems: problems.length,
        rule,
        condition: conditions[rule],
        predicted_correct: share(predicted),
        actual_correct: share(outcome),
        agreement: predictionAgreement(predicted, outcome),
      };
    }),
  );
  run.table('theory', theory);
  // a few final completions per family and agent, so that a reader sees what the trained policy writes
  const shown = sampleProblems(3);
  run.table(
    'samples',
    agents.flatMap((ag, n) =>
      completionRows(ag, shown, makeRng(9_500_000 + 31 * seed + n)).map((r) => ({
        method: id,
        agent: names[n],
        seed,
        ...r,
      })),
    ),
  );
  agents.forEach((ag, n) =>
    saveCheckpoint(ag, `${out}/agent-${n}.json`, { agent: names[n], method: id, seed, steps: cfg.steps }),
  );
  fs.writeFileSync(
    `${out}/per_problem.json`,
    JSON.stringify({
      agents: names,
      problems: problems.map((p) => `${p.family}:${p.operands.join(',')}`),
      p0,
      p1: after.map((ans) => correctShare(problems, ans)),
      outcome: outcomes,
      predicted: predictions,
    }),
  );
  run.finish({ seconds: (Date.now() - t0) / 1000 });
  const averages = final
    .filter((r) => r.column === 'average')
    .map((r) => `${r.agent} ${r.value.toFixed(3)}`)
    .join(', ');
  const agreements = theory.map((t) => `${t.agent} ${t.rule} ${t.agreement.toFixed(2)}`).join(', ');
  console.log(`[${id} ${names.join('+')} seed ${seed}] done: ${averages}; theory agreement ${agreements}`);
});
