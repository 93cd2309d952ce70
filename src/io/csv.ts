// CSV text as RFC 4180 reads it: cells separated by commas, records ended by CRLF or LF (the last may be left
// unended); a cell in double quotes may hold commas, line breaks and quotes (doubled). A quote inside an unquoted
// cell, text after a closing quote and a quoted cell never closed are refused, naming the line. An empty line is no
// record (a blank or a trailing line). A lone CR outside quotes is part of its cell, as RFC 4180 breaks lines on CRLF.

/** A CSV syntax error: `line` is the 1-based line of the text where the parse stopped. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    what: string,
  ) {
    super(`line ${line}: ${what}`);
    this.name = 'CsvSyntaxError';
  }
}

/** CSV text -> its records of cells (strings, unquoted), per RFC 4180. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const n = text.length;
  let cells: string[] = [],
    cur = '',
    line = 1,
    i = 0,
    cellStart = true;
  const endRecord = () => {
    cells.push(cur);
    if (cells.length > 1 || cells[0] !== '') records.push(cells);
    cells = [];
    cur = '';
    cellStart = true;
  };
  while (i < n) {
    const ch = text[i];
    if (cellStart && ch === '"') {
      const opened = line;
      i++;
      for (;;) {
        if (i >= n) throw new CsvSyntaxError(opened, 'a quoted cell is never closed');
        const c = text[i];
        if (c === '"') {
          if (text[i + 1] === '"') {
            cur += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n') line++;
        cur += c;
        i++;
      }
      if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        throw new CsvSyntaxError(line, 'text after the closing quote of a quoted cell (quote the whole cell)');
      }
      cellStart = false;
    } else if (ch === ',') {
      cells.push(cur);
      cur = '';
      cellStart = true;
      i++;
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      endRecord();
      i += ch === '\n' ? 1 : 2;
      line++;
    } else if (ch === '"') {
      throw new CsvSyntaxError(line, 'a quote inside an unquoted cell (quote the whole cell, doubling its quotes)');
    } else {
      cur += ch;
      cellStart = false;
      i++;
    }
  }
  if (cur !== '' || cells.length || !cellStart) endRecord();
  return records;
}
