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
