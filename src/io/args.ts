// Command-line parsing shared by the CLIs, on node:util's parseArgs (strict): `--key value`, `--key=value` and
// boolean switches (`--flag` alone), with a spec that holds each flag's help text and its default in one place (the
// parsed arguments carry the defaults; --help prints them); subcommand CLIs (sweep.ts) have a spec per subcommand.
// Bad input is a ConfigError with one clear line; runMain turns it into `error: <message>` (exit 2) and keeps the
// stack trace for real bugs (exit 1).
import { parseArgs as nodeParseArgs } from 'node:util';
import { ConfigError, RunFailure } from '../util/validate.js';
import { removeUnstartedRuns } from './unstarted.js';

/** One flag: its help text and, where it has one, its default (a string, as typed on the command line). */
export interface Flag {
  help: string;
  default?: string;
  /** a switch: `--name` alone, no value; parsed as true when given, false when not */
  boolean?: true;
}

/** A CLI's flags by name (without the dashes). A plain string is a flag's help text, with no default. */
export type Flags = Record<string, string | Flag>;

/** The parsed flags: a switch is a boolean, a flag with a default a string, any other string | undefined. */
export type Args<F extends Flags> = {
  -readonly [K in keyof F]: F[K] extends { boolean: true }
    ? boolean
    : F[K] extends { default: string }
      ? string
      : string | undefined;
};

/** A subcommand of a subcommand CLI: one line of help, and its own flags. */
export interface Command {
  help: string;
  flags: Flags;
}

/** Options of the parsers: the program as the usage line names it (default: `tsx src/cli/<this file>`), and a line
 * that --help prints under the usage line. */
export interface ParseOptions {
  program?: string;
  about?: string;
}

const flag = (f: string | Flag): Flag => (typeof f === 'string' ? { help: f } : f);

/** How the usage line names the running CLI: `tsx src/cli/<name>.ts` (whatever the directory it was started from). */
function programName(o: ParseOptions = {}): string {
  if (o.program) return o.program;
  const script = (process.argv[1] ?? '').replace(/\\/g, '/');
  const m = /(?:^|\/)(src\/cli\/[^/]+)$/.exec(script);
  return `tsx ${m ? m[1] : script.slice(script.lastIndexOf('/') + 1)}`;
}

/** The --help text: the usage line, then every flag with its help and its default. */
export function helpText(usage: string, flags: Flags, about?: string): string {
  const names = Object.keys(flags),
    width = Math.min(18, Math.max(10, ...names.map((k) => k.length)));
  const lines = names.map((k) => {
    const f = flag(flags[k]),
      dflt = f.default !== undefined && f.default !== '' ? ` (default ${f.default})` : '';
    return `  --${k.padEnd(width)} ${f.help}${dflt}`;
  });
  const head = [`usage: ${usage}`, ...(about ? [about] : [])];
  return [...head, 'options:', ...lines, `  --${'help'.padEnd(width)} this help (or -h)`].join('\n');
}

/** The --help text of a subcommand CLI: the usage line and the subcommands. */
export function commandsHelpText(program: string, commands: Record<string, Command>, about?: string): string {
  const names = Object.keys(commands),
    width = Math.max(...names.map((k) => k.length));
  return [
    `usage: ${program} <subcommand> [options]`,
    ...(about ? [about] : []),
    'subcommands:',
    ...names.map((k) => `  ${k.padEnd(width)}  ${commands[k].help}`),
    `${program} <subcommand> --help lists the subcommand's options`,
  ].join('\n');
}

/**
 * `--name value` of a string flag as `--name=value`: the word after a string flag is its value whatever it looks
 * like (`--sbatch-args --partition=cpu`, `--out -x`), as it always was here; node's strict parser would call a value
 * that starts with a dash ambiguous. Everything after `--` is left as it is.
 */
