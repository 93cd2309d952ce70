// CO-RL's fair comparisons (docs/corl-fairness.md): the cross-family pair matched in cold-start accuracy, the partner
// pairs table, the plurality rule beside the separatrix rule, the kept final completions and the archived run records.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCsv } from '../src/io/table.js';
import { archiveRun } from '../src/io/jobs.js';
import { ConfigError } from '../src/util/validate.js';
import {
  AGENT_CHECKPOINTS,
  checkMatchedMethod,
  coldStartAccuracy,
  CORL_ARCHIVE,
  CORL_METHODS,
  CORL_PROFILES,
  MATCH_TOLERANCE,
  matchedPair,
  OVERLAP_PROTOCOLS,
  pairRows,
} from '../src/methods/tables/table1.js';
import type { Problem } from '../src/world/problems.js';

const close = (x: number, y: number) => Math.abs(x - y) < 1e-12;
const prob = (answer: string, family = 'add'): Problem =>
  ({ family, digits: 2, operands: [Number(answer), 0], answer: answer.split('').map(Number), passes: [] }) as never;

describe('CO-RL partners matched in cold-start accuracy', function () {
  this.timeout(300000); // importing analysis/ (tsx) is slow on a loaded machine
  it('cold-start accuracy: mean over difficulties per family, then over the training families', () => {
    const rows = [
      { model: 'x', family: 'add', difficulty: 2, accuracy: 0.2 },
      { model: 'x', family: 'add', difficulty: 3, accuracy: 0.4 },
      { model: 'x', family: 'sub', difficulty: 2, accuracy: 0.5 },
      { model: 'x', family: 'chain', difficulty: 2, accuracy: 0.1 },
      { model: 'x', family: 'chain_ood', difficulty: 2, accuracy: 0.9 }, // held out: not averaged
      { model: 'y', family: 'add', difficulty: 2, accuracy: 0.7 }, // no sub, no chain: left out
    ];
    const acc = coldStartAccuracy(rows);
    assert.deepEqual(Object.keys(acc), ['x']);
    assert.ok(close(acc.x, (0.3 + 0.5 + 0.1) / 3), `${acc.x}`);
  });
  it('matchedPair takes the closest pair of different families within MATCH_TOLERANCE, stronger first', () => {
    assert.equal(MATCH_TOLERANCE, 0.05);
    // same-family transformers differ by 0 but are not a cross-family pair; gru-M is 0.01 from transformer-B
    assert.deepEqual(
      matchedPair({ 'transformer-A': 0.4, 'transformer-B': 0.4, 'gru-S': 0.1, 'gru-M': 0.39 }, [
        'transformer-A',
        'transformer-B',
        'gru-S',
        'gru-M',
      ]),
      ['transformer-A', 'gru-M'],
    ); // a tie in gap and in mean: name order
    assert.deepEqual(matchedPair({ 'transformer-A': 0.5, 'gru-M': 0.54 }, ['transformer-A', 'gru-M']), [
      'gru-M',
      'transformer-A',
    ]);
    assert.throws(
      () => matchedPair({ 'transformer-A': 0.5, 'gru-M': 0.44 }, ['transformer-A', 'gru-M']),
      (e: Error) => e instanceof ConfigError && /closest gru-M|closest transformer-A\+gru-M/.test(e.message),
    );
    const twins = { 'transformer-A': 0.4, 'transformer-B': 0.4 };
    assert.throws(() => matchedPair(twins, Object.keys(twins)), ConfigError);
    // equal gaps (exact in binary): the stronger pair wins over name order
    const tie = { 'transformer-B': 0.25, 'gru-A': 0.21875, 'transformer-C': 0.5, 'gru-M': 0.46875 };
    assert.deepEqual(matchedPair(tie, Object.keys(tie)), ['transformer-C', 'gru-M']);
    // a candidate without an accuracy is not considered
    assert.deepEqual(matchedPair({ 'transformer-A': 0.4, 'gru-M': 0.38 }, ['transformer-A', 'gru-M', 'gru-S']), [
      'transformer-A',
      'gru-M',
    ]);
  });
  it('on the committed cold-start report the rule picks transformer-S-seed1 with gru-M (the matched method)', () => {
    const acc = coldStartAccuracy(readCsv('results/coldstart/report.csv'));
    // add, sub, chain of transformer-S-seed1: 0.48046875, 0.376953125, 0.34765625;
    // of gru-M: 0.421875, 0.45703125, 0.30859375
    assert.ok(close(acc['transformer-S-seed1'], (0.48046875 + 0.376953125 + 0.34765625) / 3));
    assert.ok(close(acc['gru-M'], (0.421875 + 0.45703125 + 0.30859375) / 3));
    assert.deepEqual(matchedPair(acc, Object.keys(AGENT_CHECKPOINTS)), ['transformer-S-seed1', 'gru-M']);
    assert.deepEqual(CORL_METHODS.corl_diff_family_matched.agents, [['transformer-S-seed1', 'gru-M']]);
    checkMatchedMethod(acc);
    assert.throws(() => checkMatchedMethod({ ...acc, 'gru-M': 0.2 }), ConfigError); // no pair within 0.05 any more
    // another pair closer than the trained one: the method is stale
    assert.throws(
      () => checkMatchedMethod({ ...acc, 'gru-S': acc['transformer-S'] }),
      (e: Error) => /now picks transformer-S\+gru-S/.test(e.message),
    );
    // the strong + weak pairing is kept, labelled so
    assert.deepEqual(CORL_METHODS.corl_diff_family.agents, [['transformer-S', 'gru-S']]);
    assert.match(CORL_METHODS.corl_diff_family.label, /strong \+ weak/);
  });
  it('pairRows: one row per pair method, one per neighbour link of a ring, gap = acc_a - acc_b', () => {
    const acc = { 'transformer-S': 0.5, 'transformer-S-seed1': 0.4, 'gru-S': 0.1, 'gru-M': 0.375 };
    const rows = pairRows(acc);
    const by = Object.fromEntries(rows.map((r) => [r.pair, r]));
    assert.deepEqual(by.corl_diff_family_matched, {
      pair: 'corl_diff_family_matched',
      agent_a: 'transformer-S-seed1',
      agent_b: 'gru-M',
      acc_a: 0.4,
      acc_b: 0.375,
      gap: 0.4 - 0.375,
    });
    assert.ok(close(by.corl_diff_family.gap, 0.4));
    // ring transformer-S, gru-S, transformer-S-seed1: each agent with its supervisor (agent n-1)
    assert.deepEqual(
      rows.filter((r) => r.pair.startsWith('corl_three_ring')).map((r) => [r.agent_a, r.agent_b]),
      [
        ['transformer-S', 'transformer-S-seed1'],
        ['gru-S', 'transformer-S'],
        ['transformer-S-seed1', 'gru-S'],
      ],
    );
    assert.throws(() => pairRows({ 'transformer-S': 0.5 }), ConfigError);
  });
  it('the matched pair has the claims of the strong + weak one, each paired within one agent', async () => {
    const { corlClaims } = await import('../analysis/table1.js');
    const m = corlClaims().filter((c) => /matched/.test(c.a));
    assert.deepEqual(
      m.map((c) => `${c.a} > ${c.b}`),
      [
        'transformer-S-seed1|corl_diff_family_matched > transformer-S-seed1|ttrl',
        'transformer-S-seed1|corl_diff_family_matched > transformer-S-seed1|gt_reward',
        'transformer-S-seed1|corl_diff_family_matched > transformer-S-seed1|base',
        'gru-M|corl_diff_family_matched > gru-M|ttrl',
        'gru-M|corl_diff_family_matched > gru-M|gt_reward',
        'gru-M|corl_diff_family_matched > gru-M|base',
        'transformer-S-seed1|corl_diff_family_matched > transformer-S-seed1|corl_same_family',
        'ensemble|co_trained_matched_pair > ensemble|self_rewarded_matched_pair',
      ],
    );
    // the single-agent references those claims need are trained
    for (const method of ['base', 'gt_reward', 'ttrl'])
      for (const agent of ['transformer-S-seed1', 'gru-M']) {
        assert.ok(
          CORL_METHODS[method].agents.some((g) => g.length === 1 && g[0] === agent),
          `${method} ${agent}`,
        );
      }
  });
  it('the committed results/corl/pairs.csv is what the cold-start report gives', () => {
    const want = pairRows(coldStartAccuracy(readCsv('results/coldstart/report.csv')));
    const got = readCsv('results/corl/pairs.csv');
    assert.deepEqual(Object.keys(got[0]), ['pair', 'agent_a', 'agent_b', 'acc_a', 'acc_b', 'gap']);
    assert.deepEqual(
      got.map((r) => [r.pair, Number(r.gap)]),
      want.map((r) => [r.pair, r.gap]),
    );
    assert.ok(Math.abs(Number(got.find((r) => r.pair === 'corl_diff_family_matched')!.gap)) <= MATCH_TOLERANCE);
  });
});

