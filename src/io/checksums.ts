// Content checksums of committed records: a SHA256SUMS file (sha256sum's format: "<hex>  <name>") beside the files it
// covers, written when a run's record is archived and verified whenever the record is read, so a truncated or
// corrupted table is named in one line instead of being aggregated. Records without the file (older ones) are read
// as they are.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError } from '../util/validate.js';

export const SUMS_FILE = 'SHA256SUMS';

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Write SHA256SUMS in `dir` for `files` (names in dir) and for files still to come (`pending`: name -> bytes). */
export function writeSums(dir: string, files: string[], pending: Record<string, Buffer> = {}): void {
  const bytes = (f: string) => pending[f] ?? fs.readFileSync(path.join(dir, f));
  const lines = [...new Set([...files, ...Object.keys(pending)])].sort().map((f) => `${sha256Hex(bytes(f))}  ${f}`);
  fs.writeFileSync(path.join(dir, SUMS_FILE), lines.join('\n') + '\n');
}

/** Check every file SHA256SUMS lists in `dir` (nothing to check without one); a ConfigError names the first bad file. */
export function verifySums(dir: string): void {
  const sums = path.join(dir, SUMS_FILE);
  if (!fs.existsSync(sums)) return;
  for (const line of fs.readFileSync(sums, 'utf8').split('\n')) {
    if (!line) continue;
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!m) throw new ConfigError(`${sums} has a malformed line: "${line.slice(0, 80)}"`);
    const file = path.join(dir, m[2]);
    if (!fs.existsSync(file)) throw new ConfigError(`${file} is missing (listed in ${sums})`);
    if (sha256Hex(fs.readFileSync(file)) !== m[1])
      throw new ConfigError(`${file} does not match its checksum in ${sums} (truncated or changed)`);
  }
}
