// The local pool's long-lived workers (src/cli/worker.ts, RunWorker in src/io/jobs.ts): two different quick-profile
// runs of 2 steps back to back through one worker, and each through a fresh `tsx src/cli/table2-run.ts` process, write
// the same run directories file by file, byte for byte but for the wall clock (WALL_CLOCK below, each field named);
// a run with a bad flag ends with the process's exit code and its one error line; and the pool hands the jobs left
// after a worker's crash to a fresh worker (a stand-in worker, test/fixtures/fake-worker.ts). About 2-3 minutes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunWorker, runJobs, runLogged } from '../src/io/jobs.js';
import { WORKER } from '../src/cli/executor.js';
import { TABLE2_RUN } from '../src/cli/run-checks.js';
import { codeVersion } from '../src/io/run.js';

/**
 * What a record holds of the wall clock, the only thing allowed to differ between the two ways of running it:
 * - config.json `startedAt`: when the run opened its directory;
 * - done.json `seconds` (the run's wall time) and `finishedAt` (when it ended);
 * - metrics.jsonl, every `*_ms` field of a step (`sample_ms`, `update_ms`, RLCER's `rubric_ms` and `judge_ms`): the
 *   trainer's wall-clock timing of the step's parts;
 * - log.txt (not archived with a record): the `eta N min` of each step line and the final `done in N min`, and the
 *   lines TensorFlow's C++ library writes to stderr as it loads (once per process, so in a worker's first run only).
 * And config.json's `codeVersion` only where the tree's code version changed while the runs ran (other people commit
 * in this working tree): each run records the commit it ran at.
 */
const WALL_CLOCK = {
  'config.json': ['startedAt'],
  'done.json': ['seconds', 'finishedAt'],
};
const TF_LOAD_LINE = /^(WARNING: All log messages before absl::InitializeLog|I0000 00:00:)/;

/** A file's text with its wall-clock fields blanked (WALL_CLOCK, and `also`); any other file as it is. */
function comparable(dir: string, file: string, also: string[] = []): string | Buffer {
  const bytes = fs.readFileSync(path.join(dir, file));
  if (file in WALL_CLOCK) {
    const o = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    for (const k of [...WALL_CLOCK[file as keyof typeof WALL_CLOCK], ...(file === 'config.json' ? also : [])]) {
      assert.ok(k in o, `${dir}/${file} has ${k}`);
      o[k] = '(wall clock)';
    }
    return JSON.stringify(o, null, 2);
  }
  if (file === 'metrics.jsonl') {
    return bytes
      .toString('utf8')
      .split('\n')
      .map((l) => (l ? JSON.stringify(JSON.parse(l), (k, v) => (k.endsWith('_ms') ? '(wall clock)' : v)) : l))
      .join('\n');
  }
  if (file === 'log.txt') {
    return bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => !TF_LOAD_LINE.test(l))
      .map((l) =>
        l.replace(/\beta [\d.]+ min/, 'eta (wall clock)').replace(/ done in [\d.]+ min:/, ' done in (wall clock):'),
      )
      .join('\n');
  }
  return bytes;
}

