// Sweeps (src/io/sweep.ts): expansion into indexed runs, reuse of baseline runs by knobs that do not reach a
// method, sbatch's array lists and squeue's lines, the verdict rule, aggregation from run records (hand-computed),
// and the local executor end to end on a test-only fast method, with one run failing and only it resubmitted.
// The Slurm executor runs for real in `make test-slurm` (bin/test-slurm).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { aggregateSweep, CLAIM_COLUMNS, readFinal, verdictOf } from '../src/io/sweep-aggregate.js';
import { expandSweep, finishedDir, isFinished, type RunSpec, type SweepConfig } from '../src/io/sweep.js';
import { localExecutor, parseSqueue, rangeList, sbatchCommand } from '../src/io/executors.js';

const fake = (root: string): SweepConfig => ({
  ...JSON.parse(fs.readFileSync('test/fixtures/sweep-fake.json', 'utf8')),
  root,
});
const close = (a: unknown, b: number) => assert.ok(Math.abs(Number(a) - b) < 1e-9, `${a} vs ${b}`);
// t_{0.975,2} sd / sqrt(3) for seeds 0, 1, 2 (sd of 0.5, 0.51, 0.52 = 0.01)
const H = (4.302652729749462 * 0.01) / Math.sqrt(3); // scipy t.ppf(0.975, 2)

describe('sweep expansion', () => {
  const specs = expandSweep(fake('/r'));
  it('indexes seeds outermost, then cells, sizes, methods; a knob reruns only the methods it reaches', () => {
    assert.equal(specs.length, 15); // per seed: baseline a, b; x=0.2 b only; horizon=5 a, b
    assert.deepEqual(
      specs.slice(0, 5).map((s) => s.label),
      [
        'S a baseline seed 0',
        'S b baseline seed 0',
        'S b x=0.2 seed 0',
        'S a horizon=5 seed 0',
        'S b horizon=5 seed 0',
      ],
    );
    assert.equal(specs[5].label, 'S a baseline seed 1');
    assert.ok(specs.every((s, i) => s.index === i));
  });
  it("fills the command template and appends a level's args and overrides", () => {
    assert.deepEqual(specs[2].args, [
      'test/fixtures/sweep-fake-run.ts',
      '--method',
      'b',
      '--size',
      'S',
      '--seed',
      '0',
      '--out',
      '/r/S/b/x=0.2/seed-0',
      '--overrides',
      '{"x":0.2}',
    ]);
    assert.deepEqual(specs[3].args.slice(-2), ['--steps', '5']);
    assert.equal(specs[0].args.includes('--overrides'), false);
  });
  it('rejects a comparison or knob naming a method outside the sweep', () => {
    assert.throws(
      () => expandSweep({ ...fake('/r'), comparisons: [{ claim: 'c', a: 'z', b: 'a', column: 'average' }] }),
      /method "z"/,
    );
    assert.throws(
      () => expandSweep({ ...fake('/r'), knobs: [{ name: 'k', default: '1', levels: [{ level: '1' }] }] }),
      /distinct/,
    );
  });
});

describe('Slurm command lines', () => {
  it('array lists: sorted ranges', () => {
    assert.equal(rangeList([8, 0, 1, 2, 3, 5, 7, 3]), '0-3,5,7-8');
    assert.equal(rangeList([4]), '4');
  });
  it('sbatch: the array with its throttle, the passed-through flags, the script last', () => {
    assert.deepEqual(
      sbatchCommand('a.sh', [0, 1, 2, 4], { concurrency: 2, sbatchArgs: ['--partition=cpu', '--time=01:00:00'] }),
      ['--parsable', '--array=0-2,4%2', '--partition=cpu', '--time=01:00:00', 'a.sh'],
    );
  });
  it('squeue: running and pending tasks of our jobs, pending ranges expanded, other jobs ignored', () => {
    const q = parseSqueue('12_3 RUNNING\n12_[5-7,9%2] PENDING\n13_1 PENDING\n12_4 COMPLETING\n', ['12']);
    assert.deepEqual(
      [...q.entries()].sort((a, b) => a[0] - b[0]),
      [
        [3, 'running'],
        [4, 'running'],
        [5, 'pending'],
        [6, 'pending'],
        [7, 'pending'],
        [9, 'pending'],
      ],
    );
  });
});

