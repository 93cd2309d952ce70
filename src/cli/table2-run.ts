// One Table 2 run: a method trained from the cold start (or not, for the SFT row), with a progress display, one
// metrics line per step (every reward component, a probe accuracy), accuracy curves, sampled rubric sets in
// English (rubrics.jsonl), and at the end a tidy final.csv: accuracy per family, the average, rubric quality.
// Every `--checkpoint-every` steps (and at the end of training) the run directory's checkpoint.json holds what an exact
// resume needs: the weights, the trainer's state (Adam moments, EvoLM's snapshots), the curve so far. A run started
// again on a directory with such a checkpoint and the same configuration resumes from it (a SIGKILL loses at most the
// steps since the last checkpoint) and ends with the same numbers, bit for bit on one backend, as an uninterrupted run.
// Usage: tsx src/cli/table2-run.ts --method rlcer --size S --seed 0 --profile quick [--steps N] [--out DIR] [--config F]
//   [--checkpoint-every N]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, runMain } from '../io/args.js';
import { planTable2Run, TABLE2_RUN_FLAGS } from './table2-plan.js';
import { checkResumeKernels, openRun, loadJsonConfig, readMetrics } from '../io/run.js';
import { ConfigError } from '../util/validate.js';
import { sha256Hex } from '../io/checksums.js';
import { stepLine } from '../io/jobs.js';
import { engineSettings, startEngine } from '../models/backend.js';
import { loadPolicy } from '../models/index.js';
import { loadWeights, readCheckpoint, sample, saveCheckpoint, type Policy } from '../models/policy.js';
import { learnedJudge, loadVerifier } from '../models/verifier.js';
import { makeRng } from '../util/random.js';
import { EVAL_GRID, loadEvalSet } from '../world/datasets.js';
import type { Family, Problem } from '../world/problems.js';
import { isCorrect, parseTrace, promptTokens } from '../world/trace.js';
import { decode, encode } from '../world/vocab.js';
import {
  accuracyColumns,
  endpointsOf,
  evalCells,
  evalReport,
  familyAccuracy,
  processMetrics,
  type ProblemResult,
  traceEndpointRows,
} from '../rl/evaluate.js';
import { processScore } from '../world/process.js';
import { appendGzipLines, readGzipLines } from '../io/gzip-lines.js';
import type { ReasonerRollout } from '../rl/trainer.js';
import { hintReport } from '../rl/rubricator.js';
import { pairsCacheFile, scalarRmCheckpoint, VERIFIER_CHECKPOINT } from '../methods/tables/table2.js';
import { preferencePairs, rubricatorQuality, teacherQuality, type PreferencePair } from '../rl/rubric-quality.js';
import { scalarRmQuality } from '../methods/trainers/scalar-rm.js';
import { writeFileAtomic, type Row } from '../io/table.js';

/** A fixed probe: the first 4 problems of every evaluation cell, one sample each (accuracy logged every step). */
let probeProblems: Problem[] | null = null;
function probeAccuracy(policy: Policy, seed: number): number {
  const problems = (probeProblems ??= (Object.keys(EVAL_GRID) as Family[]).flatMap((f) =>
    EVAL_GRID[f].flatMap((d) => loadEvalSet(f, d).slice(0, 4)),
  ));
  const outs = sample(
    policy,
    problems.map((p) => encode(promptTokens(p, 'reason'))),
    { maxNew: 96, temperature: 1, topP: 1 },
    makeRng(seed),
  );
  return outs.filter((o, i) => isCorrect(problems[i], parseTrace(decode(o)))).length / problems.length;
}

