// End to end: the theory CLI on a small config -> run directories -> aggregated tables -> figures.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCsv } from '../src/io/table.js';
import { aggregateTheory } from '../analysis/theory.js';
import { theoryFigures } from '../analysis/theory-figures.js';
import { renderFigures, writeFigures, figureHtml } from '../analysis/figures.js';

const tsx = path.resolve('node_modules/.bin/tsx');
const small = {
  Ks: [3, 5],
  gridStarts: 5,
  fieldPoints: 11,
  stochastic: { steps: 150, replicates: 20, offsets: [-0.2, 0, 0.2], pathOffsets: [0.2] },
  overlap: { steps: 60, problems: 40, rhos: [0, 1], baseLogits: [0.5] },
};

describe('theory pipeline, end to end', function () {
  this.timeout(120000);
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-e2e-'));
  const runs = path.join(d, 'runs'),
    results = path.join(d, 'results');
  before(() => {
    fs.writeFileSync(path.join(d, 'small.json'), JSON.stringify(small));
    execFileSync(tsx, ['src/cli/theory.ts', '--config', path.join(d, 'small.json'), '--seeds', '0,1', '--out', runs], {
      stdio: 'pipe',
    });
    aggregateTheory(runs, results);
  });

  it('writes complete run directories with per-step metrics', () => {
    for (const r of ['ode', 'seed-0', 'seed-1']) {
      for (const f of ['config.json', 'done.json']) assert.ok(fs.existsSync(path.join(runs, r, f)), `${r}/${f}`);
    }
    const cfg = JSON.parse(fs.readFileSync(path.join(runs, 'seed-1', 'config.json'), 'utf8'));
    assert.equal(cfg.seed, 1);
    assert.deepEqual(cfg.theory.Ks, [3, 5]);
    const lines = fs
      .readFileSync(path.join(runs, 'seed-0', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, 3 * 151 + 2 * 2 * 61, 'one line per GRPO step and condition');
  });

  it('writes the interface tables with the documented columns', () => {
    const we = readCsv(path.join(results, 'worked_example.csv'));
    assert.deepEqual(Object.keys(we[0]), ['K', 'method', 'final_accuracy']);
    assert.deepEqual([...new Set(we.map((r) => r.method))].sort(), ['co_training', 'self_reward']);
    const eig = readCsv(path.join(results, 'saddle_eigenvalues.csv'));
    assert.deepEqual(Object.keys(eig[0]), ['K', 'numeric', 'closed_form']);
    const ov = readCsv(path.join(results, 'error_overlap.csv'));
    assert.ok('kappa_mean' in ov[0] && 'kappa_ci95' in ov[0] && ov[0].n === 2);
  });

  it('reproduces the same tables from the same seeds', () => {
    const again = path.join(d, 'runs2');
    execFileSync(tsx, ['src/cli/theory.ts', '--config', path.join(d, 'small.json'), '--seeds', '0,1', '--out', again], {
      stdio: 'pipe',
    });
    for (const t of ['seed-0/error_overlap.csv', 'seed-1/stochastic_basin.csv', 'ode/basin_grid.csv']) {
      assert.equal(fs.readFileSync(path.join(again, t), 'utf8'), fs.readFileSync(path.join(runs, t), 'utf8'), t);
    }
  });

  it('fails with a clear one-line error on a bad config', () => {
    fs.writeFileSync(path.join(d, 'bad.json'), JSON.stringify({ Ks: [4] }));
    const r = spawnSync(tsx, ['src/cli/theory.ts', '--config', path.join(d, 'bad.json'), '--out', path.join(d, 'x')], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^error: Ks\[0\] must be an odd integer >= 1 \(got 4\)/);
    assert.ok(!fs.existsSync(path.join(d, 'x', 'ode', 'basin_grid.csv')), 'no table from a bad config');
  });

  it('builds figure specs with the expected traces', () => {
    const figs = theoryFigures(results);
    assert.deepEqual(
      figs.map((f) => f.name),
      [
        'theory_self_reward_field',
        'theory_phase_portrait',
        'theory_worked_example',
        'theory_stochastic_vs_ode',
        'theory_accuracy_vs_kappa',
      ],
    );
    const names = (i: number) => figs[i].data.map((t) => t.name);
    assert.deepEqual(names(0), ['K = 3', 'K = 5']);
    assert.ok(names(1).includes('separatrix pA + pB = 1') && names(1).includes('saddle (1/2, 1/2)'));
    const sep = figs[1].data.find((t) => t.name === 'separatrix pA + pB = 1')!;
    assert.deepEqual(
      [sep.x, sep.y],
      [
        [0, 1],
        [1, 0],
      ],
    );
    assert.equal(figs[2].data.length, 2);
    assert.ok(figureHtml(figs[0], 'plotly.min.js').includes('Plotly.newPlot'));
  });

  it('exports SVG and PNG through Chromium, the same bytes for the same figure', async () => {
    const figs = theoryFigures(results).slice(0, 1);
    const [img, again] = await renderFigures([...figs, ...figs]);
    assert.ok(img.svg === again.svg, 'the SVG of an unchanged figure changed between renders (random ids?)');
    assert.ok(img.png!.equals(again.png!), 'the PNG of an unchanged figure changed between renders');
    assert.ok(img.svg!.startsWith('<svg'));
    assert.equal((img.svg!.match(/class="trace scatter/g) ?? []).length, 2, 'one scatter trace per K');
    assert.equal(img.png!.subarray(1, 4).toString(), 'PNG');
    const files = await writeFigures(figs, path.join(d, 'fig'), ['html', 'svg']);
    assert.deepEqual(
      files.map((f) => path.basename(f)),
      ['theory_self_reward_field.js', 'theory_self_reward_field.html', 'theory_self_reward_field.svg'],
    );
  });
});

describe('cold start, interrupted and resumed', function () {
  this.timeout(180000);
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-resume-'));
  const cfg = path.join(d, 'tiny.json');
  const coldstart = (out: string, steps: number, resume = false) =>
    execFileSync(
      tsx,
      [
        'src/cli/coldstart.ts',
        '--arch',
        'transformer',
        '--size',
        'S',
        '--config',
        cfg,
        '--steps',
        String(steps),
        '--checkpoint-every',
        '1',
        '--out',
        path.join(d, out),
        '--checkpoint',
        path.join(d, `${out}.json`),
        ...(resume ? ['--resume', 'yes'] : []),
      ],
      { stdio: 'pipe', encoding: 'utf8' },
    );
  const weights = (f: string) => JSON.parse(fs.readFileSync(path.join(d, f), 'utf8')).weights;

  it('ends with the same weights and metrics as a run that was not interrupted', () => {
    fs.writeFileSync(cfg, JSON.stringify({ sft: { batch: 4, warmup: 2 } }));
    coldstart('straight', 3);
    coldstart('resumed', 2);
    assert.match(coldstart('resumed', 3, true), /Adam state restored at its step 2/);
    assert.deepEqual(weights('resumed.json'), weights('straight.json'));
    const losses = (r: string) =>
      fs
        .readFileSync(path.join(d, r, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).loss);
    assert.deepEqual(losses('resumed'), losses('straight'));
    assert.equal(losses('straight').length, 3);
  });

  it('resumes on another machine from a saved partial state, which is removed once the run finishes', () => {
    const partial = ['--partial', path.join(d, 'partial')];
    coldstart('moved', 2);
    fs.rmSync(path.join(d, 'moved', 'done.json')); // as if stopped at step 2 of 3
    assert.match(
      execFileSync(
        tsx,
        [
          'src/cli/coldstart.ts',
          '--arch',
          'transformer',
          '--size',
          'S',
          '--config',
          cfg,
          '--out',
          path.join(d, 'moved'),
          '--save-partial',
          'yes',
          ...partial,
        ],
        { encoding: 'utf8' },
      ),
      /step 2/,
    );
    fs.rmSync(path.join(d, 'moved'), { recursive: true }); // runs/ did not survive
    const log = execFileSync(
      tsx,
      [
        'src/cli/coldstart.ts',
        '--arch',
        'transformer',
        '--size',
        'S',
        '--config',
        cfg,
        '--steps',
        '3',
        '--checkpoint-every',
        '1',
        '--out',
        path.join(d, 'moved'),
        '--checkpoint',
        path.join(d, 'moved.json'),
        '--resume',
        'yes',
        ...partial,
      ],
      { encoding: 'utf8' },
    );
    assert.match(log, /committed partial state/);
    assert.match(log, /Adam state restored at its step 2/);
    assert.deepEqual(weights('moved.json'), weights('straight.json'));
    assert.equal(fs.existsSync(path.join(d, 'partial')), false);
  });

  it('refuses to resume under another configuration', () => {
    fs.writeFileSync(cfg, JSON.stringify({ sft: { batch: 8, warmup: 2 } }));
    assert.throws(
      () => coldstart('resumed', 4, true),
      (e: { stderr: string }) => /was started with another sft configuration/.test(e.stderr),
    );
  });
});
