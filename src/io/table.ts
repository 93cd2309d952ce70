// Tidy tables as CSV, written atomically (temp file + rename): an interrupted run never leaves half a table.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Cell = number | string | boolean;
export type Row = Record<string, Cell>;

/** Write `text` to `file` atomically, creating parent folders. */
export function writeFileAtomic(file: string, text: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function formatCell(v: Cell): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`refusing to write a non-finite number (${v}) to a table`);
    return String(v);
  }
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: Row[], columns: string[] = rows.length ? Object.keys(rows[0]) : []): string {
  const lines = [columns.join(',')];
  for (const r of rows) {
    lines.push(columns.map((c) => {
      if (!(c in r)) throw new Error(`row is missing column "${c}": ${JSON.stringify(r)}`);
      return formatCell(r[c]);
    }).join(','));
  }
  return lines.join('\n') + '\n';
}

export function writeCsv(file: string, rows: Row[], columns?: string[]): void {
  writeFileAtomic(file, toCsv(rows, columns));
}

/** Split one CSV line, honouring double quotes. */
function splitLine(line: string): string[] {
  const out: string[] = [];
  let cur = '', quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out;
}

/** Read a CSV written by writeCsv; numeric-looking cells become numbers. */
export function readCsv(file: string): Row[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  if (lines.length === 0) throw new Error(`${file} is empty (no header)`);
  const header = splitLine(lines[0]);
  return lines.slice(1).map((l, i) => {
    const cells = splitLine(l);
    if (cells.length !== header.length) throw new Error(`${file}:${i + 2} has ${cells.length} cells, header has ${header.length}`);
    const r: Row = {};
    header.forEach((h, j) => {
      const s = cells[j];
      r[h] = s !== '' && !Number.isNaN(Number(s)) ? Number(s) : s;
    });
    return r;
  });
}
