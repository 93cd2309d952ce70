// The Slurm executor against a real cluster's failures (src/io/sweep.ts), with fake Slurm clients put first on PATH:
// a squeue that fails (exit 1, no answer in time) is "unknown", retried with backoff, and never ends a wait; one that
// keeps failing past the patience stops the wait with a one-line error (in process, and through the sweep CLI);
// sacct's final states are read where it answers; an array task takes the run's lock, so a requeued or resubmitted
// task never runs an index twice (a record exists, or a live holder on this host or another node: skipped; a holder
// Slurm says is gone, or this task's own earlier attempt: taken). Every campaign CLI takes the executor options, and
// the cold starts go to Slurm as one array job. The real cluster: `make test-slurm`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { expandSweep, sweepDir, writeSpecs, type RunSpec, type SweepConfig } from '../src/io/sweep.js';
import { lockFile, parseLock, parseSacct, retrying, type SlurmAnswer } from '../src/io/slurm.js';
import { parseSqueue, runIndex, slurmExecutor } from '../src/io/executors.js';
import { RunFailure } from '../src/util/validate.js';
import { campaignRoot, campaignSpecs, executorName } from '../src/cli/executor.js';

// a fake client: each call answers the next line of <bin>/<name>.plan (the last line repeats); no plan: it fails as
// sacct does without accounting. Lines: fail, hang, invalid (squeue's answer for a forgotten job id), empty, or
// output with ';' between lines. Each call's arguments are appended to <name>.args.
const FAKE = `#!/bin/bash
d="$(dirname "$0")"; me="$(basename "$0")"
n=$(cat "$d/$me.calls" 2>/dev/null || echo 0); echo $((n + 1)) > "$d/$me.calls"
echo "$*" >> "$d/$me.args"
[ -f "$d/$me.plan" ] || { echo "$me: error: Slurm accounting storage is disabled" >&2; exit 1; }
mapfile -t plan < "$d/$me.plan"
i=$(( n < \${#plan[@]} ? n : \${#plan[@]} - 1 ))
case "\${plan[$i]}" in
  fail) echo "$me: error: slurm_load_jobs error: Socket timed out on send/recv operation" >&2; exit 1 ;;
  hang) exec sleep 30 ;;
  invalid) echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1 ;;
  empty) exit 0 ;;
  *) printf '%s\\n' "\${plan[$i]}" | tr ';' '\\n' ;;
esac
`;

interface Fake {
  bin: string;
  env: NodeJS.ProcessEnv;
  plan(cmd: string, steps: string[] | null): void;
  calls(cmd: string): number;
}

function fakeSlurm(): Fake {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-slurm-'));
  for (const c of ['squeue', 'sacct', 'sbatch']) fs.writeFileSync(path.join(bin, c), FAKE, { mode: 0o755 });
  const file = (cmd: string, ext: string) => path.join(bin, `${cmd}.${ext}`);
  return {
    bin,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    plan(cmd, steps) {
      for (const ext of ['calls', 'args', 'plan']) fs.rmSync(file(cmd, ext), { force: true });
      if (steps) fs.writeFileSync(file(cmd, 'plan'), steps.join('\n') + '\n');
    },
    calls: (cmd) => (fs.existsSync(file(cmd, 'calls')) ? Number(fs.readFileSync(file(cmd, 'calls'), 'utf8')) : 0),
  };
}

const fakeConfig = (root: string): SweepConfig => ({
  ...JSON.parse(fs.readFileSync('test/fixtures/sweep-fake.json', 'utf8')),
  root,
});
/** a sweep root whose runs were submitted as array jobs (jobs.jsonl: job -> indices) */
function submitted(root: string, subs: [string, number[]][]): RunSpec[] {
  const specs = expandSweep(fakeConfig(root));
  writeSpecs(root, specs);
  fs.mkdirSync(path.join(sweepDir(root), 'slurm'), { recursive: true });
  fs.writeFileSync(
    path.join(sweepDir(root), 'slurm', 'jobs.jsonl'),
    subs.map(([job, indices]) => JSON.stringify({ job, indices }) + '\n').join(''),
  );
  return specs;
}
const finish = (s: RunSpec) => {
  fs.mkdirSync(s.dir, { recursive: true });
  fs.writeFileSync(path.join(s.dir, 'done.json'), '{}\n');
};
const quick = { backoffSeconds: 0.05, callSeconds: 0.5, pollSeconds: 0.05, log: () => {} };
const starts = (s: RunSpec) => {
  const f = path.join(s.dir, 'starts.txt');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').length - 1 : 0;
};

