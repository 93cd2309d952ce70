// Every notebook runs headless with the tslab kernel, without an error cell.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  finishNotebook,
  numberCells,
  reportTable,
  sharePlotly,
  sweepProgress,
  table,
  verdicts,
} from '../analysis/notebook.js';
import { META, plotlyLoaderHtml, sharedPlotlyLoaderHtml } from '../analysis/notebook-view.js';

// 00-quickstart trains (about 3 minutes on two busy cores, docs/notebooks.md); the others read committed results,
// and every chart waits for Chromium to draw its picture (one browser per notebook: 10-15 s to start on busy cores)
const budget = (nb: string) => (nb.startsWith('00-') ? 900000 : 300000);

describe('notebooks', () => {
  for (const nb of fs.readdirSync('notebooks').filter((f) => f.endsWith('.ipynb'))) {
    it(`${nb} executes headless`, function () {
      this.timeout(budget(nb));
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nb-'));
      const r = spawnSync(
        '/usr/bin/jupyter',
        ['nbconvert', '--to', 'notebook', '--execute', '--output-dir', out, path.join('notebooks', nb)],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            JUPYTER_PATH: path.resolve('.jupyter/share/jupyter'),
            PYDEVD_DISABLE_FILE_VALIDATION: '1',
          },
        },
      );
      assert.equal(r.status, 0, `nbconvert failed:\n${r.stderr.slice(-3000)}`);
      const cells = JSON.parse(fs.readFileSync(path.join(out, nb), 'utf8')).cells as {
        cell_type: string;
        outputs?: { output_type: string }[];
      }[];
      const code = cells.filter((c) => c.cell_type === 'code');
      assert.ok(code.length > 0 && code.every((c) => (c.outputs ?? []).every((o) => o.output_type !== 'error')));
      assert.ok(
        code.some((c) => (c.outputs ?? []).length > 0),
        'the notebook produced output',
      );
    });
  }
});

describe('executed notebooks (results/notebooks)', () => {
  it('number code cells and their results in execution order, markdown untouched', () => {
    const nb = numberCells({
      cells: [
        { cell_type: 'code', execution_count: null, outputs: [{ output_type: 'stream' }] },
        { cell_type: 'markdown' },
        {
          cell_type: 'code',
          execution_count: null,
          outputs: [{ output_type: 'execute_result', execution_count: null }],
        },
      ],
    });
    assert.deepEqual(
      nb.cells.map((c) => c.execution_count),
      [1, undefined, 2],
    );
    assert.equal((nb.cells[2].outputs![0] as { execution_count?: number }).execution_count, 2);
  });
  it('swap the plotly bundle a live session inlines for a loader of the shared one, and nothing else', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbf-'));
    const file = path.join(d, 'results', 'notebooks', 'x.ipynb');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const chart = { data: { 'text/html': '<div class="wb-chart"></div>' }, metadata: { [META]: { chart: 'a' } } };
    const nb = {
      cells: [
        {
          cell_type: 'code',
          outputs: [
            {
              output_type: 'display_data',
              data: { 'text/html': plotlyLoaderHtml('/* plotly.js v0 */') },
              metadata: { [META]: { plotly: 'inline' } },
            },
            { output_type: 'display_data', ...chart },
          ],
        },
      ],
    };
    fs.writeFileSync(file, JSON.stringify(nb));
    finishNotebook(file, path.join(d, 'results', 'figures', 'plotly.min.js'));
    const done = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(done.cells[0].execution_count, 1);
    const [loader, kept] = done.cells[0].outputs;
    assert.deepEqual(loader.data, { 'text/html': sharedPlotlyLoaderHtml('../figures/plotly.min.js') });
    assert.deepEqual(loader.metadata, { [META]: { plotly: 'shared', src: '../figures/plotly.min.js' } });
    assert.deepEqual(kept, { output_type: 'display_data', ...chart });
    assert.equal(sharePlotly(done, 'x.js'), 0, 'a shared loader was swapped again');
  });
  it('are committed with execution counts, no error output, and one for every notebook', () => {
    const sources = fs
      .readdirSync('notebooks')
      .filter((f) => f.endsWith('.ipynb'))
      .sort();
    assert.deepEqual(
      fs
        .readdirSync('results/notebooks')
        .filter((f) => f.endsWith('.ipynb'))
        .sort(),
      sources,
    );
    for (const f of sources) {
      const cells = JSON.parse(fs.readFileSync(path.join('results/notebooks', f), 'utf8')).cells as {
        cell_type: string;
        execution_count?: number | null;
        outputs?: { output_type: string }[];
      }[];
      const code = cells.filter((c) => c.cell_type === 'code');
      assert.deepEqual(
        code.map((c) => c.execution_count),
        code.map((_, i) => i + 1),
        `${f}: run "make notebooks"`,
      );
      assert.ok(
        code.every((c) => (c.outputs ?? []).every((o) => o.output_type !== 'error')),
        `${f} has an error output`,
      );
    }
  });
});

