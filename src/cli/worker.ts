// A long-lived run process of the local job pool (src/io/jobs.ts, RunWorker): it takes runs in turn over its IPC
// channel, `{ args: ['src/cli/table2-run.ts', ...flags], log }`, runs each in this process as a fresh
// `tsx src/cli/table2-run.ts ...flags` would, and answers `{ code, bytes }`: the exit status that process would have
// had, and the bytes of tensors this process holds after the run (the run's own are disposed).
// What it keeps from one run to the next only saves time: the TensorFlow library and backend, the graphs loaded into
// its sessions (src/models/decode-graph.ts), the compiled modules. What a fresh process would start without is reset
// before each run: process.env and process.argv as they were when the worker started (argv naming the run's script),
// process.exitCode, tfjs's variables and the counter that names them (resetVariables); after each run its tensors
// and variables are disposed. Each run's output (console, and any
// process.stdout/stderr write) goes to its log, as a fresh process's would; output written past Node's streams
// (TensorFlow's own logging) reaches the pool, which adds it to the current run's log. The records are the fresh
// process's byte for byte (test/worker.test.ts). The worker ends when the pool closes the channel, after its run.
// Usage (by the pool, never by hand): tsx src/cli/worker.ts, with an IPC channel
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resetVariables, tf } from '../models/backend.js';
import { mainStatus } from '../io/args.js';
import { table2Run } from './table2-run.js';
import { TABLE2_RUN } from './run-checks.js';

/** The run scripts a worker runs in this process, by the path the pool's jobs name them by. */
const RUNS: Record<string, (argv: string[]) => Promise<void>> = { [TABLE2_RUN]: table2Run };

interface Request {
  args: string[];
  log: string;
}

const startEnv = { ...process.env },
  startArgv = [...process.argv];

/** process.env as it was when the worker started: keys a run added removed, changed ones put back. */
function resetEnv(): void {
  for (const k of Object.keys(process.env)) if (!(k in startEnv)) delete process.env[k];
  Object.assign(process.env, startEnv);
}

/** Node's stdout and stderr writes into `fd` until undone (synchronously, as a fresh process's into its log file). */
function redirect(fd: number): () => void {
  const streams = [process.stdout, process.stderr],
    writes = streams.map((s) => s.write);
  for (const s of streams)
    s.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk === 'string') fs.writeSync(fd, chunk);
      else fs.writeSync(fd, chunk);
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof s.write;
  return () => streams.forEach((s, i) => (s.write = writes[i]));
}

/** One run: its exit status as a fresh process's (mainStatus, then any process.exitCode it set). */
async function runOne({ args, log }: Request): Promise<number> {
  const [script, ...argv] = args;
  const entry = RUNS[script];
  const fd = fs.openSync(log, 'a');
  const restore = redirect(fd);
  resetEnv();
  process.argv = [startArgv[0], path.resolve(script), ...argv];
  process.exitCode = undefined;
  resetVariables();
  tf.engine().startScope();
  try {
    if (!entry) {
      console.error(`error: the worker runs ${Object.keys(RUNS).join(', ')}, not ${script}`);
      return 2;
    }
    const status = await mainStatus(() => entry(argv));
    return status || Number(process.exitCode ?? 0);
  } finally {
    tf.engine().endScope();
    resetVariables();
    process.exitCode = undefined;
    restore();
    fs.closeSync(fd);
  }
}

if (process.argv[1]?.endsWith('worker.ts') && process.argv[1].includes('cli')) {
  if (!process.send) {
    console.error('error: src/cli/worker.ts is started by the job pool (src/io/jobs.ts), with an IPC channel');
    process.exit(2);
  }
  let busy = false,
    closed = false;
  process.on('disconnect', () => {
    closed = true;
    if (!busy) process.exit(0);
  });
  process.on('message', (m: Request) => {
    busy = true;
    void runOne(m).then((code) => {
      busy = false;
      if (closed) process.exit(0);
      process.send!({ code, bytes: tf.memory().numBytes });
    });
  });
}
