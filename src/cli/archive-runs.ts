// Copy the record (config, metrics, tables; not the weights or the raw log) of every finished run under <from> to the
// same relative place under <to>, replacing <to>: `make quick-reference` commits the quick profile's records this way.
// With --merge, only the runs found under <from> are replaced and every other record under <to> is kept (adding the
// runs of a later session to a committed archive). A record from a dirty tree is refused under results/ unless
// --allow-dirty.
//   tsx src/cli/archive-runs.ts <from> <to> [--merge] [--allow-dirty]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgsWithPositionals, runMain } from '../io/args.js';
import { archiveRun } from '../io/jobs.js';
import { findFinishedRuns } from '../io/run.js';
import { ALLOW_DIRTY_HELP, allowDirtyIf } from '../io/args.js';
import { ConfigError } from '../util/validate.js';

runMain(async () => {
  const { args, positionals } = parseArgsWithPositionals(
    process.argv.slice(2),
    {
      merge: { help: 'replace only the runs found under <from>; keep every other record under <to>', boolean: true },
      'allow-dirty': ALLOW_DIRTY_HELP,
    },
    ['<from>', '<to>'],
  );
  allowDirtyIf(args['allow-dirty']);
  const merge = args.merge,
    [from, to] = positionals;
  if (!from || !to) throw new ConfigError('usage: tsx src/cli/archive-runs.ts <from> <to> [--merge]');
  const runs = findFinishedRuns(from);
  if (runs.length === 0) throw new ConfigError(`no finished runs under ${from}`);
  if (!merge) fs.rmSync(to, { recursive: true, force: true });
  for (const dir of runs) archiveRun(dir, path.join(to, path.relative(from, dir)));
  console.log(`${runs.length} run records -> ${to}`);
});