describe('Slurm answers', () => {
  it('squeue: tasks in a final state are not queued; suspended ones are running', () => {
    const q = parseSqueue('12_3 RUNNING\n12_4 COMPLETED\n12_5 SUSPENDED\n12_6 TIMEOUT\n12_[7-8] PENDING\n', ['12']);
    assert.deepEqual(
      [...q.entries()].sort((a, b) => a[0] - b[0]),
      [
        [3, 'running'],
        [5, 'running'],
        [7, 'pending'],
        [8, 'pending'],
      ],
    );
  });
  it('sacct: per job and index, the first word of the state; pending ranges expanded', () => {
    const m = parseSacct(
      '12_0|COMPLETED\n12_1|CANCELLED by 1000\n12_2|OUT_OF_MEMORY\n12_[3-4%2]|PENDING\n13|FAILED\n\n',
    );
    assert.deepEqual(
      [...m.entries()],
      [
        ['12_0', 'COMPLETED'],
        ['12_1', 'CANCELLED'],
        ['12_2', 'OUT_OF_MEMORY'],
        ['12_3', 'PENDING'],
        ['12_4', 'PENDING'],
        ['13', 'FAILED'],
      ],
    );
  });
  it('retries: waits doubling from the backoff up to its cap, until the client answers', () => {
    const waits: number[] = [];
    let n = 0;
    const once = (): SlurmAnswer => (++n <= 4 ? { ok: false, error: 'exit 1: busy' } : { ok: true, out: 'x' });
    const r = { patienceSeconds: 3600, backoffSeconds: 2, maxBackoffSeconds: 10, callSeconds: 1 };
    assert.deepEqual(
      retrying(
        'squeue',
        once,
        r,
        () => {},
        (ms) => waits.push(ms),
      ),
      { ok: true, out: 'x' },
    );
    assert.deepEqual(waits, [2000, 4000, 8000, 10000]);
  });
  it('gives up after the patience with one line: how long, how many tries, the last error', () => {
    const t0 = Date.now();
    const r = { patienceSeconds: 0.3, backoffSeconds: 0.05, maxBackoffSeconds: 1, callSeconds: 1 };
    const a = retrying('squeue', () => ({ ok: false, error: 'exit 1: Socket timed out' }), r);
    assert.ok(Date.now() - t0 >= 300);
    assert.equal(a.ok, false);
    assert.match(
      (a as { error: string }).error,
      /^squeue failed for \d+ s \(\d+ tries, the last: exit 1: Socket timed out\)$/,
    );
  });
});

