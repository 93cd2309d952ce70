// Minimal command-line parsing shared by the CLIs: --key value pairs, with clear errors, and runMain, which
// turns bad input into one line `error: <message>` (exit 2) and keeps the stack trace for real bugs (exit 1).
import { ConfigError, RunFailure } from '../io/validate.js';
import { removeUnstartedRuns } from '../io/unstarted.js';

export function parseArgs(argv: string[], known: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(
        Object.entries(known)
          .map(([k, d]) => `  --${k.padEnd(10)} ${d}`)
          .join('\n'),
      );
      process.exit(0);
    }
    if (!a.startsWith('--') || !Object.hasOwn(known, a.slice(2)))
      throw new ConfigError(
        `unknown argument "${a}" (known: ${Object.keys(known)
          .map((k) => `--${k}`)
          .join(', ')})`,
      );
    if (i + 1 >= argv.length) throw new ConfigError(`argument ${a} needs a value`);
    out[a.slice(2)] = argv[++i];
  }
  return out;
}

const INTEGER = /^[+-]?\d+$/;

function range(min: number, max: number): string {
  return max === Infinity ? (min === -Infinity ? '' : ` >= ${min}`) : ` in [${min}, ${max}]`;
}

/** The integer value of argument --name, given as text (quoted as given when it is not an integer in range). */
export function intArg(name: string, text: string, min = -Infinity, max = Infinity): number {
  const v = Number(text.trim());
  if (!INTEGER.test(text.trim()) || v < min || v > max) {
    throw new ConfigError(`--${name} must be an integer${range(min, max)} (got "${text}")`);
  }
  return v;
}

/** A comma-separated list of integers (argument --name), e.g. seeds "0,1,2". */
export function intListArg(name: string, text: string, min = -Infinity, max = Infinity): number[] {
  const items = text.split(',').map((x) => x.trim());
  const v = items.map(Number);
  if (items.some((x) => !INTEGER.test(x)) || v.some((x) => x < min || x > max)) {
    const bounds = items.every((x) => INTEGER.test(x)) ? range(min, max) : '';
    throw new ConfigError(`--${name} must be comma-separated integers${bounds} (got "${text}")`);
  }
  return v;
}

/** A comma-separated list of values of argument --name, each one of `allowed`. */
export function choiceListArg<T extends string>(name: string, text: string, allowed: readonly T[]): T[] {
  const items = text.split(',').map((x) => x.trim());
  if (items.some((x) => !(allowed as readonly string[]).includes(x))) {
    throw new ConfigError(`--${name} must be comma-separated values among ${allowed.join(', ')} (got "${text}")`);
  }
  return items as T[];
}

/** One value of argument --name, one of `allowed`. */
export function choiceArg<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) {
    throw new ConfigError(`--${name} must be one of ${allowed.join(', ')} (got "${text}")`);
  }
  return text as T;
}

export function parseSeeds(s: string): number[] {
  return intListArg('seeds', s, 0);
}

/**
 * Run a CLI main. Bad input (ConfigError) prints one line `error: <message>` and exits 2; an expected failure
 * (RunFailure: some runs of a pool failed) prints one line and exits 1; anything else is a bug: its full stack
 * trace, exit 1. Either way a run directory this process opened and that holds no step yet is removed.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    try {
      removeUnstartedRuns();
    } catch (c) {
      console.error(`error: could not remove an unstarted run: ${(c as Error).message}`);
    }
    if (e instanceof ConfigError || e instanceof RunFailure) {
      console.error(`error: ${e.message.replace(/\s*\n\s*/g, ' ')}`);
      process.exit(e instanceof ConfigError ? 2 : 1);
    }
    console.error(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  });
}