function joinValues(argv: string[], flags: Flags): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return out.concat(argv.slice(i));
    const name = a.slice(2);
    const isString = a.startsWith('--') && !a.includes('=') && Object.hasOwn(flags, name) && !flag(flags[name]).boolean;
    if (isString && i + 1 < argv.length) out.push(`${a}=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

/** True when the arguments ask for help: `--help` or `-h` as an argument of its own (not a flag's value). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Parse, with help and one-line errors; `positionals`: how many the CLI takes (0: none). */
function parse(
  argv: string[],
  flags: Flags,
  usage: string,
  positionals: number,
  about?: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const args = joinValues(argv, flags);
  if (wantsHelp(args)) {
    console.log(helpText(usage, flags, about));
    process.exit(0);
  }
  const options: Record<string, { type: 'string' | 'boolean'; default?: string | boolean }> = {};
  for (const [k, f] of Object.entries(flags).map(([k, f]) => [k, flag(f)] as const)) {
    options[k] = f.boolean ? { type: 'boolean', default: false } : { type: 'string', default: f.default };
    if (options[k].default === undefined) delete options[k].default;
  }
  const known = Object.keys(flags)
    .map((k) => `--${k}`)
    .join(', ');
  const unknown = (a: string) =>
    new ConfigError(`unknown argument "${a}" (${known ? `known: ${known}` : 'it takes no flags'})`);
  // the arguments as tokens (not strict), for errors that quote what was given
  const { tokens } = nodeParseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  let given = 0;
  for (const t of tokens) {
    if (t.kind === 'option') {
      const f = Object.hasOwn(flags, t.name) ? flag(flags[t.name]) : undefined;
      if (!f || !t.rawName.startsWith('--')) throw unknown(args[t.index]);
      if (f.boolean && t.value !== undefined)
        throw new ConfigError(`argument --${t.name} takes no value (got "${args[t.index]}")`);
      if (!f.boolean && t.value === undefined) throw new ConfigError(`argument --${t.name} needs a value`);
    } else if (t.kind === 'positional' && ++given > positionals) throw unknown(t.value);
    else if (t.kind === 'option-terminator' && positionals === 0) throw unknown('--');
  }
  try {
    const r = nodeParseArgs({ args, options, strict: true, allowPositionals: positionals > 0 });
    return { values: { ...r.values }, positionals: r.positionals };
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/**
 * The flags of argv (process.argv.slice(2)) by `flags` (name -> help text, or {help, default, boolean}): every
 * default filled in. `--help`/`-h` prints the usage line and every flag with its default, and exits 0; an unknown
 * argument or a missing value is a ConfigError of one line.
 */
export function parseArgs<F extends Flags>(argv: string[], flags: F, o: ParseOptions = {}): Args<F> {
  return parse(argv, flags, `${programName(o)} [options]`, 0, o.about).values as Args<F>;
}

/**
 * parseArgs for a CLI that also takes positional arguments, named in `names` (e.g. ['<from>', '<to>']); a name with
 * "..." (e.g. '[theme ...]') takes any number.
 */
export function parseArgsWithPositionals<F extends Flags>(
  argv: string[],
  flags: F,
  names: string[],
  o: ParseOptions = {},
): { args: Args<F>; positionals: string[] } {
  const most = names.some((n) => n.includes('...')) ? Infinity : names.length;
  const r = parse(argv, flags, `${programName(o)} ${names.join(' ')} [options]`, most, o.about);
  return { args: r.values as Args<F>, positionals: r.positionals };
}

/** The parsed command line of a subcommand CLI: the subcommand and its flags (narrowed by `cmd`). */
export type CommandArgs<C extends Record<string, Command>> = {
  [K in keyof C & string]: { cmd: K; a: Args<C[K]['flags']> };
}[keyof C & string];

/**
 * A subcommand CLI's command line: `<subcommand> [options]`, each subcommand with its own flags. `--help` alone
 * lists the subcommands; `<subcommand> --help` the subcommand's flags (both exit 0 before any other check).
 */
export function parseCommand<C extends Record<string, Command>>(
  argv: string[],
  commands: C,
  o: ParseOptions = {},
): CommandArgs<C> {
  const program = programName(o),
    [cmd, ...rest] = argv,
    names = Object.keys(commands).join(', ');
  if (cmd === undefined || cmd === '--help' || cmd === '-h') {
    if (cmd === undefined) throw new ConfigError(`a subcommand is required (${names}; --help describes them)`);
    console.log(commandsHelpText(program, commands, o.about));
    process.exit(0);
  }
  if (!Object.hasOwn(commands, cmd)) throw new ConfigError(`unknown subcommand "${cmd}" (${names})`);
  const c = commands[cmd];
  const a = parse(rest, c.flags, `${program} ${cmd} [options]`, 0, c.help).values;
  return { cmd, a } as CommandArgs<C>;
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
 * Run a CLI main and settle on its exit status. Bad input (ConfigError) prints one line `error: <message>` and is 2;
 * an expected failure (RunFailure: some runs of a pool failed) prints one line and is 1; anything else is a bug: its
 * full stack trace, 1. Either way a run directory this process opened and that holds no step yet is removed. 0 when
 * main resolves.
 */
export async function mainStatus(main: () => Promise<void>): Promise<number> {
  try {
    await main();
    return 0;
  } catch (e: unknown) {
    try {
      removeUnstartedRuns();
    } catch (c) {
      console.error(`error: could not remove an unstarted run: ${(c as Error).message}`);
    }
    if (e instanceof ConfigError || e instanceof RunFailure) {
      console.error(`error: ${e.message.replace(/\s*\n\s*/g, ' ')}`);
      return e instanceof ConfigError ? 2 : 1;
    }
    console.error(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  }
}

/** Run a CLI main (mainStatus): a failure exits with its status; a main that resolves lets the process end. */
export function runMain(main: () => Promise<void>): void {
  void mainStatus(main).then((code) => {
    if (code !== 0) process.exit(code);
  });
}

/** The --allow-dirty flag of every command that archives records (src/io/run.ts, dirtyRecordProblem). */
export const ALLOW_DIRTY_HELP = {
  help: 'archive records under results/ even from a tree with uncommitted changes (campaigns never pass it)',
  boolean: true,
} as const;

/** With --allow-dirty, this process and its children may archive a dirty tree's records under results/. */
export function allowDirtyIf(flag: boolean | string | undefined): void {
  if (flag === true || flag === 'true') process.env.WORKBENCH_ALLOW_DIRTY = '1';
}
