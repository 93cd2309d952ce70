// One label-free run: a method on one group of agents (one model, or a CO-RL ring), from their cold starts.
// Before training: each agent's per-problem probability of a correct answer on the held-out evaluation problems
// (and, for a ring, the error overlap of neighbours). Every step: one metrics line. At the end: accuracy per
// family and agent (final.csv), and the theory's per-problem prediction against what training did (theory.csv).
// Usage: tsx src/cli/corl-run.ts --method corl_diff_family [--group 0] [--seed 0] [--steps N] [--out DIR] [--config F]
//        [--agents transformer-S,gru-S]  (override the method's agents, e.g. for a smoke run)
import * as fs from 'node:fs';
import { intArg, parseArgs, runMain } from './args.js';
import { openRun, loadJsonConfig } from '../io/run.js';
import { mergeConfig } from '../io/config.js';
import { ConfigError } from '../io/validate.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, saveCheckpoint } from '../models/policy.js';
import { makeRng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import type { Family } from '../world/problems.js';
import { evalReport, familyAccuracy, majorityAnswer } from '../rl/evaluate.js';
import { defaultLabelFreeConfig, makeLabelFreeTrainer } from '../methods/label-free.js';
import { correctShare, pairOverlap, predictCoTraining, predictionAgreement, predictSelfReward, sampleAnswers } from '../methods/corl-analysis.js';
import { agentCheckpoint, corlMethodSpec } from '../methods/table1.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    method: 'method id (src/methods/table1.ts)', group: 'which agent group of the method (default 0)', seed: 'seed', steps: 'RL steps',
    out: 'run directory', config: 'JSON overriding defaultLabelFreeConfig', agents: 'comma-separated agent names (overrides the method\'s)',
    'eval-problems': 'problems per evaluation cell (default 16)', 'eval-samples': 'samples per problem (default 4)', 'theory-samples': 'samples per problem for p estimates (default 8)',
  });
  const id = a.method ?? 'corl_diff_family', spec = corlMethodSpec(id), seed = intArg('seed', a.seed ?? '0', 0);
  const group = intArg('group', a.group ?? '0', 0);
  if (group >= spec.agents.length) throw new ConfigError(`method ${id} has ${spec.agents.length} agent group(s); --group ${group} does not exist`);
  const names = a.agents ? a.agents.split(',') : spec.agents[group];
  const cfg = mergeConfig(defaultLabelFreeConfig, { ...spec.labelFree, ...(a.config ? loadJsonConfig(a.config) : {}), ...(a.steps ? { steps: intArg('steps', a.steps, 0) } : {}),
    ...(spec.method === 'base' ? { steps: 0 } : { method: spec.method }) });
  const perCell = intArg('eval-problems', a['eval-problems'] ?? '16', 1), evalN = intArg('eval-samples', a['eval-samples'] ?? '4', 1);
  const thN = intArg('theory-samples', a['theory-samples'] ?? '8', 1);
  const out = a.out ?? `runs/corl/${id}/${names.join('+')}/seed-${seed}`;
  checkCheckpoints(...names.map(agentCheckpoint));
  const run = await openRun(out, { experiment: 'corl', method: id, agents: names, checkpoints: names.map(agentCheckpoint), seed, labelFree: cfg, eval: { perCell, evalN, thN } });
  const agents = names.map((n) => loadPolicy(agentCheckpoint(n)));

  // held-out problems for the theory link: the training families' evaluation sets, past the accuracy-eval slice
  const problems = (['add', 'sub', 'chain'] as Family[]).flatMap((f) => EVAL_GRID[f].flatMap((d) => loadEvalSet(f, d).slice(50, 50 + perCell)));
  const before = agents.map((ag, n) => sampleAnswers(ag, problems, thN, makeRng(7_000_000 + 31 * seed + n)));
  if (agents.length > 1) {
    // each agent with the one that supervises it (for two agents, the one pair)
    run.table('overlap', (agents.length === 2 ? [0] : agents.map((_, n) => n)).map((n) => {
      const m = (n + agents.length - 1) % agents.length, o = pairOverlap(problems, before[n], before[m]);
      return { pair: `${names[n]}|${names[m]}`, kappa: o.kappa, c: o.complementarity, w: o.wrongAgreement, u: o.oracle };
    }));
  }

  const t0 = Date.now();
  if (spec.method !== 'base') {
    const trainer = makeLabelFreeTrainer(agents, cfg);
    for (let step = 0; step < cfg.steps; step++) {
      const m = trainer.step(makeRng(seed * 1_000_003 + step));
      run.log({ step, ...m });
      if ((step + 1) % 10 === 0 || step === cfg.steps - 1) {
        const rate = (step + 1) / ((Date.now() - t0) / 1000);
        console.log(`[${id} ${names.join('+')} seed ${seed}] step ${step + 1}/${cfg.steps}  ${names.map((nm, n) => `${nm} acc ${m[`agent${n}/accuracy`].toFixed(3)} std ${m[`agent${n}/reward_std`].toFixed(3)}`).join('  ')}${m.agreement !== undefined ? `  agreement ${m.agreement.toFixed(2)}` : ''}  eta ${((cfg.steps - step - 1) / rate / 60).toFixed(1)} min`);
      }
    }
  }

  // final accuracy per family and agent; the theory's prediction against each agent's outcome per problem
  const final = agents.flatMap((ag, n) => Object.entries(familyAccuracy(evalReport(ag, perCell, evalN, makeRng(1_000_000 + seed))))
    .map(([column, value]) => ({ method: id, agent: names[n], seed, column, value })));
  for (const n of names.keys()) {
    const rows = final.filter((r) => r.agent === names[n]);
    final.push({ method: id, agent: names[n], seed, column: 'average', value: rows.reduce((s, r) => s + r.value, 0) / rows.length });
  }
  run.table('final', final);
  const after = agents.map((ag, n) => sampleAnswers(ag, problems, thN, makeRng(8_000_000 + 31 * seed + n)));
  const p0 = before.map((ans) => correctShare(problems, ans));
  const outcomes = after.map((ans) => problems.map((p, j) => majorityAnswer(ans[j]) === p.answer.join('')));
  const theory = agents.map((_, n) => {
    const outcome = outcomes[n];
    const predicted = spec.method === 'corl' ? predictCoTraining(p0[n], p0[(n + agents.length - 1) % agents.length]) : predictSelfReward(p0[n]);
    return { method: id, agent: names[n], seed, problems: problems.length, rule: spec.method === 'corl' ? 'pA + pB > 1' : 'p > 1/2',
      predicted_correct: predicted.filter(Boolean).length / problems.length, actual_correct: outcome.filter(Boolean).length / problems.length,
      agreement: predictionAgreement(predicted, outcome) };
  });
  run.table('theory', theory);
  agents.forEach((ag, n) => saveCheckpoint(ag, `${out}/agent-${n}.json`, { agent: names[n], method: id, seed, steps: cfg.steps }));
  fs.writeFileSync(`${out}/per_problem.json`, JSON.stringify({ agents: names, problems: problems.map((p) => `${p.family}:${p.operands.join(',')}`), p0,
    p1: after.map((ans) => correctShare(problems, ans)), outcome: outcomes }));
  run.finish({ seconds: (Date.now() - t0) / 1000 });
  console.log(`[${id} ${names.join('+')} seed ${seed}] done: ${final.filter((r) => r.column === 'average').map((r) => `${r.agent} ${r.value.toFixed(3)}`).join(', ')}; theory agreement ${theory.map((t) => t.agreement.toFixed(2)).join(', ')}`);
});
