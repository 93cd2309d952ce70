// The main job's check against references kept per processor (analysis/reference-check.ts, docs/testing.md): byte for
// byte on a processor with its own fresh reference; elsewhere a tolerance check that passes the other known
// processor's honest runs and fails an engine that does not learn, learns at another rate or computes wrong numbers.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import {
  adoptReference,
  checkAgainstReferences,
  firstDifference,
  listReferences,
  MATCHED_STEPS,
  readRunMetrics,
  structureDifferences,
  toleranceCheck,
} from '../analysis/reference-check.js';
import type { Processor } from '../src/util/machine.js';

const ROOT = 'results/references';
const AMD = 'results/references/quick/AuthenticAMD-25-1-avx2+fma+avx',
  INTEL = 'results/references/quick/GenuineIntel-unrecorded';
// both processors' references of one generation (the first; the same code on each), kept as they were committed: the
// evidence that the tolerance check passes another processor's honest runs, whichever references are fresh today
const GEN1 = 'test/fixtures/references-gen1',
  AMD1 = `${GEN1}/quick/AuthenticAMD-25-1-avx2+fma+avx`,
  INTEL1 = `${GEN1}/quick/GenuineIntel-unrecorded`;
const proc = (key: string): Processor => ({ name: key, vendor: key, family: '1', model: '2', isa: 'avx2', key });
/** A scratch folder holding a copy of `dir`'s tables and runs (to sabotage). */
function copyOf(dir: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'refcheck-'));
  fs.cpSync(dir, d, { recursive: true });
  return d;
}
/** Rewrite every run's metrics.jsonl under `dir` through `f` (step index, metrics). */
function sabotage(dir: string, f: (s: number, m: Record<string, unknown>) => Record<string, unknown>) {
  for (const run of Object.keys(readRunMetrics(dir))) {
    const file = path.join(dir, run, 'metrics.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    fs.writeFileSync(file, `${lines.map((l, s) => JSON.stringify(f(s, JSON.parse(l)))).join('\n')}\n`);
  }
}

describe('references per processor', () => {
  it('each committed quick reference names its processor key; the fresh ones are the newest generation', () => {
    const refs = listReferences('quick', ROOT);
    assert.ok(refs.length >= 2);
    const newest = Math.max(...refs.map((r) => r.info.generation));
    assert.ok(refs.some((r) => r.fresh));
    for (const r of refs) {
      assert.equal(path.basename(r.dir), r.info.key);
      assert.equal(r.fresh, r.info.generation === newest, `${r.info.key}: generation ${r.info.generation}`);
    }
    // the first generation's pair: both fresh then
    assert.deepEqual(
      listReferences('quick', GEN1).map((r) => [r.info.generation, r.fresh]),
      [
        [1, true],
        [1, true],
      ],
    );
  });
  it("the other known processor's honest runs pass the tolerance check, both ways (one generation)", () => {
    assert.deepEqual(toleranceCheck(`${AMD1}/tables`, `${AMD1}/runs`, INTEL1), []);
    assert.deepEqual(toleranceCheck(`${INTEL1}/tables`, `${INTEL1}/runs`, AMD1), []);
    // across generations (another PPO by default) they do not
    assert.notDeepEqual(toleranceCheck(`${AMD1}/tables`, `${AMD1}/runs`, AMD), []);
  });
  it('on its own processor the match is byte for byte, and a moved table fails it', () => {
    const amd = proc('AuthenticAMD-25-1-avx2+fma+avx');
    assert.equal(checkAgainstReferences('quick', `${AMD}/tables`, `${AMD}/runs`, amd, ROOT).ok, true);
    // the Intel tables on the AMD key: byte for byte, so they fail there although they pass the tolerance check
    const r = checkAgainstReferences('quick', `${INTEL}/tables`, `${INTEL}/runs`, amd, ROOT);
    assert.equal(r.ok, false);
    assert.match(r.lines[r.lines.length - 1], /does NOT match this processor's reference/);
  });
  it('a processor with no reference gets the tolerance check, and says so on its last line', () => {
    const r = checkAgainstReferences('quick', `${AMD}/tables`, `${AMD}/runs`, proc('Other-1-2-avx2'), ROOT);
    assert.equal(r.ok, true);
    assert.match(r.lines[r.lines.length - 1], /^passes the tolerance check .*no reference was made on this processor/);
  });
  describe('a sabotaged engine fails the tolerance check', () => {
    const broken = (f: (s: number, m: Record<string, unknown>) => Record<string, unknown>) => {
      const d = copyOf(AMD1);
      sabotage(path.join(d, 'runs'), f);
      return toleranceCheck(path.join(d, 'tables'), path.join(d, 'runs'), INTEL1);
    };
    it('a policy that never updates (learning rate 0: no approx. KL, the cold start sampled every step)', () => {
      const p = broken((_s, m) => ({ ...m, 'reason/approx_kl': 0, 'policy/approx_kl': 0 }));
      assert.ok(p.length > 0 && p.some((x) => /approx_kl/.test(x)), p.join('\n'));
    });
    it('a kernel that returns wrong numbers (every loss and norm off by 1%)', () => {
      const p = broken((_s, m) =>
        Object.fromEntries(
          Object.entries(m).map(([k, v]) => [k, /loss|grad_norm/.test(k) && typeof v === 'number' ? v * 1.01 : v]),
        ),
      );
      assert.ok(p.length > 0, 'the check passed wrong numbers');
    });
    it('a policy whose samples part from the reference at step 1 (another learning rate)', () => {
      const p = broken((s, m) => (s === 1 ? { ...m, response_length: Number(m.response_length) + 1 / 128 } : m));
      assert.ok(
        p.some((x) => /step 1 response_length/.test(x)),
        p.join('\n'),
      );
    });
    it('a run that stops early, and a table whose rows changed', () => {
      const d = copyOf(AMD1);
      const run = Object.keys(readRunMetrics(path.join(d, 'runs')))[0];
      fs.writeFileSync(path.join(d, 'runs', run, 'metrics.jsonl'), '');
      const t = path.join(d, 'tables', 'table2.csv');
      fs.writeFileSync(t, fs.readFileSync(t, 'utf8').replace(/\n[^\n]*\n$/, '\n'));
      const p = toleranceCheck(path.join(d, 'tables'), path.join(d, 'runs'), INTEL1);
      assert.ok(
        p.some((x) => x.startsWith(`${run}: step 0 (steps)`)),
        p.join('\n'),
      );
      assert.ok(
        p.some((x) => /^table2\.csv: \d+ rows vs \d+/.test(x)),
        p.join('\n'),
      );
    });
  });
  it('firstDifference: counts exactly, other numbers within the tolerance, only the matched steps', () => {
    const m = (acc: number, kl: number) => ({ accuracy: acc, 'reason/approx_kl': kl, update_ms: 5 });
    const want = [m(0.5, 0.01), m(0.5, 0.01), m(0.5, 0.01), m(0.25, 0.01)];
    assert.equal(firstDifference([m(0.5, 0.010005), m(0.5, 0.01), m(0.5, 0.01), m(0.75, 9)], want), null);
    assert.deepEqual(firstDifference([m(0.5, 0.01), m(0.5078125, 0.01)], want), {
      step: 1,
      key: 'accuracy',
      got: 0.5078125,
      want: 0.5,
    });
    assert.equal(firstDifference([m(0.5, 0.0102)], want, 1)?.key, 'reason/approx_kl');
    assert.equal(MATCHED_STEPS, 3);
  });
  it('structure: a verdict may differ, a claim may not', () => {
    const d = copyOf(AMD);
    const t = path.join(d, 'tables', 'table2_claims.csv');
    const text = fs.readFileSync(t, 'utf8');
    fs.writeFileSync(t, text.replace(/inconclusive\n/, 'contradicted\n'));
    assert.deepEqual(structureDifferences(path.join(d, 'tables'), `${AMD}/tables`), []);
    fs.writeFileSync(t, text.replace('RLCER beats RLVR', 'RLCER loses to RLVR'));
    assert.equal(structureDifferences(path.join(d, 'tables'), `${AMD}/tables`).length, 1);
  });
  it('adopting: unchanged tables keep the generation; moved ones start a new one and mark the others stale', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'refroot-'));
    fs.cpSync(GEN1, root, { recursive: true });
    const amd = proc('AuthenticAMD-25-1-avx2+fma+avx');
    assert.deepEqual(adoptReference('quick', `${AMD1}/tables`, `${AMD1}/runs`, amd, root), {
      generation: 1,
      stale: [],
    });
    const moved = copyOf(AMD1);
    const t = path.join(moved, 'tables', 'table2.csv');
    fs.writeFileSync(t, fs.readFileSync(t, 'utf8').replace(/0\.5/, '0.6'));
    const r = adoptReference('quick', path.join(moved, 'tables'), path.join(moved, 'runs'), amd, root);
    assert.deepEqual(r, { generation: 2, stale: ['GenuineIntel-unrecorded'] });
    const fresh = listReferences('quick', root).filter((x) => x.fresh);
    assert.deepEqual(
      fresh.map((x) => x.info.key),
      [amd.key],
    );
    // the Intel machine now falls back to the tolerance check against the AMD reference, and says its own is stale
    const intel = { ...proc('GenuineIntel-unrecorded') };
    const c = checkAgainstReferences('quick', `${INTEL1}/tables`, `${INTEL1}/runs`, intel, root);
    assert.match(c.lines[c.lines.length - 1], /this processor's reference \(GenuineIntel-unrecorded\) is stale/);
  });
});