describe('Slurm executor with a failing squeue (fake clients on PATH)', () => {
  let fake: Fake, root: string;
  beforeEach(() => {
    fake = fakeSlurm();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-fake-slurm-'));
  });
  afterEach(() => {
    fs.rmSync(fake.bin, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a squeue that fails, hangs, then answers does not end the wait; it ends when the queue is empty', async () => {
    submitted(root, [['12', [0, 1]]]);
    fake.plan('squeue', ['fail', 'fail', 'hang', '12_0 RUNNING;12_1 PENDING', 'fail', '12_0 RUNNING', 'empty']);
    const ex = slurmExecutor({ ...quick, env: fake.env, squeuePatienceSeconds: 60 });
    await ex.wait(root);
    assert.equal(fake.calls('squeue'), 7, 'the wait ended before squeue said the queue was empty');
  });

  it('while squeue fails, submitted runs without a record are unknown (not failed, not resubmitted)', async () => {
    const specs = submitted(root, [['12', [0, 1, 2, 3]]]);
    finish(specs[0]);
    fs.mkdirSync(path.join(sweepDir(root), 'status'), { recursive: true });
    fs.writeFileSync(path.join(sweepDir(root), 'status', '1.json'), '{"index":1,"exit":3}\n');
    fs.mkdirSync(path.join(sweepDir(root), 'logs'), { recursive: true });
    fs.writeFileSync(path.join(sweepDir(root), 'logs', 'task-2-job-12.out'), 'started\n');
    fake.plan('squeue', ['fail']);
    fake.plan('sbatch', ['13']);
    const ex = slurmExecutor({ ...quick, env: fake.env, squeuePatienceSeconds: 0.2 });
    const st = ex.status(root, specs);
    // 0 finished; 1 ended with an exit code; 2 and 3 submitted (2 even has a log): unknown; 4 on never submitted
    assert.deepEqual(st.slice(0, 5), ['done', 'failed', 'unknown', 'unknown', 'missing']);
    const again = await ex.submit(root, specs);
    assert.deepEqual(again.submitted, [1, ...specs.slice(4).map((s) => s.index)]);
    assert.equal(fake.calls('sbatch'), 1);
  });

  it('a squeue failing longer than the patience stops the wait with one line', async () => {
    submitted(root, [['12', [0, 1]]]);
    fake.plan('squeue', ['fail']);
    const ex = slurmExecutor({ ...quick, env: fake.env, squeuePatienceSeconds: 0.4 });
    const t0 = Date.now();
    await assert.rejects(ex.wait(root), (e: Error) => {
      assert.ok(e instanceof RunFailure);
      assert.doesNotMatch(e.message, /\n/);
      assert.match(e.message, /^squeue failed for \d+ s \(\d+ tries, the last: exit 1: .*Socket timed out.*\): /);
      assert.match(e.message, /unknown state/);
      assert.match(e.message, /--squeue-patience/);
      return true;
    });
    assert.ok(Date.now() - t0 >= 400, 'gave up before the patience');
    assert.ok(fake.calls('squeue') >= 2, 'retried before giving up'); // (not a count: a loaded machine runs the fake slowly)
  });

  it('squeue\'s "Invalid job id" for a forgotten job is an answer: nothing queued', async () => {
    submitted(root, [['12', [0]]]);
    fake.plan('squeue', ['invalid']);
    await slurmExecutor({ ...quick, env: fake.env, squeuePatienceSeconds: 60 }).wait(root);
    assert.equal(fake.calls('squeue'), 1);
  });

  it('final states from sacct (the latest submission of each index), the status file where sacct fails', () => {
    const specs = submitted(root, [
      ['12', [0, 1, 2, 3]],
      ['13', [2]],
    ]);
    finish(specs[0]);
    fake.plan('squeue', ['empty']);
    fake.plan('sacct', ['12_0|COMPLETED;12_1|TIMEOUT;12_2|NODE_FAIL;12_3|CANCELLED by 0;13_2|PENDING']);
    const ex = slurmExecutor({ ...quick, env: fake.env });
    assert.deepEqual(
      [...ex.finalStates!(root)!.entries()].sort((a, b) => a[0] - b[0]),
      [
        [0, 'COMPLETED'],
        [1, 'TIMEOUT'],
        [2, 'PENDING'],
        [3, 'CANCELLED'],
      ],
    );
    // 1 timed out and 3 was cancelled before writing anything: failed; 2's latest submission has not ended
    assert.deepEqual(ex.status(root, specs).slice(0, 5), ['done', 'failed', 'missing', 'failed', 'missing']);
    // squeue failing: sacct's final states still say which ended
    fake.plan('squeue', ['fail']);
    const unknown = slurmExecutor({ ...quick, env: fake.env, squeuePatienceSeconds: 0.1 });
    assert.deepEqual(unknown.status(root, specs).slice(0, 5), ['done', 'failed', 'unknown', 'failed', 'missing']);
    // no accounting: no final states; the exit marker alone
    fake.plan('sacct', null);
    fake.plan('squeue', ['empty']);
    fs.mkdirSync(path.join(sweepDir(root), 'status'), { recursive: true });
    fs.writeFileSync(path.join(sweepDir(root), 'status', '3.json'), '{"index":3,"exit":1}\n');
    assert.equal(ex.finalStates!(root), null);
    assert.deepEqual(ex.status(root, specs).slice(0, 5), ['done', 'missing', 'missing', 'failed', 'missing']);
  });

  it('the sweep CLI (--poll-seconds, --squeue-patience): a squeue that never answers, one error line', function () {
    this.timeout(60_000);
    fake.plan('sbatch', ['12']);
    fake.plan('squeue', ['fail']);
    const args = ['src/cli/sweep.ts', 'submit', '--config', 'test/fixtures/sweep-slurm.json', '--root', root];
    args.push('--executor', 'slurm', '--wait', 'yes', '--poll-seconds', '1', '--squeue-patience', '1');
    const r = spawnSync('./node_modules/.bin/tsx', args, { env: fake.env, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(errors[0], /^error: squeue failed for \d+ s \(\d+ tries, the last: exit 1: .*\): the sweep's tasks/);
    assert.match(fs.readFileSync(path.join(fake.bin, 'sbatch.args'), 'utf8'), /--parsable --array=0-5 /);
    // nothing was marked failed: no exit markers
    assert.equal(fs.existsSync(path.join(sweepDir(root), 'status')), false);
  });

  it("refuses to swap the run list under queued tasks; sets the old list's files aside when none is", async () => {
    const specs = submitted(root, [['12', [0, 1]]]);
    fake.plan('squeue', ['12_1 RUNNING']);
    fake.plan('sbatch', ['13']);
    const other = specs.map((s) => ({ ...s, args: [...s.args, '--steps', '7'] }));
    const ex = slurmExecutor({ ...quick, env: fake.env });
    await assert.rejects(ex.submit(root, other), /another run list whose array tasks are still queued or running/);
    fake.plan('squeue', ['empty']);
    const sub = await ex.submit(root, other);
    assert.equal(sub.submitted.length, specs.length);
    const slurm = fs.readdirSync(path.join(sweepDir(root), 'slurm'));
    assert.ok(
      slurm.some((f) => /^jobs-until-.*\.jsonl$/.test(f)),
      slurm.join(' '),
    );
  });
});

describe('a requeued or resubmitted task never runs an index twice', () => {
  let fake: Fake, root: string, specs: RunSpec[];
  const retry = { patienceSeconds: 0.2, backoffSeconds: 0.05, callSeconds: 2 };
  const task = (job: string, index: number) => ({
    ...fake.env,
    SLURM_JOB_ID: job,
    SLURM_ARRAY_JOB_ID: '500',
    SLURM_ARRAY_TASK_ID: String(index),
  });
  const run = (i: number, env: NodeJS.ProcessEnv, lines: string[] = []) =>
    runIndex(sweepDir(root), i, (l) => lines.push(l), { env, retry });
  const lockOf = (i: number, l: object) => {
    fs.mkdirSync(specs[i].dir, { recursive: true });
    fs.writeFileSync(lockFile(specs[i].dir), JSON.stringify(l));
  };
  const elsewhere = { pid: 4242, host: 'node-b.elsewhere', job: '400_3', jobId: '403', restart: '0' };
  beforeEach(() => {
    fake = fakeSlurm();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-requeue-'));
    specs = expandSweep(fakeConfig(root));
    writeSpecs(root, specs);
  });
  afterEach(() => {
    fs.rmSync(fake.bin, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a record exists (in the run directory or its archive): skipped, the command not started', async () => {
    finish(specs[0]);
    const lines: string[] = [];
    assert.equal(await run(0, task('501', 0), lines), 0);
    assert.equal(starts(specs[0]), 0);
    assert.match(lines.join('\n'), /0 skipped: .* \(finished\)/);
    const arch = path.join(root, 'archive');
    const c = { ...fakeConfig(path.join(root, 'runs')), archive: arch },
      withArchive = expandSweep(c);
    writeSpecs(c.root, withArchive);
    finish({ ...withArchive[1], dir: withArchive[1].archive! });
    assert.equal(await runIndex(sweepDir(c.root), 1, () => {}, { env: task('502', 1), retry }), 0);
    assert.equal(starts(withArchive[1]), 0);
  });

  it('a live lock: a task on another node that squeue says runs, or a live process here: skipped', async () => {
    lockOf(3, elsewhere);
    fake.plan('squeue', ['400_3 RUNNING']);
    const lines: string[] = [];
    assert.equal(await run(3, task('510', 3), lines), 0);
    assert.equal(starts(specs[3]), 0);
    const said = lines.join('\n');
    assert.match(said, /3 skipped: .*running elsewhere: pid 4242 on node-b\.elsewhere, Slurm job 400_3 \(403\)/);
    assert.match(fs.readFileSync(path.join(fake.bin, 'squeue.args'), 'utf8'), /-j 403 /);
    assert.deepEqual(parseLock(fs.readFileSync(lockFile(specs[3].dir), 'utf8')), elsewhere, 'the lock was touched');
    // the job pool's lock (a pid) of a live process on this host
    const sleeper = spawn('sleep', ['30']);
    try {
      fs.mkdirSync(specs[4].dir, { recursive: true });
      fs.writeFileSync(lockFile(specs[4].dir), String(sleeper.pid));
      assert.equal(await run(4, task('511', 4)), 0);
      assert.equal(starts(specs[4]), 0);
    } finally {
      sleeper.kill();
    }
  });

  it('squeue failing and no sacct: a holder on another node cannot be checked, so the task skips', async () => {
    lockOf(2, elsewhere);
    fake.plan('squeue', ['fail']);
    const lines: string[] = [];
    assert.equal(await run(2, task('512', 2), lines), 0);
    assert.equal(starts(specs[2]), 0);
    assert.match(lines.join('\n'), /cannot be checked from here; remove .*running\.pid if it is gone/);
    // sacct says it is still running: skipped too
    fake.plan('sacct', ['403|RUNNING']);
    assert.equal(await run(2, task('512', 2)), 0);
    assert.equal(starts(specs[2]), 0);
  });

  it('a stale lock (job not in squeue, forgotten, ended in sacct; its own earlier attempt): taken', async function () {
    this.timeout(120_000);
    // squeue lists nothing for the holder's job
    lockOf(0, elsewhere);
    fake.plan('squeue', ['empty']);
    assert.equal(await run(0, task('520', 0)), 0);
    assert.equal(starts(specs[0]), 1);
    assert.equal(fs.existsSync(lockFile(specs[0].dir)), false, 'the lock was left behind');
    // "Invalid job id": the controller forgot the job
    lockOf(1, elsewhere);
    fake.plan('squeue', ['invalid']);
    assert.equal(await run(1, task('521', 1)), 0);
    assert.equal(starts(specs[1]), 1);
    // squeue failing, sacct says the holder's node failed
    lockOf(2, elsewhere);
    fake.plan('squeue', ['fail']);
    fake.plan('sacct', ['403|NODE_FAIL']);
    assert.equal(await run(2, task('522', 2)), 0);
    assert.equal(starts(specs[2]), 1);
    // the same Slurm job (a requeued task): its earlier attempt is gone, nobody is asked
    lockOf(3, { ...elsewhere, jobId: '523' });
    fake.plan('squeue', ['400_3 RUNNING']);
    assert.equal(await run(3, task('523', 3)), 0);
    assert.equal(starts(specs[3]), 1);
    assert.equal(fake.calls('squeue'), 0);
    // the job pool's lock of a dead process here
    const dead = spawnSync('true').pid;
    fs.mkdirSync(specs[4].dir, { recursive: true });
    fs.writeFileSync(lockFile(specs[4].dir), String(dead));
    assert.equal(await run(4, task('524', 4)), 0);
    assert.equal(starts(specs[4]), 1);
  });

  it('two tasks of one index at once (a resubmission beside a requeue), then a third: one run', async function () {
    this.timeout(60_000);
    // the second task asks about the first's job: squeue says it runs
    fake.plan('squeue', ['500_5 RUNNING']);
    const lines: string[] = [];
    const codes = await Promise.all([run(5, task('530', 5), lines), run(5, task('531', 5), lines)]);
    assert.deepEqual(codes, [0, 0]);
    assert.equal(starts(specs[5]), 1);
    const skipped = lines.filter((l) => /5 skipped: .*running elsewhere: pid \d+ on .*Slurm job 500_5 \(530\)/.test(l));
    assert.equal(skipped.length, 1, lines.join('\n'));
    assert.equal(await run(5, task('532', 5)), 0);
    assert.equal(starts(specs[5]), 1);
    assert.ok(fs.existsSync(path.join(specs[5].dir, 'done.json')));
  });
});

describe('every campaign CLI takes the executor options', () => {
  it('--help of sweep, table2 (EvoLM, the long horizon), corl, rubicon and coldstarts shows them', function () {
    this.timeout(120_000);
    for (const cli of ['sweep', 'table2', 'corl', 'rubicon', 'coldstarts']) {
      const args = [`src/cli/${cli}.ts`, ...(cli === 'sweep' ? ['submit'] : []), '--help'];
      const r = spawnSync('./node_modules/.bin/tsx', args, { encoding: 'utf8' });
      for (const o of ['--executor', '--sbatch-args', '--concurrency', '--poll-seconds', '--squeue-patience'])
        assert.match(r.stdout, new RegExp(`^  ${o} `, 'm'), `${cli}: ${o}`);
      assert.match(r.stdout, /--poll-seconds .*\(default 30\)/, cli);
    }
  });
  it("a campaign's jobs as a run list; its sweep files per run list; the executor named or refused", () => {
    const jobs = [
      { label: 'a', dir: 'runs/x/a', args: ['s.ts'], method: 'm', seed: 2 },
      { label: 'b', dir: 'runs/x/b', args: ['t.ts'], archive: 'results/runs/x/b' },
    ];
    assert.deepEqual(campaignSpecs('corl', jobs), [
      { index: 0, label: 'a', dir: 'runs/x/a', args: ['s.ts'], method: 'm', size: '', seed: 2, cell: 'baseline' },
      {
        index: 1,
        label: 'b',
        dir: 'runs/x/b',
        args: ['t.ts'],
        method: 'corl',
        size: '',
        seed: 0,
        cell: 'baseline',
        archive: 'results/runs/x/b',
      },
    ]);
    const root = campaignRoot('table2', 'full', 'evolm-oracle', undefined, 'sizes=S');
    assert.equal(root, 'runs/sweeps/table2-full-evolm-oracle-sizes=S');
    assert.equal(campaignRoot('table2', 'quick', 'rlvr,rlcer'), 'runs/sweeps/table2-quick-rlvr+rlcer');
    assert.equal(executorName({}), 'local');
    assert.throws(() => executorName({ executor: 'pbs' }), /--executor must be local or slurm/);
  });
  it('the cold starts on Slurm: one array job over the models, a wait, unfinished runs reported', function () {
    this.timeout(60_000);
    const fake = fakeSlurm(),
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstarts-slurm-'));
    try {
      fake.plan('sbatch', ['77']);
      fake.plan('squeue', ['77_0 RUNNING;77_1 PENDING', '77_1 RUNNING', 'empty']);
      const args = [path.resolve('src/cli/coldstarts.ts'), '--models', 'transformer-S gru-M', '--executor', 'slurm'];
      args.push('--concurrency', '2', '--sbatch-args', '--partition=cpu', '--poll-seconds', '1');
      const r = spawnSync(path.resolve('node_modules/.bin/tsx'), args, { cwd, env: fake.env, encoding: 'utf8' });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /^error: 2 cold starts failed/m);
      assert.equal(fake.calls('squeue'), 4); // three polls, then the final status
      const root = 'runs/sweeps/coldstart-transformer-S+gru-M';
      const specs = JSON.parse(fs.readFileSync(path.join(cwd, sweepDir(root), 'specs.json'), 'utf8')) as RunSpec[];
      const cold = (arch: string, size: string) =>
        ['src/cli/coldstart.ts', '--arch', arch, '--size', size, '--resume', 'yes', '--out'].concat(
          `runs/coldstart/${arch}-${size}-seed0`,
        );
      assert.deepEqual(
        specs.map((s) => s.args),
        [cold('transformer', 'S'), cold('gru', 'M')],
      );
      const sbatch = fs.readFileSync(path.join(fake.bin, 'sbatch.args'), 'utf8').trim();
      assert.equal(sbatch, `--parsable --array=0-1%2 --partition=cpu ${sweepDir(root)}/slurm/array.sh`);
    } finally {
      fs.rmSync(fake.bin, { recursive: true, force: true });
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
