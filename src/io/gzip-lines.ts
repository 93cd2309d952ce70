// Append-only gzipped JSON-lines logs: each append writes one gzip member (concatenated members are one valid gzip
// stream, read back whole by gunzip and by readGzipLines), so an interrupted run keeps every batch it finished.
import * as fs from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

/** Append lines (without newlines) to a gzipped log as one gzip member; nothing is written for no lines. */
export function appendGzipLines(file: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  fs.appendFileSync(file, gzipSync(Buffer.from(lines.map((l) => l + '\n').join(''), 'utf8'), { level: 9 }));
}

/** Every line of a gzipped log (all its members), without empty lines; a torn last member is dropped. */
export function readGzipLines(file: string): string[] {
  const buf = fs.readFileSync(file);
  let text: string;
  try {
    text = gunzipSync(buf).toString('utf8');
  } catch {
    // a member cut by a kill: keep the members before it
    text = '';
    let at = 0;
    while (at < buf.length) {
      let next = buf.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), at + 1);
      if (next < 0) next = buf.length;
      try {
        text += gunzipSync(buf.subarray(at, next)).toString('utf8');
      } catch {
        break;
      }
      at = next;
    }
  }
  return text.split('\n').filter((l) => l !== '');
}
