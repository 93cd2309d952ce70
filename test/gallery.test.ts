// The figure gallery (results/figures/index.html): current with the figure specs beside it, every figure captioned
// and tied to a committed table, and, opened in a real browser from file://, free of errors with every plot drawn.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUNDLE, figureHtml, figureScript, plotlyJs, readFigureScript, type Figure } from '../analysis/figures.js';
import { readCsv } from '../src/io/table.js';
import { checkGallery, figureSpecs, galleryHtml, galleryProblems, groupOf, writeGallery } from '../analysis/gallery.js';

const DIR = 'results/figures';

describe('figure gallery', function () {
  this.timeout(180000);
  it('is current: index.html equals what the figure specs beside it give', () => {
    assert.equal(
      fs.readFileSync(path.join(DIR, 'index.html'), 'utf8'),
      galleryHtml(DIR),
      'results/figures/index.html is stale: run "make figures"',
    );
  });
  it('shares one plotly bundle, equal to the installed full plotly.js-dist-min', () => {
    assert.ok(
      fs.readFileSync(BUNDLE, 'utf8') === plotlyJs(),
      `${BUNDLE} differs from node_modules: run "make figures"`,
    );
    for (const f of fs.readdirSync(DIR).filter((x) => x.endsWith('.html'))) {
      const html = fs.readFileSync(path.join(DIR, f), 'utf8');
      assert.ok(html.length < 200000, `${f} is ${html.length} bytes: a figure page must not inline plotly`);
      assert.ok(html.includes('src="plotly.min.js"'), `${f} does not load the shared bundle`);
    }
  });
  it('has a spec, a caption and an existing table for every figure page and export', () => {
    const specs = figureSpecs(DIR),
      names = new Set(specs.map((s) => s.name));
    assert.ok(specs.length >= 30, `only ${specs.length} figure specs`);
    for (const s of specs) {
      assert.ok(s.caption.length > 40, `${s.name} has no caption`);
      assert.ok(s.table && fs.existsSync(s.table), `${s.name}: its table "${s.table}" does not exist`);
      assert.notEqual(groupOf(s.name), 'Other', `${s.name} belongs to no paper's section`);
    }
    // no screenshot either: a browser's picture of the page differs by machine, so it is not committed
    for (const f of fs.readdirSync(DIR).filter((x) => /\.(html|png|svg)$/.test(x) && x !== 'index.html')) {
      assert.ok(names.has(f.replace(/\.(html|png|svg)$/, '')), `${f} has no figure spec (a stale figure?)`);
    }
  });
  it('reads back the spec it writes, and refuses a file that is not one', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-gal-'));
    const f: Figure = {
      name: 'x_<odd>',
      data: [{ type: 'bar', x: [1], y: [2] }],
      layout: { title: { text: 'a</script>' } },
      caption: 'c',
      table: 't.csv',
    };
    fs.writeFileSync(path.join(d, 'a.js'), figureScript(f));
    assert.deepEqual(readFigureScript(path.join(d, 'a.js')), {
      name: 'x_<odd>',
      data: f.data,
      layout: { width: 900, height: 600, title: { text: 'a</script>' } },
      caption: 'c',
      table: 't.csv',
    });
    fs.writeFileSync(path.join(d, 'b.js'), 'console.log(1)\n');
    assert.throws(() => readFigureScript(path.join(d, 'b.js')), /not a figure spec/);
    const page = figureHtml(f, '../p.js');
    assert.ok(
      page.includes('<title>x_&lt;odd&gt;</title>') && !page.includes('<odd>'),
      'the page does not escape the name',
    );
  });
  it('renders in Chromium from file:// without errors, every plot drawn within the page, and takes a screenshot', async () => {
    const shot = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-gal-')), 'gallery.png');
    const c = await checkGallery(path.join(DIR, 'index.html'), shot);
    assert.deepEqual(galleryProblems(c), []);
    assert.equal(c.plots.length, figureSpecs(DIR).length);
    assert.ok(c.plots.every((p) => p.traces > 0 && p.drawn && p.fits));
    // the wide ones too (Table 2 is 1200 px wide, the page 1000)
    const wide = figureSpecs(DIR).filter((s) => Number(s.layout.width) > 1000);
    assert.ok(
      wide.some((s) => s.name === 'table2_S'),
      'no figure wider than the page to check',
    );
    assert.equal(fs.readFileSync(shot).subarray(1, 4).toString(), 'PNG');
  });
  it('reports a broken figure script, a missing spec and an empty plot', async () => {
    // a gallery beside the real bundle, so that the only problems are the planted ones
    const d = fs.mkdtempSync(path.join(DIR, '.test-'));
    try {
      const good: Figure = {
        name: 'rlcer_good',
        data: [{ type: 'scatter', x: [0, 1], y: [0, 1] }],
        layout: {},
        caption: 'ok',
      };
      const empty: Figure = { name: 'rlcer_empty', data: [], layout: {}, caption: 'nothing' };
      const wide: Figure = { ...good, name: 'rlcer_wide', width: 2400 };
      fs.writeFileSync(path.join(d, 'rlcer_good.js'), figureScript(good));
      fs.writeFileSync(path.join(d, 'rlcer_empty.js'), figureScript(empty));
      fs.writeFileSync(path.join(d, 'rlcer_wide.js'), figureScript(wide));
      writeGallery(d);
      const ok = await checkGallery(path.join(d, 'index.html'));
      // the 2400 px figure is drawn at the page's width
      assert.deepEqual(galleryProblems(ok), ['rlcer_empty: 0 traces, drawn']);
      assert.deepEqual(galleryProblems({ errors: [], plots: [{ name: 'x', traces: 1, drawn: true, fits: false }] }), [
        'x: wider than the page',
      ]);
      fs.writeFileSync(path.join(d, 'rlcer_good.js'), figureScript(good).replace('] =', '] = ]'));
      const broken = galleryProblems(await checkGallery(path.join(d, 'index.html')));
      assert.ok(
        broken.some((p) => p.startsWith('page: ')),
        `no page error reported: ${broken.join('; ')}`,
      );
      assert.ok(
        broken.some((p) => /no figure spec for rlcer_good/.test(p)),
        `the missing spec was not reported: ${broken.join('; ')}`,
      );
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('paper figures map (results/paper_figures.csv)', () => {
  const rows = readCsv('results/paper_figures.csv');
  it('lists every paper, with a known status and a note', () => {
    assert.deepEqual([...new Set(rows.map((r) => r.paper))].sort(), ['CO-RL', 'EvoLM', 'RLCER', 'Rubicon']);
    for (const r of rows) {
      assert.ok(
        ['drawn', 'table_only', 'missing', 'not_applicable'].includes(String(r.status)),
        `${r.paper} ${r.figure}: status ${r.status}`,
      );
      assert.ok(String(r.note).length > 20, `${r.paper} ${r.figure} has no note`);
    }
  });
  it('points every counterpart at a figure in the gallery or a committed table, and none where there is none', () => {
    const specs = new Set(figureSpecs(DIR).map((s) => s.name));
    for (const r of rows) {
      const ours = String(r.our_figure),
        what = `${r.paper} ${r.figure}`;
      if (r.status === 'missing' || r.status === 'not_applicable') {
        assert.equal(ours, '', `${what} is ${r.status} but names ${ours}`);
        continue;
      }
      if (ours.endsWith('.csv')) assert.ok(fs.existsSync(ours), `${what}: ${ours} does not exist`);
      else assert.ok(specs.has(ours), `${what}: no figure ${ours} in ${DIR}`);
      if (r.status === 'table_only') assert.ok(ours.endsWith('.csv'), `${what} is table_only but names a figure`);
    }
  });
});
