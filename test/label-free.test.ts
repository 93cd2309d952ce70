// Label-free rewards (GT, TTRL, CO-RL agreement, Intuitor, RENT) against hand-computed values, the confidence
// statistics against a direct computation from the logits, and one CO-RL step of a two-agent ring.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { modelConfig } from '../src/models/policy.js';
import { makeSequenceBatch, disposeSequenceBatch, tokenConfidence } from '../src/models/logprobs.js';
import { majorityAnswer } from '../src/rl/evaluate.js';
import {
  agreementRewards,
  defaultLabelFreeConfig,
  gtRewards,
  intuitorReward,
  makeLabelFreeTrainer,
  rentReward,
  ttrlRewards,
} from '../src/methods/trainers/label-free.js';
import { ConfigError } from '../src/util/validate.js';
import { makeRng } from '../src/util/random.js';
import { V } from '../src/world/vocab.js';

describe('label-free rewards (hand-computed)', () => {
  it('majority vote: plurality, ties to the answer seen first, null answers ignored', () => {
    assert.equal(majorityAnswer(['12', '7', '12', null, '7']), '12');
    assert.equal(majorityAnswer(['7', '12', '12', null, '7']), '7');
    assert.equal(majorityAnswer([null, '5', null]), '5');
    assert.equal(majorityAnswer([null, null]), null);
  });
  it('GT, TTRL and agreement with a label; no label, no reward', () => {
    assert.deepEqual(gtRewards(['3', '4', null], '4'), [0, 1, 0]);
    assert.deepEqual(ttrlRewards(['3', '3', '4', null]), [1, 1, 0, 0]);
    assert.deepEqual(agreementRewards(['3', '4'], '4'), [0, 1]);
    assert.deepEqual(agreementRewards(['3', null], null), [0, 0]);
  });
  it('Intuitor and RENT are token means', () => {
    assert.equal(intuitorReward([0.5, 1.5]), 1);
    assert.ok(Math.abs(rentReward([0.2, 0.4, 0.6]) + 0.4) < 1e-12);
  });
});

describe('label-free training', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('entropy and self-certainty match a direct computation from the logits', () => {
    const policy = createPolicy(modelConfig('transformer', 'S', 5));
    const sb = makeSequenceBatch([[2, 15, 6, 17, 7, 18]], [[8, 9, 1]]);
    const t = tokenConfidence(policy, sb);
    const logits = tf.tidy(() => policy.forward(sb).logits.arraySync() as number[][][]);
    const col = sb.start[0] + 1,
      row = logits[0][col];
    const mx = Math.max(...row),
      z = row.reduce((s, x) => s + Math.exp(x - mx), 0),
      logp = row.map((x) => x - mx - Math.log(z));
    const H = -logp.reduce((s, l) => s + Math.exp(l) * l, 0),
      sc = -Math.log(V) - logp.reduce((s, l) => s + l, 0) / V;
    assert.ok(Math.abs(t.entropy.arraySync()[0][col] - H) < 1e-4);
    assert.ok(Math.abs(t.selfCertainty.arraySync()[0][col] - sc) < 1e-4);
    assert.ok(sc >= 0 && H <= Math.log(V));
    tf.dispose([t.entropy, t.selfCertainty]);
    disposeSequenceBatch(sb);
  });
  it('a CO-RL ring needs two agents; one step logs each agent and their agreement', () => {
    const a = createPolicy(modelConfig('transformer', 'S', 6)),
      b = createPolicy(modelConfig('gru', 'S', 7));
    assert.throws(
      () => makeLabelFreeTrainer([a], defaultLabelFreeConfig),
      (e: Error) => e instanceof ConfigError && /two agents/.test(e.message),
    );
    const m = makeLabelFreeTrainer([a, b], { ...defaultLabelFreeConfig, prompts: 2, rollouts: 3 }).step(makeRng(1));
    for (const k of [
      'agent0/accuracy',
      'agent1/reward_std',
      'agent0/pseudo_label_accuracy',
      'agent1/majority_ratio',
      'agreement',
    ])
      assert.ok(Number.isFinite(m[k]), `${k} = ${m[k]}`);
    for (const method of ['intuitor', 'rent'] as const) {
      const r = makeLabelFreeTrainer([a], { ...defaultLabelFreeConfig, method, prompts: 1, rollouts: 2 }).step(
        makeRng(2),
      );
      assert.ok(Number.isFinite(r['agent0/reward']));
    }
  });
});

