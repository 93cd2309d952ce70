// The executed notebooks (results/notebooks/, made by `make notebooks`) as a reader sees them: exported to HTML by
// nbconvert and opened in Chromium from file:// (offline), every chart each notebook draws is rendered by plotly, the
// page logs no error, and the mouse over one chart brings up its tooltip. The notebooks hold interactive charts,
// not static images (the PNGs stay in the reports), and load the plotly bundle once each.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chartsIn, checkNotebookPage, exportHtml, imagesIn, pageProblems } from '../analysis/notebook-browser.js';

const DIR = 'results/notebooks';
const NOTEBOOKS = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.ipynb'))
  .sort();

describe('executed notebooks in a browser (results/notebooks)', function () {
  this.timeout(180000);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbhtml-'));
  it('draw interactive charts, no static images, and inline plotly once each', () => {
    for (const nb of NOTEBOOKS) {
      const file = path.join(DIR, nb);
      assert.ok(chartsIn(file).length >= 1, `${nb} draws no chart`);
      assert.equal(imagesIn(file), 0, `${nb} has a static image output`);
      const text = fs.readFileSync(file, 'utf8');
      assert.equal(text.split('* plotly.js v').length - 1, 1, `${nb} does not inline the plotly bundle exactly once`);
    }
  });
  for (const nb of NOTEBOOKS) {
    it(`${nb}: every chart rendered, no console error, a tooltip on hover`, async () => {
      const expected = chartsIn(path.join(DIR, nb));
      const c = await checkNotebookPage(exportHtml(path.join(DIR, nb), out));
      assert.deepEqual(pageProblems(c, expected), []);
      assert.deepEqual(
        c.charts.map((p) => p.name),
        expected,
      );
      assert.ok(c.hovered && c.hovered.tooltip.trim().length > 0, `${nb}: no tooltip`);
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
        '<div class="wb-chart" data-name="b"></div><script>Plotly.newPlot(document.querySelectorAll(".wb-chart")[1], ' +
        '[{type: "scatter", x: [1, 2], y: [1, 2], hoverinfo: "skip"}], {width: 400, height: 300})</script></body></html>',
    );
    const c = await checkNotebookPage(html);
    const problems = pageProblems(c, ['a', 'b', 'c']);
    assert.ok(
      problems.some((p) => /planted/.test(p)),
      problems.join('; '),
    );
    assert.ok(problems.includes('a: 0 traces, not drawn'), problems.join('; '));
    assert.ok(problems.includes('2 charts on the page, the notebook draws 3'), problems.join('; '));
    assert.ok(
      problems.some((p) => p.startsWith('no tooltip')),
      problems.join('; '),
    );
  });
});
