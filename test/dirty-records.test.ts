// Committed records come from a clean commit: a record naming a dirty code version is not archived under results/
// unless --allow-dirty (src/io/run.ts, dirtyRecordProblem; src/io/jobs.ts, archiveRun), and a campaign whose records
// go under results/ does not start from a dirty tree (refuseDirtyTree; sweep.ts submit/run, table2.ts).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { archiveRun } from '../src/io/jobs.js';
import { codeVersion, dirtyRecordProblem, refuseDirtyTree } from '../src/io/run.js';
import { ConfigError } from '../src/util/validate.js';

const CLEAN = 'a'.repeat(40);

/** A finished run directory whose config.json names `version`. */
function record(version: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-'));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ seed: 0, codeVersion: version }));
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), '{"step":1}\n');
  fs.writeFileSync(path.join(dir, 'done.json'), '{}');
  return dir;
}

describe('records from a dirty tree', () => {
  it('are refused under results/ and nowhere else; --allow-dirty lets them through', () => {
    const dirty = record(`${CLEAN}-dirty`);
    const msg = dirtyRecordProblem(dirty, 'results/runs/x/seed-0', false);
    assert.match(msg ?? '', /names code version "a{40}-dirty", not a clean commit.*--allow-dirty/);
    assert.equal(dirtyRecordProblem(dirty, 'results', false) === null, false);
    assert.equal(dirtyRecordProblem(record('unknown (not a git checkout)'), 'results/a', false) === null, false);
    assert.equal(dirtyRecordProblem(dirty, 'results/runs/x', true), null);
    assert.equal(dirtyRecordProblem(dirty, path.join(os.tmpdir(), 'results', 'x'), false), null);
    assert.equal(dirtyRecordProblem(dirty, 'results-elsewhere/x', false), null);
    assert.equal(dirtyRecordProblem(record(CLEAN), 'results/runs/x', false), null);
  });
  it('archiveRun refuses one under results/ before writing anything', () => {
    const target = `results/runs/__dirty_test_${process.pid}`;
    const before = process.env.WORKBENCH_ALLOW_DIRTY;
    delete process.env.WORKBENCH_ALLOW_DIRTY;
    try {
      assert.throws(() => archiveRun(record(`${CLEAN}-dirty`), target), ConfigError);
      assert.equal(fs.existsSync(target), false);
    } finally {
      if (before !== undefined) process.env.WORKBENCH_ALLOW_DIRTY = before;
    }
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-'));
    archiveRun(record(`${CLEAN}-dirty`), path.join(out, 'r')); // outside results/: archived
    assert.ok(fs.existsSync(path.join(out, 'r', 'done.json')));
  });
  it('a campaign archiving under results/ does not start from a tree with uncommitted or untracked code', () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-')),
      home = process.cwd();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    fs.mkdirSync(path.join(repo, 'src'));
    fs.writeFileSync(path.join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c');
    process.chdir(repo);
    try {
      assert.match(codeVersion(), /^[0-9a-f]{40}$/);
      refuseDirtyTree('results/runs/c', false);
      fs.writeFileSync(path.join(repo, 'src', 'b.ts'), 'export const b = 2;\n'); // untracked code
      assert.match(codeVersion(), /-dirty$/);
      assert.throws(() => refuseDirtyTree('results/runs/c', false), /need a clean tree.*--allow-dirty/);
      refuseDirtyTree('runs/sweeps/c', false); // not committed: allowed
      refuseDirtyTree(undefined, false);
      refuseDirtyTree('results/runs/c', true);
      fs.rmSync(path.join(repo, 'src', 'b.ts'));
      fs.writeFileSync(path.join(repo, 'src', 'a.ts'), 'export const a = 3;\n'); // a tracked change
      assert.throws(() => refuseDirtyTree('results/runs/c', false), ConfigError);
    } finally {
      process.chdir(home);
    }
  });
});