describe('the engine itself, sabotaged, fails the check (3 RLVR steps of the quick profile)', () => {
  /** Run RLVR seed 0 of the quick profile for 3 steps with `overrides`; its per-step metrics. */
  const run = (name: string, overrides: string) =>
    new Promise<Record<string, unknown>[]>((resolve, reject) => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), `refrun-${name}-`));
      const args = ['src/cli/table2-run.ts', '--method', 'rlvr', '--seed', '0', '--profile', 'quick', '--steps', '3'];
      const p = spawn('./node_modules/.bin/tsx', [...args, '--overrides', overrides, '--out', out], {
        stdio: 'ignore',
      });
      p.on('exit', (code) =>
        code === 0 ? resolve(readRunMetrics(out)[''] ?? []) : reject(new Error(`${name} exited ${code}`)),
      );
    });
  it('the honest engine matches the fresh reference; a learning rate of ~0 does not', async function () {
    this.timeout(900_000);
    const fresh = listReferences('quick', ROOT).find((r) => r.fresh)!;
    const want = readRunMetrics(path.join(fresh.dir, 'runs'))['S/rlvr/seed-0'];
    const [honest, frozen] = await Promise.all([
      run('honest', '{}'),
      run('frozen', '{"ppo":{"lr":{"reason":1e-12,"rubric":1e-12,"hint":1e-12}}}'),
    ]);
    assert.equal(firstDifference(honest, want), null);
    const d = firstDifference(frozen, want);
    assert.ok(d !== null, 'a policy that never moves passed the check');
  });
});