describe('CO-RL theory rules (hand-made sample sets)', () => {
  it('plurality is right with p < 1/2 where the separatrix rule says wrong', async () => {
    const { correctShare, predictPlurality, predictPooledPlurality, predictCoTraining, predictSelfReward } =
      await import('../src/rl/corl-analysis.js');
    const problems = [prob('3'), prob('4'), prob('5'), prob('6')];
    const answers = [
      ['3', '5', '7', '3', '9'], // p = 0.4: separatrix wrong, plurality '3' right
      ['8', '4', '8', '4', null], // p = 0.4, tie 8/4 broken to '8' (seen first): both wrong
      [null, null, null, '5', null], // p = 0.2, the one given answer is the plurality: right
      ['6', '6', '6', '1', '2'], // p = 0.6: both right
    ];
    const p = correctShare(problems, answers);
    assert.deepEqual(p, [0.4, 0.4, 0.2, 0.6]);
    assert.deepEqual(predictSelfReward(p), [false, false, false, true]);
    assert.deepEqual(predictPlurality(problems, answers), [true, false, true, true]);
    // a pair: A [3, 5, 7] and B [3, 8, 9] on truth 3: pA + pB = 2/3 < 1, but the pooled plurality is '3'
    const A = [
        ['3', '5', '7'],
        ['1', '2', '4'],
      ],
      B = [
        ['3', '8', '9'],
        ['2', '4', '4'],
      ],
      two = [prob('3'), prob('4')];
    // pA + pB: 1/3 + 1/3, and 1/3 + 2/3 = 1 (on the boundary: wrong)
    assert.deepEqual(predictCoTraining(correctShare(two, A), correctShare(two, B)), [false, false]);
    // pooled [3,5,7,3,8,9] -> '3' right; pooled [1,2,4,2,4,4] -> '4' (three votes) right
    assert.deepEqual(predictPooledPlurality(two, A, B), [true, true]);
    // the pooled vote is not the agent's own: A alone on the second problem is a three-way tie broken to '1'
    assert.deepEqual(predictPlurality(two, A), [true, false]);
  });
});

