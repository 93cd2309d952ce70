// The notebooks' tables and charts (analysis/notebook-view.ts): views of a DataFrame as HTML, danfojs summaries, and
// charts from the same figure specs as results/figures/: a static picture and the interactive chart in one output,
// the plotly bundle inlined once per live session (or loaded from the shared file).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { plotlyJs, readFigureScript, specOf, type Figure } from '../analysis/figures.js';
import { encodeIndexed, pictureStats } from '../analysis/png.js';
import { figureSpecs } from '../analysis/gallery.js';
import { figureThemes, themeOf } from '../analysis/figure-themes.js';
import {
  CHART_CLASS,
  chartHtml,
  chartPng,
  closeChartRenderer,
  compactSpec,
  claims,
  figure,
  filterRows,
  formatValue,
  frame,
  META,
  nextChartOutputs,
  plotlyLoaderHtml,
  rowsOf,
  runs,
  sameAsCommitted,
  sharedPlotlyLoaderHtml,
  sortRows,
  STATIC_CLASS,
  summarise,
  viewCells,
  viewHtml,
  wide,
} from '../analysis/notebook-view.js';

const CLAIMS = [
  { paper: 'RLCER', claim: 'b', delta: 0.1, ci_low: 0.05, ci_high: 0.15, seeds: 3, verdict: 'reproduced' },
  { paper: 'EvoLM', claim: 'a', delta: -0.2, ci_low: -0.3, ci_high: -0.1, seeds: 3, verdict: 'contradicted' },
  { paper: 'RLCER', claim: 'a', delta: 0, ci_low: '', ci_high: '', seeds: 1, verdict: 'inconclusive' },
];

