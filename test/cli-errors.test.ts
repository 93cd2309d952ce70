// Bad input to a CLI: one line `error: <message>` on stderr naming the parameter or file, exit code 2, and no run
// folder left behind; a bug keeps its stack trace (exit 1); the job pool's FAILED line quotes the error.
// Each case is a tsx child process (1-2 s each); they are started together in `before`.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { choiceListArg, intArg, intListArg } from '../src/io/args.js';
import { failureLine, runJobs } from '../src/io/jobs.js';
import { ConfigError } from '../src/util/validate.js';

const TSX = './node_modules/.bin/tsx';
const COLD_START = 'data/checkpoints/coldstart-transformer-S.json';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Exit 2 and exactly one non-empty stderr line, `error: ...`, matching `pattern`. */
function assertUserError(r: Result, pattern: RegExp): string {
  assert.equal(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one stderr line, got:\n${r.stderr}`);
  assert.match(lines[0], /^error: /);
  assert.match(lines[0], pattern);
  return lines[0];
}

describe('CLI errors', function () {
  this.timeout(120000);
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-cli-'));
  const file = (name: string, text: string) => {
    fs.writeFileSync(path.join(d, name), text);
    return path.join(d, name);
  };
  const out = (name: string) => path.join(d, 'runs', name);
  const cases: Record<string, () => Promise<Result>> = {};
  const results: Record<string, Result> = {};
  const run = (name: string, args: string[], env?: Record<string, string>) => {
    cases[name] = () => cli(args, env);
  };

  const badJson = file('bad.json', '{"lr": 1e-4,');
  const unknownKey = file('unknown.json', '{"lrr": 1}');
  const badValue = file('bad-value.json', '{"rollouts": 0}');
  const checkpoint = fs.readFileSync(COLD_START, 'utf8');
  const truncated = file('truncated.json', checkpoint.slice(0, 1000));
  const noWeights = file('no-weights.json', JSON.stringify({ ...JSON.parse(checkpoint), weights: {} }));
  // an interrupted cold start whose checkpoint is truncated: its metrics must survive the failed resume
  const resumeDir = path.join(d, 'resume');
  fs.mkdirSync(resumeDir);
  fs.writeFileSync(path.join(resumeDir, 'checkpoint.json'), checkpoint.slice(0, 1000));
  fs.writeFileSync(path.join(resumeDir, 'config.json'), '{}');
  fs.writeFileSync(path.join(resumeDir, 'metrics.jsonl'), '{"step":0,"loss":1}\n');
  const bug = file(
    'bug.mts',
    `import { runMain } from ${JSON.stringify(path.resolve('src/io/args.ts'))};\n` +
      'runMain(async () => { throw new TypeError("boom"); });\n',
  );

  const t2run = ['src/cli/table2-run.ts', '--method', 'rlvr'];
  run('missing config', [...t2run, '--config', path.join(d, 'nonexistent.json'), '--out', out('missing-config')]);
  run('invalid JSON config', [...t2run, '--config', badJson, '--out', out('bad-json')]);
  run('unknown config key', [...t2run, '--config', unknownKey, '--out', out('unknown-key')]);
  run('bad config value', [...t2run, '--config', badValue, '--out', out('bad-value')]);
  run('unknown method', ['src/cli/table2-run.ts', '--method', 'nope', '--out', out('unknown-method')]);
  run('bad steps', [...t2run, '--steps', 'x', '--out', out('bad-steps')]);
  run('unknown size', [...t2run, '--size', 'X', '--out', out('unknown-size')]);
  run('unknown argument', [...t2run, '--stepz', '3', '--out', out('unknown-arg')]);
  run('bad seeds', ['src/cli/table2.ts', '--seeds', 'a']);
  run('unknown sizes', ['src/cli/table2.ts', '--sizes', 'X']);
  const missingCk = path.join(d, 'nonexistent-ck.json');
  run('missing checkpoint', ['src/cli/rlvr.ts', '--checkpoint', missingCk, '--out', out('missing-ck')]);
  run('truncated checkpoint', ['src/cli/rlvr.ts', '--checkpoint', truncated, '--out', out('truncated-ck')]);
  // found wrong only after the run directory is opened (the backend is up): wasm prints nothing on stderr
  run(
    'checkpoint that does not fit',
    ['src/cli/rlvr.ts', '--checkpoint', noWeights, '--out', out('nested/no-weights')],
    { TFJS_BACKEND: 'wasm' },
  );
  run('truncated checkpoint on resume', [
    'src/cli/coldstart.ts',
    '--resume',
    'yes',
    '--out',
    resumeDir,
    '--checkpoint',
    path.join(d, 'final.json'),
  ]);
  run('a bug', [bug]);

  before(async () => {
    const names = Object.keys(cases);
    const done = await Promise.all(names.map((n) => cases[n]()));
    names.forEach((n, i) => {
      results[n] = done[i];
    });
  });

  const noRunFolder = (name: string) => assert.ok(!fs.existsSync(out(name)), `${out(name)} left behind`);

  it('a config file: missing, invalid JSON, an unknown key, a bad value', () => {
    assertUserError(results['missing config'], /config file .*nonexistent\.json does not exist/);
    assertUserError(results['invalid JSON config'], /config file .*bad\.json is not valid JSON/);
    assertUserError(results['unknown config key'], /unknown config key "lrr"/);
    assertUserError(results['bad config value'], /rollouts must be an integer >= 1 \(got 0\)/);
    for (const n of ['missing-config', 'bad-json', 'unknown-key', 'bad-value']) noRunFolder(n);
  });

  it('an argument: unknown method, --steps x, --size X, an unknown argument', () => {
    assertUserError(results['unknown method'], /unknown method "nope" \(known: sft, rlvr/);
    assertUserError(results['bad steps'], /^error: --steps must be an integer >= 0 \(got "x"\)$/);
    assertUserError(results['unknown size'], /^error: --size must be one of S, M \(got "X"\)$/);
    assertUserError(results['unknown argument'], /unknown argument "--stepz"/);
    for (const n of ['unknown-method', 'bad-steps', 'unknown-size', 'unknown-arg']) noRunFolder(n);
  });

  it('table2: --seeds a names the argument and quotes it; --sizes X names the sizes that exist', () => {
    assertUserError(results['bad seeds'], /^error: --seeds must be comma-separated integers \(got "a"\)$/);
    const line = assertUserError(results['unknown sizes'], /--sizes .*S, M \(got "X"\)/);
    assert.doesNotMatch(line, /coldstart/, 'no advice to train a cold start for a size that does not exist');
  });

  it('a checkpoint: missing or truncated, checked before the run folder is made', () => {
    assertUserError(results['missing checkpoint'], /checkpoint .*nonexistent-ck\.json does not exist/);
    assertUserError(results['truncated checkpoint'], /checkpoint .*truncated\.json is not valid JSON \(truncated\?\)/);
    noRunFolder('missing-ck');
    noRunFolder('truncated-ck');
  });

  it('a checkpoint found wrong after the run folder was made: the folder (and the parents it made) are removed', () => {
    assertUserError(results['checkpoint that does not fit'], /no-weights\.json does not fit the model: missing \[/);
    noRunFolder('nested');
  });

  it('a failed resume keeps the interrupted run as it was', () => {
    const r = results['truncated checkpoint on resume'];
    assertUserError(r, /checkpoint .*resume\/checkpoint\.json is not valid JSON/);
    assert.deepEqual(fs.readdirSync(resumeDir).sort(), ['checkpoint.json', 'config.json', 'metrics.jsonl']);
    assert.equal(fs.readFileSync(path.join(resumeDir, 'metrics.jsonl'), 'utf8'), '{"step":0,"loss":1}\n');
    assert.ok(!fs.existsSync(path.join(d, 'final.json')));
  });

  it('a bug keeps its stack trace and exits 1', () => {
    const r = results['a bug'];
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: TypeError: boom\n\s+at /);
  });

  it('the job pool quotes the error line of a failed job, not a stack frame', async () => {
    const dir = path.join(d, 'pool', 'r'),
      lines: string[] = [];
    const job = { label: 'bad', dir, args: [...t2run, '--config', badJson, '--out', dir] };
    assert.equal(await runJobs('test', [job], 1, (l) => lines.push(l)), 1);
    const failed = lines.find((l) => l.includes('FAILED'));
    assert.match(failed ?? '', /FAILED \(exit 2\): bad .*error: config file .*bad\.json is not valid JSON/);
    // the pool's folder keeps the log only: the run's config.json went with the failed run
    assert.deepEqual(fs.readdirSync(dir), ['log.txt']);
  });
});

describe('CLI argument parsing', () => {
  it('integers and integer lists quote what was given', () => {
    assert.equal(intArg('steps', '12', 0), 12);
    assert.throws(() => intArg('steps', '1.5', 0), /--steps must be an integer >= 0 \(got "1.5"\)/);
    assert.throws(() => intArg('jobs', '0', 1), /--jobs must be an integer >= 1 \(got "0"\)/);
    assert.throws(() => intArg('steps', '', 0), ConfigError);
    assert.deepEqual(intListArg('seeds', '0, 1,2', 0), [0, 1, 2]);
    assert.throws(() => intListArg('seeds', '0,,1', 0), /--seeds must be comma-separated integers \(got "0,,1"\)/);
    assert.throws(() => intListArg('seeds', '0,-1', 0), /--seeds must be comma-separated integers >= 0 \(got "0,-1"\)/);
    assert.deepEqual(choiceListArg('sizes', 'S,M', ['S', 'M']), ['S', 'M']);
    assert.throws(() => choiceListArg('sizes', 'S,L', ['S', 'M']), /--sizes .*S, M \(got "S,L"\)/);
  });
  it('the failure line of a job log: the error line, else the exception message, else the last line', () => {
    const bugLog = 'step 1\nerror: TypeError: boom\n    at f (x.ts:1:1)\n    at g (x.ts:2:2)\n';
    assert.equal(failureLine(bugLog), 'error: TypeError: boom');
    assert.equal(
      failureLine('x.ts:3\n  throw e;\n  ^\n\nRangeError: too far\n    at f (x.ts:1:1)\n\nNode.js v20\n'),
      'RangeError: too far',
    );
    assert.equal(failureLine('killed\n\n'), 'killed');
  });
});
