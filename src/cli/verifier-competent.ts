// `make verifier-competent`: the competent verifier (docs/verifier.md). Distils the column-aligned verifier
// (src/models/aligned-verifier.ts) from the teacher's labels on the cold start's rollouts and their perturbed copies,
// keeps the checkpoint with the best selection score on held-out pairs (src/methods/trainers/verifier.ts),
// then measures it beside today's learned verifier on the learned verifier's own held-out pairs (`make verifier`'s
// held-out set, drawn again from its seed) -> results/verifier/competent.csv; saves data/checkpoints/verifier-competent-S.json.
// `--drift yes` measures both again on teacher-labelled pairs of drifted policies -> results/verifier/drift.csv.
import fs from 'node:fs';
import path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { openRun } from '../io/run.js';
import { readGzipLines } from '../io/gzip-lines.js';
import { writeCsv } from '../io/table.js';
import { ConfigError } from '../util/validate.js';
import { startEngine } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { checkCheckpoints, type Policy } from '../models/policy.js';
import {
  alignedJudge,
  defaultAlignedConfig,
  loadAlignedVerifier,
  saveAlignedVerifier,
} from '../models/aligned-verifier.js';
import { learnedJudge, loadVerifier } from '../models/verifier.js';
import {
  competentData,
  judgeAccuracy,
  labelledPairs,
  pairsOf,
  selectionScore,
  trainCompetent,
  distillationData,
  type LabelledExample,
} from '../methods/trainers/verifier.js';
import { COMPETENT_VERIFIER_CHECKPOINT, VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { makeRng } from '../util/random.js';
import { checkFamily, solve } from '../world/problems.js';
import { parseTrace } from '../world/trace.js';

const floatList = (name: string, s: string) => {
  const v = s.split(',').map(Number);
  if (!v.length || v.some((x) => !(x > 0)))
    throw new ConfigError(`--${name} must be positive numbers, comma-separated`);
  return v;
};

type BatchJudge = ReturnType<typeof learnedJudge>;

/** Both verifiers' per-kind accuracy on one set of pairs, side by side. */
function sideBySide(set: string, pairs: LabelledExample[], judges: { learned: BatchJudge; competent: BatchJudge }) {
  const learned = judgeAccuracy(judges.learned, pairs),
    competent = judgeAccuracy(judges.competent, pairs);
  return learned.map((r, i) => ({
    set,
    criterion: r.criterion,
    examples: r.examples,
    positive_rate: r.positive_rate,
    learned_accuracy: r.accuracy,
    learned_balanced: r.balanced_accuracy,
    competent_accuracy: competent[i].accuracy,
    competent_balanced: competent[i].balanced_accuracy,
  }));
}

/** Rows as written: a balanced accuracy that does not exist (one label only) is an empty cell. */
function cells(rows: ReturnType<typeof sideBySide>) {
  return rows.map((r) => ({
    ...r,
    learned_balanced: Number.isNaN(r.learned_balanced) ? '' : r.learned_balanced,
    competent_balanced: Number.isNaN(r.competent_balanced) ? '' : r.competent_balanced,
  }));
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    checkpoint: { help: 'cold-start policy', default: 'data/checkpoints/coldstart-transformer-S.json' },
    seed: { help: 'seed', default: '0' },
    prompts: { help: 'training prompts per temperature', default: '3072' },
    rollouts: { help: 'rollouts per prompt', default: '4' },
    temperatures: { help: 'sampling temperatures of the training rollouts', default: '1,1.3' },
    perturbed: { help: 'perturbed copies per training rollout', default: '2' },
    prefixes: { help: 'short copies (the first 1-3 steps) per training rollout: the curriculum', default: '2' },
    'validation-prompts': { help: 'validation prompts per temperature (selection)', default: '96' },
    steps: { help: 'training steps', default: '7000' },
    curriculum: { help: 'first steps on the short copies only (the curriculum)', default: '500' },
    batch: { help: 'minibatch size', default: '128' },
    lr: { help: 'Adam rate (decays to a tenth over the last half)', default: '0.003' },
    every: { help: 'steps between validations', default: '500' },
    hidden: { help: 'hidden width', default: '128' },
    out: { help: 'run directory', default: 'runs/verifier-competent' },
    results: { help: 'accuracy CSV', default: 'results/verifier/competent.csv' },
    save: { help: 'checkpoint', default: COMPETENT_VERIFIER_CHECKPOINT },
    drift: {
      help: 'yes: measure the saved verifiers on drifted policies instead of training (--policies, --logged)',
      default: 'no',
    },
    policies: {
      help: 'drift: name=checkpoint pairs, comma-separated (RL-trained policies)',
      default:
        'rlvr=runs/verifier-drift/rlvr/checkpoint.json,rlcer=runs/verifier-drift/rlcer/checkpoint.json,evolm=runs/verifier-drift/evolm/checkpoint.json',
    },
    logged: {
      help: 'drift: logged rollouts (gzipped JSON lines) of RL-trained policies, from this step on (name=file@step, comma-separated)',
      default: '',
    },
    hot: { help: 'drift: cold-start temperatures measured as drift, comma-separated', default: '1.6' },
    'drift-results': { help: 'drift CSV', default: 'results/verifier/drift.csv' },
  });
  const seed = intArg('seed', a.seed, 0);
  const policyFile = a.checkpoint;
  checkCheckpoints(policyFile);
  if (a.drift === 'yes') return drift(a, seed);
  const steps = intArg('steps', a.steps, 1),
    batch = intArg('batch', a.batch, 1),
    every = intArg('every', a.every, 1),
    curriculum = intArg('curriculum', a.curriculum, 0),
    P = intArg('prompts', a.prompts, 1),
    R = intArg('rollouts', a.rollouts, 1),
    perturbed = intArg('perturbed', a.perturbed, 0),
    prefixes = intArg('prefixes', a.prefixes, 0),
    VP = intArg('validation-prompts', a['validation-prompts'], 1),
    hidden = intArg('hidden', a.hidden, 8),
    lr = Number(a.lr);
  const temperatures = floatList('temperatures', a.temperatures);
  const config = { ...defaultAlignedConfig(seed), hidden };
  const run = await openRun(
    a.out,
    {
      experiment: 'verifier-competent',
      seed,
      policy: policyFile,
      data: { prompts: P, rollouts: R, temperatures, perturbed, prefixes, validationPrompts: VP },
      train: { steps, curriculum, batch, lr, every },
      model: config,
    },
    await startEngine(),
  );
  const policy = loadPolicy(policyFile);
  const t0 = Date.now();
  // streams of their own: the training data, the validation data (selection), the minibatches
  const train = competentData(
    policy,
    { prompts: P, rollouts: R, temperatures, perturbed, prefixes },
    makeRng(20_000_000 + seed),
  );
  const validation = pairsOf(
    competentData(
      policy,
      { prompts: VP, rollouts: R, temperatures, perturbed: 1, prefixes: 0 },
      makeRng(21_000_000 + seed),
    ),
  );
  const nTrain = train.reduce((s, d) => s + d.criteria.length, 0);
  const dataSeconds = (Date.now() - t0) / 1000;
  console.log(
    `[verifier-competent] ${train.length} CoTs (${nTrain} pairs) to train, ${validation.length} validation pairs in ${dataSeconds.toFixed(0)} s`,
  );
  const t1 = Date.now();
  const { model, best, history } = trainCompetent(
    train,
    validation,
    { steps, curriculum, batch, lr, every, config },
    makeRng(22_000_000 + seed),
    (row) => {
      run.log(row);
      console.log(
        `[verifier-competent] step ${row.step}/${steps} loss ${row.loss.toFixed(4)} selection ${row.score.toFixed(3)} all ${row.accuracy.toFixed(3)} | ${Object.entries(
          row,
        )
          .filter(([k]) => k.startsWith('kind/'))
          .map(([k, v]) => `${k.slice(5)} ${v.toFixed(3)}`)
          .join(' ')}`,
      );
    },
  );
  const trainSeconds = (Date.now() - t1) / 1000;
  run.table('validation', history);
  // the test: the learned verifier's own held-out pairs (make verifier: 192 prompts, 4 rollouts, 6 criteria each)
  const held = distillationData(policy, 192, 4, 6, makeRng(1_000_000));
  const rows = sideBySide('coldstart', held, {
    learned: learnedJudge(loadVerifier(VERIFIER_CHECKPOINT)),
    competent: alignedJudge(model),
  });
  writeCsv(a.results, cells(rows));
  run.table('accuracy', cells(rows));
  saveAlignedVerifier(model, a.save, {
    seed,
    policy: policyFile,
    selected: best,
    data: { prompts: P, rollouts: R, temperatures, perturbed, prefixes, cots: train.length, pairs: nTrain },
    train: { steps, curriculum, batch, lr },
    seconds: { data: Math.round(dataSeconds), train: Math.round(trainSeconds) },
  });
  run.finish({ selected: best, seconds: { data: dataSeconds, train: trainSeconds } });
  console.log(`[verifier-competent] kept step ${best.step} (selection score ${best.score.toFixed(3)})`);
  for (const r of rows)
    console.log(
      `${r.criterion.padEnd(8)} n=${r.examples} positive ${r.positive_rate.toFixed(3)} learned ${r.learned_accuracy.toFixed(3)} competent ${r.competent_accuracy.toFixed(3)} (balanced ${r.competent_balanced.toFixed(3)})`,
    );
});

