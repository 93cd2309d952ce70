// The reports: every generated table of README.md and docs/*.md is what analysis/docs.ts renders from the committed
// CSVs now (`make docs` after a CSV changes), the renderer on hand-made CSVs, relative links, and README's size.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { claimText, documents, fmt, parseSpec, passes, renderDocument } from '../analysis/docs.js';

// the reports this workbench writes (other docs/*.md are checked for freshness only)
const REPORTS = [
  'README.md',
  ...['world', 'engine', 'rlcer', 'evolm', 'corl', 'rubicon', 'theory', 'testing'].map((d) => `docs/${d}.md`),
];

describe('generated report tables', () => {
  it('every block of README.md and docs/*.md is current (make docs rewrites a stale one)', () => {
    const stale = documents('.').filter((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return renderDocument(text, '.') !== text;
    });
    assert.deepEqual(stale, [], `stale generated tables in ${stale.join(', ')}: run make docs`);
  });

  it('the reports exist and each holds at least one generated table (the test above checks something)', () => {
    for (const f of REPORTS.filter((r) => r !== 'docs/testing.md' && r !== 'docs/engine.md')) {
      assert.match(fs.readFileSync(f, 'utf8'), /<!-- table: [\s\S]*?-->\n\|/, f);
    }
  });

  it('README.md is at most 12,288 bytes', () => {
    const size = fs.statSync('README.md').size;
    assert.ok(size <= 12288, `README.md is ${size} bytes`);
  });

  it('every relative link of the reports points to a file that exists', () => {
    const broken: string[] = [];
    for (const f of REPORTS) {
      const text = fs.readFileSync(f, 'utf8');
      const inline = [...text.matchAll(/\]\(([^)\s]+)\)/g)],
        defined = [...text.matchAll(/^\[[^\]]+\]: (\S+)$/gm)];
      const targets = [...inline, ...defined].map((m) => m[1]);
      for (const t of targets.filter((x) => !/^[a-z]+:/.test(x))) {
        const file = t.split('#')[0];
        if (file && !fs.existsSync(path.join(path.dirname(f), file))) broken.push(`${f}: ${t}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});

describe('the report table renderer', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-docs-'));
  const write = (f: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  };
  const has = (text: string, part: string) =>
    assert.ok(text.includes(part), `missing ${JSON.stringify(part)} in:\n${text}`);
  const render = (marker: string, stale = '| old |\n') =>
    renderDocument(`intro\n<!-- table: ${marker} -->\n${stale}<!-- /table -->\nafter\n`, root);
  before(() => {
    write(
      't.csv',
      [
        'profile,size,method,column,mean,ci_low,ci_high,seeds',
        'full,S,rlvr,average,0.63333,0.6049,0.66151,3',
        'full,S,rlvr,add,0.8271,0.8,0.85,3',
        'full,S,sft,average,0.37637,0.37176,0.38098,3',
        'full,S,sft,add,0.47699,,,1',
        'full,M,sft,average,0.5,0.4,0.6,3',
        'quick,S,sft,average,0.9,0.8,1.0,2',
        'full,S,mystery,average,-0.00004,-0.1,0.1,3',
      ].join('\n') + '\n',
    );
    write(
      'claims.csv',
      [
        'profile,claim,run,against,measure,expected_sign,delta,ci_low,ci_high,seeds,verdict',
        'full,RLCER beats RLVR (average accuracy),S|rlcer,S|rlvr,average,+,-0.33,-0.445,-0.215,3,contradicted',
        'full,RLCER beats RLVR (average accuracy),M|rlcer,M|rlvr,average,+,-0.2,-0.42,0.013,3,inconclusive',
        'full,EvoLM beats fixed teacher rubrics (average accuracy),S|evolm,S|fixed_teacher,average,+,-0.5,-0.6,-0.4,3,' +
          'contradicted',
      ].join('\n') + '\n',
    );
    write('table2_claims.csv', fs.readFileSync(path.join(root, 'claims.csv'), 'utf8'));
    // the power file beside it: the S rows only (M's comparison has no power row)
    write(
      'table2_power.csv',
      'profile,claim,run,against,measure,mde,detects_0_03\n' +
        'full,RLCER beats RLVR (average accuracy),S|rlcer,S|rlvr,average,0.02,yes\n' +
        'full,EvoLM beats fixed teacher rubrics (average accuracy),S|evolm,S|fixed_teacher,average,0.05,no\n' +
        'quick,RLCER beats RLVR (average accuracy),M|rlcer,M|rlvr,average,0.02,yes\n',
    );
    write(
      'table2_reported.csv',
      'paper,method,source,rubric_quality,policy_average,note\n' +
        'R,rlvr,x,,49,n\nR,rlcer,x,,52,n\nE,evolm,x,46,69.3,n\nE,fixed_teacher,x,36.6,66.7,n\n',
    );
  });

  it('pivots rows x columns, filters, labels the rows (known order first), and rounds with intervals', () => {
    const out = render('t.csv profile=full size=S show=average,add ci=average');
    assert.equal(
      out,
      [
        'intro',
        '<!-- table: t.csv profile=full size=S show=average,add ci=average -->',
        '| row | seeds | average accuracy | add |',
        '|---|---|---|---|',
        '| cold-start SFT | 3 | 0.376 [0.372, 0.381] | 0.477 |',
        '| RLVR (outcome only) | 3 | 0.633 [0.605, 0.662] | 0.827 |',
        '| mystery | 3 | 0.000 [-0.100, 0.100] |  |',
        '<!-- /table -->',
        'after',
        '',
      ].join('\n'),
    );
  });

  it('shows no interval for one seed, and labels and exclusions from the marker', () => {
    const out = render('t.csv profile=full size=S method=!mystery show=add label:add="add (2-5 digits)"');
    has(out, '| row | seeds | add (2-5 digits) |\n|---|---|---|\n| cold-start SFT | 1 | 0.477 |\n');
    has(out, '| RLVR (outcome only) | 3 | 0.827 [0.800, 0.850] |\n<!-- /table -->');
  });

  it('prefixes the rows that come from a marked file', () => {
    write(
      'more.csv',
      'profile,size,method,column,mean,ci_low,ci_high,seeds\n' + 'full,S,rlcer_oracle,average,0.25,0.1,0.4,3\n',
    );
    const out = render(
      't.csv+more.csv profile=full size=S method=rlvr,rlcer_oracle show=average ' + 'prefix:more.csv="(ablation) "',
    );
    has(
      out,
      '| RLVR (outcome only) | 3 | 0.633 [0.605, 0.662] |\n| (ablation) RLCER, oracle verifier | 3 | ' +
        '0.250 [0.100, 0.400] |\n<!-- /table -->',
    );
  });

  it('renders one Markdown row per CSV row in the rows view, and the same text twice (idempotent)', () => {
    has(
      render('t.csv view=rows profile=quick'),
      '| profile | size | method | column | mean | ci_low | ci_high | seeds |\n|---|---|---|---|---|---|---|---|\n',
    );
    const once = render('t.csv view=rows profile=quick columns=method,mean,seeds digits=2');
    has(once, '| method | mean | seeds |\n|---|---|---|\n| sft | 0.90 | 2 |\n<!-- /table -->');
    assert.equal(renderDocument(once, root), once);
  });

  it("writes a column that holds text in some row (a knob's levels) as written, numbers beside it with digits", () => {
    write('levels.csv', 'knob,level,delta,ci_low\nh,natural,0.25,\nh,60,0.5,0.125\nh,0.1,-0.1,-0.2\n');
    has(
      render('levels.csv view=rows'),
      '| knob | level | delta | ci_low |\n|---|---|---|---|\n' +
        '| h | natural | 0.250 |  |\n| h | 60 | 0.500 | 0.125 |\n| h | 0.1 | -0.100 | -0.200 |\n<!-- /table -->',
    );
  });

  it('puts each setting of a claim in its own column', () => {
    const out = render('claims.csv view=claims by=setting paper=RLCER');
    has(
      out,
      '| claim | S | M |\n|---|---|---|\n| RLCER beats RLVR (average accuracy) | ' +
        'contradicted, -0.330 [-0.445, -0.215] | inconclusive, -0.200 [-0.420, +0.013] |\n<!-- /table -->',
    );
  });

  it("summarises one row per claim with the paper's reported difference and a link to its report", () => {
    const out = render('table2_claims.csv view=summary');
    has(
      out,
      '| [RLCER][] | RLCER beats RLVR (average accuracy) | +3 | S -0.330 · M -0.200 | ' +
        'S contradicted · M inconclusive | S yes · M - |\n',
    );
    has(
      out,
      '| [EvoLM][] | EvoLM beats fixed teacher rubrics (average accuracy) | +2.6 | S -0.500 | contradicted | no |\n',
    );
    has(out, "| paper | claim | paper's number | ours (difference) | verdict | could detect +0.03 |\n");
    has(out, '\n[RLCER]: docs/rlcer.md\n[EvoLM]: docs/evolm.md\n<!-- /table -->');
  });

  it('a claim whose rows have no committed runs (no paired seed) reads "not run yet", and a missing CSV says so', () => {
    write(
      'none/table2_claims.csv',
      [
        'profile,claim,run,against,measure,expected_sign,delta,ci_low,ci_high,seeds,verdict',
        'full,EvoLM beats fixed teacher rubrics (average accuracy),S|evolm,S|fixed_teacher,average,+,,,,0,inconclusive',
        'full,RLCER beats RLVR (average accuracy),S|rlcer,S|rlvr,average,+,-0.01,-0.07,0.05,3,inconclusive',
      ].join('\n') + '\n',
    );
    const out = render('none/table2_claims.csv view=summary');
    has(out, '| [EvoLM][] | EvoLM beats fixed teacher rubrics (average accuracy) |  | S not run | not run yet |  |\n');
    has(out, '| S -0.010 | inconclusive |  |\n'); // no power file beside it
    has(
      render('none/table2_claims.csv view=claims by=setting'),
      '| EvoLM beats fixed teacher rubrics (average accuracy) | not run yet |',
    );
    has(
      render('none/nothing.csv view=rows'),
      '_Not measured yet: no committed runs write `none/nothing.csv`._\n<!-- /table -->',
    );
  });

  it("draws the campaign's claims as one row per claim, one column per cell, a symbol per endpoint", () => {
    const head = 'size,regime,horizon,endpoint,claim,a,b,expected_sign,seeds,delta,ci_low,ci_high,p,p_holm,mde,';
    write(
      'confirm/claims.csv',
      [
        `${head}positive_control,verdict`,
        'S,baseline,60,trace_error,rlcer_minus_rlvr,rlcer,rlvr,-1,20,-0.05,-0.08,-0.02,0.001,0.003,0.02,beats,helps',
        'S,baseline,60,in_distribution,rlcer_minus_rlvr,rlcer,rlvr,1,20,0.001,-0.01,0.01,0.8,1,0.015,beats,' +
          'no effect larger than MDE',
        'S,baseline,60,chain_ood,rlcer_minus_rlvr,rlcer,rlvr,1,20,-0.03,-0.05,-0.01,0.01,0.02,0.04,beats,hurts',
        'S,sparse,60,trace_error,rlcer_minus_rlvr,rlcer,rlvr,-1,0,,,,,,,beats,not testable (why)',
        'S,sparse,60,in_distribution,rlcer_minus_rlvr,rlcer,rlvr,1,20,0.01,-0.03,0.05,0.5,1,0.05,no,uninformative',
        'S,baseline,60,in_distribution,process_oracle_minus_rlvr,process_oracle,rlvr,1,12,,,,,,,,pending',
      ].join('\n') + '\n',
    );
    write(
      'confirm/power.csv',
      [
        'size,regime,horizon,endpoint,claim,seeds,delta,sd,half_width,mde,power_at_0_03,detects_0_03,note',
        'S,baseline,60,trace_error,rlcer_minus_rlvr,20,-0.05,0.03,0.01,0.02,0.99,yes,',
        'S,baseline,60,in_distribution,rlcer_minus_rlvr,20,0.001,0.02,0.01,0.015,0.99,yes,',
        'S,baseline,60,chain_ood,rlcer_minus_rlvr,20,-0.03,0.05,0.02,0.04,0.6,no,',
        'S,sparse,60,in_distribution,rlcer_minus_rlvr,20,0.01,0.06,0.04,0.05,0.3,no,',
      ].join('\n') + '\n',
    );
    const out = render('confirm/claims.csv view=confirm label:rlvr=RLVR label:process_oracle=PC');
    has(out, '| claim | S baseline, 60 | S sparse, 60 | could detect +0.03 |\n|---|---|---|---|\n');
    // endpoints in a fixed order (acc, ood, err), whatever the CSV's; MDEs above 0.03 in some finished cells: partly
    has(out, '| RLCER - RLVR | acc = ood - err + | acc u err x | partly |\n');
    has(out, '| PC - RLVR | acc … |  |  |\n'); // nothing finished: no power reading
    has(out, 'acc: in_distribution, ood: chain_ood, err: trace_error; + helps, - hurts, = no effect larger than MDE');
    write('confirm2/claims.csv', fs.readFileSync(path.join(root, 'confirm/claims.csv'), 'utf8'));
    write(
      'confirm2/power.csv',
      fs.readFileSync(path.join(root, 'confirm/power.csv'), 'utf8').replace(/,no,/g, ',yes,'),
    );
    has(render('confirm2/claims.csv view=confirm label:rlvr=RLVR'), '| acc u err x | yes |\n');
  });

  it('a marker may span lines; its text is kept as written', () => {
    const marker = 't.csv profile=full\n  size=M show=average';
    has(
      render(marker),
      '<!-- table: t.csv profile=full\n  size=M show=average -->\n' +
        '| row | seeds | average accuracy |\n|---|---|---|\n| cold-start SFT | 3 | 0.500 [0.400, 0.600] |\n' +
        '<!-- /table -->',
    );
  });

  it('parses options, filters and quoted labels; bad markers are one-line errors', () => {
    const s = parseSpec('a.csv+b.csv view=claims size=S,M order=x order=y label:k="two words"');
    assert.deepEqual(
      [s.files, s.view, s.filters, s.opts, s.labels],
      [['a.csv', 'b.csv'], 'claims', [['size', ['S', 'M']]], { order: 'x,y' }, { k: 'two words' }],
    );
    assert.throws(() => parseSpec('view=rows'), /must start with the CSV path/);
    assert.throws(() => parseSpec('a.csv view=chart'), /unknown view "chart"/);
    assert.throws(() => render('t.csv nosuch=1'), /no column "nosuch"/);
    assert.throws(() => render('t.csv size=XL'), /no row passes/);
  });

  it('formats numbers: rounding, no negative zero, signs, exponents, significant figures', () => {
    assert.deepEqual(
      [
        fmt(0.12345),
        fmt(-0.0001),
        fmt(0.5, 3, true),
        fmt(0, 3, true),
        fmt(2.2e-12, 6, false, true),
        fmt(0.00005, 3, false, false, true),
        fmt(89.729, 3, false, false, true),
        fmt('text'),
        fmt(''),
      ],
      ['0.123', '0.000', '+0.500', '0.000', '2.2e-12', '0.0000500', '89.7', 'text', ''],
    );
    assert.ok(passes('evolm_k_half', ['evolm*']) && !passes('evolm', ['!evolm*']) && passes('rlcer', ['!evolm*']));
  });

  it("takes the setting out of a claim's text", () => {
    const r = { claim: 'CO-RL beats TTRL (transformer-S, average accuracy)', run: 'transformer-S|corl' };
    assert.equal(claimText(r), 'CO-RL beats TTRL (average accuracy)');
    const ring = { claim: 'the ring beats TTRL (gru-S)', run: 'gru-S|corl_three_ring' };
    assert.equal(claimText(ring), 'the ring beats TTRL');
    const plain = 'RLCER beats RLVR (average accuracy)';
    assert.equal(claimText({ claim: plain, run: 'S|rlcer' }), plain);
  });
});
