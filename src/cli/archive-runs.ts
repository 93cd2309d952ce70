// Copy the record (config, metrics, tables; not the weights or the raw log) of every finished run under <from> to the
// same relative place under <to>, replacing <to>: `make quick-reference` commits the quick profile's records this way.
//   tsx src/cli/archive-runs.ts <from> <to>
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runMain } from './args.js';
import { archiveRun } from '../io/jobs.js';
import { findFinishedRuns } from '../io/run.js';
import { ConfigError } from '../io/validate.js';

runMain(async () => {
  const [from, to] = process.argv.slice(2);
  if (!from || !to) throw new ConfigError('usage: tsx src/cli/archive-runs.ts <from> <to>');
  const runs = findFinishedRuns(from);
  if (runs.length === 0) throw new ConfigError(`no finished runs under ${from}`);
  fs.rmSync(to, { recursive: true, force: true });
  for (const dir of runs) archiveRun(dir, path.join(to, path.relative(from, dir)));
  console.log(`${runs.length} run records -> ${to}`);
});
