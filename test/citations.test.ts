// Comments, test titles and messages in src/, analysis/ and test/ cite what a reader can open: documents of the
// repository (docs/*.md, results/**/*.md), not notes kept outside it (the DESIGN, papers and TOOLCHAIN notes, the
// shared folder beside the checkout) nor tracker numbers ("issue" or "#" followed by a number). This file is
// scanned too, so its examples are built from pieces at run time.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOTS = ['src', 'analysis', 'test'];

const sources = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? sources(path.join(dir, e.name))
        : /\.(?:ts|js|cjs|mjs|py)$/.test(e.name)
          ? [path.join(dir, e.name)]
          : [],
    );

/**
 * A note outside the repository, or a tracker number: "issue" or "issues" and a number, or "#" and a number after a
 * space, bracket or line start (not a colour such as color:#333 or '#1f77b4').
 */
const OUTSIDE = /\b(?:DESIGN|papers|TOOLCHAIN)\.md\b|\.\.\/shared\/|\bissues? #?\d+|(?:^|[\s([,;])#\d+\b/i;

/** Each line of `text` that cites something outside the repository, as `file:line: text`. */
function outsideCitations(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => (OUTSIDE.test(line) ? `${file}:${i + 1}: ${line.trim()}` : ''))
    .filter(Boolean);
}

/**
 * Each docs/ or results/ document `text` names that does not exist, as `file:line: doc`. Under test/, a path that
 * is a whole string literal is a fixture the test writes (e.g. into a temporary directory), not a citation.
 */
function missingDocuments(file: string, text: string, exists: (doc: string) => boolean = fs.existsSync): string[] {
  const fixtures = file.split(path.sep)[0] === 'test';
  return text.split('\n').flatMap((line, i) =>
    [...line.matchAll(/(['"`]?)\b((?:docs|results)\/[\w./-]*?\.md)\b(['"`]?)/g)]
      .filter((m) => !(fixtures && m[1] !== '' && m[1] === m[3]))
      .map((m) => m[2])
      .filter((doc) => !exists(doc))
      .map((doc) => `${file}:${i + 1}: ${doc}`),
  );
}

describe('citations in src/, analysis/ and test/', () => {
  const files = ROOTS.flatMap((r) => sources(r)).sort();

  it('scan every source root, this file included', () => {
    for (const r of ROOTS) assert.ok(files.filter((f) => f.startsWith(`${r}${path.sep}`)).length > 20, r);
    assert.ok(files.includes(path.join('test', 'citations.test.ts')));
  });

  it('name no document outside the repository and no tracker number', () => {
    const bad = files.flatMap((f) => outsideCitations(f, fs.readFileSync(f, 'utf8')));
    assert.deepEqual(bad, []);
  });

  it('every docs/ or results/ document they name exists', () => {
    const missing = files.flatMap((f) => missingDocuments(f, fs.readFileSync(f, 'utf8')));
    assert.deepEqual(missing, []);
  });

  it('the checks name the file and line of each hit, and pass what they should', () => {
    const note = (name: string) => `${name}.md`,
      issue = (n: number) => `${'issue'} ${n}`,
      hash = (n: number) => `${'#'}${n}`;
    const text = [
      "// fine: docs/rlcer.md, colours color:#333 and '#1f77b4'",
      `// see ${note('DESIGN')}`,
      `// (${note('papers')} section 2)`,
      `// ${note('TOOLCHAIN')}`,
      `// ${'../'}${'shared'}/notes`,
      `// fixed in ${issue(17)}`,
      `// ${issue(19).replace('issue', 'issues')} and 20`,
      `// (${hash(42)})`,
      `// see ${hash(7)}`,
    ].join('\n');
    assert.deepEqual(
      outsideCitations('x.ts', text).map((h) => h.split(': ')[0]),
      ['x.ts:2', 'x.ts:3', 'x.ts:4', 'x.ts:5', 'x.ts:6', 'x.ts:7', 'x.ts:8', 'x.ts:9'],
    );
    const [real, gone, fixture] = [
      ['docs', 'real'],
      ['results', 'gone'],
      ['docs', 'fixture'],
    ].map(([dir, name]) => `${dir}/${name}.md`);
    const docs = `// ${real} and ${gone}\nwrite('${fixture}')`;
    const exists = (d: string) => d === real;
    const src = path.join('src', 'a.ts'),
      test = path.join('test', 'a.test.ts');
    assert.deepEqual(missingDocuments(src, docs, exists), [`${src}:1: ${gone}`, `${src}:2: ${fixture}`]);
    assert.deepEqual(missingDocuments(test, docs, exists), [`${test}:1: ${gone}`]);
  });
});
