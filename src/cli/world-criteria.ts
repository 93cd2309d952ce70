// Pre-registration of the world's defaults: the world-level criteria, measured with the teacher, the cold-start
// model and RLVR only (no rubric method), written to results/world/criteria.csv with their thresholds.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { initBackend } from '../models/backend.js';
import { checkCheckpoints } from '../models/policy.js';
import { loadPolicy } from '../models/index.js';
import { defaultRlvrConfig } from '../methods/trainers/rlvr.js';
import { rollOutReasoner } from '../rl/trainer.js';
import { defaultWorld, drawTrainingProblem } from '../world/defaults.js';
import { isCarryFree } from '../world/problems.js';
import { writeTrace } from '../world/teacher.js';
import { isCorrect, parseTrace } from '../world/trace.js';
import { defaultColdStartData } from '../methods/trainers/coldstart.js';
import { classifyStyle } from '../rl/evaluate.js';
import { judge, type Criterion } from '../rubrics/criteria.js';
import { isValidCriterion, pearson } from '../rubrics/validity.js';
import { readCsv, writeCsv, type Row } from '../io/table.js';
import { mean } from '../rl/rollout.js';
import { makeRng } from '../util/random.js';

/** The thresholds, fixed before any rubric method runs. */
export const THRESHOLDS = {
  coldstart_accuracy_hardest: {
    max: 0.8,
    why: 'the cold start leaves clear headroom on the hardest difficulty of each family',
  },
  mixed_group_share: { min: 0.3, why: 'enough prompts whose 8 rollouts disagree for group-relative signals' },
  flawed_correct_share: {
    min: 0.05,
    why: 'bad process sometimes pays: correct answers reached through flawed processes',
  },
  step_criterion_valid_share: {
    min: 0.1,
    why: 'process features correlate with correctness among rollouts that write steps',
  },
  teacher_shortcut_accuracy: {
    min: 0.1,
    why: 'the shortcut is right on a real share of training items (carry-free ones)',
  },
  rlvr_headroom: { min: 0.1, why: 'RLVR alone does not saturate the training families (1 - final accuracy)' },
};

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    checkpoint: { help: 'cold-start checkpoint', default: 'data/checkpoints/coldstart-transformer-S.json' },
    prompts: { help: 'training prompts', default: '96' },
    rlvr: { help: 'RLVR runs folder', default: 'runs/rlvr' },
  });
  const ckpt = a.checkpoint,
    P = intArg('prompts', a.prompts, 1),
    rlvrDir = a.rlvr;
  checkCheckpoints(ckpt);
  await initBackend();
  const rows: Row[] = [];
  const add = (criterion: keyof typeof THRESHOLDS, value: number, source: string, detail = '') => {
    const t = THRESHOLDS[criterion] as { min?: number; max?: number; why: string };
    const passes = (t.min === undefined || value >= t.min) && (t.max === undefined || value <= t.max);
    rows.push({
      criterion,
      value,
      threshold: t.min !== undefined ? `>= ${t.min}` : `<= ${t.max}`,
      passes,
      source,
      detail,
      why: t.why,
    });
  };
  // 1. teacher, on the RL training distribution
  const rng = makeRng(42);
  const teach = Array.from({ length: 3000 }, () => drawTrainingProblem(defaultWorld, rng));
  const short = mean(
    teach.map((p) => +isCorrect(p, parseTrace(writeTrace(p, 'shortcut', rng, defaultColdStartData.teacher).tokens))),
  );
  add(
    'teacher_shortcut_accuracy',
    short,
    'teacher',
    `carry-free share of training problems ${mean(teach.map((p) => +isCarryFree(p))).toFixed(3)}`,
  );
  // 2. cold-start model: rollouts on training prompts
  const policy = loadPolicy(ckpt);
  const cfg = { ...defaultRlvrConfig, prompts: P, rollouts: 8 };
  const rs = rollOutReasoner(policy, cfg, makeRng(43));
  const groups = [...new Set(rs.map((r) => r.group))].map((g) => rs.filter((r) => r.group === g));
  add(
    'mixed_group_share',
    mean(groups.map((g) => +(new Set(g.map((r) => r.correct)).size > 1))),
    'coldstart',
    `${P} prompts x 8 rollouts, accuracy ${mean(rs.map((r) => +r.correct)).toFixed(3)}`,
  );
  const correct = rs.filter((r) => r.correct);
  const flawed = correct.filter(
    (r) =>
      ['shortcut', 'sloppy', 'redundant'].includes(classifyStyle(r.trace, r.problem)) ||
      !judge({ name: 'STEPOK', args: [] }, r.trace, r.problem),
  );
  add(
    'flawed_correct_share',
    correct.length ? flawed.length / correct.length : 0,
    'coldstart',
    `${flawed.length} of ${correct.length} correct rollouts`,
  );
  // process criteria among rollouts that write steps: valid pairs (prompt, criterion) by RLCER's test
  let pairs = 0,
    valid = 0;
  const corrs: number[] = [];
  for (const g of groups) {
    const steps = g.filter((r) => r.trace.passes.length > 0);
    if (steps.length < 2) continue;
    const p = steps[0].problem,
      final = p.passes[p.passes.length - 1];
    const crits: Criterion[] = [
      ...['CARRY', 'STEPOK', 'MATCH', 'VERIFY', 'REPEAT', 'ORDER'].map((name) => ({ name, args: [] }) as Criterion),
      ...final.map((c) => ({ name: 'COL', args: [c.k, c.d] }) as Criterion),
    ];
    const z = steps.map((r) => +r.correct);
    for (const c of crits) {
      const v = steps.map((r) => +judge(c, r.trace, r.problem));
      pairs++;
      if (isValidCriterion(v, z)) valid++;
      const r = pearson(v, z);
      if (r !== null) corrs.push(r);
    }
  }
  add(
    'step_criterion_valid_share',
    pairs ? valid / pairs : 0,
    'coldstart',
    `${valid} of ${pairs} (prompt, criterion) pairs; mean corr where defined ${mean(corrs).toFixed(3)}`,
  );
  // 3. cold-start headroom on the hardest difficulty, from the cold-start report
  const report = 'results/coldstart/report.csv';
  if (fs.existsSync(report)) {
    const model = path.basename(ckpt).replace(/^coldstart-|\.json$/g, '');
    const rep = readCsv(report).filter((r) => r.model === model);
    for (const f of defaultWorld.trainFamilies) {
      const cells = rep.filter((r) => r.family === f);
      const hardest = cells.reduce((m, r) => (Number(r.difficulty) > Number(m.difficulty) ? r : m), cells[0]);
      if (hardest)
        add('coldstart_accuracy_hardest', Number(hardest.accuracy), 'coldstart', `${f}, ${hardest.difficulty} digits`);
    }
  }
  // 4. RLVR headroom, from finished RLVR runs
  const runs = fs.existsSync(rlvrDir)
    ? fs.readdirSync(rlvrDir).filter((d) => fs.existsSync(path.join(rlvrDir, d, 'done.json')))
    : [];
  if (runs.length) {
    const sums = runs
      .flatMap((d) => readCsv(path.join(rlvrDir, d, 'summary.csv')))
      .filter((r) => defaultWorld.trainFamilies.includes(r.family as never));
    add(
      'rlvr_headroom',
      1 - mean(sums.map((r) => Number(r.final_accuracy))),
      'rlvr',
      `${runs.length} seed(s), mean final accuracy on the training families`,
    );
  }
  writeCsv('results/world/criteria.csv', rows);
  for (const r of rows)
    console.log(
      `${r.passes ? 'PASS' : 'FAIL'}  ${r.criterion} = ${Number(r.value).toFixed(3)} (${r.threshold})  [${r.source}] ${r.detail}`,
    );
});
