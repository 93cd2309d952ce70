// Your own experiment (docs/experiments.md): the walkthrough's commands run as written, at a tiny size (the smoke
// profile, 2 prompts x 2 rollouts), ending in the tidy table, claims, power, a README and the figures; every
// validation path refuses a typo or a value of the wrong type in one line, within 2 CPU seconds, before anything
// trains; `status` reports a run that failed as failed; and the pieces in process: the type check of the config
// merge, the nearest names, a sweep without knobs, per-method overrides, the refusal of a bad sweep naming every run.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mergeConfig } from '../src/io/config.js';
import { didYouMean, nearestNames } from '../src/util/names.js';
import { aggregateSweep } from '../src/io/sweep-aggregate.js';
import { completeSweep, expandSweep, writeSpecs, type RunSpec } from '../src/io/sweep.js';
import { localExecutor } from '../src/io/executors.js';
import { readCsv } from '../src/io/table.js';
import { checkRuns } from '../src/cli/run-checks.js';
import { defaultRlcerConfig } from '../src/methods/trainers/rlcer.js';

const TSX = './node_modules/.bin/tsx';

interface Result {
  code: number | null;
  stdout: string;
  /** stderr without the two lines of `times` */
  stderr: string;
  /** CPU seconds (user + system) of the command and its children */
  cpu: number;
}

