// Run directories, tidy tables, config errors, aggregation over seeds.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCsv, toCsv, writeCsv } from '../src/io/table.js';
import {
  archiveRun,
  batchProgress,
  claimJob,
  lastProgress,
  processAlive,
  runJobs,
  stepLine,
  stepShare,
} from '../src/io/jobs.js';
import { spawn } from 'node:child_process';
import { drawsStatus, progressBar, statusLine, stepOf, tail, TerminalStatus } from '../src/io/progress.js';
import { findFinishedRuns, loadJsonConfig, openRun, readMetrics } from '../src/io/run.js';
import { sha256Hex, SUMS_FILE, verifySums } from '../src/io/checksums.js';
import { initBackend } from '../src/models/backend.js';
import { createPolicy } from '../src/models/index.js';
import { readCheckpoint, saveCheckpoint, type ModelConfig } from '../src/models/policy.js';
import { VOCAB } from '../src/world/vocab.js';
import { ConfigError, requireOddK, requireProbability } from '../src/util/validate.js';
import { meanCi, tQuantile95 } from '../analysis/aggregate.js';
import { checkTheoryConfig, defaultTheoryConfig } from '../src/theory/experiments.js';
import { mergeConfig } from '../src/io/config.js';
import { median } from '../src/util/stats.js';
import { selfRewardRate, q, F } from '../src/theory/dynamics.js';
import { makeRng } from '../src/util/random.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wb-'));

describe('tidy tables', () => {
  it('round-trip numbers, strings with commas and quotes', () => {
    const f = path.join(tmp(), 't.csv');
    writeCsv(f, [
      { a: 1.5, b: 'x,y', c: 'say "hi"' },
      { a: -2e-9, b: 'plain', c: '' },
    ]);
    assert.deepEqual(readCsv(f), [
      { a: 1.5, b: 'x,y', c: 'say "hi"' },
      { a: -2e-9, b: 'plain', c: '' },
    ]);
  });
  it('refuse to write NaN or a row missing a column', () => {
    assert.throws(() => toCsv([{ a: NaN }]), /non-finite/);
    assert.throws(() => toCsv([{ a: 1, b: 2 }, { a: 1 }]), /missing column "b"/);
  });
  it('are written atomically: no temp files left, old content replaced whole', () => {
    const d = tmp(),
      f = path.join(d, 't.csv');
    writeCsv(f, [{ a: 1 }]);
    writeCsv(f, [{ a: 2 }]);
    assert.deepEqual(fs.readdirSync(d), ['t.csv']);
    assert.deepEqual(readCsv(f), [{ a: 2 }]);
  });
});

describe('run directory', () => {
  // the engine as the CLI hands it in (startEngine, src/models/backend.ts): io records it, it starts no backend
  const engine = { backend: 'wasm', engine: { backend: 'wasm', tfjs: '4.22.0', kernels: 2, threads: 1 } };
  it('records the seed, the engine handed in and code version, appends metrics, marks completion', async () => {
    const d = path.join(tmp(), 'run');
    const run = await openRun(d, { seed: 42, lr: 0.1 }, engine);
    run.log({ step: 0, reward: 1 });
    run.log({ step: 1, reward: 0.5 });
    run.table('out', [{ x: 1 }]);
    const cfg = JSON.parse(fs.readFileSync(path.join(d, 'config.json'), 'utf8'));
    assert.equal(cfg.seed, 42);
    assert.equal(cfg.lr, 0.1);
    assert.equal(cfg.backend, 'wasm');
    assert.deepEqual(cfg.engine, engine.engine);
    assert.deepEqual(Object.keys(cfg), ['seed', 'lr', 'backend', 'engine', 'codeVersion', 'node', 'startedAt']);
    assert.ok(typeof cfg.codeVersion === 'string' && cfg.codeVersion.length > 0);
    assert.ok(!fs.existsSync(path.join(d, 'done.json')), 'not finished yet');
    run.finish();
    assert.ok(fs.existsSync(path.join(d, 'done.json')));
    assert.deepEqual(readMetrics(d), [
      { step: 0, reward: 1 },
      { step: 1, reward: 0.5 },
    ]);
  });
  it('reads back the finished steps of an interrupted run (torn last line)', async () => {
    const d = path.join(tmp(), 'run');
    const run = await openRun(d, { seed: 1 }, engine);
    run.log({ step: 0 });
    fs.appendFileSync(path.join(d, 'metrics.jsonl'), '{"step": 1, "rew');
    assert.deepEqual(readMetrics(d), [{ step: 0 }]);
  });
});

