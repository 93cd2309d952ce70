// analysis/verdict-diff.ts by hand: a regenerated table whose numbers moved in their last digits moves no verdict; a
// changed text cell (a verdict, a yes/no) is reported with its row and column; a changed shape is not compared.
import { strict as assert } from 'node:assert';
import { diffTable } from '../analysis/verdict-diff.js';

describe('verdict diff (analysis/verdict-diff.ts)', () => {
  const before = 'claim,delta,ci_low,verdict,detects\na,0.1,-0.0101,inconclusive,no\nb,-0.2,-0.3,hurts,yes\n';
  it('numbers that moved count as numeric changes, with the largest absolute and relative change', () => {
    const after = 'claim,delta,ci_low,verdict,detects\na,0.1,-0.0100884,inconclusive,no\nb,-0.2,-0.3,hurts,yes\n';
    const d = diffTable('t.csv', before, after);
    assert.equal(d.shape, '');
    assert.equal(d.numericChanged, 1);
    assert.ok(Math.abs(d.maxAbsolute - 0.0000116) < 1e-12);
    assert.ok(Math.abs(d.maxRelative - 0.0000116 / 0.0101) < 1e-12);
    assert.deepEqual(d.moved, []);
  });
  it('a moved verdict or yes/no is listed (row from 1, column, before, after)', () => {
    const after = 'claim,delta,ci_low,verdict,detects\na,0.1,0.001,helps,no\nb,-0.2,-0.3,hurts,no\n';
    const d = diffTable('t.csv', before, after);
    assert.equal(d.numericChanged, 1);
    assert.deepEqual(d.moved, [
      { row: 1, column: 'verdict', before: 'inconclusive', after: 'helps' },
      { row: 2, column: 'detects', before: 'yes', after: 'no' },
    ]);
    // an empty cell that fills (or empties) is a text change too
    assert.deepEqual(diffTable('t.csv', 'a,b\n1,\n', 'a,b\n1,0.5\n').moved, [
      { row: 1, column: 'b', before: '', after: '0.5' },
    ]);
  });
  it('another row count or header: not compared cell by cell', () => {
    assert.match(diffTable('t.csv', before, 'claim,delta\na,0.1\n').shape, /rows 2 -> 1, header differs/);
    assert.equal(diffTable('t.csv', 'a\n1\n', 'a\n1\n2\n').shape, 'rows 1 -> 2, header same');
  });
});
