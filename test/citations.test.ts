// Comments in src/ cite what a reader can open: documents of the repository (docs/*.md, results/**/*.md), not notes
// outside it (DESIGN.md, papers.md, TOOLCHAIN.md, ../shared/) nor tracker numbers ("issue 17").
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const sources = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );

describe('citations in src/', () => {
  const files = sources('src').sort();

  it('name no document outside the repository and no tracker number', () => {
    const outside = /\b(?:DESIGN|papers|TOOLCHAIN)\.md\b|\.\.\/shared\/|\bissues? #?\d+/i;
    const bad = files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => (outside.test(line) ? `${f}:${i + 1}: ${line.trim()}` : ''))
        .filter(Boolean),
    );
    assert.deepEqual(bad, []);
  });

  it('every docs/ or results/ document they name exists', () => {
    const missing = files.flatMap((f) =>
      [...fs.readFileSync(f, 'utf8').matchAll(/\b((?:docs|results)\/[\w./-]*?\.md)\b/g)]
        .map((m) => m[1])
        .filter((doc) => !fs.existsSync(doc))
        .map((doc) => `${f}: ${doc}`),
    );
    assert.ok(files.length > 50);
    assert.deepEqual(missing, []);
  });
});
