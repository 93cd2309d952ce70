// CO-RL's matched-budget check: two independently self-rewarded agents (TTRL on each model) pooled at inference
// against the co-trained pair pooled the same way: per held-out problem, k samples from each agent, one majority
// vote over the 2k answers. Reads the agent checkpoints of finished `make reproduce-corl` runs; writes per-seed rows
// to runs/corl/<profile>/matched_budget.csv, and for an archived profile (full) to its run archive too.
// Usage: tsx src/cli/corl-ensemble.ts [--profile quick|full] [--samples 4] [--problems 16]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { initBackend } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { writeCsv } from '../io/table.js';
import { makeRng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import type { Family } from '../world/problems.js';
import { majorityAnswer } from '../rl/evaluate.js';
import { sampleAnswers } from '../rl/corl-analysis.js';
import { CORL_ARCHIVE, corlProfile } from '../methods/tables/table1.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    profile: { help: 'quick or full', default: 'quick' },
    samples: { help: 'samples per agent and problem', default: '4' },
    problems: { help: 'problems per cell', default: '16' },
  });
  const name = a.profile,
    profile = corlProfile(name);
  const k = intArg('samples', a.samples, 1),
    perCell = intArg('problems', a.problems, 1);
  await initBackend();
  const root = `runs/corl/${name}`,
    ck = (method: string, group: string, seed: number, n: number) =>
      path.join(root, method, group, `seed-${seed}`, `agent-${n}.json`);
  const ensembles = (seed: number) => [
    { ensemble: 'self_rewarded_pair', files: [ck('ttrl', 'transformer-S', seed, 0), ck('ttrl', 'gru-S', seed, 0)] },
    {
      ensemble: 'co_trained_pair',
      files: [
        ck('corl_diff_family', 'transformer-S+gru-S', seed, 0),
        ck('corl_diff_family', 'transformer-S+gru-S', seed, 1),
      ],
    },
    // the same comparison for the pair matched in cold-start strength
    {
      ensemble: 'self_rewarded_matched_pair',
      files: [ck('ttrl', 'transformer-S-seed1', seed, 0), ck('ttrl', 'gru-M', seed, 0)],
    },
    {
      ensemble: 'co_trained_matched_pair',
      files: [0, 1].map((n) => ck('corl_diff_family_matched', 'transformer-S-seed1+gru-M', seed, n)),
    },
  ];
  const rows: { ensemble: string; seed: number; family: string; value: number }[] = [];
  for (const seed of profile.seeds)
    for (const e of ensembles(seed)) {
      if (!e.files.every((f) => fs.existsSync(f))) {
        console.log(`[corl-ensemble] ${e.ensemble} seed ${seed}: runs not finished, skipped`);
        continue;
      }
      const agents = e.files.map((f) => loadPolicy(f));
      for (const family of Object.keys(EVAL_GRID) as Family[]) {
        const problems = EVAL_GRID[family].flatMap((d) => loadEvalSet(family, d).slice(0, perCell));
        const answers = agents.map((ag, n) => sampleAnswers(ag, problems, k, makeRng(10_000_000 + 97 * seed + n)));
        const correct = problems.map((p, j) => +(majorityAnswer(answers.flatMap((x) => x[j])) === p.answer.join('')));
        rows.push({ ensemble: e.ensemble, seed, family, value: correct.reduce((s, x) => s + x, 0) / correct.length });
      }
      console.log(
        `[corl-ensemble] ${e.ensemble} seed ${seed}: ${rows
          .filter((r) => r.seed === seed && r.ensemble === e.ensemble)
          .map((r) => `${r.family} ${r.value.toFixed(3)}`)
          .join(', ')}`,
      );
    }
  if (rows.length === 0) {
    console.log(`[corl-ensemble] no finished TTRL / CO-RL pairs under ${root}: nothing to pool`);
    return;
  }
  // raw per-seed rows beside the runs; analysis/table1.ts aggregates them (mean, interval, the matched-budget claim)
  writeCsv(path.join(root, 'matched_budget.csv'), rows);
  // an archived profile keeps them with its run records: they need the agents' weights, which are not archived
  if (profile.archived) writeCsv(path.join(CORL_ARCHIVE, name, 'matched_budget.csv'), rows);
  console.log(
    `matched-budget ensembles -> ${path.join(root, 'matched_budget.csv')} (aggregated by analysis/table1.ts)`,
  );
});
