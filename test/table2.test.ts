// Table 2's aggregation: finished runs -> the tidy table with mean and Student-t interval over seeds; unfinished
// runs are left out; the method registry and profiles reject unknown names.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateTable2, dynamicsMeasures, DYNAMICS_WINDOW, recordedInputs } from '../analysis/table2.js';
import {
  CLAIM_PARITY_COLUMNS,
  claimParity,
  PARITY_BAND,
  PARITY_COLUMNS,
  PARITY_EARLY,
  updateParity,
} from '../analysis/parity.js';
import { evolmAblationFigure, rlcerFigures, table2Figure, wrap } from '../analysis/rlcer-figures.js';
import { regimeKnobFigure, regimeMapFigure } from '../analysis/regimes-figures.js';
import { readCsv, writeCsv } from '../src/io/table.js';
import {
  LONG_ROWS,
  checkMethodSpec,
  methodSpec,
  type MethodSpec,
  pairsCacheFile,
  profileSpec,
  TABLE2_ARCHIVE,
  TABLE2_ROWS,
  METHODS,
} from '../src/methods/tables/table2.js';
import { LONG_CLAIMS, LONG_COLUMNS, longFigure, longTable } from '../analysis/long.js';
import { ConfigError } from '../src/util/validate.js';

const close = (a: number, b: number, what: string, tol = 1e-12) =>
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} != ${b}`);

describe('Table 2 aggregation', () => {
  it('writes profile,size,method,column,mean,ci_low,ci_high,seeds with a t interval', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t2-')),
      out = path.join(root, 'out');
    const values: Record<string, number[]> = { rlvr: [0.5, 0.7], rlcer: [0.6, 0.6, 0.9], evolm: [0.4] };
    for (const [method, vs] of Object.entries(values))
      vs.forEach((v, seed) => {
        const dir = path.join(root, 'quick', 'S', method, `seed-${seed}`);
        fs.mkdirSync(dir, { recursive: true });
        writeCsv(path.join(dir, 'final.csv'), [{ method, size: 'S', seed, column: 'average', value: v }]);
        fs.writeFileSync(
          path.join(dir, 'metrics.jsonl'),
          JSON.stringify({
            step: 0,
            probe_accuracy: v,
            concrete_share: 0.25,
            criteria_per_rubric: 4,
            mean_length: 6,
            format_rate: 0.8,
          }) + '\n',
        );
        fs.writeFileSync(path.join(dir, 'done.json'), '{}');
      });
    // an interrupted run (no done.json) must not count
    const bad = path.join(root, 'quick', 'S', 'rlvr', 'seed-9');
    fs.mkdirSync(bad, { recursive: true });
    writeCsv(path.join(bad, 'final.csv'), [{ method: 'rlvr', size: 'S', seed: 9, column: 'average', value: 100 }]);
    aggregateTable2('quick', root, out);
    const t = readCsv(path.join(out, 'table2.csv'));
    assert.deepEqual(Object.keys(t[0]), ['profile', 'size', 'method', 'column', 'mean', 'ci_low', 'ci_high', 'seeds']);
    const rlvr = t.find((r) => r.method === 'rlvr')!;
    assert.equal(Number(rlvr.seeds), 2);
    assert.ok(Math.abs(Number(rlvr.mean) - 0.6) < 1e-12);
    // t_{0.975,1} * sd / sqrt(2) = 12.706 * 0.141421 / 1.414214 = 1.2706
    assert.ok(Math.abs(Number(rlvr.ci_high) - (0.6 + 1.2706)) < 1e-3, String(rlvr.ci_high));
    assert.equal(t[0].method, 'rlvr', 'rows follow the table order');
    assert.ok(fs.existsSync(path.join(out, 'table2_reported.csv')));
    assert.ok(readCsv(path.join(out, 'rlcer', 'curves.csv')).some((r) => r.metric === 'probe_accuracy'));
    const evo = readCsv(path.join(out, 'evolm', 'rubric_evolution.csv'));
    assert.deepEqual(Object.keys(evo[0]), [
      'size',
      'step',
      'concrete_share',
      'criteria_per_rubric',
      'mean_length',
      'format_rate',
    ]);
    assert.equal(Number(evo[0].concrete_share), 0.25);
    // RLCER beats RLVR, paired by seed: seeds 0 and 1 give 0.6 - 0.5 and 0.6 - 0.7, mean 0; seed 2 has no partner
    const claim = readCsv(path.join(out, 'table2_claims.csv')).find(
      (r) => r.claim === 'RLCER beats RLVR (average accuracy)',
    )!;
    assert.equal(Number(claim.seeds), 2);
    assert.ok(Math.abs(Number(claim.delta)) < 1e-12);
    assert.equal(claim.verdict, 'inconclusive');
  });
  it('counts archived runs that runs/ lacks, prefers runs/, and carries no row forward without its records', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t2a-')),
      runs = path.join(root, 'runs'),
      archive = path.join(root, 'archive'),
      out = path.join(root, 'out');
    const finished = (base: string, size: string, method: string, seed: number, v: number) => {
      const dir = path.join(base, 'quick', size, method, `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      writeCsv(path.join(dir, 'final.csv'), [{ method, size, seed, column: 'average', value: v }]);
      fs.writeFileSync(path.join(dir, 'metrics.jsonl'), JSON.stringify({ step: 0, probe_accuracy: v }) + '\n');
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    };
    // size S: the committed tables only (its runs are gone): its rows must not survive the aggregation
    writeCsv(path.join(out, 'table2.csv'), [
      {
        profile: 'quick',
        size: 'S',
        method: 'rlvr',
        column: 'average',
        mean: 0.42,
        ci_low: 0.4,
        ci_high: 0.44,
        seeds: 3,
      },
    ]);
    writeCsv(path.join(out, 'rlcer', 'curves.csv'), [
      { size: 'S', method: 'rlvr', step: 0, metric: 'probe_accuracy', mean: 0.42, ci95: 0, n: 3 },
    ]);
    // size M: seed 0 archived and rerun (runs/ wins), seed 1 archived only
    finished(archive, 'M', 'rlvr', 0, 0.9);
    finished(runs, 'M', 'rlvr', 0, 0.5);
    finished(archive, 'M', 'rlvr', 1, 0.7);
    aggregateTable2('quick', runs, out, archive);
    const t = readCsv(path.join(out, 'table2.csv'));
    assert.deepEqual(
      t.map((r) => `${r.size} ${r.method} ${r.mean} ${r.seeds}`),
      ['M rlvr 0.6 2'],
    );
    assert.deepEqual([...new Set(readCsv(path.join(out, 'rlcer', 'curves.csv')).map((r) => r.size))], ['M']);
    // without the archive only runs/ counts
    aggregateTable2('quick', runs, out, null);
    assert.equal(readCsv(path.join(out, 'table2.csv')).find((r) => r.size === 'M')!.seeds, 1);
  });
  it("measures the start, best stretch and end of a run's curves, and its hints, per seed", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-dyn-'));
    assert.equal(DYNAMICS_WINDOW, 10);
    // 30 steps: corr_proposed = 0 for steps 0-9, 1 for 10-19, 0.5 for 20-29; one undefined step (null) is skipped;
    // reward/cot too short (15 defined values < 2 windows) to be measured
    const lines = Array.from({ length: 31 }, (_, step) => {
      const corr = step === 30 ? 0.5 : step === 5 ? null : step < 10 ? 0 : step < 20 ? 1 : 0.5;
      return JSON.stringify({
        step: step === 5 ? 99 : step,
        corr_proposed: corr,
        'reward/cot': step < 15 ? 0.3 : null,
      });
    });
    fs.writeFileSync(path.join(dir, 'metrics.jsonl'), lines.join('\n') + '\n');
    writeCsv(path.join(dir, 'hints.csv'), [
      { family: 'add', plain: 0.6, hinted: 0.2 },
      { family: 'sub', plain: 0.4, hinted: 0.4 },
    ]);
    const m = Object.fromEntries(dynamicsMeasures(dir).map((d) => [d.measure, d.value]));
    // defined values in step order: 9 zeros, 10 ones, 11 halves -> first window 9 x 0 + 1 = 0.1, last window 0.5,
    // best window the ten ones
    assert.ok(Math.abs(m.corr_proposed_early - 0.1) < 1e-12);
    assert.equal(m.corr_proposed_late, 0.5);
    assert.ok(Math.abs(m.corr_proposed_rise - 0.4) < 1e-12);
    assert.equal(m.corr_proposed_fall, 0.5);
    assert.equal(m.cot_reward_early, undefined);
    assert.equal(m.plain_average, 0.5);
    assert.ok(Math.abs(m.hinted_average - 0.3) < 1e-12);
  });
  it('keeps its run archive where git commits it', () => {
    const r = spawnSync('git', [
      'check-ignore',
      '-q',
      path.join(TABLE2_ARCHIVE, 'full', 'S', 'rlcer', 'seed-0', 'final.csv'),
    ]);
    assert.equal(r.status, 1, 'the archive path is git-ignored');
  });
  it('draws the training curves, hints and rubric evolution once per size, S under the plain names', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t2f-'));
    writeCsv(
      path.join(dir, 'rlcer', 'curves.csv'),
      ['S', 'M'].flatMap((size) =>
        [0, 1].map((step) => ({ size, method: 'rlvr', step, metric: 'probe_accuracy', mean: 0.5, ci95: 0, n: 3 })),
      ),
    );
    writeCsv(
      path.join(dir, 'rlcer', 'hints.csv'),
      ['S', 'M'].map((size) => ({
        size,
        method: 'rlcer',
        family: 'add',
        plain_mean: 0.5,
        plain_ci95: 0,
        hinted_mean: 0.4,
        hinted_ci95: 0,
        hint_rate_mean: 1,
        hint_rate_ci95: 0,
        n: 3,
      })),
    );
    writeCsv(
      path.join(dir, 'evolm', 'rubric_evolution.csv'),
      ['S', 'M'].map((size) => ({
        size,
        step: 0,
        concrete_share: 0.3,
        criteria_per_rubric: 3,
        mean_length: 20,
        format_rate: 1,
      })),
    );
    const names = rlcerFigures(dir).map((g) => g.name);
    assert.deepEqual(names, [
      'rlcer_accuracy',
      'rlcer_accuracy_M',
      'rlcer_hints',
      'rlcer_hints_M',
      'evolm_rubric_evolution',
      'evolm_rubric_evolution_M',
    ]);
  });
  // The Table 2 figure: one bar per table row and column (no row drawn twice), each bar the table's mean and CI.
  it('draws each Table 2 row once per trace, bars equal to the table (golden figure spec)', () => {
    // size S: every table row with its own values (average 0.01 * (i + 1), rubric quality 0.5 + 0.03 * i,
    // CI half-width 0.02 for the average, rubric quality without CI); an ablation and size M must not be drawn
    const table = TABLE2_ROWS.flatMap((method, i) => [
      {
        size: 'S',
        method,
        column: 'average',
        mean: 0.01 * (i + 1),
        ci_low: 0.01 * (i + 1) - 0.02,
        ci_high: 0.01 * (i + 1) + 0.02,
      },
      { size: 'S', method, column: 'rubric_quality', mean: 0.5 + 0.03 * i, ci_low: '', ci_high: '' },
      { size: 'M', method, column: 'average', mean: 0.9, ci_low: 0.9, ci_high: 0.9 },
    ]);
    table.push({ size: 'S', method: 'rlcer_oracle', column: 'average', mean: 0.99, ci_low: 0.99, ci_high: 0.99 });
    const fig = table2Figure(table, 'S');
    assert.equal(fig.name, 'table2_S');
    const labels = TABLE2_ROWS.map((m) => METHODS[m].label);
    assert.deepEqual(
      fig.data.map((t) => t.name),
      ['accuracy, average of 4 families', 'rubric quality (pairwise)'],
    );
    for (const trace of fig.data) {
      const x = trace.x as string[];
      assert.equal(new Set(x).size, x.length, `a category repeats in "${String(trace.name)}": ${x.join(', ')}`);
      assert.deepEqual(x, labels);
    }
    const [avg, quality] = fig.data.map((t) => t.y as number[]);
    TABLE2_ROWS.forEach((m, i) => {
      close(avg[i], 0.01 * (i + 1), `average of ${m}`);
      close(quality[i], 0.5 + 0.03 * i, `rubric quality of ${m}`);
    });
    const errors = fig.data.map((t) => (t.error_y as { array: number[] }).array);
    errors[0].forEach((e, i) => close(e, 0.02, `CI half-width of ${TABLE2_ROWS[i]}`));
    assert.deepEqual(
      errors[1],
      TABLE2_ROWS.map(() => 0),
    );
  });
  it('the EvoLM ablation figure: the cold start, EvoLM, each ablation, then the question-reading rows; seeds noted', () => {
    const rows = ['sft', 'evolm', 'evolm_k_half', 'sft_q', 'evolm_q_reads_question', 'rlvr'].flatMap((method, i) => [
      {
        size: 'S',
        method,
        column: 'average',
        mean: 0.1 * i,
        ci_low: 0.1 * i - 0.01,
        ci_high: 0.1 * i + 0.01,
        seeds: i === 2 ? 2 : 3,
      },
      { size: 'S', method, column: 'rubric_quality', mean: 0.5, ci_low: '', ci_high: '', seeds: 3 },
    ]);
    const fig = evolmAblationFigure(rows, 'S', 'x.csv');
    assert.equal(fig.name, 'evolm_ablations');
    assert.deepEqual(
      fig.data[0].x,
      [
        METHODS.sft.label,
        METHODS.evolm.label,
        `${METHODS.evolm_k_half.label} (2 seeds)`,
        METHODS.sft_q.label,
        METHODS.evolm_q_reads_question.label,
      ].map((l) => wrap(l)),
    );
    assert.equal(wrap('EvoLM, K = steps / 20 (2 seeds)'), 'EvoLM, K = steps /<br>20 (2 seeds)');
    assert.deepEqual(
      (fig.data[0].y as number[]).map((v) => Math.round(v * 10)),
      [0, 1, 2, 3, 4],
    );
    (fig.data[0].error_y as { array: number[] }).array.forEach((e) => close(e, 0.01, 'half-width'));
  });
  it("the regime map: the baseline once, then each knob's other levels; colour the difference, text the verdict", () => {
    const claim = (knob: string, level: string, c: string, delta: number | '', verdict: string) => ({
      knob,
      level,
      claim: c,
      delta,
      ci_low: delta === '' ? '' : Number(delta) - 0.1,
      ci_high: delta === '' ? '' : Number(delta) + 0.1,
      seeds: delta === '' ? 0 : 3,
      verdict,
    });
    const claims = [
      claim('noise', '0', 'a', 0.05, 'unclear'),
      claim('noise', '0.4', 'a', -0.2, 'hurts'),
      claim('share', 'natural', 'a', 0.05, 'unclear'),
      claim('share', '0.8', 'a', '', 'unclear'),
      claim('noise', '0', 'b', 0.3, 'helps'),
      claim('noise', '0.4', 'b', 0.25, 'helps'),
      claim('share', 'natural', 'b', 0.3, 'helps'),
      claim('share', '0.8', 'b', 0.1, 'unclear'),
    ];
    const fig = regimeMapFigure(claims, 'c.csv');
    const h = fig.data[0] as { x: string[]; y: string[]; z: (number | null)[][]; text: string[][]; zmax: number };
    assert.deepEqual(h.x, ['baseline', 'noise=0.4', 'share=0.8']);
    assert.deepEqual(h.y, ['a', 'b']);
    assert.deepEqual(h.z, [
      [0.05, -0.2, null],
      [0.3, 0.25, 0.1],
    ]);
    assert.equal(h.text[0][1], '-0.200<br>[-0.300, -0.100]<br>hurts (3 seeds)');
    assert.equal(h.text[0][2], 'not run yet');
    assert.equal(h.zmax, 0.3);
    const k = regimeKnobFigure(claims, 'c.csv');
    assert.deepEqual(
      k.data.map((t) => [t.name, t.xaxis, t.x, t.y]),
      [
        ['a', 'x1', ['0', '0.4'], [0.05, -0.2]],
        ['b', 'x1', ['0', '0.4'], [0.3, 0.25]],
        ['a', 'x2', ['natural', '0.8'], [0.05, null]],
        ['b', 'x2', ['natural', '0.8'], [0.3, 0.1]],
      ],
    );
    const err = k.data[0].error_y as { array: number[]; arrayminus: number[] };
    err.array.forEach((e) => close(e, 0.1, 'upper half-width'));
    assert.deepEqual(
      k.data.map((t) => t.showlegend),
      [true, true, false, false],
    );
  });
  it('refuses to mix runs of one size made from different inputs', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-t2i-')),
      out = path.join(root, 'out');
    const finished = (method: string, seed: number, coldstart: string | null) => {
      const dir = path.join(root, 'quick', 'S', method, `seed-${seed}`);
      fs.mkdirSync(dir, { recursive: true });
      writeCsv(path.join(dir, 'final.csv'), [{ method, size: 'S', seed, column: 'average', value: 0.5 }]);
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify(coldstart ? { inputs: { coldstart, verifier: 'v1' } } : {}),
      );
      fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    };
    finished('rlvr', 0, 'aaa');
    finished('rlcer', 0, 'aaa');
    aggregateTable2('quick', root, out);
    assert.equal(recordedInputs(path.join(root, 'quick', 'S', 'rlvr', 'seed-0')), 'coldstart=aaa verifier=v1');
    finished('rlcer', 1, 'bbb');
    assert.throws(
      () => aggregateTable2('quick', root, out),
      (e: Error) => e instanceof ConfigError && /size S have different inputs/.test(e.message),
    );
    // a record made before inputs were recorded does not match a recorded one either
    fs.rmSync(path.join(root, 'quick', 'S', 'rlcer', 'seed-1'), { recursive: true });
    finished('rlcer', 2, null);
    assert.throws(() => aggregateTable2('quick', root, out), /unrecorded/);
  });
  it("reads each role's update size against RLVR's at the same size and seed (hand-computed parity)", () => {
    assert.deepEqual(PARITY_BAND, [0.5, 2]);
    assert.equal(PARITY_EARLY, 10);
    // RLVR seed 0: approx. KL 1e-3 for 10 updates then 0 for 10 (mean 5e-4); seed 1: 2e-3 throughout.
    // RLCER seed 0: reasoner 1.2e-3 then 6e-4 (mean 9e-4: ratio 1.8 -> yes; first 10 updates 1.2), rubricator 4e-3.
    // RLCER seed 1: reasoner 6e-3 (ratio 3 -> no). EvoLM seed 0: policy 3e-4 over 10 updates (ratio 0.3 to RLVR's
    // first 10 -> no), generator 1e-4.
    const steps = (f: (i: number) => Record<string, unknown>) =>
      Array.from({ length: 20 }, (_, i) => ({ step: i, ...f(i) }));
    const rows = updateParity([
      {
        size: 'S',
        method: 'rlvr',
        seed: 0,
        metrics: steps((i) => ({ 'reason/approx_kl': i < 10 ? 1e-3 : 0, mixed_groups: i < 10 ? 1 : 0.5 })),
      },
      { size: 'S', method: 'rlvr', seed: 1, metrics: steps(() => ({ 'reason/approx_kl': 2e-3 })) },
      {
        size: 'S',
        method: 'rlcer',
        seed: 0,
        metrics: steps((i) => ({
          'reason/approx_kl': i < 10 ? 1.2e-3 : 6e-4,
          'rubric/approx_kl': 4e-3,
          mixed_groups: 0.5,
        })),
      },
      { size: 'S', method: 'rlcer', seed: 1, metrics: steps(() => ({ 'reason/approx_kl': 6e-3 })) },
      // EvoLM's generator steps do not log the policy's KL (null there)
      {
        size: 'S',
        method: 'evolm',
        seed: 0,
        metrics: steps((i) =>
          i % 2 ? { 'generator/approx_kl': 1e-4 } : { 'policy/approx_kl': 3e-4, 'generator/approx_kl': null },
        ),
      },
      { size: 'M', method: 'rlcer', seed: 0, metrics: steps(() => ({ 'reason/approx_kl': 1e-3 })) },
      // a KL-matched row logs the rate each update used: 1e-4 for 10 updates, then 4e-6 (mean 5.2e-5)
      {
        size: 'S',
        method: 'rlcer_kl_matched',
        seed: 0,
        metrics: steps((i) => ({ 'reason/approx_kl': 1e-3, 'reason/lr': i < 10 ? 1e-4 : 4e-6 })),
      },
    ]);
    const get = (size: string, method: string, seed: number, role: string) =>
      rows.find((r) => r.size === size && r.method === method && r.seed === seed && r.role === role)!;
    assert.deepEqual(Object.keys(rows[0]), PARITY_COLUMNS);
    const r0 = get('S', 'rlcer', 0, 'reasoner');
    close(Number(r0.approx_kl_per_update), 9e-4, 'rlcer kl');
    close(Number(r0.rlvr_approx_kl_per_update), 5e-4, 'rlvr kl');
    close(Number(r0.ratio_to_rlvr), 1.8, 'ratio', 1e-9);
    close(Number(r0.ratio_to_rlvr_first_updates), 1.2, 'early ratio', 1e-9);
    assert.equal(r0.within_band, 'yes');
    assert.equal(r0.mixed_groups, 0.5);
    assert.equal(r0.updates, 20);
    assert.equal(r0.mean_rate, '');
    assert.equal(r0.min_rate, '');
    const km = get('S', 'rlcer_kl_matched', 0, 'reasoner');
    close(Number(km.mean_rate), 5.2e-5, 'mean rate', 1e-12);
    close(Number(km.min_rate), 4e-6, 'min rate', 1e-12);
    assert.equal(get('S', 'rlcer', 1, 'reasoner').within_band, 'no');
    close(Number(get('S', 'rlcer', 1, 'reasoner').ratio_to_rlvr), 3, 'ratio seed 1', 1e-9);
    const rub = get('S', 'rlcer', 0, 'rubricator');
    close(Number(rub.ratio_to_rlvr), 8, 'rubricator ratio', 1e-9);
    assert.equal(rub.within_band, '');
    // EvoLM's 10 policy updates against RLVR's first 10 (1e-3 each), not against RLVR's mean over its 20 (5e-4)
    const evo = get('S', 'evolm', 0, 'reasoner');
    assert.equal(evo.updates, 10);
    close(Number(evo.rlvr_approx_kl_per_update), 1e-3, 'rlvr kl over as many updates', 1e-12);
    close(Number(evo.ratio_to_rlvr), 0.3, 'evolm ratio', 1e-9);
    assert.equal(evo.within_band, 'no');
    assert.equal(get('S', 'evolm', 0, 'rubricator').updates, 10);
    close(Number(get('S', 'rlvr', 0, 'reasoner').ratio_to_rlvr), 1, 'rlvr against itself', 1e-12);
    assert.equal(get('S', 'rlvr', 0, 'reasoner').mixed_groups, 0.75);
    // no RLVR run at M: no ratio, no verdict
    assert.equal(get('M', 'rlcer', 0, 'reasoner').ratio_to_rlvr, '');
    assert.equal(get('M', 'rlcer', 0, 'reasoner').within_band, '');
  });
  it("reads each claim's two rows against each other (hand-computed claim parity)", () => {
    // reasoner KL per update: A 4e-4, 9e-4, 1e-4 and B 2e-4, 3e-4, 4e-4 at seeds 0-2 -> ratios 2, 3, 0.25: 1 of 3 in
    // the band [0.5, 2] (2 counts); a rubricator row and a claim of a row against itself are not read
    const row = (method: string, seed: number, kl: number, role = 'reasoner') => ({
      size: 'S',
      method,
      seed,
      role,
      approx_kl_per_update: kl,
    });
    const parity = [
      row('a', 0, 4e-4),
      row('a', 1, 9e-4),
      row('a', 2, 1e-4),
      row('b', 0, 2e-4),
      row('b', 1, 3e-4),
      row('b', 2, 4e-4),
      row('a', 0, 1, 'rubricator'),
      row('b', 0, 1e-9, 'rubricator'),
    ];
    const rows = claimParity(parity, [
      { claim: 'A beats B', a: 'a', b: 'b' },
      { claim: 'A rises', a: 'a', b: 'a' },
      { claim: 'A beats C', a: 'a', b: 'c' },
    ]);
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]), CLAIM_PARITY_COLUMNS);
    assert.equal(rows[0].run, 'S|a');
    assert.equal(rows[0].against, 'S|b');
    assert.equal(rows[0].seeds, 3);
    close(Number(rows[0].kl_ratio_min), 0.25, 'min', 1e-12);
    close(Number(rows[0].kl_ratio_max), 3, 'max', 1e-12);
    assert.equal(rows[0].seeds_within_band, '1/3');
  });
  it('knows its rows and rejects unknown methods and profiles', () => {
    for (const m of [
      'sft',
      'rlvr',
      'scalar_rm',
      'fixed_untrained',
      'fixed_teacher',
      'rlcer_no_evolve',
      'rlcer',
      'rlcer_rubric_only',
    ])
      assert.ok(TABLE2_ROWS.includes(m) && METHODS[m]);
    assert.throws(() => methodSpec('rlcer2'), ConfigError);
    assert.throws(() => profileSpec('huge'), /unknown profile/);
  });
  it('the bench times the rows each kind names, each a METHODS row of that kind (make bench-steps)', async () => {
    const { BENCH_METHODS, KINDS } = await import('../src/methods/tables/table2-kinds.js');
    for (const [kind, k] of Object.entries(KINDS))
      for (const m of k.benchMethods) assert.equal(methodSpec(m).kind, kind, `${m} is not of kind ${kind}`);
    assert.deepEqual(BENCH_METHODS, [
      'sft',
      'rlvr',
      'process_oracle',
      'process_oracle_dense',
      'rlcer',
      'fixed_teacher',
      'evolm',
      'corl_transformer_gru',
    ]);
  });
  it("refuses a method spec's block that its kind does not read (a discriminated union; one line at run time)", () => {
    for (const [id, spec] of Object.entries(METHODS)) checkMethodSpec(id, spec);
    const base = { quality: 'policy', label: 'x' } as const;
    // @ts-expect-error an EvoLM block on an RLCER row is a type error
    const wrong: MethodSpec = { ...base, kind: 'rlcer', evolm: { schedule: 'alternate' } };
    assert.throws(
      () => checkMethodSpec('mine', wrong),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message === 'method mine: a rlcer row does not read "evolm" (its kind\'s own: rlcer)',
    );
    // @ts-expect-error a reward on an RLCER row, likewise
    assert.throws(() => checkMethodSpec('m', { ...base, kind: 'rlcer', reward: 'random' }), /does not read "reward"/);
    // @ts-expect-error and any block on the cold start's row
    assert.throws(() => checkMethodSpec('m', { ...base, kind: 'sft', rlcer: {} }), /a sft row does not read "rlcer"$/);
    checkMethodSpec('m', { ...base, kind: 'rlvr', reward: 'random', klMatch: 'rlvr', coldstart: 'q' });
  });
  it('caches the held-out pairs per profile, size, cold start and kernel generation (their samples differ)', () => {
    assert.equal(pairsCacheFile('quick', 'S', 'bb13adcfc3b2', 4), 'runs/table2/pairs-quick-S-bb13adcfc3b2-k4.json');
    assert.notEqual(pairsCacheFile('quick', 'S', 'h', 2), pairsCacheFile('quick', 'S', 'h', 4));
  });
});

