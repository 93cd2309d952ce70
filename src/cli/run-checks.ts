// Every run of a sweep or a profile built and checked before the first one starts: its method, its flags and its
// config (keys, value types, ranges), by the run's own CLI's planner, in this process (no run is started, nothing
// trains). A command whose script has no planner here is checked by its own process when it runs.
import { ConfigError } from '../util/validate.js';
import type { RunSpec } from '../io/sweep.js';
import { METHODS } from '../methods/tables/table2.js';

/** Checks one run from its command line after the script; throws a ConfigError naming the first bad thing. */
export type RunChecker = (args: string[]) => void;

/** The script of one Table 2 run, as the campaigns' and sweeps' jobs name it. */
export const TABLE2_RUN = 'src/cli/table2-run.ts';

/** The run CLIs whose runs are checked here, by script (loaded when needed: the planners load the models). */
const CHECKERS: Record<string, () => Promise<RunChecker>> = {
  [TABLE2_RUN]: async () => (await import('./table2-plan.js')).checkTable2RunArgs,
};

/** The method ids a run CLI takes (its {method}), or null where this file does not know them. */
export function methodsOf(script: string): string[] | null {
  return script === TABLE2_RUN ? Object.keys(METHODS) : null;
}

/** How many runs of a group an error names before "and N more". */
const NAMED = 6;

/**
 * Check every run (its args: the script, then its flags) with its CLI's planner; one ConfigError, one line, naming
 * every invalid run grouped by what is wrong: `<what>: 2 of 6 runs are invalid, none started: <error> in runs 2 (S
 * rlcer threshold=0.5 seed 0), 5 (...)`. Resolves when all are valid (or none has a planner here).
 */
export async function checkRuns(specs: Pick<RunSpec, 'index' | 'label' | 'args'>[], what: string): Promise<void> {
  const checkers = new Map<string, RunChecker>();
  for (const script of new Set(specs.map((s) => s.args[0])))
    if (Object.hasOwn(CHECKERS, script)) checkers.set(script, await CHECKERS[script]());
  const bad = new Map<string, string[]>();
  for (const s of specs) {
    const check = checkers.get(s.args[0]);
    if (!check) continue;
    try {
      check(s.args.slice(1));
    } catch (e) {
      // by name: the planners are imported dynamically, which a test runner may give a second copy of the class
      if (!(e instanceof Error) || e.name !== 'ConfigError') throw e;
      bad.set(e.message, [...(bad.get(e.message) ?? []), `${s.index} (${s.label})`]);
    }
  }
  if (!bad.size) return;
  const n = [...bad.values()].reduce((k, runs) => k + runs.length, 0);
  const groups = [...bad].map(([msg, runs]) => {
    const more = runs.length > NAMED ? ` and ${runs.length - NAMED} more` : '';
    return `${msg} in run${runs.length > 1 ? 's' : ''} ${runs.slice(0, NAMED).join(', ')}${more}`;
  });
  throw new ConfigError(`${what}: ${n} of ${specs.length} runs are invalid, none started: ${groups.join('; ')}`);
}
