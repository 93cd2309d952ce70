// Every environment variable the code reads is in the registry of analysis/settings.ts, with every file that reads it,
// and docs/settings.md is the table the registry writes now (`./node_modules/.bin/tsx analysis/settings.ts`).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { envReads, readsOf, registryGaps, renderSettings, SETTINGS, SETTINGS_DOC, wrap } from '../analysis/settings.js';

describe('settings (environment variables)', () => {
  it('the scan finds reads in TypeScript, Python and shell, and no assignment or shell variable of its own', () => {
    const pe = ['process', 'env'].join('.'); // kept out of this file's text: the scan skips it anyway
    assert.deepEqual(
      readsOf(
        'src/x.ts',
        [
          `const a = ${pe}.ALPHA ?? '1';`,
          `const b = ${pe}['BETA'];`,
          'export const f = (env: NodeJS.ProcessEnv) => env.GAMMA === "1" && env.lower;',
          `const { DELTA, EPSILON: e } = ${pe};`,
          'const o = { ZETA: 1 }; o.ZETA;',
        ].join('\n'),
      ),
      ['ALPHA', 'BETA', 'DELTA', 'EPSILON', 'GAMMA'],
    );
    assert.deepEqual(
      readsOf(
        'python/x.py',
        [
          'a = os.environ.get("ALPHA", "x")',
          "b = os.environ['BETA']",
          'c = os.getenv("GAMMA")',
          'os.environ.setdefault("DELTA", "1")',
          '# $EPSILON in a comment of Python is no read',
        ].join('\n'),
      ),
      ['ALPHA', 'BETA', 'GAMMA'],
    );
    assert.deepEqual(
      readsOf(
        'bin/x',
        [
          '#!/usr/bin/env bash',
          'cache=${ALPHA:-$HOME/.cache}',
          'B=$(mktemp -d); echo "$B"',
          'export CONF=$B/c; echo $CONF',
          'TSX=./tsx CFG=x.json; $TSX $CFG',
          'for P in a b; do echo $P; done',
          'echo "$PWD $RANDOM ${#arr[@]} ${lower:-x}"',
          '[ "${BETA:-}" = 1 ]',
          "dpkg-query -W -f='${Status}'",
        ].join('\n'),
      ),
      ['ALPHA', 'BETA', 'HOME'],
    );
    assert.deepEqual(readsOf('bin/notes.txt', 'echo $ALPHA'), [], 'a file of no known kind is not read');
  });

  it('the registry holds every variable the code reads, naming every file that reads it', () => {
    const reads = envReads('.');
    for (const name of [
      'WORKBENCH_KERNELS',
      'WORKBENCH_KILL_BEFORE_RENAME',
      'TFJS_BACKEND',
      'REWARD_URL',
      'WORKBENCH_CACHE',
    ]) {
      assert.ok(reads.has(name), `the scan misses ${name}`);
    }
    const gaps = registryGaps(reads);
    assert.deepEqual(gaps, [], `add these to analysis/settings.ts, then run it:\n  ${gaps.join('\n  ')}`);
  });

  it('fails on an unregistered variable and on an unnamed reader (tests name readers only where nothing else reads)', () => {
    const reads = new Map([
      ['WORKBENCH_KERNELS', ['src/models/engine-settings.ts', 'test/kernels.test.ts']],
      ['NOT_A_SETTING', ['src/x.ts']],
      ['JOBS_PLAIN', ['src/io/progress.ts', 'src/io/other.ts']],
    ]);
    assert.deepEqual(registryGaps(reads), [
      'NOT_A_SETTING (read by src/x.ts) is not in the registry (analysis/settings.ts)',
      'JOBS_PLAIN is read by src/io/other.ts, which its registry entry does not name',
    ]);
  });

  it('each variable is registered once, with a default and what it does', () => {
    const all = SETTINGS.flatMap((g) => g.settings);
    assert.equal(new Set(all.map((s) => s.name)).size, all.length);
    for (const s of all) {
      assert.ok(s.default && s.does && s.readers.length, `${s.name}: default, what it does and readers`);
      for (const r of s.readers) assert.ok(fs.existsSync(r), `${s.name}: reader ${r} does not exist`);
    }
    assert.deepEqual(wrap('aa bb cc', 5), ['aa bb', 'cc']);
  });

  it('docs/settings.md is what the registry writes (tsx analysis/settings.ts rewrites it)', () => {
    assert.equal(fs.readFileSync(SETTINGS_DOC, 'utf8'), renderSettings(), `${SETTINGS_DOC} is stale`);
  });
});