describe('notebook views of tidy tables (analysis/notebook-view.ts)', () => {
  it('reads a CSV into a DataFrame, blanks of numeric columns as NaN, and filters on load', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbv-'));
    fs.writeFileSync(path.join(d, 't.csv'), 'method,seed,value,note\nrlvr,0,0.5,\nrlcer,0,,x\nrlcer,1,0.25,"a, b"\n');
    const df = frame(path.join(d, 't.csv'));
    assert.deepEqual(df.shape, [3, 4]);
    const rows = rowsOf(df);
    assert.ok(Number.isNaN(rows[1].value as number));
    assert.equal(rows[0].note, '');
    assert.equal(rows[2].note, 'a, b');
    assert.deepEqual(
      rowsOf(frame(path.join(d, 't.csv'), { method: 'rlcer' })).map((r) => r.seed),
      [0, 1],
    );
    assert.deepEqual(frame(path.join(d, 'missing.csv')).shape, [0, 0]);
  });
  it('filters by values, lists and predicates; sorts stably on several keys, descending with "-", blanks last', () => {
    assert.deepEqual(
      filterRows(CLAIMS, { paper: 'RLCER' }).map((r) => r.claim),
      ['b', 'a'],
    );
    assert.deepEqual(filterRows(CLAIMS, { verdict: ['reproduced', 'contradicted'] }).length, 2);
    assert.deepEqual(
      filterRows(CLAIMS, (r) => Number(r.delta) < 0).map((r) => r.paper),
      ['EvoLM'],
    );
    assert.deepEqual(
      sortRows(CLAIMS, ['paper', 'claim']).map((r) => `${r.paper}${r.claim}`),
      ['EvoLMa', 'RLCERa', 'RLCERb'],
    );
    assert.deepEqual(
      sortRows(CLAIMS, '-delta').map((r) => r.delta),
      [0.1, 0, -0.2],
    );
    assert.deepEqual(
      sortRows(CLAIMS, 'ci_low').map((r) => r.ci_low),
      [-0.3, 0.05, ''],
    );
    assert.deepEqual(
      sortRows([{ l: '10' }, { l: '9' }, { l: 'default' }], 'l').map((r) => r.l),
      ['9', '10', 'default'],
    );
  });
  it('formats numbers to fixed decimals, integers as they are, blanks and NaN empty', () => {
    assert.deepEqual(
      [formatValue(0.12345), formatValue(3), formatValue(NaN), formatValue(''), formatValue('x'), formatValue(0.5, 1)],
      ['0.123', '3', '', '', 'x', '0.5'],
    );
  });
  it('renders a view: columns picked, the interval beside its estimate, one block per group, escaped', () => {
    const v = viewCells(CLAIMS, { columns: ['claim', 'delta', 'verdict'], ci: 'delta', sort: 'claim' });
    assert.deepEqual(v.columns, ['claim', 'delta', 'verdict']);
    assert.deepEqual(
      v.rows.map((r) => r.delta),
      ['-0.200 [-0.300, -0.100]', '0', '0.100 [0.050, 0.150]'],
    );
    const html = viewHtml(CLAIMS, { columns: ['claim', 'delta'], ci: 'delta', groupBy: 'paper', caption: 'a <b>' });
    assert.match(html, /<caption[^>]*>a &lt;b&gt; · 3 rows<\/caption>/);
    assert.match(html, /<th>delta \[95% CI\]<\/th>/);
    assert.equal(html.match(/class="wb-group"/g)?.length, 2);
    assert.match(
      html,
      /paper: RLCER \(2\)<\/th><\/tr><tr><td>b<\/td><td>0.100 \[0.050, 0.150\]<\/td><\/tr><tr><td>a<\/td>/,
    );
    assert.match(viewHtml(CLAIMS, { limit: 1 }), /first 1 of 3 rows/);
    assert.throws(() => viewHtml(CLAIMS, { columns: ['nope'] }), /no column "nope"/);
    // without columns, the interval's bounds are folded into the estimate
    assert.ok(!viewCells(CLAIMS, { ci: 'delta' }).columns.includes('ci_low'));
  });
  it('summarises per group by danfojs (mean, std, count), sorted by the keys', () => {
    const rows = [
      { m: 'b', v: 1 },
      { m: 'a', v: 2 },
      { m: 'b', v: 3 },
      { m: 'a', v: 4 },
      { m: 'a', v: 6 },
    ];
    const s = rowsOf(summarise(frame(rows), ['m'], ['v']));
    assert.deepEqual(
      s.map((r) => [r.m, r.v_mean, r.v_count]),
      [
        ['a', 4, 3],
        ['b', 2, 2],
      ],
    );
    assert.ok(Math.abs(Number(s[0].v_std) - 2) < 1e-12);
    assert.deepEqual(summarise([], ['m'], ['v']).shape, [0, 0]);
  });
  it('reads a claims table with the paper and setting of each claim in front', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbv-'));
    fs.writeFileSync(
      path.join(d, 'c.csv'),
      'profile,claim,run,against,measure,expected_sign,delta,ci_low,ci_high,seeds,' +
        'verdict\nfull,a,S|rlcer,S|rlvr,average,+,0.1,0.05,0.15,3,reproduced\nfull,b,M|evolm,M|judge_teacher,average,+,0,' +
        '-1,1,3,inconclusive\nquick,c,S|rlcer,S|rlvr,average,+,0,-1,1,2,inconclusive\n',
    );
    const rows = rowsOf(claims(path.join(d, 'c.csv'), { profile: 'full' }));
    assert.deepEqual(
      rows.map((r) => [r.paper, r.setting, r.claim]),
      [
        ['RLCER', 'S', 'a'],
        ['EvoLM', 'M', 'b'],
      ],
    );
    assert.deepEqual(Object.keys(rows[0]).slice(0, 3), ['paper', 'setting', 'profile']);
  });
  it('lists finished runs with the parts of their paths as columns', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nbv-'));
    for (const r of ['S/rlvr/baseline/seed-0', 'S/rlvr/baseline/seed-1', 'S/rlcer/k=1/seed-0']) {
      fs.mkdirSync(path.join(d, r), { recursive: true });
      fs.writeFileSync(path.join(d, r, 'done.json'), '{}');
    }
    fs.mkdirSync(path.join(d, 'S/rlcer/k=1/seed-1'), { recursive: true }); // started, not finished
    const rows = rowsOf(runs(d, ['size', 'method', 'cell', 'seed']));
    assert.deepEqual(
      rows.map((r) => [r.method, r.cell, r.seed]),
      [
        ['rlcer', 'k=1', 0],
        ['rlvr', 'baseline', 0],
        ['rlvr', 'baseline', 1],
      ],
    );
    assert.equal(rows[0].dir, path.join(d, 'S/rlcer/k=1/seed-0'));
  });
  it('spreads a long table to one row per key, with intervals', () => {
    const long = [
      { method: 'rlvr', column: 'add', mean: 0.5, ci_low: 0.4, ci_high: 0.6 },
      { method: 'rlvr', column: 'sub', mean: 0.25, ci_low: '', ci_high: '' },
      { method: 'rlcer', column: 'add', mean: 0.75, ci_low: 0.7, ci_high: 0.8 },
    ];
    assert.deepEqual(rowsOf(wide(long, { index: ['method'], column: 'column', value: 'mean', ci: true, digits: 2 })), [
      { method: 'rlvr', add: '0.50 [0.40, 0.60]', sub: '0.25' },
      { method: 'rlcer', add: '0.75 [0.70, 0.80]', sub: '' },
    ]);
  });
});