describe('config errors name the parameter', () => {
  it('for bad K, p, eta', () => {
    assert.throws(() => requireOddK('K', 4), /K must be an odd integer >= 1 \(got 4\)/);
    assert.throws(() => requireOddK('K', 0), /K must be an odd integer/);
    assert.throws(() => requireOddK('K', 2.5), /K must be an odd integer/);
    assert.throws(() => requireProbability('p', 1.2), /p must be a probability in \[0, 1\] \(got 1.2\)/);
    assert.throws(() => selfRewardRate(-0.1, { K: 3, eta: 1 }), /p must be a probability/);
    assert.throws(() => q(0.5, { K: 3, eta: -1 }), /eta must be >= 0/);
    assert.throws(() => selfRewardRate(0.5, { K: 6, eta: 1 }), /K must be an odd integer/);
    assert.throws(() => F(0.7, { K: 3, eta: 0 }), /eta = 0/);
  });
  it('for a theory config: unknown keys, nested bad values, negative step size', () => {
    assert.throws(() => mergeConfig(defaultTheoryConfig, { Kz: [3] }), /unknown config key "Kz"/);
    assert.throws(
      () => mergeConfig(defaultTheoryConfig, { stochastic: { lrr: 1 } }),
      /unknown config key "stochastic.lrr"/,
    );
    assert.throws(
      () => checkTheoryConfig(mergeConfig(defaultTheoryConfig, { Ks: [3, 4] })),
      /Ks\[1\] must be an odd integer/,
    );
    assert.throws(
      () => checkTheoryConfig(mergeConfig(defaultTheoryConfig, { stochastic: { lr: -0.1 } })),
      /stochastic.lr must be > 0/,
    );
    assert.throws(() => checkTheoryConfig(mergeConfig(defaultTheoryConfig, { eta: -1 })), /eta must be > 0/);
    assert.throws(
      () => checkTheoryConfig(mergeConfig(defaultTheoryConfig, { stochastic: { offsets: [1.5] } })),
      /stochastic.offsets\[0\]/,
    );
    assert.doesNotThrow(() => checkTheoryConfig(mergeConfig(defaultTheoryConfig, { Ks: [3] })));
  });
  it('for a malformed config file', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'bad.json'), '{"Ks": [3,');
    fs.writeFileSync(path.join(d, 'list.json'), '[1]');
    assert.throws(() => loadJsonConfig(path.join(d, 'bad.json')), /bad.json is not valid JSON/);
    assert.throws(() => loadJsonConfig(path.join(d, 'list.json')), /must hold a JSON object/);
    assert.throws(() => loadJsonConfig(path.join(d, 'missing.json')), /missing.json does not exist/);
  });
  it('for a non-integer seed', () => {
    assert.throws(() => makeRng(1.5), /seed must be an integer/);
  });
});

