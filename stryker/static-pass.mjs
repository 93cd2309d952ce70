// `make mutation`, second pass: the static mutants. A mutant of module-level code (a constant table, a function
// defined at load) takes effect only when the module is loaded with the mutant active, so the main pass, which
// keeps one test process and switches mutants at run time (`ignoreStatic`), cannot kill it: Stryker reports it
// Ignored, or Survived when a test also reaches that code. This pass takes every static mutant of the main
// report that was not killed, writes a Stryker config mutating exactly their locations, with `ignoreStatic` off
// (each static mutant gets a fresh test process running every test of STATIC_SPECS), and runs it. Its report,
// results/mutation/static.json, is read by stryker/score.mjs: a mutant it kills counts as killed.
// Usage: node stryker/static-pass.mjs [results/mutation]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

/** The test files of the static pass: the hand-computed tests of the files whose tables are mutated. */
const STATIC_SPECS = ['test/rubicon.test.ts', 'test/aggregators.test.ts', 'test/aggregate.test.ts', 'test/rl.test.ts',
  'test/label-free.test.ts', 'test/evolm.test.ts', 'test/peer.test.ts'];

const dir = process.argv[2] ?? 'results/mutation';
const report = JSON.parse(fs.readFileSync(path.join(dir, 'mutation.json'), 'utf8'));
const ranges = [];
for (const [file, f] of Object.entries(report.files)) {
  for (const m of f.mutants) {
    if (!m.static || m.status === 'Killed' || m.status === 'Timeout') continue;
    // Stryker's report columns are 1-based, a mutate range's 0-based
    const { start, end } = m.location;
    ranges.push(`${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`);
  }
}
const base = JSON.parse(fs.readFileSync('stryker/stryker.config.json', 'utf8'));
const config = { ...base, ignoreStatic: false, mutate: [...new Set(ranges)].sort(),
  mochaOptions: { ...base.mochaOptions, spec: STATIC_SPECS },
  reporters: ['clear-text', 'progress', 'json'], jsonReporter: { fileName: path.join(dir, 'static.json') },
  incrementalFile: 'runs/mutation/static-incremental.json', tempDirName: '.stryker-tmp-static' };
delete config.htmlReporter;
fs.mkdirSync('runs/mutation', { recursive: true });
const file = 'runs/mutation/static.config.json';
fs.writeFileSync(file, `${JSON.stringify(config, null, 1)}\n`);
console.log(`static pass: ${ranges.length} static mutants not killed by the main pass -> ${file}`);
if (ranges.length === 0) {
  fs.writeFileSync(path.join(dir, 'static.json'), `${JSON.stringify({ files: {} })}\n`);
  process.exit(0);
}
const force = process.env.FORCE ? ['--force'] : [];
const r = spawnSync('nice', ['-n', '10', './node_modules/.bin/stryker', 'run', file, ...force], { stdio: 'inherit' });
process.exit(r.status ?? 1);
