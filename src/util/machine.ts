// The machine a run ran on, as far as its numbers depend on it.
import os from 'node:os';

/** This machine's processor as Node names it (`os.cpus()`), `unknown` where it names none. */
export function processorName(): string {
  return os.cpus()[0]?.model.trim() || 'unknown';
}
