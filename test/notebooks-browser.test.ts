// The executed notebooks (results/notebooks/, made by `make notebooks`) as readers see them. Exported to HTML by
// nbconvert and opened in Chromium from file:// (offline): with scripts on, every chart each notebook draws is
// rendered by plotly over its static picture, the page logs no error, and the mouse over one chart brings up its
// tooltip; with scripts off, as a static renderer shows a notebook (GitHub, nbviewer: nbconvert's sanitizer,
// JavaScript disabled), every chart's picture is there and shown. The files themselves: each chart output carries its
// picture as image/png beside the interactive chart, the picture survives an untrusted Jupyter's sanitizer, no
// notebook carries plotly (each loads the one shared bundle), and none is over 1 MB.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUNDLE, plotlyJs } from '../analysis/figures.js';
import {
  chartOutputs,
  chartsIn,
  checkNotebookPage,
  checkStaticPage,
  exportHtml,
  pageDir,
  pageProblems,
  pictureProblems,
  plotlyIn,
  JUPYTER_SANITIZER,
  staticProblems,
  untrustedJupyterHtml,
  untrustedProblems,
} from '../analysis/notebook-browser.js';
import { encodeIndexed } from '../analysis/png.js';

const DIR = 'results/notebooks';
const NOTEBOOKS = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.ipynb'))
  .sort();

