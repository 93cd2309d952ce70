// `make sparse-criterion`: the clean instrument's sparse regime, chosen on the cold start alone
// (results/sensitivity2/sparse-criterion.md). Each candidate is a checkpoint of one SFT run of the wide mixture
// (every column the candidate cells need is in its data) at a smaller budget than the committed one; on each candidate
// cell it measures the per-sample pass, the per-step accuracy of every column, the well-formed share, the all-wrong
// groups of 8 rollouts and the process score's within-group spread (src/rl/sparse-criterion.ts), applies the
// criterion and the rule (the largest budget with a cell meeting every threshold; the regime trains on every cell
// meeting them there). No RL run and no accuracy of a compared method is read.
// Usage: tsx src/cli/sparse-criterion.ts [--budgets 2000,...] [--checkpoints runs/coldstart/wide-budget-{budget}.json]
//   [--cells add-7,sub-7,chain-6] [--problems 64] [--samples 8] [--out results/sensitivity2/sparse-criterion.csv]
//   [--chosen-out data/checkpoints/coldstart-transformer-S-wide-{budget}.json] [--step-measure free|forced]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, intListArg, parseArgs, runMain } from '../io/args.js';
import { initBackend, tf } from '../models/backend.js';
import { checkCheckpoints } from '../models/policy.js';
import { loadPolicy } from '../models/index.js';
import { evaluateReasoner } from '../rl/evaluate.js';
import { chooseSparseRegime, knownStepAccuracy, measureCell, sparseCriterion } from '../rl/sparse-criterion.js';
import { EVAL_SEED, generateEvalSet } from '../world/datasets.js';
import { checkFamily, passWidths, type Family } from '../world/problems.js';
import { writeCsv, type Row } from '../io/table.js';
import { ConfigError } from '../util/validate.js';
import { sha256Hex } from '../io/checksums.js';
import { codeVersion } from '../io/run.js';
import { makeRng } from '../util/random.js';

/** The candidate SFT budgets (steps of batch 64), committed before any was measured. */
export const SPARSE2_BUDGETS = [2000, 2250, 2500, 2750, 3000, 3250, 3500, 3750, 4000, 4250, 4500];
/** The candidate cells: the hardest of each family in the wide mixture (columns C0-C6, all in its SFT data). */
export const SPARSE2_CELLS = 'add-7,sub-7,chain-6';
/** The criterion's problems: drawn like the evaluation sets, from a seed of their own (not the test set's). */
export const SPARSE2_SEED = EVAL_SEED + 2;

