// The main job's check against the committed quick reference: identical tables pass, a changed row is named,
// a table missing from the produced folder is reported, and ignored prefixes (other targets' outputs) are skipped.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compareResults } from '../analysis/compare-results.js';

describe('comparing produced results with the committed reference', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-compare-'));
  const write = (dir: string, f: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, dir, f)), { recursive: true });
    fs.writeFileSync(path.join(root, dir, f), text);
  };
  before(() => {
    for (const d of ['ref', 'same', 'changed']) {
      write(d, 'table2.csv', 'method,mean\nrlvr,0.5\nrlcer,0.4\n');
      write(d, 'figures/t.svg', '<svg/>');
    }
    write('ref', 'corl/table1.csv', 'x\n1\n');
    write('changed', 'table2.csv', 'method,mean\nrlvr,0.5\nrlcer,0.41\n');
  });
  it('passes identical tables and names the first differing row of a changed one', () => {
    const same = compareResults(path.join(root, 'same'), path.join(root, 'ref'), ['corl/']);
    assert.deepEqual([same.differ, same.missing], [[], []]);
    const changed = compareResults(path.join(root, 'changed'), path.join(root, 'ref'), ['corl/']);
    assert.equal(changed.differ.length, 1);
    assert.match(changed.differ[0].detail, /row 2: "rlcer,0.41" vs committed "rlcer,0.4"/);
  });
  it('reports a reference table the run did not produce, unless its prefix is ignored', () => {
    assert.deepEqual(compareResults(path.join(root, 'same'), path.join(root, 'ref')).missing, ['corl/table1.csv']);
  });
  it('with a list of files compares just those: absent on both sides is fine, on one side is missing', () => {
    const only = compareResults(path.join(root, 'changed'), path.join(root, 'ref'), [], ['table2.csv', 'none.csv']);
    assert.deepEqual([only.differ.map((d) => d.file), only.missing, only.same], [['table2.csv'], [], []]);
    const one = compareResults(
      path.join(root, 'same'),
      path.join(root, 'ref'),
      [],
      ['corl/table1.csv', 'figures/t.svg'],
    );
    assert.deepEqual([one.missing, one.same], [['corl/table1.csv'], ['figures/t.svg']]);
  });
});

describe('the committed full Table 2', function () {
  this.timeout(120000);
  // every committed full-profile table is recomputed from the committed run records (what `make verify-results` does)
  it('equals the tables recomputed from the committed run records, byte for byte', async () => {
    const { aggregateTable2 } = await import('../analysis/table2.js');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-verify-full-'));
    aggregateTable2('full', path.join(out, 'no-runs'), out);
    const tables = [
      'table2.csv',
      'ablations.csv',
      'table2_claims.csv',
      'table2_power.csv',
      'rlcer/curves.csv',
      'rlcer/eval_curves.csv',
      'rlcer/hints.csv',
      'rlcer/update_parity.csv',
      'evolm/rubric_evolution.csv',
    ];
    const c = compareResults(out, 'results', [], tables);
    assert.deepEqual([c.differ, c.missing], [[], []], 'tables that differ from their records');
    assert.ok(c.same.includes('table2.csv') && c.same.includes('rlcer/update_parity.csv'));
  });
});

describe('the committed quick reference', function () {
  this.timeout(120000);
  // every committed quick table is recomputed from the committed run records (what `make verify-quick` does)
  it('equals the tables recomputed from the committed run records, byte for byte', async () => {
    const { aggregateTable2 } = await import('../analysis/table2.js');
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-verify-quick-'));
    aggregateTable2('quick', 'results/runs/table2', out);
    const c = compareResults(out, 'results/quick', ['corl/', 'rubicon/', 'figures/']);
    assert.deepEqual(c.differ, [], 'tables that differ from their records');
    assert.deepEqual(c.missing, [], 'committed tables not recomputed');
    assert.ok(c.same.length >= 7, `only ${c.same.length} tables compared`);
  });
});
