// `make theory`, step 1: run the theory experiments into run directories.
//   runs/theory/ode/       the exact (ODE) experiments, independent of the seed
//   runs/theory/seed-N/    the finite-sample experiments for seed N (metrics.jsonl: one line per GRPO step)
// Usage: tsx src/cli/theory.ts [--config file.json] [--seeds 0,1,2,3,4] [--out runs/theory]
import * as path from 'node:path';
import { parseArgs, parseSeeds, runMain } from '../io/args.js';
import { openRun, loadJsonConfig } from '../io/run.js';
import { startEngine } from '../models/backend.js';
import { mergeConfig } from '../io/config.js';
import { makeRng } from '../util/random.js';
import * as X from '../theory/experiments.js';

runMain(async () => {
  const args = parseArgs(process.argv.slice(2), {
    config: 'JSON file overriding defaultTheoryConfig (src/theory/experiments.ts)',
    seeds: { help: 'comma-separated seeds for the stochastic experiments', default: '0,1,2,3,4' },
    out: { help: 'output folder', default: 'runs/theory' },
  });
  const config = X.checkTheoryConfig(
    mergeConfig(X.defaultTheoryConfig, args.config ? loadJsonConfig(args.config) : undefined),
  );
  const seeds = parseSeeds(args.seeds);
  const out = args.out;
  const t0 = Date.now();
  const stage = (name: string) => console.log(`[theory ${((Date.now() - t0) / 1000).toFixed(1)}s] ${name}`);

  const engine = await startEngine();
  const ode = await openRun(
    path.join(out, 'ode'),
    { experiment: 'theory/ode', seed: seeds[0], seeds, theory: config },
    engine,
  );
  stage(`exact ODE experiments -> ${ode.dir} (backend ${ode.config.backend})`);
  const tables: [string, () => ReturnType<typeof X.workedExample>][] = [
    ['self_reward_field', () => X.selfRewardField(config)],
    ['saddle_eigenvalues', () => X.saddleEigenvalues(config)],
    ['worked_example', () => X.workedExample(config)],
    ['phase_field', () => X.phaseField(config)],
    ['phase_invariant', () => X.phaseInvariant(config)],
    ['phase_trajectories', () => X.phaseTrajectories(config)],
    ['basin_grid', () => X.basinGrid(config)],
    ['conservation', () => X.conservation(config)],
  ];
  for (const [name, make] of tables) {
    ode.table(name, make());
    stage(`  ${name}`);
  }
  ode.finish();

  for (const seed of seeds) {
    const run = await openRun(
      path.join(out, `seed-${seed}`),
      { experiment: 'theory/stochastic', seed, theory: config },
      engine,
    );
    const rng = makeRng(seed);
    const { basin, paths } = X.stochasticVsOde(config, seed, rng, run.log);
    run.table('stochastic_basin', basin);
    run.table('stochastic_paths', paths);
    run.table('error_overlap', X.overlapVsOutcome(config, seed, rng, run.log));
    run.finish();
    stage(`stochastic experiments, seed ${seed} -> ${run.dir}`);
  }
});
