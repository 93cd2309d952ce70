// A batch's progress on a terminal: one status line redrawn in place (a bar of finished runs, the batch's elapsed and
// remaining time, the step each running run is at). Where stdout is not a terminal (CI logs, a file, `nohup`), the
// pool prints plain lines instead (src/io/jobs.ts), and JOBS_PLAIN=1 asks for them on a terminal too.
import * as fs from 'node:fs';

/** `[#####...............] 5/20`: finished runs over the batch, `width` characters of bar. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}

/** `17/120` out of a run's latest step line (`... step 17/120 ...`), or `starting` before its first step. */
export function stepOf(line: string): string {
  const m = /\bstep (\d+\/\d+)/.exec(line);
  return m ? m[1] : 'starting';
}

/**
 * The status line: `[name] [####....] 5/20 runs  12.0 min elapsed, about 36.0 min left  |  rlcer S seed 0 17/120`,
 * cut to `columns - 1` characters so that it never wraps (a wrapped line cannot be redrawn in place).
 */
export function statusLine(
  name: string,
  bar: string,
  batch: string,
  running: { label: string; step: string }[],
  columns: number,
): string {
  const runs = running.map((r) => `${r.label} ${r.step}`).join(', ');
  const line = `[${name}] ${bar} runs  ${batch}${runs ? `  |  ${runs}` : ''}`;
  const max = Math.max(10, columns - 1);
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** Whether a pool draws the status line: stdout is a terminal, not CI, and JOBS_PLAIN is not 1. */
export const drawsStatus = (isTTY: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean =>
  Boolean(isTTY) && !env.CI && env.JOBS_PLAIN !== '1';

/** The last `bytes` of a file (a run's log can grow long; its latest step line is near the end). */
export function tail(file: string, bytes = 8192): string {
  if (!fs.existsSync(file)) return '';
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size,
      n = Math.min(size, bytes),
      buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, size - n);
    return buf.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** A status line kept at the bottom of a terminal: `print` writes a plain line above it, `draw` redraws it. */
export class TerminalStatus {
  private shown = '';
  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}
  draw(line: string): void {
    this.shown = line;
    this.out.write(`\r\x1b[2K${line}`);
  }
  print(line: string): void {
    this.out.write(`\r\x1b[2K${line}\n${this.shown}`);
  }
  clear(): void {
    if (this.shown) this.out.write('\r\x1b[2K');
    this.shown = '';
  }
}