describe('aggregation over seeds (danfojs)', () => {
  it('gives mean and Student-t 95% CI by hand', () => {
    const rows = [
      { g: 'a', v: 1 },
      { g: 'a', v: 2 },
      { g: 'a', v: 4 },
      { g: 'b', v: 3 },
    ];
    const out = meanCi(rows, ['g'], ['v']);
    const a = out.find((r) => r.g === 'a')!,
      b = out.find((r) => r.g === 'b')!;
    assert.ok(Math.abs(Number(a.v_mean) - 7 / 3) < 1e-12);
    const sd = Math.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2);
    assert.ok(Math.abs(Number(a.v_ci95) - (4.302652729749462 * sd) / Math.sqrt(3)) < 1e-12); // t_{0.975,2}
    assert.equal(a.n, 3);
    assert.equal(b.v_ci95, '', 'no interval from a single seed');
  });
  it('t quantiles: exact (scipy 1.17.1 t.ppf(0.975, df) at df 1, 4, 60, 1000)', () => {
    assert.ok(Math.abs(tQuantile95(1) - 12.706204736174694) < 1e-13);
    assert.ok(Math.abs(tQuantile95(4) - 2.7764451051977934) < 1e-14);
    assert.ok(Math.abs(tQuantile95(60) - 2.0002978220142604) < 1e-14);
    assert.ok(Math.abs(tQuantile95(1000) - 1.9623390808264083) < 1e-14);
    assert.throws(() => tQuantile95(0), /degrees of freedom/);
  });
});

describe('job pool locks', () => {
  it('claims a job once, skips one held by a live process or finished, takes over a stale lock', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-lock-')), 'run');
    assert.ok(claimJob(dir));
    assert.equal(fs.readFileSync(path.join(dir, 'running.pid'), 'utf8'), String(process.pid));
    fs.writeFileSync(path.join(dir, 'running.pid'), String(process.ppid)); // another live process holds it
    assert.equal(claimJob(dir), false);
    fs.writeFileSync(path.join(dir, 'running.pid'), '999999999'); // a pool that died
    assert.ok(claimJob(dir));
    fs.writeFileSync(path.join(dir, 'done.json'), '{}');
    assert.equal(claimJob(dir), false);
  });
});

/** The pool's progress lines, kept out of the test output (a pool test's "1 failed" line reads like a failure). */
const quiet = () => {};

describe('job pool archive', function () {
  this.timeout(60000);
  it('archives a finished run without its weights or log, then counts the archived run as done', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-arch-')),
      dir = path.join(root, 'runs', 'r'),
      archive = path.join(root, 'archive', 'r');
    const write = `const fs=require('fs'),p=require('path'),d=${JSON.stringify(dir)};for(const f of ['final.csv','checkpoint.json','done.json'])fs.writeFileSync(p.join(d,f),f);`;
    const job = { label: 'r', args: ['-e', write], dir, archive };
    assert.equal(await runJobs('test', [job], 1, quiet), 0);
    assert.deepEqual(fs.readdirSync(archive).sort(), ['SHA256SUMS', 'done.json', 'final.csv']);
    // runs/ lost (a new machine): the archived run is not run again
    fs.rmSync(path.join(root, 'runs'), { recursive: true });
    assert.equal(await runJobs('test', [job], 1, quiet), 0);
    assert.equal(fs.existsSync(dir), false);
    // a run finished before it had an archive is archived when a pool with one sees it
    const dir2 = path.join(root, 'runs', 'old'),
      archive2 = path.join(root, 'archive', 'old');
    fs.mkdirSync(dir2, { recursive: true });
    for (const f of ['final.csv', 'done.json', 'log.txt']) fs.writeFileSync(path.join(dir2, f), f);
    assert.equal(
      await runJobs(
        'test',
        [{ label: 'old', args: ['-e', 'process.exit(3)'], dir: dir2, archive: archive2 }],
        1,
        quiet,
      ),
      0,
    );
    assert.deepEqual(fs.readdirSync(archive2).sort(), ['SHA256SUMS', 'done.json', 'final.csv']);
  });
  it('does not archive a failed run', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-arch-')),
      dir = path.join(root, 'r'),
      archive = path.join(root, 'a');
    assert.equal(await runJobs('test', [{ label: 'bad', args: ['-e', 'process.exit(2)'], dir, archive }], 1, quiet), 1);
    assert.equal(fs.existsSync(archive), false);
  });
});