/** One run, as `tsx src/cli/table2-run.ts <argv>` runs it (src/cli/worker.ts runs it in a long-lived process). */
export async function table2Run(argv: string[]): Promise<void> {
  const a = parseArgs(argv, TABLE2_RUN_FLAGS);
  // the method, profile, size, seed and steps, the row's config built from the user's overrides, and every checkpoint
  // the run reads, checked before its directory is made (src/cli/table2-plan.ts: what a sweep checks of every run)
  const plan = planTable2Run(a);
  const { method, spec, profile, size, seed, steps, out, klMatch, row, needsRm } = plan,
    ckpt = plan.coldstart,
    every = plan.checkpointEvery,
    horizons = plan.horizons;
  // the files the run's numbers depend on, by content: a record is only comparable with records of the same inputs
  const fileHash = (f: string) => sha256Hex(fs.readFileSync(f)).slice(0, 12);
  const inputs = {
    coldstart: fileHash(ckpt),
    verifier: fileHash(VERIFIER_CHECKPOINT),
    ...(needsRm ? { scalar_rm: fileHash(scalarRmCheckpoint(size)) } : {}),
  };
  const identity = {
    experiment: 'table2',
    method,
    spec,
    size,
    seed,
    profile: a.profile,
    profileSpec: profile,
    checkpoint: ckpt,
    inputs,
    ...(klMatch ? { klMatch } : {}),
    ...row.record,
  };
  // an interrupted run of the same configuration resumes from its checkpoint; what resuming reads is read (and
  // checked) before openRun starts a fresh metrics.jsonl, so a bad file loses nothing
  const ckFile = path.join(out, 'checkpoint.json'),
    rubricLog = path.join(out, 'rubrics.jsonl');
  const saved = steps > 0 && fs.existsSync(ckFile) ? readCheckpoint(ckFile) : null;
  const resume = saved?.meta.resume as
    | { step: number; policySteps: number; curve: Record<string, string | number>[]; trainer: Record<string, unknown> }
    | undefined;
  if (saved && !resume) throw new ConfigError(`${ckFile} holds no resumable state: pass another --out, or remove it`);
  const engine = engineSettings();
  if (resume) {
    const was = loadJsonConfig(path.join(out, 'config.json')) as Record<string, unknown>;
    const differs = Object.keys(identity).find(
      (k) => JSON.stringify(was[k]) !== JSON.stringify((identity as Record<string, unknown>)[k]),
    );
    if (differs)
      throw new ConfigError(
        `${out} was started with another ${differs} (${JSON.stringify(was[differs])}): pass another --out, or remove the run directory`,
      );
    checkResumeKernels(out, was, engine.kernels);
  }
  const start = resume?.step ?? 0;
  const prior = resume ? readMetrics(out).filter((m) => Number(m.step) < start) : [];
  const priorRubrics =
    resume && fs.existsSync(rubricLog)
      ? fs
          .readFileSync(rubricLog, 'utf8')
          .split('\n')
          .filter((l) => {
            try {
              return l !== '' && Number(JSON.parse(l).step) < start;
            } catch {
              return false;
            }
          })
      : [];
  const run = await openRun(out, { ...identity, ...(resume ? { resumedFrom: start } : {}) }, await startEngine(engine));
  for (const m of prior) run.log(m); // first, so that a failure from here on keeps them
  const policy = loadPolicy(ckpt);
  const verifier = loadVerifier(VERIFIER_CHECKPOINT);
  // EvoLM's second policy from the same checkpoint: the two-model row's generator, or the judge-only row's frozen writer
  const generator = row.needsGenerator ? loadPolicy(ckpt) : undefined;
  const rm = needsRm ? loadVerifier(scalarRmCheckpoint(size)) : null;
  // every row's trainer as one interface: EvoLM's global steps interleave policy and generator steps
  const trainer = row.trainer({
    policy,
    verifier,
    coldStart: () => loadPolicy(ckpt),
    generator,
    scalarRm: rm,
    seed,
    start,
  });
  const world = row.world;
  const isProcessRow =
    spec.kind === 'rlvr' && (spec.reward === 'process_oracle' || spec.reward === 'process_oracle_dense');
  let pairsCount = 0;
  const curve: Record<string, string | number>[] = resume ? resume.curve : [];
  if (resume && saved) {
    loadWeights(policy, saved, ckFile);
    await trainer.restore!(resume.trainer);
    console.log(`[${method} ${size} seed ${seed}] resuming ${out} at step ${start}`);
  }
  const evaluateCurve = (step: number) => {
    const fam = familyAccuracy(evalReport(policy, 8, 2, makeRng(2_000_000 + seed)));
    for (const [family, accuracy] of Object.entries(fam)) curve.push({ step, family, accuracy });
    run.table('curve', curve);
  };
  const t0 = Date.now();
  if (steps > 0 && !resume) evaluateCurve(0);
  if (resume) run.table('curve', curve);
  fs.rmSync(rubricLog, { force: true });
  for (const l of priorRubrics) fs.appendFileSync(rubricLog, l + '\n');
  // the positive controls' rollouts every ROLLOUT_LOG_EVERY steps (completion tokens, outcome, process score), gzipped
  const rolloutLog = path.join(out, 'rollouts.jsonl.gz'),
    logsRollouts = profile.endpoints === true && isProcessRow;
  const priorRollouts =
    resume && fs.existsSync(rolloutLog)
      ? readGzipLines(rolloutLog).filter((l) => {
          try {
            return Number(JSON.parse(l).step) < start;
          } catch {
            return false;
          }
        })
      : [];
  fs.rmSync(rolloutLog, { force: true });
  if (priorRollouts.length) appendGzipLines(rolloutLog, priorRollouts);
  let policySteps = resume?.policySteps ?? 0;
  // the resumable state after `done` steps (written atomically: a kill during the write keeps the previous one)
  const checkpoint = async (done: number) =>
    saveCheckpoint(policy, ckFile, {
      step: done,
      resume: { step: done, policySteps, curve, trainer: await trainer.state!() },
    });
  for (let step = start; step < trainer.totalSteps; step++) {
    const isPolicy = trainer.phaseOf(step) === 'policy';
    const m = trainer.step(step, makeRng(seed * 1_000_003 + step));
    if (isPolicy) policySteps++;
    const rs = profile.endpoints && isPolicy ? (trainer.lastRollouts?.() ?? []) : [];
    run.log({
      step,
      policy_step: policySteps,
      ...m,
      ...(rs.length ? processMetrics(rs) : {}),
      probe_accuracy: probeAccuracy(policy, 3_000_000 + step),
    });
    if (logsRollouts && step % ROLLOUT_LOG_EVERY === 0) {
      appendGzipLines(
        rolloutLog,
        (rs as ReasonerRollout[]).map((r) => rolloutLine(step, r)),
      );
    }
    for (const r of trainer.lastRubrics?.() ?? [])
      fs.appendFileSync(rubricLog, JSON.stringify({ step, ...(r as object) }) + '\n');
    const rate = (step + 1 - start) / ((Date.now() - t0) / 1000);
    console.log(
      stepLine(
        `${method} ${size} seed ${seed}`,
        step + 1,
        trainer.totalSteps,
        isPolicy ? 'policy' : 'generator',
        m,
        (trainer.totalSteps - step - 1) / rate / 60,
      ),
    );
    if (isPolicy && policySteps % profile.curveEvery === 0) evaluateCurve(policySteps);
    // a horizon before the last step: the full final evaluation, as a run of that length ends with it
    if (isPolicy && step + 1 < trainer.totalSteps && horizons.includes(policySteps)) {
      finalEvaluation(`-${policySteps}`);
    }
    if ((step + 1) % every === 0 || step + 1 === trainer.totalSteps) await checkpoint(step + 1);
  }
  const { final } = finalEvaluation('');
  run.finish({ seconds: (Date.now() - t0) / 1000, pairs: pairsCount });
  console.log(
    `[${method} ${size} seed ${seed}] done in ${((Date.now() - t0) / 60000).toFixed(1)} min: ${final.map((r) => `${r.column} ${r.value.toFixed(3)}`).join(', ')}`,
  );

  /**
   * The final evaluation (tables named <name><suffix>): accuracy per family (avg@n on the fixed sets), rubric quality on
   * held-out pairs, the hints; with the profile's endpoints, endpoints<suffix>.csv. Every stream it draws is its own.
   */
  function finalEvaluation(suffix: string) {
    const evaluated = evalCells(
      policy,
      (Object.keys(EVAL_GRID) as Family[]).flatMap((f) => EVAL_GRID[f].map((d) => ({ family: f, digits: d }))),
      profile.evalPerCell,
      profile.evalSamples,
      makeRng(1_000_000 + seed),
    );
    const rows = evaluated.rows;
    run.table(`eval${suffix}`, rows);
    // the same held-out pairs for every row and seed
    const pairsFile = pairsCacheFile(a.profile, size, inputs.coldstart, engine.kernels);
    const pairs: PreferencePair[] = fs.existsSync(pairsFile)
      ? JSON.parse(fs.readFileSync(pairsFile, 'utf8'))
      : preferencePairs(loadPolicy(ckpt), profile.pairsPerCell, 8, makeRng(4_000_000));
    writeFileAtomic(pairsFile, JSON.stringify(pairs));
    const judge = learnedJudge(verifier),
      qrng = makeRng(5_000_000 + seed);
    const quality =
      spec.quality === 'teacher'
        ? teacherQuality(pairs, judge)
        : spec.quality === 'scalar_rm'
          ? scalarRmQuality(rm!, pairs)
          : rubricatorQuality(
              spec.quality === 'coldstart'
                ? loadPolicy(ckpt)
                : spec.quality === 'generator'
                  ? (generator ?? policy)
                  : policy,
              pairs,
              judge,
              qrng,
              // the row's own writer is measured the way it writes (EvoLM's generator may read the question alone)
              row.writerReads,
            );
    const final = [
      { column: 'rubric_quality', value: quality },
      // accuracy per family, and the average over all four families, the held-out one included
      ...accuracyColumns(rows),
    ].map((r) => ({ method, size, seed, ...r }));
    run.table(`final${suffix}`, final);
    // rubrics as in-prompt hints at inference, for rows whose policy writes its own rubrics
    if (spec.quality === 'policy')
      run.table(
        `hints${suffix}`,
        hintReport(policy, profile.evalPerCell, Math.max(1, profile.evalSamples >> 1), makeRng(6_000_000 + seed)).map(
          (r) => ({ method, size, seed, ...r }),
        ),
      );
    if (profile.endpoints) run.table(`endpoints${suffix}`, endpointRows(evaluated.results, rows, policySteps));
    pairsCount = pairs.length;
    return { final };
  }

  /**
   * The three pre-registered endpoints and the secondary ones, one row each: in-distribution accuracy (the training
   * cells: the world's trainCells, else every grid cell of the training families), held-out composition (chain_ood
   * on the grid), trace error over the in-distribution right answers (a true step wrong or missing), then their
   * repeat rate (a step repeated or added) and flaw rate (either: the trace_error of records written before issue
   * 53's split); the average over the grid's four families and the in-distribution process score. Cells off the
   * grid are evaluated from their own stream.
   */
  function endpointRows(
    grid: { family: Family; digits: number; res: ProblemResult[] }[],
    gridRows: Row[],
    atStep: number,
  ) {
    const cells =
      world.trainCells ?? world.trainFamilies.flatMap((f) => EVAL_GRID[f].map((d) => ({ family: f, digits: d })));
    const onGrid = cells.every((c) => grid.some((g) => g.family === c.family && g.digits === c.digits));
    const inDist = onGrid
      ? grid.filter((g) => cells.some((c) => c.family === g.family && c.digits === g.digits))
      : evalCells(policy, cells, profile.evalPerCell, profile.evalSamples, makeRng(1_500_000 + seed)).results;
    const e = endpointsOf(inDist),
      ood = endpointsOf(grid.filter((g) => g.family === 'chain_ood'));
    const average = accuracyColumns(gridRows).find((c) => c.column === 'average')!.value;
    const cellsText = cells.map((c) => `${c.family}-${c.digits}`).join(' ');
    return [
      { endpoint: 'in_distribution', value: e.accuracy, n: e.samples, cells: cellsText },
      { endpoint: 'chain_ood', value: ood.accuracy, n: ood.samples, cells: 'chain_ood grid' },
      ...traceEndpointRows(e, cellsText),
      {
        endpoint: 'average',
        value: average,
        n: grid.reduce((s, g) => s + g.res.length * profile.evalSamples, 0),
        cells: 'grid',
      },
      { endpoint: 'process_score', value: e.process_score, n: e.samples, cells: cellsText },
    ].map((r) => ({ method, size, seed, step: atStep, ...r }));
  }
}

/** Steps between two logged batches of a positive control's rollouts. */
const ROLLOUT_LOG_EVERY = 10;

/** One rollout as logged: its step, group, completion tokens (space-separated), training label, outcome and process score. */
function rolloutLine(step: number, r: ReasonerRollout): string {
  return JSON.stringify({
    step,
    group: r.group,
    problem: `${r.problem.family} ${r.problem.operands.join(' ')}`,
    completion: decode(r.completion).join(' '),
    correct: r.correct,
    label: r.label,
    reward: r.reward,
    process: r.components.process ?? processScore(r.problem, r.trace).score,
  });
}

if (process.argv[1]?.endsWith('table2-run.ts') && process.argv[1].includes('cli'))
  runMain(() => table2Run(process.argv.slice(2)));