describe('CO-RL analysis (hand-computed)', () => {
  const p = (answer: string) =>
    ({
      family: 'add',
      digits: 2,
      operands: [Number(answer), 0],
      answer: answer.split('').map(Number),
      passes: [],
    }) as never;
  it('pair overlap codes correct as 0, shared wrong answers alike, silences apart', async () => {
    const { pairOverlap } = await import('../src/rl/corl-analysis.js');
    const problems = [p('11'), p('22'), p('33'), p('44')];
    // draws: (correct, correct), (wrong 5, wrong 5), (correct, wrong), (none, none)
    const o = pairOverlap(problems, [['11'], ['05'], ['33'], [null]], [['11'], ['05'], ['34'], [null]]);
    assert.equal(o.complementarity, 0.25);
    assert.equal(o.wrongAgreement, 0.25);
    assert.equal(o.oracle, 0.5);
    assert.ok(Math.abs(o.kappa - 0.5) < 1e-12); // po 3/4, pe 0.5*0.25 + 0.5*0.75 = 1/2
  });
  it('theory predictions and their agreement with outcomes', async () => {
    const { predictCoTraining, predictSelfReward, predictionAgreement, correctShare } = await import(
      '../src/rl/corl-analysis.js'
    );
    assert.deepEqual(predictCoTraining([0.9, 0.2, 0.5], [0.2, 0.7, 0.5]), [true, false, false]);
    assert.deepEqual(predictSelfReward([0.5, 0.51, 0.1]), [false, true, false]);
    assert.equal(predictionAgreement([true, false, true, true], [true, true, true, false]), 0.5);
    assert.deepEqual(correctShare([p('11')], [['11', '12', null, '11']]), [0.5]);
  });
});