describe('Table 2 runs end to end (smoke profile)', function () {
  this.timeout(240000);
  for (const method of ['rlcer', 'evolm', 'scalar_rm']) {
    it(`${method}: one step, metrics, rubric log and the tidy final table`, () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), `wb-${method}-`));
      const cfg = path.join(out, 'cfg.json');
      fs.writeFileSync(
        cfg,
        JSON.stringify(
          method === 'scalar_rm' ? { prompts: 2, rollouts: 2 } : { prompts: 2, rollouts: 2, verifier: 'oracle' },
        ),
      );
      const r = spawnSync(
        './node_modules/.bin/tsx',
        [
          'src/cli/table2-run.ts',
          '--method',
          method,
          '--profile',
          'smoke',
          '--config',
          cfg,
          '--out',
          path.join(out, 'run'),
        ],
        { encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stderr.slice(-2000));
      const final = readCsv(path.join(out, 'run', 'final.csv'));
      assert.deepEqual(
        final.map((x) => x.column),
        ['rubric_quality', 'add', 'sub', 'chain', 'chain_ood', 'average'],
      );
      // the average is the mean of the four family accuracies
      const families = final.slice(1, 5).map((x) => Number(x.value));
      close(Number(final[5].value), families.reduce((a, b) => a + b, 0) / 4, 'average of the families', 1e-9);
      const lines = fs
        .readFileSync(path.join(out, 'run', 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n');
      assert.equal(lines.length, method === 'evolm' ? 2 : 1);
      assert.ok(fs.existsSync(path.join(out, 'run', 'done.json')));
      if (method === 'rlcer') {
        const logged = fs
          .readFileSync(path.join(out, 'run', 'rubrics.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        assert.ok(logged.length > 0);
        for (const r of logged) {
          assert.equal(typeof r.parsed, 'boolean');
          if (r.parsed)
            for (const it of r.items)
              assert.ok(typeof it.english === 'string' && it.english.length > 0 && typeof it.valid === 'boolean');
          else assert.ok(typeof r.reason === 'string');
        }
      }
    });
  }
});

describe('Long-horizon table and figure (hand-computed)', () => {
  it("the long claims are Table 2's claims between its four rows, at size S", () => {
    // each accuracy claim on average, then in distribution and on chain_ood (docs/sensitivity.md)
    assert.deepEqual(
      LONG_CLAIMS.slice(0, 5).map((c) => [c.a, c.b, c.measure]),
      [
        ['S|rlcer', 'S|rlvr', 'average'],
        ['S|rlcer', 'S|rlvr', 'in_distribution'],
        ['S|rlcer', 'S|rlvr', 'chain_ood'],
        ['S|rlcer', 'S|rlcer_no_evolve', 'average'],
        ['S|rlcer', 'S|rlcer_no_evolve', 'in_distribution'],
      ],
    );
    for (const c of LONG_CLAIMS) {
      assert.ok(['rlvr', 'rlcer', 'rlcer_no_evolve', 'fixed_teacher'].includes(c.b.slice(2)), c.b);
      assert.match(c.claim, /after 300 steps$/);
    }
    assert.ok(!LONG_CLAIMS.some((c) => /evolm|rubric_only/.test(c.a + c.b)));
    // the control: fixed teacher rubrics against RLVR, last
    assert.deepEqual(
      [LONG_CLAIMS.at(-1)!.a, LONG_CLAIMS.at(-1)!.b, LONG_CLAIMS.at(-1)!.measure],
      ['S|fixed_teacher', 'S|rlvr', 'chain_ood'],
    );
    assert.equal(LONG_CLAIMS.length, 14);
  });
  it('averages the families per seed and step, then takes mean and t interval over seeds', () => {
    // rlvr seed 0: step 0 add 0.2 sub 0.4 (average 0.3), step 20 add 0.6 sub 0.8 (0.7); seed 1: step 0 0.4/0.6 (0.5),
    // step 20 0.6/1.0 (0.8). rlcer seed 0 only: step 0 add 0.5 sub 0.5.
    const rows = (xs: [number, string, number][]) => xs.map(([step, family, accuracy]) => ({ step, family, accuracy }));
    const t = longTable([
      {
        method: 'rlvr',
        seed: 0,
        rows: rows([
          [0, 'add', 0.2],
          [0, 'sub', 0.4],
          [20, 'add', 0.6],
          [20, 'sub', 0.8],
        ]),
      },
      {
        method: 'rlvr',
        seed: 1,
        rows: rows([
          [0, 'add', 0.4],
          [0, 'sub', 0.6],
          [20, 'add', 0.6],
          [20, 'sub', 1.0],
        ]),
      },
      {
        method: 'rlcer',
        seed: 0,
        rows: rows([
          [0, 'add', 0.5],
          [0, 'sub', 0.5],
        ]),
      },
    ]);
    assert.deepEqual(Object.keys(t[0]), LONG_COLUMNS);
    const at = (m: string, step: number, c: string) =>
      t.find((r) => r.method === m && Number(r.step) === step && r.column === c)!;
    close(Number(at('rlvr', 0, 'average').mean), 0.4, 'rlvr average at 0', 1e-12);
    close(Number(at('rlvr', 20, 'average').mean), 0.75, 'rlvr average at 20', 1e-12);
    // averages 0.7 and 0.8: sd 0.0707107, half-width 12.706 * 0.0707107 / sqrt(2) = 0.6353
    close(Number(at('rlvr', 20, 'average').ci_high), 0.75 + 0.6353, 'ci_high', 1e-4);
    close(Number(at('rlvr', 20, 'sub').mean), 0.9, 'sub at 20', 1e-12);
    assert.equal(Number(at('rlvr', 20, 'average').seeds), 2);
    assert.equal(at('rlcer', 0, 'average').ci_low, '');
    const fig = longFigure(t);
    assert.equal(fig.name, 'rlcer_long');
    assert.doesNotMatch(JSON.stringify(fig.layout.title), /ours after/);
    const final = [
      { method: 'rlcer', column: 'average', mean: 0.5, seeds: 3 },
      { method: 'rlvr', column: 'average', mean: 0.625, seeds: 3 },
      { method: 'rlvr', column: 'add', mean: 0.9, seeds: 3 },
    ];
    assert.match(
      JSON.stringify(longFigure(t, 'x', final).layout.title),
      /ours after the last step: RLCER 0.500 against RLVR 0.625 \(3 seeds\)<\/sup><br><sup>paper \(8B, 1,500 steps\)/,
    );
    // rlcer (one seed) has no band; rlvr has one band trace before its line
    assert.deepEqual(
      fig.data.map((d) => d.name),
      ['RLCER', 'RLVR (outcome only) 95% CI', 'RLVR (outcome only)'],
    );
    const band = fig.data[1] as { x: number[]; y: number[] };
    assert.deepEqual(band.x, [0, 20, 20, 0]);
    close(band.y[1], Number(at('rlvr', 20, 'average').ci_high), 'band top at 20', 1e-12);
    close(band.y[2], Number(at('rlvr', 20, 'average').ci_low), 'band bottom at 20', 1e-12);
    assert.deepEqual(
      (fig.data[2] as { y: number[] }).y.map((v) => Math.round(v * 1e9) / 1e9),
      [0.4, 0.75],
    );
  });
  it('runs the four long rows for 300 steps, 3 seeds, size S', () => {
    const p = profileSpec('long');
    assert.deepEqual(p.methods, LONG_ROWS);
    assert.deepEqual(LONG_ROWS, ['rlvr', 'rlcer', 'rlcer_no_evolve', 'fixed_teacher']);
    assert.ok(p.steps >= 300 && p.seeds.length === 3 && p.curveEvery === 20 && p.archived);
    assert.deepEqual(p.sizes, ['S']);
  });
});