describe('verdicts and aggregation', () => {
  it('helps above 0, hurts below 0, unclear across 0 or with too few seeds', () => {
    assert.equal(verdictOf(0.01, 0.2, 3, 3), 'helps');
    assert.equal(verdictOf(-0.2, -0.01, 3, 3), 'hurts');
    assert.equal(verdictOf(-0.1, 0.2, 3, 3), 'unclear');
    assert.equal(verdictOf(0.01, 0.2, 2, 3), 'unclear');
    assert.equal(verdictOf(null, null, 1, 1), 'unclear');
  });
  it("table and claims from the records: the baseline under every default level, a knob's unreached method too", () => {
    const c = fake('/r'),
      specs = expandSweep(c);
    // the fake method's formula, without running it
    const read = (s: RunSpec) => {
      const avg =
        0.5 +
        0.01 * s.seed +
        (s.method === 'b' ? 0.1 : 0) +
        (s.cell === 'x=0.2' ? 0.2 : 0) +
        (s.cell === 'horizon=5' ? 0.005 : 0);
      return new Map([['average', avg]]);
    };
    const { table, claims } = aggregateSweep(c, specs, read);
    const row = (knob: string, level: string, method: string) =>
      table.find((r) => r.knob === knob && r.level === level && r.method === method)!;
    assert.equal(table.length, 8); // 2 knobs x 2 levels x 2 methods, one column
    close(row('x', '0', 'a').mean, 0.51);
    close(row('x', '0', 'a').ci_low, 0.51 - H);
    close(row('x', '0', 'a').ci_high, 0.51 + H);
    close(row('x', '0.2', 'a').mean, 0.51); // a is not reached by x: the baseline's runs
    close(row('x', '0.2', 'b').mean, 0.81);
    close(row('horizon', '5', 'b').mean, 0.615);
    assert.equal(row('x', '0.2', 'b').seeds, 3);
    assert.deepEqual(
      claims.map((r) => [r.knob, r.level, r.claim, r.verdict]),
      [
        ['x', '0', 'b_minus_a', 'helps'],
        ['x', '0.2', 'b_minus_a', 'helps'],
        ['horizon', '0', 'b_minus_a', 'helps'],
        ['horizon', '5', 'b_minus_a', 'helps'],
      ],
    );
    close(claims[1].delta, 0.3);
    close(claims[1].ci_low, 0.3);
    close(claims[0].delta, 0.1);
    // each claim names its endpoint: the column its comparison reads
    assert.ok(claims.every((r) => r.endpoint === 'average'));
    assert.deepEqual(Object.keys(claims[0]), CLAIM_COLUMNS);
    // one seed missing: 2 seeds < minSeeds 3
    const partial = aggregateSweep(c, specs, (s) => (s.method === 'a' && s.seed === 2 ? null : read(s)));
    assert.equal(partial.claims[0].verdict, 'unclear');
    assert.equal(partial.table.find((r) => r.knob === 'x' && r.level === '0' && r.method === 'a')!.seeds, 2);
  });
});