describe('CO-RL run records', function () {
  this.timeout(300000);
  it('the kept problems: per family, one per difficulty in turn', async () => {
    const { sampleProblems } = await import('../src/rl/corl-analysis.js');
    const load = (f: string, d: number) =>
      Array.from({ length: 4 }, (_, i) => ({ ...prob('1', f), digits: d, operands: [i] }) as Problem);
    const ps = sampleProblems(5, load as never);
    // add has difficulties 2..5: d2[0], d3[0], d4[0], d5[0], d2[1]; chain has 2..4: d2[0], d3[0], d4[0], d2[1], d3[1]
    const kept = (family: string) => ps.filter((p) => p.family === family).map((p) => [p.digits, p.operands[0]]);
    assert.deepEqual(kept('add'), [
      [2, 0],
      [3, 0],
      [4, 0],
      [5, 0],
      [2, 1],
    ]);
    assert.deepEqual(kept('chain'), [
      [2, 0],
      [3, 0],
      [4, 0],
      [2, 1],
      [3, 1],
    ]);
    assert.equal(ps.length, 5 * 4);
  });
  it('completion rows: the text, its answer and whether it is the truth', async () => {
    const { initBackend } = await import('../src/models/backend.js');
    const { loadPolicy } = await import('../src/models/index.js');
    const { completionRows } = await import('../src/rl/corl-analysis.js');
    const { answerOf, parseTrace } = await import('../src/world/trace.js');
    const { makeRng } = await import('../src/util/random.js');
    await initBackend();
    const { sampleProblem } = await import('../src/world/problems.js');
    const rng = makeRng(3);
    const problems = Array.from({ length: 8 }, (_, i) => sampleProblem(i % 2 ? 'sub' : 'add', 3, rng));
    // the cold start writes parseable answers, some right and some wrong
    const rows = completionRows(loadPolicy('data/checkpoints/coldstart-transformer-S.json'), problems, makeRng(4));
    assert.ok(
      rows.some((r) => r.correct === 1) && rows.some((r) => r.correct === 0 && r.answer !== ''),
      JSON.stringify(rows.map((r) => [r.answer, r.truth])),
    );
    assert.deepEqual(Object.keys(rows[0]), [
      'family',
      'difficulty',
      'problem',
      'truth',
      'answer',
      'correct',
      'completion',
    ]);
    rows.forEach((r, j) => {
      assert.equal(r.truth, problems[j].answer.join(''));
      assert.equal(r.answer, answerOf(parseTrace(r.completion.split(' '))) ?? '');
      assert.equal(r.correct, +(r.answer === r.truth));
    });
  });
  it("the full profile is archived under results/runs/corl; the archive leaves the agents' weights out", () => {
    assert.equal(CORL_ARCHIVE, 'results/runs/corl');
    assert.equal(CORL_PROFILES.full.archived, true);
    assert.equal(CORL_PROFILES.quick.archived, false);
    assert.deepEqual(Object.keys(OVERLAP_PROTOCOLS), ['paper', 'multi_sample']); // paper first: the default
    assert.deepEqual(OVERLAP_PROTOCOLS.paper, { samples: 1, temperature: 0.8 });
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-corl-')),
      run = path.join(root, 'run'),
      arc = path.join(root, 'arc');
    fs.mkdirSync(run);
    for (const f of [
      'config.json',
      'metrics.jsonl',
      'final.csv',
      'samples.csv',
      'per_problem.json',
      'done.json',
      'agent-0.json',
      'agent-12.json',
      'log.txt',
    ]) {
      fs.writeFileSync(path.join(run, f), '{}');
    }
    archiveRun(run, arc);
    assert.deepEqual(fs.readdirSync(arc).sort(), [
      'SHA256SUMS',
      'config.json',
      'done.json',
      'final.csv',
      'metrics.jsonl',
      'per_problem.json',
      'samples.csv',
    ]);
  });
});