/** Both verifiers on teacher-labelled pairs of drifted policies: RL-trained checkpoints, logged RL rollouts, hot samples. */
async function drift(a: Record<string, string>, seed: number) {
  await startEngine();
  const cold = loadPolicy(a.checkpoint);
  const judges = {
    learned: learnedJudge(loadVerifier(VERIFIER_CHECKPOINT)),
    competent: alignedJudge(loadAlignedVerifier(a.save)),
  };
  const sets: [string, LabelledExample[]][] = [['coldstart', distillationData(cold, 192, 4, 6, makeRng(1_000_000))]];
  for (const spec of a.policies.split(',').filter(Boolean)) {
    const [name, file] = spec.split('=');
    if (!fs.existsSync(file))
      throw new ConfigError(`--policies: ${file} does not exist (make verifier-drift-policies)`);
    const p: Policy = loadPolicy(file);
    sets.push([name, distillationData(p, 192, 4, 6, makeRng(1_000_000 + seed))]);
  }
  for (const spec of a.logged.split(',').filter(Boolean)) {
    const [name, rest] = spec.split('=');
    const [file, from] = rest.split('@');
    const rows = readGzipLines(file)
      .map((l) => JSON.parse(l) as { step: number; problem: string; completion: string })
      .filter((r) => r.step >= Number(from ?? 0));
    // six criteria per CoT, drawn as the held-out sets' are (criteriaFor's)
    const rollouts = rows.map((r) => {
      const [family, ...ops] = r.problem.split(' ');
      const completion = r.completion.split(' ');
      return { p: solve(checkFamily(family), ops.map(Number)), completion, trace: parseTrace(completion) };
    });
    const pairs = labelledPairs(rollouts, 6, makeRng(1_000_000 + seed));
    // several files of one name are one set
    const same = sets.find(([n]) => n === name);
    if (same) same[1].push(...pairs);
    else sets.push([name, pairs]);
  }
  for (const t of floatList('hot', a.hot)) sets.push([`coldstart_T${t}`, hotPairs(cold, t, seed)]);
  const rows = sets.flatMap(([name, pairs]) => sideBySide(name, pairs, judges));
  writeCsv(a['drift-results'], cells(rows));
  for (const [name] of sets) {
    const all = rows.find((r) => r.set === name && r.criterion === 'all')!;
    const kinds = rows.filter((r) => r.set === name && r.criterion !== 'all');
    console.log(
      `${name.padEnd(18)} learned ${all.learned_accuracy.toFixed(3)} competent ${all.competent_accuracy.toFixed(3)} (lowest kind ${lowest(kinds).toFixed(3)})`,
    );
  }
  fs.mkdirSync(path.dirname(a['drift-results']), { recursive: true });
}

/** The competent verifier's selection score read off side-by-side rows (its lowest per-kind balanced accuracy). */
const lowest = (rows: ReturnType<typeof sideBySide>) =>
  selectionScore(rows.map((r) => ({ ...r, accuracy: r.competent_accuracy, balanced_accuracy: r.competent_balanced })));

/** Held-out pairs of the cold start sampled hot (the learned verifier's held-out recipe at another temperature). */
function hotPairs(policy: Policy, temperature: number, seed: number): LabelledExample[] {
  return distillationData(policy, 192, 4, 6, makeRng(1_000_000 + seed), temperature);
}