describe('local executor', () => {
  it('runs every entry, reports the one that failed, reruns only it, and aggregates the records', async function () {
    this.timeout(300_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-local-')),
      c = fake(root),
      specs = expandSweep(c);
    fs.mkdirSync(specs[7].dir, { recursive: true });
    fs.writeFileSync(path.join(specs[7].dir, 'FAIL_ONCE'), '');
    const ex = localExecutor(2, () => {});
    const first = await ex.submit(root, specs);
    assert.equal(first.submitted.length, 15);
    const st = ex.status(root, specs);
    assert.deepEqual(
      st.map((s, i) => [i, s]).filter(([, s]) => s !== 'done'),
      [[7, 'failed']],
    );
    const again = await ex.submit(root, specs);
    assert.deepEqual(again.submitted, [7]);
    assert.ok(ex.status(root, specs).every((s) => s === 'done'));
    const { claims } = aggregateSweep(c, specs, readFinal);
    close(claims[1].delta, 0.3);
    assert.equal(
      claims.every((r) => r.verdict === 'helps'),
      true,
    );
    fs.rmSync(root, { recursive: true, force: true });
  });
  it('with an archive: every finished record is copied there, and the archive alone makes the table', async function () {
    this.timeout(300_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-arch-')),
      arch = path.join(root, 'archive');
    const c = { ...fake(path.join(root, 'runs')), archive: arch },
      specs = expandSweep(c);
    assert.equal(
      specs[4].archive,
      path.join(arch, specs[4].size, specs[4].method, specs[4].cell, `seed-${specs[4].seed}`),
    );
    assert.equal(expandSweep(fake('/r'))[4].archive, undefined);
    assert.throws(() => expandSweep({ ...c, archive: '' }), /sweep archive must be a path/);
    const ex = localExecutor(2, () => {});
    await ex.submit(c.root, specs);
    assert.ok(specs.every((s) => fs.existsSync(path.join(s.archive!, 'done.json'))));
    const before = aggregateSweep(c, specs, readFinal).claims;
    fs.rmSync(c.root, { recursive: true, force: true }); // runs/ is gone (a fresh clone): the records remain
    assert.ok(ex.status(c.root, specs).every((s) => s === 'done'));
    assert.deepEqual(aggregateSweep(c, specs, readFinal).claims, before);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('a sweep killed mid-way', () => {
  it('resumes only what did not finish: each finished run started once, every run finished', async function () {
    this.timeout(300_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-kill-')),
      specs = expandSweep(fake(root));
    const starts = (i: number) => {
      const f = path.join(specs[i].dir, 'starts.txt');
      return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').length : 0;
    };
    const done = () => specs.filter((s) => fs.existsSync(path.join(s.dir, 'done.json'))).length;
    // the sweep CLI in its own process group, each fake run taking 600 ms; SIGKILL to the group once 4 runs finished
    const child = spawn(
      './node_modules/.bin/tsx',
      [
        'src/cli/sweep.ts',
        'submit',
        '--config',
        'test/fixtures/sweep-fake.json',
        '--root',
        root,
        '--executor',
        'local',
        '--jobs',
        '2',
      ],
      { detached: true, stdio: 'ignore', env: { ...process.env, FAKE_SLEEP_MS: '600', JOBS_PLAIN: '1' } },
    );
    const exited = new Promise((r) => child.on('exit', r));
    const t0 = Date.now();
    while (done() < 4) {
      if (Date.now() - t0 > 240_000) throw new Error('the sweep never finished 4 runs');
      await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 200));
    const before = specs.map((s) => fs.existsSync(path.join(s.dir, 'done.json')));
    const finishedBefore = before.filter(Boolean).length;
    assert.ok(
      finishedBefore >= 4 && finishedBefore < specs.length,
      `${finishedBefore} of ${specs.length} finished before the kill`,
    );
    const ex = localExecutor(2, () => {});
    // the runs killed mid-way hold a stale lock (running.pid of a dead process): they count as not finished
    const states = ex.status(root, specs);
    assert.deepEqual(
      states.map((st, i) => [i, st]).filter(([, st]) => st === 'running'),
      [],
      'a dead lock looks alive',
    );
    const again = await ex.submit(root, specs);
    assert.deepEqual(
      again.submitted,
      specs.map((s) => s.index).filter((i) => !before[i]),
    );
    assert.ok(ex.status(root, specs).every((s) => s === 'done'));
    for (const s of specs) if (before[s.index]) assert.equal(starts(s.index), 1, `${s.label} ran again`);
    const { claims } = aggregateSweep(fake(root), specs, readFinal);
    close(claims[1].delta, 0.3);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('a finished run record', () => {
  it('is read from the archive when it holds one, else from the run directory', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'finished-'));
    const s = { dir: path.join(root, 'run'), archive: path.join(root, 'arch') } as RunSpec;
    const done = (d: string) => {
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'done.json'), '{}');
    };
    assert.equal(finishedDir(s), undefined);
    assert.equal(isFinished(s), false);
    done(s.dir);
    assert.equal(finishedDir(s), s.dir);
    done(s.archive!);
    assert.equal(finishedDir(s), s.archive);
    assert.equal(finishedDir({ ...s, archive: undefined }), s.dir);
    assert.ok(isFinished(s));
    fs.rmSync(root, { recursive: true, force: true });
  });
});
