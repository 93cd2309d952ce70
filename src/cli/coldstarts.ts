// Several cold starts as one campaign, on an executor (src/cli/executor.ts): what `make coldstart` and
// `make corl-agents` run with EXECUTOR=slurm (with the default EXECUTOR=local they keep their `xargs -P 2` of
// src/cli/coldstart.ts, as before). Each cold start is `coldstart.ts ... --resume yes` with its run directory given
// (--out, the directory coldstart.ts picks by default); one whose run directory holds done.json is finished and
// skipped. On Slurm each is one array task (sweep files under runs/sweeps/coldstart-<models> or
// runs/sweeps/corl-agents); a task requeued or resubmitted resumes from the run's last checkpoint.
// Usage: tsx src/cli/coldstarts.ts --models "transformer-S gru-S" | --corl-agents yes [--jobs 2]
//   [--executor local|slurm] [--sbatch-args "..."] [--concurrency K] [--poll-seconds 30] [--squeue-patience 600]
import * as path from 'node:path';
import { parseArgs, intArg, runMain } from '../io/args.js';
import { ConfigError, RunFailure } from '../util/validate.js';
import { campaignRoot, EXECUTOR_FLAGS, executorName, runCampaign, type CampaignJob } from './executor.js';

const ARCHS = ['transformer', 'gru'],
  SIZES = ['S', 'M'];

/** One cold start of `make coldstart`: <arch>-<size> (coldstart.ts's defaults: seed 0, runs/coldstart/...). */
export function coldstartJob(model: string): CampaignJob {
  const [arch, size] = [model.slice(0, model.lastIndexOf('-')), model.slice(model.lastIndexOf('-') + 1)];
  if (!ARCHS.includes(arch) || !SIZES.includes(size))
    throw new ConfigError(`--models: "${model}" is not <arch>-<size> (${ARCHS.join(' or ')}, ${SIZES.join(' or ')})`);
  const out = `runs/coldstart/${arch}-${size}-seed0`;
  return {
    label: `coldstart ${model}`,
    dir: out,
    method: `coldstart-${arch}`,
    size,
    seed: 0,
    args: ['src/cli/coldstart.ts', '--arch', arch, '--size', size, '--resume', 'yes', '--out', out],
  };
}

/** The CO-RL partners of transformer-S (`make corl-agents`): a GRU, and a second transformer seed. */
export function corlAgentJobs(): CampaignJob[] {
  const gru = 'runs/coldstart/gru-S-seed0-v2',
    t1 = 'runs/coldstart/transformer-S-seed1';
  return [
    {
      label: 'coldstart gru-S (CO-RL partner)',
      dir: gru,
      method: 'coldstart-gru',
      size: 'S',
      seed: 0,
      args: ['src/cli/coldstart.ts', '--arch', 'gru', '--size', 'S', '--out', gru, '--resume', 'yes'],
    },
    {
      label: 'coldstart transformer-S seed 1 (CO-RL partner)',
      dir: t1,
      method: 'coldstart-transformer',
      size: 'S',
      seed: 1,
      args: [
        'src/cli/coldstart.ts',
        '--arch',
        'transformer',
        '--size',
        'S',
        '--seed',
        '1',
        '--checkpoint',
        path.join('data/checkpoints', 'coldstart-transformer-S-seed1.json'),
        '--out',
        t1,
        '--resume',
        'yes',
      ],
    },
  ];
}

if (process.argv[1]?.endsWith('coldstarts.ts') && process.argv[1].includes('cli')) {
  runMain(async () => {
    const a = parseArgs(process.argv.slice(2), {
      models: "cold starts <arch>-<size>, separated by spaces or commas (make coldstart's COLDSTART_MODELS)",
      'corl-agents': '"yes": the CO-RL partners of make corl-agents instead',
      jobs: { help: 'local: parallel processes', default: '2' },
      ...EXECUTOR_FLAGS,
    });
    executorName(a);
    const jobs = intArg('jobs', a.jobs, 1);
    const models = (a.models ?? '').split(/[\s,]+/).filter(Boolean);
    if (a['corl-agents'] === 'yes' ? models.length > 0 : models.length === 0)
      throw new ConfigError('give either --models "transformer-S gru-S ..." or --corl-agents yes');
    const [list, root] =
      a['corl-agents'] === 'yes'
        ? [corlAgentJobs(), campaignRoot('corl-agents')]
        : [models.map(coldstartJob), campaignRoot('coldstart', models.join('+'))];
    const failed = await runCampaign('coldstart', list, a, { parallel: jobs, root });
    if (failed) throw new RunFailure(`${failed} cold starts failed; rerun to resume them from their checkpoints`);
  });
}