const parseCell = (s: string): { family: Family; digits: number } => {
  const m = /^([a-z_]+)-(\d+)$/.exec(s.trim());
  if (!m) throw new ConfigError(`--cells: "${s}" is not family-digits`);
  return { family: checkFamily(m[1]), digits: Number(m[2]) };
};
const fmt = (x: number | null) => (x === null ? '' : x);

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    budgets: { help: 'candidate SFT budgets', default: SPARSE2_BUDGETS.join(',') },
    checkpoints: {
      help: 'checkpoint of each budget ({budget} replaced)',
      default: 'runs/coldstart/wide-budget-{budget}.json',
    },
    cells: { help: 'candidate training cells', default: SPARSE2_CELLS },
    problems: { help: 'problems (groups) per cell', default: '64' },
    samples: { help: 'rollouts per group', default: '8' },
    out: { help: 'output CSV', default: 'results/sensitivity2/sparse-criterion.csv' },
    'chosen-out': "copy the chosen budget's checkpoint here ({budget} replaced); nothing copied when none is chosen",
    'step-measure': {
      help:
        'what the per-step threshold reads: free (sampled traces against the truth) or forced ' +
        '(amendment 2: each step given the right trace before it)',
      default: 'free',
    },
  });
  if (a['step-measure'] !== 'free' && a['step-measure'] !== 'forced')
    throw new ConfigError(`--step-measure must be free or forced (got "${a['step-measure']}")`);
  const forced = a['step-measure'] === 'forced';
  const budgets = intListArg('budgets', a.budgets, 1),
    cells = a.cells.split(',').map(parseCell),
    perCell = intArg('problems', a.problems, 1),
    n = intArg('samples', a.samples, 2);
  const files = budgets.map((b) => a.checkpoints.replaceAll('{budget}', String(b)));
  checkCheckpoints(...files);
  await initBackend();
  const code = codeVersion();
  const maxCols = Math.max(...cells.flatMap((c) => passWidths(c.family, c.digits)));
  const rows: Row[] = [],
    verdicts: { budget: number; cell: string; meets: boolean }[] = [];
  for (const [i, budget] of budgets.entries()) {
    const file = files[i],
      policy = loadPolicy(file),
      sha = sha256Hex(fs.readFileSync(file)).slice(0, 16);
    for (const { family, digits } of cells) {
      const cell = `${family}-${digits}`;
      const t0 = Date.now();
      // the same problems and sampling stream at every budget (common random numbers across candidates)
      const problems = generateEvalSet(family, digits, SPARSE2_SEED, perCell);
      const res = evaluateReasoner(policy, problems, n, makeRng(7919 * digits + family.length));
      const m = measureCell(res.map((r) => ({ problem: r.problem, traces: r.traces })));
      const knownCols = forced ? knownStepAccuracy(policy, problems) : null;
      const v = sparseCriterion(knownCols ? { ...m, stepAccuracy: knownCols } : m);
      verdicts.push({ budget, cell, meets: v.meets });
      const known = m.stepAccuracy.filter((x): x is number => x !== null),
        knownAll = m.stepAccuracyAll.filter((x): x is number => x !== null);
      const row: Row = {
        budget,
        checkpoint: file,
        checkpoint_sha256: sha,
        cell,
        groups: m.groups,
        samples: m.samples,
        pass: m.pass,
        step_acc_min: Math.min(...known),
        well_formed: m.wellFormed,
        meets: v.meets ? 'yes' : 'no',
        failed: v.failed.join('; '),
        chosen: '',
        all_wrong_groups: m.allWrongGroups,
        process_mean: m.processMean,
        process_sd_within: m.processSdWithin,
        process_spread_groups: m.processSpreadGroups,
        process_sd_within_all_wrong: fmt(m.processSdWithinAllWrong),
        step_writing: m.stepWriting,
        step_acc_all_min: Math.min(...knownAll),
      };
      for (let k = 0; k < maxCols; k++) row[`step_acc_c${k}`] = fmt(m.stepAccuracy[k] ?? null);
      if (knownCols) {
        row.known_min = Math.min(...knownCols.filter((x): x is number => x !== null));
        for (let k = 0; k < maxCols; k++) row[`known_c${k}`] = fmt(knownCols[k] ?? null);
      }
      row.code = code;
      rows.push(row);
      console.log(
        `budget ${budget} ${cell}: pass ${m.pass.toFixed(3)}, step min ${Math.min(...known).toFixed(3)} ` +
          `(${known.map((x) => x.toFixed(2)).join(' ')}), well-formed ${m.wellFormed.toFixed(3)}, ` +
          `all-wrong ${m.allWrongGroups.toFixed(3)}, process sd within ${m.processSdWithin.toFixed(3)}` +
          `${knownCols ? `, known (forced) ${knownCols.map((x) => (x ?? 0).toFixed(2)).join(' ')}` : ''}` +
          `${v.meets ? '  MEETS' : `  (fails: ${v.failed.join(', ')})`}  ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
    tf.dispose(Object.values(policy.weights));
  }
  const choice = chooseSparseRegime(verdicts);
  for (const r of rows)
    r.chosen = choice && r.budget === choice.budget && choice.cells.includes(String(r.cell)) ? 'yes' : 'no';
  writeCsv(a.out, rows);
  console.log(`sparse criterion -> ${a.out}`);
  if (!choice) {
    console.log('no candidate meets every criterion: no sparse regime is chosen');
    return;
  }
  console.log(`chosen: budget ${choice.budget}, cells ${choice.cells.join(', ')}`);
  if (a['chosen-out']) {
    const to = a['chosen-out'].replaceAll('{budget}', String(choice.budget));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(files[budgets.indexOf(choice.budget)], to);
    console.log(`chosen checkpoint -> ${to}`);
  }
});
