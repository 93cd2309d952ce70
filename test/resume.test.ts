// Faults (docs/settings.md, WORKBENCH_KILL_BEFORE_RENAME): a Table 2 RL run killed with SIGKILL at a step, or while it
// writes its checkpoint, resumes from its last checkpoint when started again and ends with the same numbers, bit for
// bit on one backend, as an uninterrupted run; a damaged checkpoint is named in one line and never loaded. Smoke-sized
// runs (2 steps), the two-role PPO path (RLCER), EvoLM's (snapshots, two Adams, two phases) and the random-reward
// control's.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const TSX = './node_modules/.bin/tsx';

function start(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(TSX, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr }))) };
}

const runArgs = (method: string, out: string) => [
  'src/cli/table2-run.ts',
  '--method',
  method,
  '--size',
  'S',
  '--seed',
  '0',
  '--profile',
  'smoke',
  '--steps',
  '2',
  '--checkpoint-every',
  '1',
  '--out',
  out,
];

/** Kill the run's whole process group once `ready(dir)` holds (polled), then wait for it to be gone. */
async function killWhen(args: string[], ready: () => boolean): Promise<void> {
  const r = start(args);
  const t0 = Date.now();
  while (!ready()) {
    if (Date.now() - t0 > 300_000) throw new Error('the run never reached the kill point');
    await new Promise((res) => setTimeout(res, 20));
  }
  try {
    process.kill(-r.child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await r.done;
}

const metricsLines = (dir: string) =>
  fs.existsSync(path.join(dir, 'metrics.jsonl'))
    ? fs.readFileSync(path.join(dir, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean)
    : [];

/** The run's numbers: its tables byte for byte, its metrics without wall-clock fields, its rubric log. */
function numbers(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ['final.csv', 'eval.csv', 'curve.csv', 'hints.csv', 'rubrics.jsonl']) {
    if (fs.existsSync(path.join(dir, f))) out[f] = fs.readFileSync(path.join(dir, f), 'utf8');
  }
  out.metrics = metricsLines(dir)
    .map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l)).filter(([k]) => !k.endsWith('_ms')))))
    .join('\n');
  return out;
}

// random_reward: its reward draws from an rng, which must resume where it stopped too
for (const method of ['rlcer', 'evolm', 'random_reward']) {
  describe(`a killed ${method} run resumes to the same numbers`, function () {
    this.timeout(900_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `wb-resume-${method}-`));
    const clean = path.join(root, 'clean'),
      killed = path.join(root, 'killed');
    before(async () => {
      const r = await start(runArgs(method, clean)).done;
      assert.equal(r.code, 0, r.stderr);
    });
    it('killed after its first step, and again while writing a later checkpoint, it ends bit for bit as the clean run', async () => {
      // a SIGKILL at some point after the first checkpoint is written (mid-step, mid-evaluation: wherever it lands)
      await killWhen(runArgs(method, killed), () => fs.existsSync(path.join(killed, 'checkpoint.json')));
      // a SIGKILL while the next checkpoint is being written: its temporary file is written, the rename has not happened
      const r1 = await start(runArgs(method, killed), { WORKBENCH_KILL_BEFORE_RENAME: 'checkpoint.json:1' }).done;
      assert.ok(r1.code === null || r1.code === 137, `killed by its own SIGKILL (exit ${r1.code}: ${r1.stderr})`);
      assert.ok(
        fs.readdirSync(killed).some((f) => f.startsWith('checkpoint.json.') && f.endsWith('.tmp')),
        'a torn write is left',
      );
      const r = await start(runArgs(method, killed)).done;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(fs.existsSync(path.join(killed, 'done.json')));
      const config = JSON.parse(fs.readFileSync(path.join(killed, 'config.json'), 'utf8'));
      assert.ok(config.resumedFrom >= 1, `the last start resumed (resumedFrom ${config.resumedFrom})`);
      const a = numbers(clean),
        b = numbers(killed);
      assert.deepEqual(Object.keys(b), Object.keys(a));
      for (const k of Object.keys(a)) assert.equal(b[k], a[k], `${k} differs after the resume`);
    });
    it('a checkpoint damaged on disk is named in one line and not loaded', async () => {
      const ck = path.join(killed, 'checkpoint.json'),
        text = fs.readFileSync(ck, 'utf8');
      const i = text.indexOf('"data":"') + 8;
      fs.writeFileSync(ck, text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1));
      fs.rmSync(path.join(killed, 'done.json'));
      const r = await start(runArgs(method, killed)).done;
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.split('\n').filter((l) => l.trim());
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /^error: checkpoint .*checkpoint\.json does not match its checksum/);
    });
  });
}