describe('notebook charts (analysis/notebook-view.ts)', () => {
  const f: Figure = {
    name: 'x_</script>',
    data: [{ type: 'scatter', x: [1, 2], y: [3, 4], name: '<b>' }],
    layout: { title: { text: 'T' } },
    caption: 'c',
    table: 't.csv',
  };
  const png = encodeIndexed(2, 1, [0xffffff, 0x1f77b4], Uint8Array.from([0, 1]));
  it('draws the spec of results/figures/<name>.js over its static picture, inside its own div, with no way out', () => {
    const html = chartHtml(f, 'id-1', png);
    assert.ok(
      html.startsWith(
        `<div class="${CHART_CLASS}" id="id-1" data-name="x_&lt;/script&gt;"><img class="${STATIC_CLASS}"`,
      ),
    );
    assert.ok(html.includes(` src="data:image/png;base64,${png.toString('base64')}"`), 'the picture is not in the div');
    assert.ok(html.includes('alt="x_&lt;/script&gt;: T"'), 'the picture is not named by its chart');
    assert.equal(html.match(/<\/script>/g)?.length, 1, 'the spec closes the script early');
    const json = html.slice(html.indexOf('var f = ') + 8, html.indexOf(';\n  var draw'));
    assert.deepEqual(JSON.parse(json), JSON.parse(JSON.stringify(specOf(f))));
    // the picture goes once plotly has drawn; a chart wider than its div is drawn at the div's width
    assert.match(
      html,
      /newPlot\(div, f\.data, layout, \{responsive: true\}\)\.then\(function \(\) \{\n\s+if \(img\) img\.remove\(\);/,
    );
    assert.match(html, /w > 0 && w < f\.layout\.width \? \{width: w\}/);
  });
  it('puts the picture beside the interactive chart in one output, the reading after it, plotly in front of the first', () => {
    const first = nextChartOutputs(f, png, 'read me'),
      second = nextChartOutputs(f, png);
    assert.equal(first.length, 3);
    assert.deepEqual(first[0].metadata, { [META]: { plotly: 'inline' } });
    assert.ok(first[0].data['text/html'].includes('plotly.js v'));
    const bundle = first[1];
    assert.deepEqual(Object.keys(bundle.data).sort(), ['image/png', 'text/html', 'text/plain']);
    assert.equal(bundle.data['image/png'], png.toString('base64'));
    assert.ok(bundle.data['text/html'].includes(png.toString('base64')));
    assert.deepEqual(bundle.metadata, { [META]: { chart: f.name } });
    assert.match(first[2].data['text/html'], /<b>Reading.<\/b> read me/);
    assert.match(first[2].data['text/plain'], /^c Drawn from t.csv.\nReading. read me$/);
    // later charts reuse the bundle; the ids differ
    assert.equal(second.length, 2);
    assert.ok(!second.some((o) => o.data['text/html'].includes('plotly.js v')));
    assert.notEqual(
      bundle.data['text/html'].match(/id="([^"]*)"/)?.[1],
      second[0].data['text/html'].match(/id="([^"]*)"/)?.[1],
    );
  });
  it('writes the spec with its numbers to 6 significant digits, integers, strings and nulls as they are', () => {
    const spec = { x: [0.034899494936611666, 1, null, -2.5e-9, 12345678.9], t: 'a 0.123456789', n: { v: 1 / 3 } };
    assert.deepEqual(compactSpec(spec), {
      x: [0.0348995, 1, null, -2.5e-9, 12345700],
      t: 'a 0.123456789',
      n: { v: 0.333333 },
    });
    const g = { ...f, data: [{ type: 'scatter', x: [0.1 + 0.2], y: [1 / 7] }] };
    const html = chartHtml(g, 'id', png);
    const json = html.slice(html.indexOf('var f = ') + 8, html.indexOf(';\n  var draw'));
    assert.deepEqual(JSON.parse(json).data, [{ type: 'scatter', x: [0.3], y: [0.142857] }]);
  });
  it('inlines the installed plotly bundle for a live session, or loads the shared one from a path', () => {
    const loader = plotlyLoaderHtml();
    assert.ok(loader.length > plotlyJs().length - 1000 && loader.startsWith('<script'));
    assert.equal(plotlyLoaderHtml('a</script>b'), '<script type="text/javascript">a<\\/script>b</script>');
    const shared = sharedPlotlyLoaderHtml('../figures/plotly.min.js');
    assert.ok(shared.length < 2000 && !shared.includes('plotly.js v'));
    assert.ok(shared.includes('var rel = "../figures/plotly.min.js"'));
    assert.equal(sharedPlotlyLoaderHtml('</script>').match(/<\/script>/g)?.length, 1);
  });
  it('draws pictures of charts from their specs, small and not blank, one browser for the session', async function () {
    this.timeout(120000);
    try {
      const [g, h] = [figure('table2_S'), figure('rlcer_long')];
      // asked together, drawn one after the other on the one page
      const [p, q] = await Promise.all([chartPng(g), chartPng(h)]);
      for (const [fig, pic] of [
        [g, p],
        [h, q],
      ] as const) {
        const st = pictureStats(pic);
        assert.deepEqual([st.width, st.height], [specOf(fig).layout.width, specOf(fig).layout.height]);
        assert.ok(st.colours > 8 && st.colours <= 256 && st.drawn > 0.05, JSON.stringify(st));
        assert.ok(pic.length < 80000, `${pic.length} bytes`);
      }
      assert.ok((await chartPng(g)).equals(p), 'the same chart drew another picture');
    } finally {
      await closeChartRenderer();
    }
  });
  it('builds every gallery figure by name with the builders make-figures uses, equal to its committed spec', () => {
    const specs = figureSpecs('results/figures');
    const built = new Map(
      Object.values(figureThemes())
        .flatMap((t) => t())
        .map((g) => [g.name, g]),
    );
    for (const s of specs) {
      assert.ok(built.has(s.name), `${s.name}: no builder draws it`);
      assert.deepEqual(
        JSON.parse(JSON.stringify(specOf(built.get(s.name)!))),
        s,
        `${s.name} differs: run "make figures"`,
      );
      assert.ok(figureThemes()[themeOf(s.name)], s.name);
    }
    const g = figure('regime_map');
    assert.ok(sameAsCommitted(g));
    assert.deepEqual(JSON.parse(JSON.stringify(specOf(g))), readFigureScript('results/figures/regime_map.js'));
    assert.ok(!sameAsCommitted({ ...g, caption: 'other' }));
    assert.throws(() => figure('regime_nothing'), /draws no figure "regime_nothing"/);
    assert.throws(() => themeOf('zzz_a'), /no figure theme/);
  });
});
