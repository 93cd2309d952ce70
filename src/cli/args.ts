// Minimal command-line parsing shared by the CLIs: --key value pairs, with clear errors.
import { ConfigError } from '../io/validate.js';

export function parseArgs(argv: string[], known: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(Object.entries(known).map(([k, d]) => `  --${k.padEnd(10)} ${d}`).join('\n'));
      process.exit(0);
    }
    if (!a.startsWith('--') || !(a.slice(2) in known)) throw new ConfigError(`unknown argument "${a}" (known: ${Object.keys(known).map((k) => `--${k}`).join(', ')})`);
    if (i + 1 >= argv.length) throw new ConfigError(`argument ${a} needs a value`);
    out[a.slice(2)] = argv[++i];
  }
  return out;
}

export function parseSeeds(s: string): number[] {
  const seeds = s.split(',').map((x) => Number(x.trim()));
  if (seeds.length === 0 || seeds.some((x) => !Number.isInteger(x) || x < 0)) throw new ConfigError(`--seeds must be a comma-separated list of non-negative integers (got "${s}")`);
  return seeds;
}

/** Run a CLI main, printing errors as one line (no stack for config errors) and exiting non-zero. */
export function runMain(main: () => Promise<void>): void {
  main().catch((e: Error) => {
    console.error(e.name === 'ConfigError' ? `config error: ${e.message}` : `error: ${e.stack ?? e.message}`);
    process.exit(2);
  });
}
