// `make mutation`, last step: StrykerJS's JSON report -> results/mutation/score.json and the check that every
// surviving mutant is listed, with its reason, in results/mutation/equivalent.md.
//   score.json: {"files": [...], "killed": N, "survived": N, "score": X}
//   killed   = Killed + Timeout (a test failed, or the mutant hung the tests)
//   survived = Survived + NoCoverage (no test failed, or no test ran the mutated code)
//   a static mutant the main pass did not kill takes its status from the static pass (static.json), if present
//   score    = killed / (killed + survived), rounded to 4 decimals; mutants the TypeScript checker rejects
//              (CompileError) or that crash the runner (RuntimeError) count in neither, as in Stryker's own score.
// A survivor is listed in equivalent.md by a line holding its key `path:line:column` (Stryker's 1-based location).
// Usage: node stryker/score.mjs [results/mutation]; exits 1 when a survivor is unlisted.
import * as fs from 'node:fs';
import * as path from 'node:path';

const dir = process.argv[2] ?? 'results/mutation';
const report = JSON.parse(fs.readFileSync(path.join(dir, 'mutation.json'), 'utf8'));
const files = Object.keys(report.files).sort();
// the static pass (stryker/static-pass.mjs) decides the static mutants the main pass could not activate
const key = (file, m) => `${file}:${m.location.start.line}:${m.location.start.column}|${m.mutatorName}|${m.replacement}`;
const staticFile = path.join(dir, 'static.json');
const staticStatus = new Map();
if (fs.existsSync(staticFile)) {
  const s = JSON.parse(fs.readFileSync(staticFile, 'utf8'));
  for (const [file, f] of Object.entries(s.files)) for (const m of f.mutants) staticStatus.set(key(file, m), m.status);
}
let killed = 0, survived = 0, fromStatic = 0;
const survivors = [];
for (const file of files) {
  for (const m0 of report.files[file].mutants) {
    const again = m0.static && m0.status !== 'Killed' ? staticStatus.get(key(file, m0)) : undefined;
    if (again) fromStatic++;
    const m = again ? { ...m0, status: again } : m0;
    if (m.status === 'Killed' || m.status === 'Timeout') killed++;
    else if (m.status === 'Survived' || m.status === 'NoCoverage') {
      survived++;
      const at = `${file}:${m.location.start.line}:${m.location.start.column}`;
      survivors.push({ at, status: m.status, mutator: m.mutatorName, replacement: m.replacement ?? '' });
    }
  }
}
const score = killed + survived === 0 ? 0 : Math.round((killed / (killed + survived)) * 1e4) / 1e4;
fs.writeFileSync(path.join(dir, 'score.json'), `${JSON.stringify({ files, killed, survived, score })}\n`);
console.log(`mutation score ${score} (killed ${killed}, survived ${survived}) over ${files.length} files`
  + ` -> ${dir}/score.json (${fromStatic} static mutants decided by the static pass)`);

const eqFile = path.join(dir, 'equivalent.md');
const listed = fs.existsSync(eqFile) ? fs.readFileSync(eqFile, 'utf8') : '';
const unlisted = survivors.filter((s) => !listed.includes(`\`${s.at}\``));
for (const s of unlisted) {
  console.log(`unlisted survivor: \`${s.at}\` ${s.status} ${s.mutator}: ${JSON.stringify(s.replacement)}`);
}
if (unlisted.length) {
  console.log(`${unlisted.length} surviving mutant(s) not in ${eqFile}:`
    + ' kill each with a test or list it with its reason');
  process.exit(1);
}
