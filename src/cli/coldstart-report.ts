// `make coldstart` (report step): evaluate every cold-start checkpoint on the fixed evaluation sets.
// Writes results/coldstart/report.csv: model, family, difficulty, accuracy (avg@n), pass@n, maj@n, the share of
// each CoT style, and the rubricator's format validity rate.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { choiceArg, intArg, parseArgs, runMain } from '../io/args.js';
import { initBackend } from '../models/backend.js';
import { checkCheckpoints } from '../models/policy.js';
import { loadPolicy } from '../models/index.js';
import { evalReport } from '../rl/evaluate.js';
import { rubricFormatValidity } from '../rl/rubricator.js';
import { sampleProblem, TRAIN_FAMILIES } from '../world/problems.js';
import { EVAL_GRID } from '../world/datasets.js';
import { readCsv, writeCsv, type Row } from '../io/table.js';
import { ConfigError } from '../util/validate.js';
import { makeRng } from '../util/random.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    problems: { help: 'problems per cell', default: '32' },
    samples: { help: 'samples per problem', default: '8' },
    out: { help: 'output CSV', default: 'results/coldstart/report.csv' },
    models:
      'comma-separated models to (re-)evaluate, e.g. transformer-M; the others keep their rows in the output CSV (default: all)',
    'rubric-reads': {
      help: 'what the rubricator reads before writing: own_cot (one of its own CoTs) or question (the question alone)',
      default: 'own_cot',
    },
  });
  const reads = choiceArg('rubric-reads', a['rubric-reads'], ['own_cot', 'question'] as const);
  const perCell = intArg('problems', a.problems, 1),
    n = intArg('samples', a.samples, 1),
    out = a.out;
  const files = fs
    .readdirSync('data/checkpoints')
    .filter((f) => /^coldstart-.*\.json$/.test(f))
    .sort();
  if (files.length === 0)
    throw new ConfigError('no cold-start checkpoints in data/checkpoints; run make coldstart first');
  const all = files.map((f) => f.replace(/^coldstart-|\.json$/g, ''));
  const only = a.models ? a.models.split(',') : all;
  const unknown = only.filter((m) => !all.includes(m));
  if (unknown.length)
    throw new ConfigError(`no cold-start checkpoint for ${unknown.join(', ')} (have: ${all.join(', ')})`);
  // each model is evaluated from its own seeded RNG, so re-evaluating one leaves the others' rows as they would be
  const rows: Row[] =
    fs.existsSync(out) && a.models
      ? readCsv(out).filter((r) => all.includes(String(r.model)) && !only.includes(String(r.model)))
      : [];
  const mismatch = rows.find((r) => Number(r.problems) !== perCell || Number(r.samples) !== n);
  if (mismatch)
    throw new ConfigError(
      `${out} has ${mismatch.model} evaluated on ${mismatch.problems} problems x ${mismatch.samples} samples per cell, not ${perCell} x ${n}: use the same --problems and --samples, or re-evaluate every model`,
    );
  checkCheckpoints(...files.filter((_, i) => only.includes(all[i])).map((f) => path.join('data/checkpoints', f)));
  await initBackend();
  for (const [i, f] of files.entries()) {
    const model = all[i];
    if (!only.includes(model)) continue;
    const policy = loadPolicy(path.join('data/checkpoints', f));
    const rng = makeRng(7);
    const rubricProblems = Array.from({ length: 96 }, (_, i) => {
      const fam = TRAIN_FAMILIES[i % 3];
      return sampleProblem(fam, EVAL_GRID[fam][i % EVAL_GRID[fam].length], rng);
    });
    const rubric = rubricFormatValidity(policy, rubricProblems, rng, 1, reads);
    for (const r of evalReport(policy, perCell, n, rng)) {
      rows.push({
        model,
        ...r,
        rubric_format_validity: rubric.valid,
        ...(reads === 'question' ? { rubric_reads: reads } : {}),
      });
    }
    console.log(
      `${model}: rubric format validity ${rubric.valid.toFixed(3)}; failures ${JSON.stringify(rubric.reasons)}`,
    );
  }
  writeCsv(
    out,
    rows.sort((x, y) => all.indexOf(String(x.model)) - all.indexOf(String(y.model))),
  );
  console.log(`cold-start report -> ${out}`);
});
