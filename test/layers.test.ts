// The layering of src/ (README.md, Layout): cli -> methods -> rl -> models -> rubrics -> world/theory -> io/util. A file
// may import a file of its own layer or of any layer below; analysis/ and test/ may import anything. This walks the
// import graph of src/ (static imports, re-exports and literal dynamic imports, type-only ones too, as TypeScript's
// own pre-processor reads them) and fails naming every import that climbs a layer or leaves src/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** The layers from the top, as README.md states them: each entry one layer, its folders under src/. */
function statedLayers(readme: string): string[][] {
  const m = /layered ((?:[a-z/]+ -> )+[a-z/]+)/.exec(readme);
  if (!m) throw new Error('README.md no longer states the layering as "layered a -> b -> c/d -> ..."');
  return m[1].split(' -> ').map((layer) => layer.split('/'));
}

/** Every .ts file under `dir`, as a path relative to `root` with forward slashes, sorted. */
function tsFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
      const p = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The repository files `file` imports (relative specifiers only; packages are no layer), as root-relative paths. */
function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** The layer a src/ file stands in (0 = the top), or a reason it stands in none. */
function layerOf(file: string, layers: string[][]): number | string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return 'outside src/';
  if (parts.length < 3) return 'directly in src/, in no layer';
  const i = layers.findIndex((l) => l.includes(parts[1]));
  return i >= 0 ? i : `in src/${parts[1]}/, which the layering does not name`;
}

/** Every import of the graph that climbs a layer, leaves src/, or starts from a file in no layer: one line each. */
function layerViolations(graph: Map<string, string[]>, layers: string[][]): string[] {
  const name = (i: number) => layers[i].join('/');
  const out: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file, layers);
    if (typeof from === 'string') {
      out.push(`${file} is ${from}`);
      continue;
    }
    for (const target of imports) {
      const to = layerOf(target, layers);
      if (typeof to === 'string') out.push(`${file} (${name(from)}) imports ${target}, ${to}`);
      else if (to < from) out.push(`${file} (${name(from)}) imports ${target} (${name(to)}), a layer above it`);
    }
  }
  return out;
}

describe('layers', () => {
  const layers = statedLayers(fs.readFileSync('README.md', 'utf8'));

  it('README.md states a layering that names every folder of src/', () => {
    assert.deepEqual(layers, [
      ['cli'],
      ['methods'],
      ['rl'],
      ['models'],
      ['rubrics'],
      ['world', 'theory'],
      ['io', 'util'],
    ]);
    const folders = fs
      .readdirSync('src', { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      folders.filter((f) => !layers.flat().includes(f)),
      [],
      'src/ folders in no layer',
    );
  });

  it('no import in src/ climbs a layer or leaves src/ (analysis/ and test/ may import anything)', () => {
    const files = tsFiles('.', 'src');
    assert.ok(files.length > 50, `only ${files.length} files found under src/`);
    const graph = new Map(files.map((f) => [f, importsOf(f, fs.readFileSync(f, 'utf8'))] as [string, string[]]));
    for (const [f, imports] of graph) {
      for (const t of imports)
        assert.ok(fs.existsSync(t), `${f} imports ${t}, which does not exist (the walk resolves it wrong)`);
    }
    const bad = layerViolations(graph, layers);
    assert.deepEqual(bad, [], `imports against the layering (README.md, Layout):\n  ${bad.join('\n  ')}`);
  });

  it('src/util/ is the lowest room: it imports nothing from src/io/ (validation and ConfigError live in util/)', () => {
    const bad = tsFiles('.', 'src/util').flatMap((f) =>
      importsOf(f, fs.readFileSync(f, 'utf8'))
        .filter((t) => t.startsWith('src/io/'))
        .map((t) => `${f} imports ${t}`),
    );
    assert.deepEqual(bad, [], bad.join('\n  '));
    assert.ok(fs.existsSync('src/util/validate.ts') && !fs.existsSync('src/io/validate.ts'));
  });

  it('src/methods/ holds trainers/, tables/ and service/ only, and no trainer imports another method file', () => {
    const files = tsFiles('.', 'src/methods');
    const folders = [...new Set(files.map((f) => f.split('/')[2]))].sort();
    assert.deepEqual(folders, ['service', 'tables', 'trainers'], 'src/methods/ holds these folders and no loose file');
    const bad = files
      .filter((f) => f.startsWith('src/methods/trainers/'))
      .flatMap((f) =>
        importsOf(f, fs.readFileSync(f, 'utf8'))
          .filter((t) => t.startsWith('src/methods/'))
          .map((t) => `${f} imports ${t}`),
      );
    assert.deepEqual(bad, [], `trainers share code through src/rl/, not through each other:\n  ${bad.join('\n  ')}`);
  });

  it('src/ holds at most 5 double casts (`as unknown as`), each in a function or line that says why', () => {
    const casts = tsFiles('.', 'src').flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .map((l, i) => ({ f, i, l }))
        .filter((x) => x.l.includes('as unknown as')),
    );
    assert.ok(
      casts.length <= 5,
      `${casts.length} double casts:\n  ${casts.map((c) => `${c.f}:${c.i + 1}`).join('\n  ')}`,
    );
    for (const c of casts) {
      const before = fs
        .readFileSync(c.f, 'utf8')
        .split('\n')
        .slice(Math.max(0, c.i - 8), c.i)
        .join('\n');
      assert.match(before, /\/\/|\*\//, `${c.f}:${c.i + 1}: a double cast with no comment above it`);
    }
  });

  it('the walk finds what it must: an upward import, a same-layer one, a dynamic and a type-only import, an exit', () => {
    const text = [
      "import { a } from '../rl/advantages.js';",
      "import type { B } from '../world/problems.js';",
      "export { c } from './ode.js';",
      "const d = await import('../io/table.js');",
      "import { e } from '../../analysis/aggregate.js';",
      "import * as fs from 'node:fs';",
      "// import { f } from '../io/args.js' in a comment is no import",
    ].join('\n');
    const imports = importsOf('src/theory/x.ts', text);
    assert.deepEqual(imports.sort(), [
      'analysis/aggregate.ts',
      'src/io/table.ts',
      'src/rl/advantages.ts',
      'src/theory/ode.ts',
      'src/world/problems.ts',
    ]);
    assert.deepEqual(
      layerViolations(
        new Map([
          ['src/theory/x.ts', imports],
          ['src/tool.ts', []],
        ]),
        layers,
      ),
      [
        'src/theory/x.ts (world/theory) imports analysis/aggregate.ts, outside src/',
        'src/theory/x.ts (world/theory) imports src/rl/advantages.ts (rl), a layer above it',
        'src/tool.ts is directly in src/, in no layer',
      ],
    );
  });
});