/** A shell command line (bash), with the CPU seconds it took (bash's `times`: not inflated by a busy queue's wait). */
function sh(line: string, env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${line}\nrc=$?; times >&2; exit $rc`], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stderr.trimEnd().split('\n');
      const seconds = (t: string) => {
        const m = /^(\d+)m([\d.]+)s$/.exec(t);
        return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
      };
      const [user, sys] = (lines.at(-1) ?? '').split(' ').map(seconds);
      resolve({ code, stdout, stderr: lines.slice(0, -2).join('\n'), cpu: user + sys });
    });
  });
}

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * What any CLI of the workbench costs before it does anything: node, tsx and tfjs started (CPU seconds, the mean of
 * two tries). Under a second on a quiet machine; a busy one (every core shared) inflates CPU seconds too.
 */
let floor = 1;

/**
 * Exit 2, one stderr line `error: ...` matching `pattern`, in under 2 CPU seconds: or, on a machine so busy that
 * starting a CLI alone costs more than a second, in under twice what starting one costs there.
 */
function assertRefused(r: Result, pattern: RegExp): string {
  assert.equal(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `one stderr line, got:\n${r.stderr}`);
  assert.match(lines[0], /^error: /);
  assert.match(lines[0], pattern);
  const most = Math.max(2, 2 * floor);
  assert.ok(r.cpu < most, `refused in ${r.cpu.toFixed(2)} CPU seconds (at most ${most.toFixed(2)})`);
  return lines[0];
}

describe('your own experiment: refused before anything trains', function () {
  this.timeout(180000);
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-exp-'));
  const sweep = (name: string, body: object) => {
    const f = path.join(d, `${name}.json`);
    fs.writeFileSync(f, JSON.stringify({ name, root: path.join(d, 'runs', name), profile: 'smoke', ...body }));
    return f;
  };
  const knob = (levels: object[]) => [{ name: 'threshold', default: '0.2', methods: ['rlcer'], levels }];
  const compare = [{ claim: 'rlcer_minus_rlvr', a: 'rlcer', b: 'rlvr', column: 'average' }];
  const wrongType = sweep('wrong-type', {
    methods: ['rlvr', 'rlcer'],
    seeds: [0, 1],
    knobs: knob([{ level: '0.5', overrides: { threshold: '0.5' } }]),
    comparisons: compare,
  });
  const twoBad = sweep('two-bad', {
    methods: ['rlvr', 'rlcer'],
    seeds: [0, 1],
    knobs: knob([
      { level: '0.5', overrides: { threshold: '0.5' } },
      { level: 't', overrides: { treshold: 0.5 } },
    ]),
    comparisons: compare,
  });
  const methodTypo = sweep('method-typo', { methods: ['rlvr', 'rlcr'], seeds: [0, 1], comparisons: compare });
  const out = path.join(d, 'runs', 'one');
  const cases: Record<string, string> = {
    'run, a string for a number': `${TSX} src/cli/table2-run.ts --method rlcer --profile smoke --overrides ${q('{"threshold": "0.5"}')} --out ${out}`,
    'run, a key typo': `${TSX} src/cli/table2-run.ts --method rlcer --profile smoke --overrides ${q('{"treshold": 0.5}')} --out ${out}`,
    'run, a method typo': `${TSX} src/cli/table2-run.ts --method rlcr --profile smoke --out ${out}`,
    'profile, a method typo': `${TSX} src/cli/table2.ts --profile smoke --methods rlvr,rlcr`,
    'profile, a profile typo': `${TSX} src/cli/table2.ts --profile quik`,
    'list, a string for a number': `${TSX} src/cli/sweep.ts list --config ${wrongType}`,
    'submit, a string for a number': `${TSX} src/cli/sweep.ts submit --config ${wrongType} --jobs 2`,
    'list, two bad levels': `${TSX} src/cli/sweep.ts list --config ${twoBad}`,
    'submit, a method typo': `${TSX} src/cli/sweep.ts submit --config ${methodTypo}`,
    'run by index, a string for a number': `${TSX} src/cli/sweep.ts run --config ${wrongType} --index 2`,
    'init, an option typo': `${TSX} src/cli/sweep.ts init --name k --methods rlvr,rlcer --profile smoke --knob treshold=0.4 --out ${path.join(d, 'k.json')}`,
    'init, a string for a number': `${TSX} src/cli/sweep.ts init --name k --methods rlvr,rlcer --profile smoke --overrides ${q('{"rlcer": {"prompts": "2"}}')} --out ${path.join(d, 'k.json')}`,
  };
  const results: Record<string, Result> = {};
  before(async () => {
    const start = `${TSX} -e ${q("import('@tensorflow/tfjs').then(() => 0)")}`;
    floor = ((await sh(start)).cpu + (await sh(start)).cpu) / 2;
    // one at a time: the CPU seconds are each command's own, whatever else runs
    for (const n of Object.keys(cases)) results[n] = await sh(cases[n]);
  });
  const trainedNothing = () => {
    for (const dir of ['runs', 'k.json'].map((f) => path.join(d, f))) {
      const left = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
      assert.deepEqual(left, [], `${dir} holds ${left.join(', ')}`);
    }
  };

  it('a run: a string where a number belongs, a key typo, a method typo (with the nearest names)', () => {
    assertRefused(results['run, a string for a number'], /^error: threshold must be a number \(got "0\.5"\)$/);
    assertRefused(results['run, a key typo'], /unknown config key "treshold" \(did you mean "threshold"\?\)/);
    assertRefused(results['run, a method typo'], /unknown method "rlcr" \(did you mean "rlcer" or "rlvr"\?\)/);
    trainedNothing();
  });

  it("a profile's runs: a method typo, a profile typo", () => {
    assertRefused(results['profile, a method typo'], /unknown method "rlcr" \(did you mean "rlcer" or "rlvr"\?\)/);
    assertRefused(results['profile, a profile typo'], /unknown profile "quik" \(did you mean "quick"\?\)/);
  });

  it('a sweep: list, submit and run refuse it naming every bad run; a typo in methods is named as one', () => {
    const line = assertRefused(
      results['list, a string for a number'],
      /^error: sweep wrong-type: 2 of 6 runs are invalid, none started: threshold must be a number \(got "0\.5"\) in runs 2 \(S rlcer threshold=0\.5 seed 0\), 5 \(S rlcer threshold=0\.5 seed 1\)$/,
    );
    assert.equal(assertRefused(results['submit, a string for a number'], /./), line);
    assertRefused(
      results['list, two bad levels'],
      /4 of 8 runs are invalid, none started: threshold must be a number \(got "0\.5"\) in runs 2 \(.*\), 6 \(.*\); unknown config key "treshold" \(did you mean "threshold"\?\) in runs 3 \(S rlcer threshold=t seed 0\), 7 \(S rlcer threshold=t seed 1\)$/,
    );
    assertRefused(
      results['submit, a method typo'],
      /^error: sweep method-typo: unknown method "rlcr" \(did you mean "rlcer" or "rlvr"\?\)/,
    );
    assertRefused(
      results['run by index, a string for a number'],
      /threshold must be a number \(got "0\.5"\) in run 2 /,
    );
    trainedNothing();
  });

  it('init: an option no method has (with the nearest), a string where a number belongs', () => {
    assertRefused(
      results['init, an option typo'],
      /no method of the sweep \(rlvr, rlcer\) has option "treshold" \(did you mean "threshold"\?\)/,
    );
    assertRefused(results['init, a string for a number'], /prompts must be a number \(got "2"\) in runs 1 \(/);
    trainedNothing();
  });

  it('status reports a run that failed as failed (its exit code, with no log of the pool)', async () => {
    const root = path.join(d, 'fail'),
      f = path.join(d, 'fail.json');
    fs.writeFileSync(
      f,
      JSON.stringify({
        name: 'fail',
        root,
        command: ['test/fixtures/sweep-fake-run.ts', '--method', '{method}', '--seed', '{seed}', '--out', '{dir}'],
        methods: ['a', 'b'],
        seeds: [0],
      }),
    );
    const dir = path.join(root, 'S', 'a', 'baseline', 'seed-0');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'FAIL_ONCE'), '');
    const run = await sh(`${TSX} src/cli/sweep.ts run --config ${f} --index 0`);
    assert.equal(run.code, 1, run.stderr);
    const st = await sh(`${TSX} src/cli/sweep.ts status --config ${f}`);
    assert.match(st.stdout, /\[sweep fail\] 2 runs: 1 failed, 1 missing/);
    assert.match(st.stdout, /failed 0: S a baseline seed 0/);
  });
});

describe('your own experiment: the pieces', function () {
  this.timeout(60000);
  it('a config value of the wrong type is refused by the merge, naming the option (and a bad check fails a test)', () => {
    assert.throws(
      () => mergeConfig(defaultRlcerConfig, { threshold: '0.5' }),
      /^ConfigError: threshold must be a number \(got "0\.5"\)$/,
    );
    assert.throws(() => mergeConfig(defaultRlcerConfig, { evolve: 'no' }), /evolve must be a boolean \(got "no"\)/);
    assert.throws(
      () => mergeConfig(defaultRlcerConfig, { world: { labelNoise: '0.1' } }),
      /world\.labelNoise must be a number/,
    );
    assert.throws(
      () => mergeConfig(defaultRlcerConfig, { world: { trainFamilies: ['add', 1] } }),
      /world\.trainFamilies\[1\] must be a string \(got 1\)/,
    );
    assert.throws(() => mergeConfig(defaultRlcerConfig, { ppo: 1 }), /ppo must be an object \(got a number\)/);
    assert.throws(
      () => mergeConfig(defaultRlcerConfig, { ppo: { cilp: 1 } }),
      /unknown config key "ppo\.cilp" \(did you mean "clip"\?\)/,
    );
    // an option that is off by default (null) takes a value of its own kind, checked by its trainer
    assert.equal(mergeConfig(defaultRlcerConfig, { reasonKlTarget: 0.01 }).reasonKlTarget, 0.01);
    assert.equal(mergeConfig(defaultRlcerConfig, { threshold: 0.4 }).threshold, 0.4);
  });

  it('names the nearest known names, and none when nothing is near', () => {
    assert.deepEqual(nearestNames('rlcr', ['sft', 'rlvr', 'rlcer', 'evolm']), ['rlcer', 'rlvr']);
    assert.deepEqual(nearestNames('treshold', ['threshold', 'temperature']), ['threshold']);
    assert.deepEqual(nearestNames('nope', ['sft', 'rlvr', 'rlcer']), []);
    assert.equal(didYouMean('quik', ['quick', 'full']), ' (did you mean "quick"?)');
    assert.equal(didYouMean('zzz', ['quick']), '');
  });

  it('a plain methods x seeds sweep needs no knobs: its defaults filled in, its table under knob "none"', () => {
    const c = completeSweep({
      name: 'grid',
      methods: ['a', 'b'],
      seeds: [0, 1],
      comparisons: [{ claim: 'b_minus_a', a: 'b', b: 'a', column: 'average' }],
    });
    assert.equal(c.root, path.join('runs', 'sweeps', 'grid'));
    assert.deepEqual(c.sizes, ['S']);
    assert.deepEqual(c.command.slice(0, 2), ['src/cli/table2-run.ts', '--method']);
    assert.ok(c.command.includes('quick'));
    const specs = expandSweep(c);
    assert.deepEqual(
      specs.map((s) => s.label),
      ['S a baseline seed 0', 'S b baseline seed 0', 'S a baseline seed 1', 'S b baseline seed 1'],
    );
    const value = (s: RunSpec) => new Map([['average', 0.5 + 0.1 * Number(s.method === 'b') + 0.01 * s.seed]]);
    const { table, claims } = aggregateSweep(c, specs, value);
    assert.deepEqual(
      table.map((r) => [r.knob, r.level, r.method, r.seeds]),
      [
        ['none', 'baseline', 'a', 2],
        ['none', 'baseline', 'b', 2],
      ],
    );
    assert.equal(claims.length, 1);
    assert.ok(Math.abs(Number(claims[0].delta) - 0.1) < 1e-12);
  });

  it("gives each method its own overrides, a knob's level merged over them; refuses overrides of a method not in it", () => {
    const c = completeSweep({
      name: 'o',
      root: '/r',
      profile: 'smoke',
      methods: ['rlvr', 'rlcer'],
      seeds: [0],
      overrides: { rlcer: { prompts: 4, world: { labelNoise: 0.1 } }, rlvr: { prompts: 2 } },
      knobs: [
        {
          name: 'threshold',
          default: '0.2',
          methods: ['rlcer'],
          levels: [{ level: '0.4', overrides: { threshold: 0.4, world: { digits: { add: [2] } } } }],
        },
      ],
    });
    const over = (s: RunSpec) => JSON.parse(s.args[s.args.indexOf('--overrides') + 1]);
    const [rlvr, rlcer, knobbed] = expandSweep(c);
    assert.deepEqual(over(rlvr), { prompts: 2 });
    assert.deepEqual(over(rlcer), { prompts: 4, world: { labelNoise: 0.1 } });
    assert.deepEqual(over(knobbed), { prompts: 4, threshold: 0.4, world: { labelNoise: 0.1, digits: { add: [2] } } });
    assert.deepEqual(rlcer.args.slice(0, 10), [
      'src/cli/table2-run.ts',
      '--method',
      'rlcer',
      '--size',
      'S',
      '--seed',
      '0',
      '--profile',
      'smoke',
      '--out',
    ]);
    assert.throws(
      () => completeSweep({ ...c, overrides: { rlcr: {} } }),
      /sweep overrides: method "rlcr" is not in the sweep's methods \(rlvr, rlcer\) \(did you mean "rlcer" or "rlvr"\?\)/,
    );
    assert.throws(
      () => completeSweep({ ...c, knob: [] } as never),
      /unknown sweep field "knob" \(did you mean "knobs"\?\)/,
    );
    assert.throws(() => completeSweep({ ...c, command: ['x.ts'] }), /sweep profile is for the default command/);
  });

  it('checks every run in process and names every bad one, grouped by what is wrong', async () => {
    const specs = expandSweep({
      name: 'k',
      root: '/r',
      profile: 'smoke',
      methods: ['rlvr', 'rlcer'],
      seeds: [0, 1],
      knobs: [{ name: 'cot', default: '1', levels: [{ level: 'x', overrides: { cotWeight: -1 } }] }],
    });
    await assert.rejects(
      () => checkRuns(specs, 'sweep k'),
      (e: Error) => {
        assert.equal(e.name, 'ConfigError');
        // RLVR has no cotWeight (a knob that reaches it is refused there); RLCER's must be >= 0
        assert.equal(
          e.message,
          'sweep k: 4 of 8 runs are invalid, none started: unknown config key "cotWeight" in runs 2 (S rlvr cot=x seed 0), ' +
            '6 (S rlvr cot=x seed 1); cotWeight must be >= 0 (got -1) in runs 3 (S rlcer cot=x seed 0), 7 (S rlcer cot=x seed 1)',
        );
        return true;
      },
    );
    await checkRuns(
      specs.filter((s) => s.cell === 'baseline'),
      'sweep k',
    );
  });

  it('reports a run whose exit code says it failed as failed, locally too', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-st-')),
      specs = expandSweep({ name: 's', root, command: ['x.ts', '--out', '{dir}'], methods: ['a', 'b'], seeds: [0] });
    writeSpecs(root, specs);
    fs.mkdirSync(path.join(root, 'sweep', 'status'), { recursive: true });
    fs.writeFileSync(path.join(root, 'sweep', 'status', '1.json'), JSON.stringify({ index: 1, exit: 2 }));
    assert.deepEqual(localExecutor().status(root, specs), ['missing', 'failed']);
    // another run list in the same root: the old exit codes name other runs, and are dropped
    writeSpecs(
      root,
      expandSweep({ name: 's', root, command: ['x.ts', '--out', '{dir}'], methods: ['b', 'a'], seeds: [0] }),
    );
    assert.equal(fs.existsSync(path.join(root, 'sweep', 'status', '1.json')), false);
  });
});

describe('your own experiment: the walkthrough of docs/experiments.md, at a tiny size', function () {
  this.timeout(600000);
  const doc = fs.readFileSync('docs/experiments.md', 'utf8');
  /** The commands of the block after the walkthrough marker: continued lines joined, comments dropped. */
  const commands = () => {
    const block = /<!-- walkthrough[^>]*-->\n```bash\n([\s\S]*?)```/.exec(doc);
    assert.ok(block, 'docs/experiments.md has a walkthrough block');
    return block[1]
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
  };
  it('runs init, list, submit, status, table and the figures as written, and gets what the page says', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-walk-'));
    const tiny = q(JSON.stringify({ rlvr: { prompts: 2, rollouts: 2 }, rlcer: { prompts: 2, rollouts: 2 } }));
    const lines = commands();
    assert.deepEqual(
      lines.map((l) => l.split(' ').slice(0, 3).join(' ')),
      [
        'tsx src/cli/sweep.ts init',
        'tsx src/cli/sweep.ts list',
        'tsx src/cli/sweep.ts submit',
        'tsx src/cli/sweep.ts status',
        'tsx src/cli/sweep.ts table',
        'tsx analysis/make-figures.ts --sweep',
      ],
    );
    const out: Record<string, Result> = {};
    for (const line of lines) {
      const cmd = line
        .replace(/^tsx /, `${TSX} `)
        .replace('--profile quick', '--profile smoke')
        .replaceAll('runs/experiments', path.join(d, 'experiments'))
        .concat(line.includes(' init ') ? ` --overrides ${tiny} --root ${path.join(d, 'runs')}` : '');
      const r = await sh(`nice -n 5 ${cmd}`);
      assert.equal(r.code, 0, `${cmd}\n${r.stdout}\n${r.stderr}`);
      out[line.split(' ')[2]] = r;
    }
    // the file init wrote is the one the page shows (with the test's profile, root and tiny overrides)
    const shown = JSON.parse(/What `init` wrote[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)![1]);
    const written = JSON.parse(fs.readFileSync(path.join(d, 'experiments', 'threshold.json'), 'utf8'));
    assert.deepEqual(
      { ...written, root: undefined, overrides: undefined },
      { ...shown, profile: 'smoke', root: undefined, overrides: undefined },
    );
    assert.match(out.list.stdout, /\n6 runs\n$/);
    assert.match(out.status.stdout, /\[sweep threshold\] 6 runs: 6 done/);
    // every run recorded the options it took
    const config = (cell: string, seed: number) =>
      JSON.parse(fs.readFileSync(path.join(d, 'runs', 'S', 'rlcer', cell, `seed-${seed}`, 'config.json'), 'utf8'));
    assert.equal(config('threshold=0.4', 1).rlcer.threshold, 0.4);
    assert.equal(config('baseline', 1).rlcer.threshold, 0.2);
    assert.equal(config('baseline', 0).rlcer.prompts, 2);
    // the tables, with the verdicts' legend beside them; 2 seeds detect nothing, and power.csv says so
    const tables = path.join(d, 'experiments', 'threshold');
    const claims = readCsv(path.join(tables, 'claims.csv'));
    assert.deepEqual(
      claims.map((r) => [r.knob, String(r.level), r.claim, r.seeds]),
      [
        ['threshold', '0.2', 'rlcer_minus_rlvr', 2],
        ['threshold', '0.4', 'rlcer_minus_rlvr', 2],
      ],
    );
    assert.ok(claims.every((r) => ['helps', 'hurts', 'unclear'].includes(String(r.verdict))));
    assert.ok(readCsv(path.join(tables, 'power.csv')).every((r) => r.detects_0_03 !== 'yes')); // '' where sd is 0
    assert.ok(readCsv(path.join(tables, 'table.csv')).length > 0 && fs.existsSync(path.join(tables, 'pooled.csv')));
    assert.match(fs.readFileSync(path.join(tables, 'README.md'), 'utf8'), /`unclear` when it covers 0/);
    const figures = fs.readdirSync(path.join(tables, 'figures')).sort();
    for (const f of [
      'index.html',
      'sweep_threshold_knobs.png',
      'sweep_threshold_knobs.svg',
      'sweep_threshold_map.html',
    ])
      assert.ok(figures.includes(f), `${f} in ${figures.join(', ')}`);
    // the axes name the knob (a rubric option, not a world setting)
    const map = fs.readFileSync(path.join(tables, 'figures', 'sweep_threshold_map.js'), 'utf8');
    assert.match(map, /"text":"threshold \(baseline, then each level\)"/);
    assert.doesNotMatch(map, /world cell/);
    fs.rmSync(d, { recursive: true, force: true });
  });
});