describe('executed notebooks in a browser (results/notebooks)', function () {
  this.timeout(180000);
  let out = '';
  before(() => {
    out = pageDir();
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));
  it('carry a picture beside every interactive chart, load the shared plotly bundle, and weigh at most 1 MB', () => {
    assert.ok(fs.readFileSync(BUNDLE, 'utf8') === plotlyJs(), `${BUNDLE} is not the installed plotly`);
    for (const nb of NOTEBOOKS) {
      const file = path.join(DIR, nb);
      const charts = chartsIn(file);
      assert.ok(charts.length >= 1, `${nb} draws no chart`);
      assert.deepEqual(
        chartOutputs(file).map((c) => c.name),
        charts,
      );
      assert.deepEqual(pictureProblems(file), [], nb);
      const plotly = plotlyIn(file);
      assert.equal(plotly.inlined, 0, `${nb} inlines plotly: run "make notebooks"`);
      assert.equal(plotly.shared.length, 1, `${nb} loads the shared plotly bundle ${plotly.shared.length} times`);
      assert.equal(path.join(DIR, plotly.shared[0]), BUNDLE, `${nb} loads plotly from ${plotly.shared[0]}`);
      const size = fs.statSync(file).size;
      assert.ok(size <= 1e6, `${nb} is ${(size / 1e6).toFixed(2)} MB`);
    }
  });
  it("keep every chart's picture, and no script, through an untrusted Jupyter notebook's sanitizer", function () {
    if (!fs.existsSync(JUPYTER_SANITIZER)) this.skip(); // no classic notebook installed (make setup installs it)
    for (const nb of NOTEBOOKS) assert.deepEqual(untrustedProblems(path.join(DIR, nb)), [], nb);
    // and the sanitizer is one that removes what it must
    const clean = untrustedJupyterHtml('<img src="data:image/png;base64,AA" onerror="x()"><script>x()</script>');
    assert.equal(clean, '<img src="data:image/png;base64,AA" />');
  });
  for (const nb of NOTEBOOKS) {
    it(`${nb}: every chart rendered over its picture, no console error, a tooltip on hover`, async () => {
      const expected = chartsIn(path.join(DIR, nb));
      const c = await checkNotebookPage(exportHtml(path.join(DIR, nb), out));
      assert.deepEqual(pageProblems(c, expected), []);
      assert.deepEqual(
        c.charts.map((p) => p.name),
        expected,
      );
      assert.ok(c.hovered && c.hovered.tooltip.trim().length > 0, `${nb}: no tooltip`);
    });
    it(`${nb}: scripts off (sanitized, JavaScript disabled), every chart's picture shown`, async () => {
      const expected = chartsIn(path.join(DIR, nb));
      const c = await checkStaticPage(exportHtml(path.join(DIR, nb), out, true));
      assert.deepEqual(staticProblems(c, expected), []);
      assert.equal(c.pictures.length, expected.length);
    });
  }
  it('reports a chart that does not render, a page error and a missing tooltip', async () => {
    // a page with one chart whose script fails before drawing, and a chart with nothing to hover
    const html = path.join(out, 'broken.html');
    const bundle = path.resolve('node_modules/plotly.js-dist-min/plotly.min.js');
    fs.writeFileSync(
      html,
      `<!doctype html><html><head><script src="file://${bundle}"></script></head><body>` +
        '<div class="wb-chart" data-name="a"></div><script>throw new Error("planted")</script>' +
        '<div class="wb-chart" data-name="b"><img class="wb-chart-static" src="x.png"></div><script>' +
        'Plotly.newPlot(document.querySelectorAll(".wb-chart")[1], [{type: "scatter", x: [1, 2], y: [1, 2], ' +
        'hoverinfo: "skip"}], {width: 2400, height: 300})</script></body></html>',
    );
    const c = await checkNotebookPage(html);
    const problems = pageProblems(c, ['a', 'b', 'c']);
    assert.ok(
      problems.some((p) => /planted/.test(p)),
      problems.join('; '),
    );
    assert.ok(problems.includes('a: 0 traces, not drawn'), problems.join('; '));
    assert.ok(problems.includes('b: the static picture stays under the chart'), problems.join('; '));
    assert.ok(problems.includes('b: wider than the page'), problems.join('; '));
    assert.ok(problems.includes('2 charts on the page, the notebook draws 3'), problems.join('; '));
    assert.ok(
      problems.some((p) => p.startsWith('no tooltip')),
      problems.join('; '),
    );
  });
  it('reports, with scripts off, a chart without its picture, a picture that does not show and one too wide', async () => {
    const png = encodeIndexed(300, 100, [0xffffff], new Uint8Array(30000)).toString('base64');
    const img = (name: string, src: string, width = 300) =>
      `<img class="wb-chart-static" alt="${name}: t" src="${src}" width="${width}">`;
    const html = path.join(out, 'static.html');
    fs.writeFileSync(
      html,
      `<!doctype html><html><body>${img('a', `data:image/png;base64,${png}`)}${img('b', 'data:image/png;base64,AAAA')}` +
        `${img('c', `data:image/png;base64,${png}`, 3000)}<script>document.body.innerHTML = ''</script></body></html>`,
    );
    const c = await checkStaticPage(html);
    assert.deepEqual(staticProblems(c, ['a', 'b', 'c', 'd']), [
      'pictures of a, b, c; the notebook draws a, b, c, d',
      'b: picture not shown',
      'c: picture wider than the page',
    ]);
  });
  it('reports a chart output without its picture, a blank picture and an HTML that shows another one', () => {
    const file = path.join(out, 'planted.ipynb');
    const good = NOTEBOOKS.map((f) => path.join(DIR, f)).find((f) => chartOutputs(f).some((c) => c.png))!;
    const nb = JSON.parse(fs.readFileSync(good, 'utf8')) as {
      cells: { outputs?: { data?: Record<string, string | string[]> }[] }[];
    };
    const charts = nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.['image/png']);
    assert.ok(charts.length >= 1, `${good} has no chart output with a picture`);
    const blank = encodeIndexed(10, 10, [0xffffff], new Uint8Array(100)).toString('base64');
    delete charts[0].data!['image/png'];
    fs.writeFileSync(file, JSON.stringify(nb));
    const name = chartOutputs(good)[0].name;
    assert.deepEqual(pictureProblems(file), [`${name}: no image/png beside the interactive chart`]);
    if (fs.existsSync(JUPYTER_SANITIZER))
      assert.deepEqual(untrustedProblems(file), [`${name}: no picture once sanitized`]);
    charts[0].data!['image/png'] = blank;
    fs.writeFileSync(file, JSON.stringify(nb));
    assert.deepEqual(
      pictureProblems(file).sort(),
      [
        `${name}: picture 10 x 10, the chart is ${chartOutputs(good)[0].size!.width} x ${chartOutputs(good)[0].size!.height}`,
        `${name}: picture nearly blank (0.0% drawn, 1 colours)`,
        `${name}: the HTML does not show the same picture`,
      ].sort(),
    );
  });
});
