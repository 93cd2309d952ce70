// The CSV reader (src/io/csv.ts, RFC 4180) by hand, readCsv on CRLF and malformed files, and every committed CSV read
// the same as by the reader it replaced (kept below, frozen, as the reference).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CsvSyntaxError, parseCsv } from '../src/io/csv.js';
import { readCsv, toCsv } from '../src/io/table.js';
import { ConfigError } from '../src/util/validate.js';

/** The reader before RFC 4180 (src/io/table.ts until 2026-12): quotes toggled anywhere, records split on LF alone. */
function previousReader(text: string): string[][] {
  const records: string[][] = [];
  let cells: string[] = [],
    cur = '',
    quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cur);
      cur = '';
    } else if (ch === '\n') {
      cells.push(cur);
      records.push(cells);
      cells = [];
      cur = '';
    } else cur += ch;
  }
  if (cur !== '' || cells.length) {
    cells.push(cur);
    records.push(cells);
  }
  return records.filter((r) => r.length > 1 || r[0] !== '');
}

const syntaxError = (line: number, what: RegExp) => (e: unknown) =>
  e instanceof CsvSyntaxError && e.line === line && what.test(e.message) && e.message.startsWith(`line ${line}: `);

describe('CSV (RFC 4180)', () => {
  it('cells: plain, quoted with commas, doubled quotes and line breaks (LF and CRLF inside), empty ones', () => {
    assert.deepEqual(parseCsv('a,b,c\n1,"x,y","say ""hi"""\n'), [
      ['a', 'b', 'c'],
      ['1', 'x,y', 'say "hi"'],
    ]);
    assert.deepEqual(parseCsv('a,b\n"two\nlines","crlf\r\nin quotes"\n'), [
      ['a', 'b'],
      ['two\nlines', 'crlf\r\nin quotes'],
    ]);
    assert.deepEqual(parseCsv('a,b,c\n,"",\n'), [
      ['a', 'b', 'c'],
      ['', '', ''],
    ]);
    assert.deepEqual(parseCsv(' a , b \n'), [[' a ', ' b ']], 'spaces belong to the cell');
  });

  it('line ends: CRLF, LF, mixed, none after the last record; empty lines are no records', () => {
    assert.deepEqual(parseCsv('claim,verdict\r\nx,reproduced\r\n'), [
      ['claim', 'verdict'],
      ['x', 'reproduced'],
    ]);
    assert.deepEqual(parseCsv('a,b\r\n1,2\n3,4'), [
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    assert.deepEqual(parseCsv('a\n\n1\r\n\r\n2\n'), [['a'], ['1'], ['2']]);
    assert.deepEqual(parseCsv('a,b\n1,\n'), [
      ['a', 'b'],
      ['1', ''],
    ]);
    assert.deepEqual(parseCsv('a,"b"'), [['a', 'b']]);
    assert.deepEqual(parseCsv(''), []);
    assert.deepEqual(parseCsv('a\rb,c\n'), [['a\rb', 'c']], 'a lone CR is no line end');
  });

  it('refuses a quoted cell never closed, a quote inside an unquoted cell, text after a closing quote, naming the line', () => {
    assert.throws(() => parseCsv('a,b\n1,"open\nstill open\n'), syntaxError(2, /never closed/));
    assert.throws(() => parseCsv('a,b\n1,x"y\n'), syntaxError(2, /quote inside an unquoted cell/));
    assert.throws(() => parseCsv('a,b\n"x\ny"z,1\n'), syntaxError(3, /after the closing quote/));
  });

  it('readCsv: a CRLF file gives headers without CR; a malformed file is a one-line ConfigError naming it', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-csv-')),
      f = path.join(d, 'claims.csv');
    fs.writeFileSync(f, 'claim,delta,verdict\r\nrlcer beats rlvr,-0.023,inconclusive\r\n');
    const rows = readCsv(f);
    assert.deepEqual(Object.keys(rows[0]), ['claim', 'delta', 'verdict']);
    assert.deepEqual(rows, [{ claim: 'rlcer beats rlvr', delta: -0.023, verdict: 'inconclusive' }]);
    fs.writeFileSync(f, 'a,b\n1,"x\n');
    assert.throws(
      () => readCsv(f),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith(`${f}: line 2: `) && !e.message.includes('\n'),
    );
  });

  it('toCsv quotes a cell with a CR, so that it reads back whole', () => {
    const rows = [{ a: 'x\r', b: 'y\r\nz', c: 1 }];
    assert.equal(toCsv(rows), 'a,b,c\n"x\r","y\r\nz",1\n');
    assert.deepEqual(parseCsv(toCsv(rows)), [
      ['a', 'b', 'c'],
      ['x\r', 'y\r\nz', '1'],
    ]);
  });

  it('every committed CSV reads the same as with the reader it replaced', function () {
    this.timeout(120_000);
    const files = execFileSync('git', ['ls-files', '-z', '*.csv'], { encoding: 'utf8', maxBuffer: 1 << 26 })
      .split('\0')
      .filter((f) => f !== '' && fs.existsSync(f));
    assert.ok(files.length > 1000, `only ${files.length} committed CSVs found`);
    const differ = files.filter((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return JSON.stringify(parseCsv(text)) !== JSON.stringify(previousReader(text));
    });
    assert.deepEqual(differ, []);
  });
});
