// The mutation-testing config (stryker/stryker.config.json, docs/testing-mutation.md) names code by line range
// (`file:a-b`), and a range silently drifts when the code above it moves (a formatter, a function added or moved):
// Stryker then mutates half a function, or a neighbour's code, and reports no error. This checks every range still
// covers whole top-level declarations: the file exists, a <= b <= its line count, line a starts a declaration (or is
// the `/**` of the JSDoc directly above one) and line b closes one; and that every other mutated file and every test
// file of the mocha spec exists. The last test shifts each range by 3 lines in memory and expects it to be caught.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import ts from 'typescript';

const CONFIG = 'stryker/stryker.config.json';

interface StrykerConfig {
  mutate: string[];
  mochaOptions: { spec: string[]; grep?: string };
}

const config = JSON.parse(fs.readFileSync(CONFIG, 'utf8')) as StrykerConfig;

// Stryker's own syntax (`file:line[:column]-line[:column]`, core's MUTATION_RANGE_REGEX), columns ignored here
const RANGE = /^(.*?):(\d+)(?::\d+)?-(\d+)(?::\d+)?$/;
const DECLARATION = /^(export )?(async )?(function|const|let|class|interface|type) /;
const GLOB = /[*?{}[\]!]/;

/** Lines where a top-level statement starts (its JSDoc's first line too) and where one ends, 1-based. */
function topLevelBounds(file: string, text: string): { starts: Set<number>; ends: Set<number> } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const starts = new Set<number>(),
    ends = new Set<number>();
  for (const s of sf.statements) {
    starts.add(line(s.getStart(sf)));
    const docs = (s as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
    for (const d of docs) starts.add(line(d.getStart(sf)));
    ends.add(line(s.getEnd()));
  }
  return { starts, ends };
}

/** Line i (0-based) opens a JSDoc comment whose `*\/` is directly followed by a declaration. */
function jsDocAboveDeclaration(lines: string[], i: number): boolean {
  if (!lines[i].trim().startsWith('/**')) return false;
  let j = i;
  while (j < lines.length && !lines[j].includes('*/')) j++;
  return j + 1 < lines.length && DECLARATION.test(lines[j + 1].trim());
}

/** What is wrong with one `mutate` entry ([] when nothing); each message names the entry. */
function mutateEntryProblems(entry: string): string[] {
  const m = RANGE.exec(entry);
  const file = m ? m[1] : entry;
  if (!m && GLOB.test(entry)) return [`${entry}: a glob, which this check does not expand`];
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return [`${entry}: ${file} does not exist`];
  if (!m) return [];
  const a = Number(m[2]),
    b = Number(m[3]);
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (!(a >= 1 && a <= b && b <= lines.length)) {
    return [`${entry}: needs 1 <= a <= b <= ${lines.length} (the file's line count)`];
  }
  const out: string[] = [];
  const first = lines[a - 1],
    last = lines[b - 1];
  if (!DECLARATION.test(first.trim()) && !jsDocAboveDeclaration(lines, a - 1)) {
    out.push(`${entry}: line ${a} does not start a declaration: ${JSON.stringify(first)}`);
  }
  if (!last.trim().startsWith('}') && !last.trim().endsWith(';')) {
    out.push(`${entry}: line ${b} is not a closing line: ${JSON.stringify(last)}`);
  }
  // the textual tests above also accept a `const` or `};` inside a function body: the parser decides top level
  const { starts, ends } = topLevelBounds(file, text);
  if (!starts.has(a)) out.push(`${entry}: line ${a} is not where a top-level declaration (or its JSDoc) starts`);
  if (!ends.has(b)) out.push(`${entry}: line ${b} is not where a top-level declaration ends`);
  return out;
}

/** The entry with its line range moved by `by` lines (for the negative case). */
function shifted(entry: string, by: number): string {
  const m = RANGE.exec(entry);
  if (!m) throw new Error(`not a range: ${entry}`);
  return `${m[1]}:${Number(m[2]) + by}-${Number(m[3]) + by}`;
}

describe('mutation config (stryker/stryker.config.json)', () => {
  const ranged = config.mutate.filter((e) => RANGE.test(e));

  it('every mutate entry names an existing file, and every line range covers whole declarations', () => {
    assert.ok(ranged.length > 0, 'the config has line ranges to check');
    const problems = config.mutate.flatMap(mutateEntryProblems);
    assert.deepEqual(problems, [], `${CONFIG}: stale mutate entries:\n  ${problems.join('\n  ')}`);
  });

  it('every test file of mochaOptions.spec exists, and each test the grep leaves out is still in one', () => {
    const missing = config.mochaOptions.spec.filter((f) => !fs.existsSync(f));
    assert.deepEqual(missing, [], `${CONFIG}: mochaOptions.spec names missing files: ${missing.join(', ')}`);
    const grep = config.mochaOptions.grep;
    if (grep === undefined) return;
    const m = /^\/\^\(\?!\.\*\((.*)\)\)\.\*\$\/$/.exec(grep);
    assert.ok(m, `${CONFIG}: mochaOptions.grep is not the form /^(?!.*(a|b|...)).*$/: ${grep}`);
    new RegExp(grep.slice(1, -1));
    const specs = config.mochaOptions.spec.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const stale = m[1].split('|').filter((title) => !specs.includes(title));
    assert.deepEqual(stale, [], `${CONFIG}: mochaOptions.grep leaves out titles no spec file has: ${stale.join(', ')}`);
  });

  it('a range moved by 3 lines is caught, and the message names the entry', () => {
    // each range that passes the first test (a stale one fails there, not here)
    for (const entry of ranged.filter((e) => mutateEntryProblems(e).length === 0)) {
      for (const by of [3, -3]) {
        const moved = shifted(entry, by);
        const problems = mutateEntryProblems(moved);
        assert.ok(problems.length > 0, `${moved} (${entry} moved by ${by}) passes the check`);
        assert.ok(
          problems.every((p) => p.startsWith(`${moved}: `)),
          problems.join('\n'),
        );
      }
    }
    assert.match(
      mutateEntryProblems('src/util/no-such-file.ts:1-2')[0],
      /^src\/util\/no-such-file\.ts:1-2: .* does not exist$/,
    );
    assert.match(mutateEntryProblems(shifted(ranged[0], 100000))[0], /line count/);
  });
});
