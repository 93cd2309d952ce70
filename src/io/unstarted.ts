// Run directories opened by this process that hold no step yet. When a CLI fails (runMain), they are removed,
// so that bad input (a config or a checkpoint found wrong after openRun) leaves no run folder holding only
// config.json. A run that has logged a step or finished is kept as it is: its metrics make it resumable.
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Unstarted {
  /** the outermost directory openRun created for it (undefined: the run directory existed before) */
  createdRoot: string | undefined;
  /** the files this run wrote into its directory so far */
  files: Set<string>;
}

const unstarted = new Map<string, Unstarted>();

/** Record a run directory just opened (`createdRoot`: what its mkdir created) and the files written into it. */
export function trackUnstarted(dir: string, createdRoot: string | undefined, files: string[]): void {
  unstarted.set(dir, { createdRoot, files: new Set(files) });
}

/** A file the unstarted run `dir` wrote (removed with it if the process fails before the run's first step). */
export function noteRunFile(dir: string, file: string): void {
  unstarted.get(dir)?.files.add(file);
}

/** The run `dir` logged a step or finished: it is kept whatever happens next. */
export function markStarted(dir: string): void {
  unstarted.delete(dir);
}

/**
 * Remove what the unstarted runs of this process left behind: a run directory this process created goes whole
 * (then its parents that it created and that are now empty); in a directory that existed before (a job pool's,
 * holding its log) only the files the run wrote go.
 */
export function removeUnstartedRuns(): void {
  for (const [dir, u] of unstarted) {
    if (u.createdRoot === undefined) {
      for (const f of u.files) fs.rmSync(path.join(dir, f), { force: true });
    } else {
      fs.rmSync(dir, { recursive: true, force: true });
      const root = path.resolve(u.createdRoot);
      for (let d = path.dirname(path.resolve(dir)); d.startsWith(root); d = path.dirname(d)) {
        try {
          fs.rmdirSync(d);
        } catch {
          break;
        } // not empty: another run lives there
      }
    }
    unstarted.delete(dir);
  }
}
