// `make data`: write the fixed evaluation sets and their checksums under data/eval/.
import * as path from 'node:path';
import { writeFileAtomic } from '../io/table.js';
import { EVAL_DIR, evalFile, generateEvalSet, serialise, sha256 } from '../world/datasets.js';
import { EVAL_CELLS } from '../world/families.js';
import { parseArgs, runMain } from '../io/args.js';

runMain(async () => {
  parseArgs(process.argv.slice(2), {});
  const sums: string[] = [];
  for (const { family, digits } of EVAL_CELLS) {
    const text = serialise(generateEvalSet(family, digits));
    writeFileAtomic(evalFile(family, digits), text);
    sums.push(`${sha256(text)}  ${path.basename(evalFile(family, digits))}`);
  }
  writeFileAtomic(path.join(EVAL_DIR, 'SHA256SUMS'), sums.join('\n') + '\n');
  console.log(`${sums.length} evaluation sets -> ${EVAL_DIR}`);
});
