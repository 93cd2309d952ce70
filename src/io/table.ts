// Tidy tables as CSV, written atomically (temp file + rename): an interrupted run never leaves half a table.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../util/validate.js';
import { CsvSyntaxError, parseCsv } from './csv.js';

export type Cell = number | string | boolean;
export type Row = Record<string, Cell>;

/** Write `text` to `file` atomically, creating parent folders. */
export function writeFileAtomic(file: string, text: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, text);
  injectFault(file);
  fs.renameSync(tmp, file);
}

// Fault injection for the resume tests: WORKBENCH_KILL_BEFORE_RENAME=<file name>:<n> makes the process SIGKILL itself
// when its n-th atomic write of a file of that name has reached the temporary file but not been renamed.
const killAt = /^(.+):(\d+)$/.exec(process.env.WORKBENCH_KILL_BEFORE_RENAME ?? '');
let faultWrites = 0;
function injectFault(file: string): void {
  if (killAt && path.basename(file) === killAt[1] && ++faultWrites === Number(killAt[2]))
    process.kill(process.pid, 'SIGKILL');
}

function formatCell(v: Cell): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`refusing to write a non-finite number (${v}) to a table`);
    return String(v);
  }
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: Row[], columns: string[] = rows.length ? Object.keys(rows[0]) : []): string {
  const lines = [columns.map(formatCell).join(',')];
  for (const r of rows) {
    lines.push(
      columns
        .map((c) => {
          if (!(c in r)) throw new Error(`row is missing column "${c}": ${JSON.stringify(r)}`);
          return formatCell(r[c]);
        })
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

export function writeCsv(file: string, rows: Row[], columns?: string[]): void {
  writeFileAtomic(file, toCsv(rows, columns));
}

/**
 * Read a CSV table (RFC 4180: src/io/csv.ts; LF or CRLF line ends); numeric-looking cells become numbers. A missing,
 * empty, ragged or malformed file is a ConfigError naming it (one line, exit 2).
 */
export function readCsv(file: string): Row[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file} cannot be read: ${(e as Error).message}`);
  }
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new ConfigError(`${file}: ${e.message}`);
    throw e;
  }
  if (records.length === 0) throw new ConfigError(`${file} is empty (no header)`);
  const header = records[0];
  return records.slice(1).map((cells, i) => {
    if (cells.length !== header.length) {
      throw new ConfigError(`${file}: row ${i + 1} has ${cells.length} cells, header has ${header.length}`);
    }
    const r: Row = {};
    header.forEach((h, j) => {
      const s = cells[j];
      r[h] = s !== '' && !Number.isNaN(Number(s)) ? Number(s) : s;
    });
    return r;
  });
}