describe('CO-RL error overlap figure (Fig. 2(d) analogue)', () => {
  it("one bar per pair and protocol, family read from the agent names, the paper's three ranges as bands", async () => {
    const { errorOverlapFigure } = await import('../analysis/corl-figures.js');
    const rows = [
      { pair: 'gru-S|transformer-S', protocol: 'paper', kappa: 0.08, kappa_ci95: 0.01 },
      { pair: 'transformer-S|transformer-S-seed1', protocol: 'paper', kappa: 0.13, kappa_ci95: '' },
      { pair: 'gru-S|transformer-S', protocol: 'multi_sample', kappa: 0.06, kappa_ci95: 0.02 },
    ];
    const f = errorOverlapFigure(rows, 'e.csv');
    assert.deepEqual(f.data[0].x, [
      'gru-S × transformer-S<br>(cross-family)',
      'transformer-S × transformer-S-seed1<br>(same family)',
    ]);
    assert.deepEqual(
      f.data.map((t) => t.y),
      [
        [0.08, 0.13],
        [0.06, null],
      ],
    );
    assert.deepEqual((f.data[0].error_y as { array: number[] }).array, [0.01, 0]);
    assert.deepEqual(
      (f.layout.shapes as { y0: number }[]).map((b) => b.y0),
      [0.31, 0.51, 0.51],
    );
  });
});