describe('what the notebooks show (analysis/notebook.ts)', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbt-'));
  fs.mkdirSync(path.join(d, 'docs'));
  fs.writeFileSync(
    path.join(d, 'c.csv'),
    'profile,claim,run,against,measure,expected_sign,delta,ci_low,ci_high,seeds,verdict\n' +
      'full,a,S|rlcer,S|rlvr,average,+,0.1,0.05,0.15,3,reproduced\nfull,b,S|evolm,S|judge_teacher,average,+,0,-1,1,3,inconclusive\n' +
      'full,c,S|evolm,S|evolm_sequential,average,+,-0.2,-0.3,-0.1,3,contradicted\nquick,d,S|rlcer,S|rlvr,average,+,0,-1,1,2,inconclusive\n',
  );
  fs.writeFileSync(
    path.join(d, 'docs', 'r.md'),
    '<!-- table: c.csv view=rows columns=claim,verdict profile=quick -->\n<!-- /table -->\n' +
      '<!-- table: c.csv view=rows columns=claim profile=full -->\n<!-- /table -->\n',
  );
  it('renders a docs marker, and the nth table a report draws from a CSV, without the markers', () => {
    assert.equal(
      table('c.csv view=rows columns=claim,verdict profile=quick', d),
      '| claim | verdict |\n|---|---|\n| d | inconclusive |\n',
    );
    assert.equal(reportTable('docs/r.md', 'c.csv', 1, d), '| claim |\n|---|\n| a |\n| b |\n| c |\n');
    assert.throws(() => reportTable('docs/r.md', 'c.csv', 2, d), /no table number 3/);
    assert.match(table('none.csv view=rows', d), /Not measured yet/);
  });
  it('counts verdicts of one profile, and of one paper', () => {
    assert.equal(verdicts(path.join(d, 'c.csv')), '3 claims: 1 reproduced, 1 inconclusive, 1 contradicted');
    assert.equal(verdicts(path.join(d, 'c.csv'), 'EvoLM'), '2 claims: 1 inconclusive, 1 contradicted');
    assert.equal(verdicts(path.join(d, 'c.csv'), 'RLCER', 'quick'), '1 claims: 1 inconclusive');
  });
  it("counts a sweep's finished runs per cell and method, blank where a knob does not reach a method", () => {
    const archive = path.join(d, 'archive'),
      cfg = path.join(d, 'sweep.json');
    fs.writeFileSync(
      cfg,
      JSON.stringify({
        name: 't',
        root: path.join(d, 'root'),
        archive,
        command: ['x.ts'],
        methods: ['a', 'b'],
        seeds: [0, 1],
        sizes: ['S'],
        knobs: [{ name: 'k', default: '0', methods: ['a'], levels: [{ level: '1' }] }],
      }),
    );
    for (const run of ['a/baseline/seed-0', 'a/baseline/seed-1', 'b/baseline/seed-1', 'a/k=1/seed-0']) {
      fs.mkdirSync(path.join(archive, 'S', run), { recursive: true });
      fs.writeFileSync(path.join(archive, 'S', run, 'done.json'), '{}');
    }
    fs.mkdirSync(path.join(archive, 'S', 'b/baseline/seed-0'), { recursive: true }); // started, not finished
    assert.equal(
      sweepProgress(cfg),
      '4 of 6 runs finished\n\n| cell | a | b |\n|---|---|---|\n' + '| baseline | 2/2 | 1/2 |\n| k=1 | 1/2 |  |\n',
    );
  });
});