describe('job pool deadline', () => {
  it('starts no job after JOBS_DEADLINE', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-dl-')), 'run');
    process.env.JOBS_DEADLINE = '2000-01-01T00:00';
    try {
      assert.equal(await runJobs('test', [{ label: 'late', args: ['-e', '0'], dir }], 1, quiet), 0);
      assert.equal(fs.existsSync(path.join(dir, 'log.txt')), false);
    } finally {
      delete process.env.JOBS_DEADLINE;
    }
  });
});

describe("a lock's holder is alive (processAlive)", () => {
  it('is this process; not a process that ended; not a zombie, which kill(pid, 0) still finds', async () => {
    assert.equal(processAlive(process.pid), true);
    const done = spawn('true');
    await new Promise((r) => done.on('exit', r));
    assert.equal(processAlive(done.pid!), false);
    // a zombie: sh starts a short sleep in the background, then becomes a long sleep that never reaps it
    const sh = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 5']);
    const zombie = await new Promise<number>((r) => sh.stdout.once('data', (d) => r(Number(String(d).trim()))));
    await new Promise((r) => setTimeout(r, 600));
    try {
      assert.doesNotThrow(() => process.kill(zombie, 0));
      assert.match(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8'), /\) Z /);
      assert.equal(processAlive(zombie), false);
    } finally {
      sh.kill('SIGKILL');
    }
  });
});

describe('job pool progress', function () {
  this.timeout(60000);
  it('gives the elapsed time and the remaining time at the rate so far', () => {
    assert.equal(batchProgress(0, 0, 4), '0.0 min elapsed');
    // 3 of 12 runs in 6 minutes: 2 minutes a run, 9 left -> 18 minutes
    assert.equal(batchProgress(6 * 60000, 3, 12), '6.0 min elapsed, about 18.0 min left');
    assert.equal(batchProgress(6 * 60000, 12, 12), '6.0 min elapsed');
    // 1 finished and two running at 3/4 and 1/4 of their steps: 2 runs' worth in 6 minutes, 10 left -> 30 minutes
    assert.equal(batchProgress(6 * 60000, 1, 12, 1), '6.0 min elapsed, about 30.0 min left');
    assert.equal(batchProgress(6 * 60000, 0, 4, 0.5), '6.0 min elapsed, about 42.0 min left');
    assert.equal(stepShare('[rlcer S seed 0] step 30/120 (policy)  acc 0.5  eta 4.9 min'), 0.25);
    assert.equal(stepShare('starting'), 0);
  });
  it('shows only the metrics a run has on its step line (no "judge NaN" for RLCER)', () => {
    const rlcer = stepLine(
      'rlcer S seed 0',
      3,
      60,
      'policy',
      {
        accuracy: 0.5,
        'reward/cot': 0.25,
        criteria_valid: 2,
        criteria_proposed: 4,
        'reasoner/approx_kl': 0.0001,
        judge_score: NaN,
      },
      2.25,
    );
    assert.equal(
      rlcer,
      '[rlcer S seed 0] step 3/60 (policy)  acc 0.500  cot 0.250  kl 1.0e-4  valid 2.00/4.00  eta 2.3 min',
    );
    assert.equal(lastProgress(`noise\n${rlcer}\n`), rlcer);
    assert.equal(stepLine('g', 1, 2, 'generator', {}, 0), '[g] step 1/2 (generator)  eta 0.0 min');
  });
  it("reads a run's latest step line from its log", () => {
    const log =
      'loading\n[rlcer S seed 0] step 1/60  acc 0.3  eta 9.0 min\nnoise\n[rlcer S seed 0] step 2/60  acc 0.4  eta 8.8 min\n';
    assert.equal(lastProgress(log), '[rlcer S seed 0] step 2/60  acc 0.4  eta 8.8 min');
    assert.equal(lastProgress('loading\n'), '');
  });
  it('prints the latest step of each running job while it runs', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-prog-')), 'run');
    const job = {
      label: 'slow',
      dir,
      args: ['-e', 'console.log("[slow] step 1/2  eta 0.1 min"); setTimeout(() => {}, 1500)'],
    };
    const lines: string[] = [];
    process.env.JOBS_PROGRESS_S = '0.3';
    try {
      assert.equal(await runJobs('test', [job], 1, (l) => lines.push(l)), 0);
    } finally {
      delete process.env.JOBS_PROGRESS_S;
    }
    assert.ok(
      lines.some((l) => l.startsWith('[test] running slow: [slow] step 1/2  eta 0.1 min (batch: 0/1, ')),
      `no progress line: ${lines.join(' | ')}`,
    );
    assert.match(lines.find((l) => l.startsWith('[test] 1/1 done: slow'))!, /min elapsed\)/);
  });
});