describe('CO-RL aggregation', () => {
  it('writes the tidy Table 1 analogue and the overlap table from finished runs only', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { aggregateTable1 } = await import('../analysis/table1.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t1-')),
      out = path.join(root, 'out');
    [0.4, 0.6].forEach((v, seed) => {
      const dir = path.join(root, 'quick', 'corl_diff_family', 'transformer-S+gru-S', `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({ method: 'corl_diff_family', agents: ['transformer-S', 'gru-S'], seed }),
      );
      writeCsv(path.join(dir, 'final.csv'), [
        { method: 'corl_diff_family', agent: 'gru-S', seed, column: 'average', value: v },
      ]);
      writeCsv(path.join(dir, 'overlap.csv'), [{ pair: 'transformer-S|gru-S', kappa: v / 2, c: 0.3, w: 0.1, u: 0.8 }]);
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    });
    fs.mkdirSync(path.join(root, 'quick', 'ttrl', 'gru-S', 'seed-0'), { recursive: true }); // unfinished: ignored
    aggregateTable1('quick', root, out);
    const t = readCsv(path.join(out, 'table1.csv'));
    assert.deepEqual(Object.keys(t[0]), [
      'profile',
      'agent',
      'method',
      'column',
      'mean',
      'ci_low',
      'ci_high',
      'seeds',
      'partner_gap',
    ]);
    assert.ok(Math.abs(Number(t[0].mean) - 0.5) < 1e-12 && Number(t[0].seeds) === 2);
    // partner_gap from the committed cold-start report: gru-S (add, sub, chain averaged) minus transformer-S
    const { coldStartAccuracy } = await import('../src/methods/tables/table1.js');
    const acc = coldStartAccuracy(readCsv('results/coldstart/report.csv'));
    assert.ok(Math.abs(Number(t[0].partner_gap) - (acc['gru-S'] - acc['transformer-S'])) < 1e-12);
    const o = readCsv(path.join(out, 'error_overlap.csv'));
    // runs before the protocol column measured with 16 samples at T = 1: multi_sample
    assert.deepEqual(Object.keys(o[0]).slice(0, 6), ['pair', 'protocol', 'kappa', 'c', 'w', 'u']);
    assert.deepEqual([o.length, o[0].protocol], [1, 'multi_sample']);
    assert.ok(Math.abs(Number(o[0].kappa) - 0.25) < 1e-12);
    // the committed report has every agent: the pairs table is written too, as results/corl/pairs.csv holds it
    const text = (file: string) => fs.readFileSync(file, 'utf8');
    assert.equal(text(path.join(out, 'pairs.csv')), text('results/corl/pairs.csv'));
  });

  it('partner gaps, both overlap protocols, both theory rules per problem, archived runs beside fresh', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { aggregateTable1 } = await import('../analysis/table1.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t1-')),
      out = path.join(root, 'out'),
      archive = path.join(root, 'archive');
    const report = path.join(root, 'report.csv');
    // cold starts over add, sub, chain: T 0.5; G add (0.2 + 0.4) / 2, sub 0.3, chain 0.3 -> 0.3 (chain_ood not counted)
    const cells = [
      ['T', 'add', 2, 0.5],
      ['T', 'sub', 2, 0.5],
      ['T', 'chain', 2, 0.5],
      ['G', 'add', 2, 0.2],
      ['G', 'add', 3, 0.4],
      ['G', 'sub', 2, 0.3],
      ['G', 'chain', 2, 0.3],
      ['G', 'chain_ood', 2, 0.9],
    ];
    writeCsv(
      report,
      cells.map(([model, family, difficulty, accuracy]) => ({ model, family, difficulty, accuracy })),
    );
    const runAt = (base: string, seed: number, kappa: number, outcome: number) => {
      const dir = path.join(base, 'quick', 'corl_diff_family', 'T+G', `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({ method: 'corl_diff_family', agents: ['T', 'G'], seed }),
      );
      writeCsv(
        path.join(dir, 'final.csv'),
        ['T', 'G'].map((agent) => ({ method: 'corl_diff_family', agent, seed, column: 'average', value: 0.5 })),
      );
      writeCsv(path.join(dir, 'overlap.csv'), [
        { pair: 'T|G', protocol: 'multi_sample', kappa, c: 0.3, w: 0.1, u: 0.8 },
        { pair: 'T|G', protocol: 'paper', kappa: 2 * kappa, c: 0.3, w: 0.1, u: 0.8 },
      ]);
      const pl = (rule: string) => (rule === 'plurality' ? 1 : 0.5);
      writeCsv(
        path.join(dir, 'theory.csv'),
        ['separatrix', 'plurality'].flatMap((rule) =>
          ['T', 'G'].map((agent) => ({
            method: 'corl_diff_family',
            agent,
            seed,
            problems: 2,
            rule,
            condition: 'x',
            predicted_correct: pl(rule),
            actual_correct: 1,
            agreement: pl(rule),
          })),
        ),
      );
      fs.writeFileSync(
        path.join(dir, 'per_problem.json'),
        JSON.stringify({
          problems: ['add:1,2', 'add:3,4'],
          p0: [
            [0.4, 0.75],
            [0.2, 0.5],
          ],
          outcome: [
            [true, !!outcome],
            [true, true],
          ],
          predicted: {
            separatrix: [
              [false, true],
              [false, true],
            ],
            plurality: [
              [true, true],
              [true, true],
            ],
          },
        }),
      );
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    };
    runAt(root, 0, 0.1, 1);
    runAt(archive, 0, 0.9, 0); // the same run in the archive: runs/ wins
    runAt(archive, 1, 0.3, 1); // only in the archive: counted
    // the ensembles' per-seed rows only in the archive (their weights are gone from runs/): read from there
    writeCsv(
      path.join(archive, 'quick', 'matched_budget.csv'),
      [0, 1].map((seed) => ({ ensemble: 'co_trained_pair', seed, family: 'add', value: 0.5 + 0.25 * seed })),
    );
    aggregateTable1('quick', root, out, report, archive);
    const mb = readCsv(path.join(out, 'matched_budget.csv')).find((r) => r.family === 'average')!;
    assert.deepEqual([Number(mb.maj_accuracy), Number(mb.seeds)], [0.625, 2]);
    const t = readCsv(path.join(out, 'table1.csv'));
    const gap = Object.fromEntries(t.map((r) => [r.agent, Number(r.partner_gap)]));
    assert.ok(Math.abs(gap.T - 0.2) < 1e-12 && Math.abs(gap.G + 0.2) < 1e-12, JSON.stringify(gap));
    assert.deepEqual(
      t.map((r) => Number(r.seeds)),
      [2, 2],
    );
    const o = readCsv(path.join(out, 'error_overlap.csv'));
    // the paper's protocol first; kappa means over seeds 0 (runs/) and 1 (archive): (0.1 + 0.3) / 2 and twice that
    assert.deepEqual(
      o.map((r) => r.protocol),
      ['paper', 'multi_sample'],
    );
    assert.ok(Math.abs(Number(o[0].kappa) - 0.4) < 1e-12 && Math.abs(Number(o[1].kappa) - 0.2) < 1e-12);
    const tv = readCsv(path.join(out, 'theory_vs_experiment.csv'));
    assert.deepEqual([...new Set(tv.map((r) => r.rule))].sort(), ['plurality', 'separatrix']);
    assert.equal(Number(tv.find((r) => r.rule === 'plurality' && r.agent === 'T')!.agreement_mean), 1);
    const rules = readCsv(path.join(out, 'theory_rules.csv'));
    assert.deepEqual(Object.keys(rules[0]), [
      'method',
      'seed',
      'agent',
      'partner',
      'problem',
      'p',
      'p_partner',
      'separatrix',
      'plurality',
      'rules_differ',
      'outcome',
    ]);
    assert.equal(rules.length, 2 * 2 * 2); // 2 seeds x 2 agents x 2 problems
    const g = rules.find((r) => r.agent === 'G' && r.problem === 'add:1,2' && Number(r.seed) === 0)!;
    assert.deepEqual(
      [
        Number(g.p),
        Number(g.p_partner),
        g.partner,
        Number(g.separatrix),
        Number(g.plurality),
        Number(g.rules_differ),
        Number(g.outcome),
      ],
      [0.2, 0.4, 'T', 0, 1, 1, 1],
    );
    assert.ok(!fs.existsSync(path.join(out, 'pairs.csv'))); // the report lacks the CO-RL agents: no pairs table
  });

  it('runs named their rule by its condition before the rule column: both read as separatrix', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { aggregateTable1 } = await import('../analysis/table1.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t1-')),
      out = path.join(root, 'out');
    for (const [method, rule] of [
      ['ttrl', 'p > 1/2'],
      ['corl_same_family', 'pA + pB > 1'],
    ]) {
      const dir = path.join(root, 'quick', method, 'transformer-S', 'seed-0');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ method, agents: ['transformer-S'], seed: 0 }));
      writeCsv(path.join(dir, 'final.csv'), [
        { method, agent: 'transformer-S', seed: 0, column: 'average', value: 0.5 },
      ]);
      writeCsv(path.join(dir, 'theory.csv'), [
        {
          method,
          agent: 'transformer-S',
          seed: 0,
          problems: 1,
          rule,
          predicted_correct: 0,
          actual_correct: 1,
          agreement: 0,
        },
      ]);
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    }
    aggregateTable1('quick', root, out);
    const tv = readCsv(path.join(out, 'theory_vs_experiment.csv'));
    assert.deepEqual(
      tv.map((r) => r.rule),
      ['separatrix', 'separatrix'],
    );
    assert.ok(!fs.existsSync(path.join(out, 'theory_rules.csv'))); // no per-problem predictions recorded
  });

  it('reads the reward-std ratio, the phase-plane rows, the matched budget and the claims', async () => {
    const fs = await import('node:fs'),
      os = await import('node:os'),
      path = await import('node:path');
    const { aggregateTable1, rewardStdRatio } = await import('../analysis/table1.js');
    const { writeCsv, readCsv } = await import('../src/io/table.js');
    // last tenth over first tenth: 20 steps -> windows of 2
    assert.equal(rewardStdRatio([0.4, 0.6, ...Array(16).fill(9), 0.1, 0.3]), 0.2 / 0.5);
    assert.ok(Number.isNaN(rewardStdRatio([])) && Number.isNaN(rewardStdRatio([0, 1])));
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t1-')),
      out = path.join(root, 'out');
    for (const seed of [0, 1]) {
      const dir = path.join(root, 'quick', 'corl_diff_family', 'transformer-S+gru-S', `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({ method: 'corl_diff_family', agents: ['transformer-S', 'gru-S'], seed }),
      );
      fs.writeFileSync(
        path.join(dir, 'metrics.jsonl'),
        [1, 0.5]
          .map((v, step) => JSON.stringify({ step, 'agent0/reward_std': v, 'agent1/reward_std': 2 * v }))
          .join('\n'),
      );
      fs.writeFileSync(
        path.join(dir, 'per_problem.json'),
        JSON.stringify({
          problems: ['add:1,2', 'add:3,4'],
          p0: [
            [0.75, 0.25],
            [0.5, 0.125],
          ],
          outcome: [
            [true, false],
            [true, true],
          ],
        }),
      );
      writeCsv(path.join(dir, 'final.csv'), [
        { method: 'corl_diff_family', agent: 'gru-S', seed, column: 'average', value: 0.5 },
      ]);
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    }
    // matched-budget raw rows: the co-trained pool beats the TTRL pool by 0.1 and 0.3 on the average of two families
    writeCsv(
      path.join(root, 'quick', 'matched_budget.csv'),
      [0, 1].flatMap((seed) => [
        { ensemble: 'co_trained_pair', seed, family: 'add', value: 0.6 },
        { ensemble: 'co_trained_pair', seed, family: 'sub', value: 0.4 + 0.4 * seed },
        { ensemble: 'self_rewarded_pair', seed, family: 'add', value: 0.4 },
        { ensemble: 'self_rewarded_pair', seed, family: 'sub', value: 0.4 },
      ]),
    );
    aggregateTable1('quick', root, out);
    const ratio = readCsv(path.join(out, 'table1.csv')).filter((r) => r.column === 'reward_std_ratio');
    assert.deepEqual(
      ratio.map((r) => [r.agent, Number(r.mean)]),
      [
        ['gru-S', 0.5],
        ['transformer-S', 0.5],
      ],
    );
    const phase = readCsv(path.join(out, 'phase.csv'));
    assert.equal(phase.length, 8);
    const gru = phase.find((r) => r.agent === 'gru-S' && r.problem === 'add:3,4' && Number(r.seed) === 0)!;
    assert.deepEqual(
      [Number(gru.p), Number(gru.p_partner), Number(gru.outcome), gru.partner],
      [0.125, 0.25, 1, 'transformer-S'],
    );
    const mb = readCsv(path.join(out, 'matched_budget.csv')).find(
      (r) => r.ensemble === 'co_trained_pair' && r.family === 'average',
    )!;
    assert.ok(Math.abs(Number(mb.maj_accuracy) - 0.6) < 1e-12 && Number(mb.seeds) === 2);
    const claim = readCsv(path.join(out, 'claims.csv')).find((r) => r.run === 'ensemble|co_trained_pair')!;
    assert.ok(
      Math.abs(Number(claim.delta) - 0.2) < 1e-12 && Number(claim.seeds) === 2 && claim.verdict === 'inconclusive',
    );
  });
});

describe('data decoupling', () => {
  it('another surface form keeps the answer (add and chain swap a and b; sub is unchanged)', async () => {
    const { sampleProblem, surfaceForm } = await import('../src/world/problems.js');
    const rng = makeRng(21);
    for (const family of ['add', 'sub', 'chain'] as const)
      for (let t = 0; t < 50; t++) {
        const p = sampleProblem(family, 2 + rng.int(3), rng),
          q = surfaceForm(p);
        assert.deepEqual(q.answer, p.answer);
        if (family === 'sub') assert.deepEqual(q.operands, p.operands);
        else assert.deepEqual(q.operands.slice(0, 2), [p.operands[1], p.operands[0]]);
      }
  });
});