describe('workers that keep their graphs', function () {
  this.timeout(600_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-test-'));
  const RUNS = [
    { method: 'rlvr', seed: '0' },
    { method: 'rlcer', seed: '1' },
  ];
  const args = (r: (typeof RUNS)[number], dir: string) => [
    TABLE2_RUN,
    ...['--method', r.method, '--size', 'S', '--seed', r.seed, '--profile', 'quick', '--steps', '2', '--out', dir],
  ];
  const BAD = ['--method', 'rlvr', '--size', 'S', '--seed', '0', '--profile', 'quick', '--no-such-flag', '1'];
  const dirOf = (how: string, r: (typeof RUNS)[number]) => path.join(root, how, `${r.method}-seed-${r.seed}`);
  const codes: Record<string, number | undefined> = {};
  const bytesAfter: (number | undefined)[] = [];
  const versions: string[] = [];

  before(async () => {
    versions.push(codeVersion());
    for (const r of RUNS) {
      const dir = dirOf('process', r);
      codes[`process ${r.method}`] = await runLogged(args(r, dir), path.join(dir, 'log.txt'));
    }
    codes['process bad'] = await runLogged([TABLE2_RUN, ...BAD], path.join(root, 'process', 'bad', 'log.txt'));
    const w = new RunWorker(WORKER.script);
    try {
      for (const r of RUNS) {
        const dir = dirOf('worker', r);
        codes[`worker ${r.method}`] = await w.run(args(r, dir), path.join(dir, 'log.txt'));
        bytesAfter.push(w.bytes);
      }
      codes['worker bad'] = await w.run([TABLE2_RUN, ...BAD], path.join(root, 'worker', 'bad', 'log.txt'));
    } finally {
      w.close();
    }
    versions.push(codeVersion());
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('both runs finish both ways', () => {
    for (const r of RUNS) {
      assert.equal(codes[`process ${r.method}`], 0, fs.readFileSync(path.join(dirOf('process', r), 'log.txt'), 'utf8'));
      assert.equal(codes[`worker ${r.method}`], 0, fs.readFileSync(path.join(dirOf('worker', r), 'log.txt'), 'utf8'));
    }
  });

  it("a worker's runs write a fresh process's records, file by file, but for the wall clock", () => {
    for (const r of RUNS) {
      const a = dirOf('process', r),
        b = dirOf('worker', r);
      const files = fs.readdirSync(a).sort();
      assert.deepEqual(fs.readdirSync(b).sort(), files, `${r.method}: the same files`);
      for (const f of ['config.json', 'metrics.jsonl', 'checkpoint.json', 'final.csv', 'eval.csv', 'log.txt'])
        assert.ok(files.includes(f), `${r.method} wrote ${f}`);
      const moved = versions[0] !== versions[1] ? ['codeVersion'] : [];
      for (const f of files) {
        const x = comparable(a, f, moved),
          y = comparable(b, f, moved);
        if (typeof x === 'string') assert.equal(y, x, `${r.method} ${f}`);
        else assert.ok(Buffer.isBuffer(y) && x.equals(y), `${r.method} ${f}: the same bytes`);
      }
    }
  });

  it("a run leaves next to none of its tensors' memory in the worker", () => {
    // its weights and optimizer state (megabytes) are disposed; what stays is the constants a model keeps for its
    // life, tf.keep'd outside any scope (the ALiBi slopes: 16 bytes per model)
    const [first, second] = bytesAfter as number[];
    assert.ok(second - first < 1024, `tensor bytes after each run: ${bytesAfter.join(', ')}`);
  });

  it("a bad flag: the process's exit code and its one error line", () => {
    assert.equal(codes['process bad'], 2);
    assert.equal(codes['worker bad'], 2);
    const line = (how: string) => fs.readFileSync(path.join(root, how, 'bad', 'log.txt'), 'utf8');
    assert.match(line('process'), /^error: unknown argument "--no-such-flag" .*\n$/);
    assert.equal(line('worker'), line('process'));
  });

  it("a worker's crash fails its job only; the pool gives the jobs after it to a fresh worker", async () => {
    const dir = (name: string) => path.join(root, 'pool', name);
    const jobs = ['a', 'crash', 'b', 'c'].map((name) => ({
      label: name,
      dir: dir(name),
      args: ['fake', dir(name), name === 'crash' ? 'crash' : 'ok'],
    }));
    const lines: string[] = [];
    const failed = await runJobs('fake', jobs, 1, (l) => lines.push(l), {
      script: 'test/fixtures/fake-worker.ts',
      runs: ['fake'],
    });
    assert.equal(failed, 1, lines.join('\n'));
    assert.ok(
      lines.some((l) => /FAILED \(exit 3\): crash .*fake worker: crashing/.test(l)),
      lines.join('\n'),
    );
    const pid = (name: string) => fs.readFileSync(path.join(dir(name), 'pid'), 'utf8');
    assert.notEqual(pid('b'), pid('a'));
    assert.equal(pid('c'), pid('b'));
    assert.equal(fs.readFileSync(path.join(dir('b'), 'log.txt'), 'utf8'), `ran ${dir('b')}\n`);
  });
});