describe('terminal status line (src/io/progress.ts)', () => {
  it('draws a bar of finished runs', () => {
    assert.equal(progressBar(0, 4, 8), '[........] 0/4');
    assert.equal(progressBar(1, 4, 8), '[##......] 1/4');
    assert.equal(progressBar(3, 4, 8), '[######..] 3/4');
    assert.equal(progressBar(4, 4, 8), '[########] 4/4');
    assert.equal(progressBar(0, 0, 4), '[####] 0/0');
  });
  it("takes the step out of a run's step line", () => {
    assert.equal(stepOf('[rlcer S seed 0] step 17/120 (policy)  acc 0.352  eta 4.9 min'), '17/120');
    assert.equal(stepOf(''), 'starting');
  });
  it('puts the batch and each running run on one line that never wraps', () => {
    const running = [
      { label: 'rlvr S seed 0', step: '3/60' },
      { label: 'rlcer S seed 0', step: 'starting' },
    ];
    assert.equal(
      statusLine('table2', '[#...] 1/4', '2.0 min elapsed', running, 200),
      '[table2] [#...] 1/4 runs  2.0 min elapsed  |  rlvr S seed 0 3/60, rlcer S seed 0 starting',
    );
    assert.equal(statusLine('t', '[] 0/0', 'x', [], 200), '[t] [] 0/0 runs  x');
    const cut = statusLine('table2', '[#...] 1/4', '2.0 min elapsed', running, 31);
    assert.equal(cut, '[table2] [#...] 1/4 runs  2...');
    assert.equal(cut.length, 30);
  });
  it('is drawn on a terminal only, outside CI and unless JOBS_PLAIN=1', () => {
    assert.equal(drawsStatus(true, {}), true);
    assert.equal(drawsStatus(false, {}), false);
    assert.equal(drawsStatus(undefined, {}), false);
    assert.equal(drawsStatus(true, { CI: 'true' }), false);
    assert.equal(drawsStatus(true, { JOBS_PLAIN: '1' }), false);
  });
  it('prints plain lines above the status line and redraws it', () => {
    let out = '';
    const st = new TerminalStatus({
      write: (s: string) => {
        out += s;
        return true;
      },
    } as unknown as NodeJS.WriteStream);
    st.draw('bar 1');
    st.print('run done');
    st.draw('bar 2');
    st.clear();
    assert.equal(out, '\r\x1b[2Kbar 1' + '\r\x1b[2Krun done\nbar 1' + '\r\x1b[2Kbar 2' + '\r\x1b[2K');
  });
  it('reads the end of a long log', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-tail-')), 'log.txt');
    fs.writeFileSync(file, `${'x'.repeat(10000)}\nstep 2/3\n`);
    assert.equal(tail(file, 9), 'step 2/3\n');
    assert.equal(tail(path.join(path.dirname(file), 'none.txt')), '');
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle values, of an unsorted list', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([7]), 7);
  });
});

