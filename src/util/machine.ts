// The machine a run ran on, as far as its numbers depend on it. `tsx src/util/machine.ts` prints its processor
// (`make quick-reference` records the reference's in results/quick-processor.txt).
import os from 'node:os';

/** This machine's processor as Node names it (`os.cpus()`), `unknown` where it names none. */
export function processorName(): string {
  return os.cpus()[0]?.model.trim() || 'unknown';
}

if (process.argv[1]?.endsWith('machine.ts')) console.log(processorName());
