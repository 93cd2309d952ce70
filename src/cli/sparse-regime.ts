// `make sparse-regime`: the sparse-outcome regime's pre-registered criterion, read off the cold start alone
// (results/sensitivity/preregistration.md; amended in results/sensitivity/amendment-1.md: --rule amended). For each training family and candidate difficulty (operand digits beyond
// the evaluation grid), the cold start's per-sample pass rate, the share of groups of 8 rollouts that are all wrong,
// the share of well-formed traces and the exact process score's mean and spread. The regime takes, per family, the
// smallest difficulty whose pass rate is <= 0.05 and whose well-formed share is >= 0.5 (the cold start can write
// traces that long); no accuracy of any trained policy is read.
// Usage: tsx src/cli/sparse-regime.ts [--problems 64] [--samples 8] [--out results/sensitivity/regime_criterion.csv]
import { intArg, parseArgs, runMain } from '../io/args.js';
import { initBackend } from '../models/backend.js';
import { checkCheckpoints } from '../models/policy.js';
import { loadPolicy } from '../models/index.js';
import { evaluateReasoner } from '../rl/evaluate.js';
import { EVAL_SEED, generateEvalSet } from '../world/datasets.js';
import type { Family } from '../world/problems.js';
import { processScore } from '../world/process.js';
import { writeCsv, type Row } from '../io/table.js';
import { ConfigError } from '../util/validate.js';
import { makeRng } from '../util/random.js';
import { mean } from '../util/stats.js';
import { sampleSd } from '../util/power.js';

/** Candidate difficulties per training family: the evaluation grid's hardest, then harder. */
export const SPARSE_CANDIDATES: Record<'add' | 'sub' | 'chain', number[]> = {
  add: [5, 6, 7],
  sub: [5, 6, 7],
  chain: [4, 5, 6],
};
/**
 * Amendment 1's candidates: every difficulty of the wide cold start's SFT mixture (data/configs/coldstart-wide.json),
 * so the regime never needs a column the cold start has not seen; and its rule asks for at least one perfect trace.
 */
export const AMENDED_CANDIDATES: Record<'add' | 'sub' | 'chain', number[]> = {
  add: [2, 3, 4, 5, 6, 7],
  sub: [2, 3, 4, 5, 6, 7],
  chain: [2, 3, 4, 5, 6],
};
export const SPARSE_MAX_PASS = 0.05;
export const SPARSE_MIN_FORMED = 0.5;
/** The criterion's problems: drawn like the evaluation sets but from another seed, so they are not the test set. */
export const CRITERION_SEED = EVAL_SEED + 1;

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    problems: { help: 'problems per cell', default: '64' },
    samples: { help: 'samples per problem', default: '8' },
    out: { help: 'output CSV', default: 'results/sensitivity/regime_criterion.csv' },
    checkpoint: { help: 'cold start', default: 'data/checkpoints/coldstart-transformer-S.json' },
    rule: {
      help:
        '"original" (the pre-registration) or "amended" (amendment 1: every SFT difficulty, a perfect trace ' +
        'required)',
      default: 'original',
    },
  });
  const amended = a.rule === 'amended';
  if (!['original', 'amended'].includes(a.rule))
    throw new ConfigError(`--rule must be original or amended (got "${a.rule}")`);
  const perCell = intArg('problems', a.problems, 1),
    n = intArg('samples', a.samples, 1);
  const ckpt = a.checkpoint;
  checkCheckpoints(ckpt);
  await initBackend();
  const policy = loadPolicy(ckpt),
    rows: Row[] = [];
  for (const [family, cands] of Object.entries(amended ? AMENDED_CANDIDATES : SPARSE_CANDIDATES) as [
    Family,
    number[],
  ][]) {
    let chosen = false;
    for (const digits of cands) {
      const res = evaluateReasoner(
        policy,
        generateEvalSet(family, digits, CRITERION_SEED, perCell),
        n,
        makeRng(11 + digits),
      );
      const traces = res.flatMap((r) => r.traces.map((t) => ({ t, p: r.problem })));
      const scores = traces.map(({ t, p }) => processScore(p, t).score);
      const pass = mean(res.map((r) => r.correct / n)),
        formed = mean(traces.map(({ t }) => +t.terminated));
      const perfect = mean(scores.map((x) => +(x === 1)));
      const pick = !chosen && pass <= SPARSE_MAX_PASS && formed >= SPARSE_MIN_FORMED && (!amended || perfect > 0);
      if (pick) chosen = true;
      rows.push({
        family,
        digits,
        problems: perCell,
        samples: n,
        pass_rate: pass,
        all_wrong_groups: mean(res.map((r) => +(r.correct === 0))),
        well_formed: formed,
        process_mean: mean(scores),
        process_sd: sampleSd(scores),
        process_perfect: perfect,
        chosen: pick ? 'yes' : 'no',
      });
      console.log(
        `${family}-${digits}: pass ${pass.toFixed(3)}, well-formed ${formed.toFixed(3)}, ` +
          `process ${mean(scores).toFixed(3)} (sd ${sampleSd(scores).toFixed(3)})${pick ? '  <- chosen' : ''}`,
      );
    }
  }
  const out = a.out;
  writeCsv(out, rows);
  console.log(`sparse-regime criterion -> ${out}`);
});