describe('checksums of archived records and checkpoints', () => {
  it('an archived record carries SHA256SUMS; a damaged or truncated file is named in one line, never read', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-sums-')),
      run = path.join(root, 'run'),
      arch = path.join(root, 'arch', 'r');
    fs.mkdirSync(run, { recursive: true });
    writeCsv(path.join(run, 'final.csv'), [{ column: 'average', value: 0.5 }]);
    fs.writeFileSync(path.join(run, 'metrics.jsonl'), '{"step":0}\n');
    fs.writeFileSync(path.join(run, 'checkpoint.json'), '{}');
    fs.writeFileSync(path.join(run, 'checkpoint.json.123.456.tmp'), 'a torn write'); // never archived
    fs.writeFileSync(path.join(run, 'done.json'), '{"seconds":1}');
    archiveRun(run, arch);
    const sums = fs.readFileSync(path.join(arch, SUMS_FILE), 'utf8');
    // sha256sum's format over every archived file, done.json included, sorted by name; no weights
    assert.deepEqual(
      sums
        .trim()
        .split('\n')
        .map((l) => l.slice(66)),
      ['done.json', 'final.csv', 'metrics.jsonl'],
    );
    assert.equal(sums.split('\n')[0].slice(0, 64), sha256Hex('{"seconds":1}'));
    assert.deepEqual(findFinishedRuns(path.join(root, 'arch')), [arch]);
    // re-archiving an archive rewrites its sums (they are not copied as data)
    archiveRun(arch, path.join(root, 'arch2', 'r'));
    assert.equal(fs.readFileSync(path.join(root, 'arch2', 'r', SUMS_FILE), 'utf8'), sums);
    fs.writeFileSync(path.join(arch, 'final.csv'), 'column,value\naverage,0.9\n');
    assert.throws(
      () => findFinishedRuns(path.join(root, 'arch')),
      (e: Error) => e instanceof ConfigError && /final\.csv does not match its checksum/.test(e.message),
    );
    fs.rmSync(path.join(arch, 'final.csv'));
    assert.throws(() => verifySums(arch), /final\.csv is missing/);
    fs.writeFileSync(path.join(arch, SUMS_FILE), 'not a sum line\n');
    assert.throws(() => verifySums(arch), /malformed line/);
    // a record without sums (made before them) is read as it is
    fs.rmSync(path.join(arch, SUMS_FILE));
    verifySums(arch);
  });
  it('a checkpoint whose bytes changed but still parse fails its checksum; one without a checksum loads', async () => {
    await initBackend();
    const config: ModelConfig = {
      arch: 'transformer',
      size: 'S',
      vocab: VOCAB.length,
      context: 16,
      dModel: 8,
      layers: 1,
      heads: 2,
      roles: 1,
      seed: 3,
      positions: 'alibi',
    };
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-ck-')), 'ck.json');
    saveCheckpoint(createPolicy(config), file, { step: 2 });
    const ck = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(ck.checksum, sha256Hex(JSON.stringify({ config: ck.config, meta: ck.meta, weights: ck.weights })));
    assert.equal(readCheckpoint(file).meta.step, 2);
    // one base64 character of one weight changed: same length, still valid JSON and base64
    const name = Object.keys(ck.weights)[0],
      d: string = ck.weights[name].data;
    const flipped = structuredClone(ck);
    flipped.weights[name].data = (d[0] === 'A' ? 'B' : 'A') + d.slice(1);
    fs.writeFileSync(file, JSON.stringify(flipped));
    assert.throws(
      () => readCheckpoint(file),
      (e: Error) => e instanceof ConfigError && /does not match its checksum/.test(e.message),
    );
    delete flipped.checksum;
    fs.writeFileSync(file, JSON.stringify(flipped));
    assert.equal(readCheckpoint(file).weights[name].data[0], d[0] === 'A' ? 'B' : 'A');
  });
});