describe('CO-RL Table 8 at size M (profile table8)', function () {
  this.timeout(300000);
  it("the profile trains the M agents, each family's S model as the same-family partner; full keeps its groups", async () => {
    const { profileGroups, TABLE8_GROUPS, CORL_REPORTED_TABLE8 } = await import('../src/methods/tables/table1.js');
    assert.deepEqual(profileGroups('table8'), TABLE8_GROUPS);
    assert.deepEqual(TABLE8_GROUPS.corl_diff_family, [['transformer-M', 'gru-M']]);
    assert.deepEqual(TABLE8_GROUPS.corl_same_family, [
      ['transformer-M', 'transformer-S'],
      ['gru-M', 'gru-S'],
    ]);
    assert.deepEqual(
      profileGroups('full'),
      Object.fromEntries(Object.entries(CORL_METHODS).map(([k, m]) => [k, m.agents])),
    );
    for (const a of Object.values(TABLE8_GROUPS).flat(2)) assert.ok(a in AGENT_CHECKPOINTS, a);
    const p = CORL_PROFILES.table8,
      f = CORL_PROFILES.full;
    assert.deepEqual(
      [p.steps, p.seeds, p.evalPerCell, p.evalSamples, p.archived],
      [f.steps, f.seeds, f.evalPerCell, f.evalSamples, true],
    );
    // every method of the table has the paper's two reported averages (Qwen2.5-7B 53.1 for different family)
    assert.equal(CORL_REPORTED_TABLE8.length, 2 * Object.keys(TABLE8_GROUPS).length);
    assert.equal(
      CORL_REPORTED_TABLE8.find((r) => r.method === 'corl_diff_family' && r.analogue === 'transformer-M')!.average,
      53.1,
    );
    // adding transformer-M leaves the matched-strength rule's pick unchanged
    checkMatchedMethod(coldStartAccuracy(readCsv('results/coldstart/report.csv')));
  });
  it('pairRows names each link of a method with several pairs', async () => {
    const acc = { 'transformer-M': 0.6, 'transformer-S': 0.5, 'gru-M': 0.4, 'gru-S': 0.1 };
    const rows = pairRows(acc, 'table8');
    assert.deepEqual(
      rows.map((r) => [r.pair, r.agent_a, r.agent_b]),
      [
        ['corl_same_family:transformer-M+transformer-S', 'transformer-M', 'transformer-S'],
        ['corl_same_family:gru-M+gru-S', 'gru-M', 'gru-S'],
        ['corl_diff_family', 'transformer-M', 'gru-M'],
        ['corl_diff_family_decoupled', 'transformer-M', 'gru-M'],
      ],
    );
    assert.ok(close(rows[1].gap, 0.3));
  });
  it("claims pair runs of one M agent; the aggregation writes Table 8's reported averages and its claims", async () => {
    const { aggregateTable1, table8Claims } = await import('../analysis/table1.js');
    const { writeCsv } = await import('../src/io/table.js');
    const claims = table8Claims();
    assert.equal(claims.length, 11);
    for (const c of claims) assert.equal(c.a.split('|')[0], c.b.split('|')[0]);
    // Table 8 has GT-reward above different family for both models (Table 1 had it below for Qwen2.5-3B)
    assert.deepEqual(
      claims.filter((c) => c.a.startsWith('gru-M')).map((c) => `${c.a} > ${c.b}`)[4],
      'gru-M|gt_reward > gru-M|corl_diff_family',
    );
    assert.deepEqual(
      claims.filter((c) => /same_family/.test(c.b)).map((c) => c.a),
      ['transformer-M|corl_diff_family'],
    );
    // every claim is a difference Table 8 reports on the claimed side of 0 for the model the agent plays
    const { CORL_REPORTED_TABLE8 } = await import('../src/methods/tables/table1.js');
    const paper = (key: string) => {
      const [agent, method] = key.split('|');
      return CORL_REPORTED_TABLE8.find((r) => r.analogue === agent && r.method === method)!.average;
    };
    for (const c of claims) assert.ok(paper(c.a) - paper(c.b) > 0, `${c.claim}: ${paper(c.a)} vs ${paper(c.b)}`);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t8-')),
      out = path.join(root, 'out');
    const run = (method: string, agents: string[], seed: number, v: number) => {
      const dir = path.join(root, 'table8', method, agents.join('+'), `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ method, agents, seed }));
      writeCsv(
        path.join(dir, 'final.csv'),
        agents.map((agent) => ({ method, agent, seed, column: 'average', value: v })),
      );
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    };
    for (const seed of [0, 1]) {
      run('ttrl', ['gru-M'], seed, 0.3 + 0.1 * seed);
      run('corl_diff_family', ['transformer-M', 'gru-M'], seed, 0.5 + 0.3 * seed);
    }
    aggregateTable1('table8', root, out, 'results/coldstart/report.csv', null);
    const rep = readCsv(path.join(out, 'table8_reported.csv'));
    assert.deepEqual(
      rep.filter((r) => r.method === 'ttrl').map((r) => [r.model, r.analogue, Number(r.average)]),
      [
        ['Qwen2.5-7B', 'transformer-M', 51.7],
        ['Llama-3.1-8B-Instruct', 'gru-M', 46.1],
      ],
    );
    assert.ok(!fs.existsSync(path.join(out, 'table1_reported.csv')));
    const c = readCsv(path.join(out, 'claims.csv')).find(
      (r) => r.run === 'gru-M|corl_diff_family' && r.against === 'gru-M|ttrl',
    )!;
    // paired by seed: (0.5 - 0.3) and (0.8 - 0.4)
    assert.ok(close(Number(c.delta), 0.3), JSON.stringify(c));
    const pairs = readCsv(path.join(out, 'pairs.csv'));
    assert.deepEqual(
      pairs.map((r) => r.pair),
      [
        'corl_same_family:transformer-M+transformer-S',
        'corl_same_family:gru-M+gru-S',
        'corl_diff_family',
        'corl_diff_family_decoupled',
      ],
    );
  });
  it("the Table 8 figure: ours with asymmetric 95% bars above, the paper's averages below, per M agent", async () => {
    const { table8Figure } = await import('../analysis/corl-figures.js');
    assert.equal(
      table8Figure([{ agent: 'transformer-S', method: 'ttrl', column: 'average', mean: 0.5 }], [], 'x'),
      null,
    );
    const rows = [
      { agent: 'gru-M', method: 'ttrl', column: 'average', mean: 0.4, ci_low: 0.3, ci_high: 0.6 },
      { agent: 'gru-M', method: 'base', column: 'average', mean: 0.2, ci_low: 0.2, ci_high: 0.2 },
      { agent: 'gru-M', method: 'ttrl', column: 'add', mean: 0.9, ci_low: 0.9, ci_high: 0.9 },
    ];
    const reported = [{ method: 'ttrl', model: 'Llama-3.1-8B-Instruct', analogue: 'gru-M', average: 46.1 }];
    const f = table8Figure(rows, reported, 't.csv')!;
    // panels: transformer-M ours, its paper's, gru-M ours, its paper's; methods base then ttrl
    assert.deepEqual(
      f.data.map((t) => t.y),
      [
        [null, null],
        [null, null],
        [0.2, 0.4],
        [null, 46.1],
      ],
    );
    assert.deepEqual(
      f.data.map((t) => t.yaxis),
      ['y', 'y3', 'y2', 'y4'],
    );
    const e = f.data[2].error_y as { array: number[]; arrayminus: number[] };
    assert.ok(close(e.array[1], 0.2) && close(e.arrayminus[1], 0.1));
    assert.match(JSON.stringify(f.layout.annotations), /gru-M \(plays Llama-3.1-8B-Instruct\)/);
  });
});
