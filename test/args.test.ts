// The CLIs' flag parsing (src/io/args.ts, on node:util's parseArgs): `--k v` and `--k=v`, switches, defaults
// defined once (in the parsed result and in --help), one-line errors, and subcommand help that asks for nothing.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { helpText, parseArgs, parseArgsWithPositionals, parseCommand, type Flags } from '../src/io/args.js';
import { ConfigError } from '../src/util/validate.js';

const TSX = './node_modules/.bin/tsx';

const FLAGS = {
  seed: { help: 'seed', default: '0' },
  steps: 'RL steps',
  out: 'run directory',
  'sbatch-args': 'flags passed to sbatch',
  merge: { help: 'keep the other records', boolean: true },
} satisfies Flags;

/** The ConfigError that f throws: one line. */
function configError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.doesNotMatch(e.message, /\n/, 'one line');
    return e.message;
  }
  assert.fail('no error');
}

describe('CLI flags (src/io/args.ts)', () => {
  it('--k=v is --k v; the last of a repeated flag wins', () => {
    const a = parseArgs(['--steps', '12', '--out', 'runs/x'], FLAGS);
    const b = parseArgs(['--steps=12', '--out=runs/x'], FLAGS);
    assert.deepEqual(b, a);
    assert.equal(a.steps, '12');
    assert.equal(a.out, 'runs/x');
    assert.equal(parseArgs(['--steps', '1', '--steps=2'], FLAGS).steps, '2');
    // a value is taken as given, whatever it starts with ("=", "-")
    assert.equal(parseArgs(['--out=a=b'], FLAGS).out, 'a=b');
    assert.equal(
      parseArgs(['--sbatch-args', '--partition=cpu --time=1:00'], FLAGS)['sbatch-args'],
      '--partition=cpu --time=1:00',
    );
    assert.equal(parseArgs(['--seed', '-1'], FLAGS).seed, '-1');
  });

  it('a boolean flag: --flag alone is true, absent false; it takes no value', () => {
    assert.equal(parseArgs(['--merge'], FLAGS).merge, true);
    assert.equal(parseArgs([], FLAGS).merge, false);
    assert.equal(parseArgs(['--merge', '--steps', '3'], FLAGS).steps, '3');
    assert.equal(
      configError(() => parseArgs(['--merge=yes'], FLAGS)),
      'argument --merge takes no value (got "--merge=yes")',
    );
  });

  it('a default is in the parsed result (unless given), and a flag without one is undefined', () => {
    const a = parseArgs([], FLAGS);
    assert.equal(a.seed, '0');
    assert.equal(a.steps, undefined);
    assert.deepEqual(Object.keys(a).sort(), ['merge', 'seed']);
    assert.equal(parseArgs(['--seed', '7'], FLAGS).seed, '7');
    // the legacy spec (name -> help text) still parses, with no defaults
    assert.deepEqual(parseArgs(['--steps', '5'], { steps: 'steps' }), { steps: '5' });
  });

  it('--help: the usage line, then every flag with its help and its default', () => {
    const text = helpText('tsx src/cli/x.ts [options]', FLAGS);
    assert.match(text, /^usage: tsx src\/cli\/x\.ts \[options\]$/m);
    assert.match(text, /^ {2}--seed +seed \(default 0\)$/m);
    assert.match(text, /^ {2}--steps +RL steps$/m);
    assert.match(text, /^ {2}--merge +keep the other records$/m);
    assert.match(text, /^ {2}--help +this help/m);
  });

  it('bad input: one line naming the flag; an unknown one lists the known ones', () => {
    assert.equal(
      configError(() => parseArgs(['--stepz', '3'], FLAGS)),
      'unknown argument "--stepz" (known: --seed, --steps, --out, --sbatch-args, --merge)',
    );
    assert.match(
      configError(() => parseArgs(['--stepz=3'], FLAGS)),
      /^unknown argument "--stepz=3" \(known: /,
    );
    assert.match(
      configError(() => parseArgs(['-s'], FLAGS)),
      /^unknown argument "-s" \(known: /,
    );
    assert.match(
      configError(() => parseArgs(['stray'], FLAGS)),
      /^unknown argument "stray" \(known: /,
    );
    assert.equal(
      configError(() => parseArgs(['--steps'], FLAGS)),
      'argument --steps needs a value',
    );
    assert.match(
      configError(() => parseArgs(['--toString', '1'], FLAGS)),
      /^unknown argument "--toString"/,
    );
  });

  it('positionals only where a CLI takes them, and no more than it names', () => {
    const r = parseArgsWithPositionals(['a', '--merge', 'b'], FLAGS, ['<from>', '<to>']);
    assert.deepEqual(r.positionals, ['a', 'b']);
    assert.equal(r.args.merge, true);
    assert.match(
      configError(() => parseArgsWithPositionals(['a', 'b', 'c'], FLAGS, ['<from>', '<to>'])),
      /"c"/,
    );
  });

  it('subcommands: each with its own flags; an unknown one is named', () => {
    const commands = {
      list: { help: 'the runs', flags: { config: 'config' } },
      submit: { help: 'submit', flags: { config: 'config', jobs: { help: 'jobs', default: '2' } } },
    };
    const r = parseCommand(['submit', '--config=c.json'], commands);
    assert.equal(r.cmd, 'submit');
    if (r.cmd === 'submit') assert.deepEqual(r.a, { config: 'c.json', jobs: '2' });
    assert.match(
      configError(() => parseCommand(['list', '--jobs', '3'], commands)),
      /unknown argument "--jobs"/,
    );
    assert.equal(
      configError(() => parseCommand(['nope'], commands)),
      'unknown subcommand "nope" (list, submit)',
    );
    assert.match(
      configError(() => parseCommand([], commands)),
      /^a subcommand is required \(list, submit/,
    );
  });

  describe('a subcommand CLI as a process (sweep.ts)', function () {
    this.timeout(60_000);
    const sweep = (...args: string[]) => spawnSync(TSX, ['src/cli/sweep.ts', ...args], { encoding: 'utf8' });

    it('--help lists the subcommands, exit 0, without asking for --config', () => {
      const r = sweep('--help');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^usage: tsx src\/cli\/sweep\.ts <subcommand> \[options\]$/m);
      for (const c of ['list', 'run', 'status', 'submit', 'table'])
        assert.match(r.stdout, new RegExp(`^ {2}${c} `, 'm'));
      assert.equal(r.stderr, '');
    });

    it('<subcommand> --help lists its flags with their defaults; without --help the required flag is asked for', () => {
      const r = sweep('submit', '-h');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^usage: tsx src\/cli\/sweep\.ts submit \[options\]$/m);
      assert.match(r.stdout, /^ {2}--jobs +local: parallel processes \(default 2\)$/m);
      assert.match(r.stdout, /^ {2}--executor .*\(default local\)$/m);
      const bad = sweep('submit');
      assert.equal(bad.status, 2);
      assert.equal(bad.stderr.trim(), 'error: --config is required');
    });
  });
});
