// `make bench-quick`: where the quick profile's time goes. Runs `make reproduce-table2` afresh (its scratch outputs,
// runs/table2/quick and runs/results/quick, are removed first), times the runs and the report apart (wall, and the CPU
// seconds of every process below them, from bash's `times`), then reads the finished runs' records: each run's seconds
// inside its process (done.json) and the step parts its trainer timed (metrics.jsonl: sampling, the rubricator, the
// judge, the update). Written to results/bench/quick.csv, one row per part, in core-seconds (CPU seconds of the
// processes; the parts timed inside a run are its wall time on its own core: one thread each). What no record times (process start,
// loading, the orchestrator, the report) is the CPU total less the runs' own seconds. Speed only: the runs are the
// quick profile's, and their tables are still compared with the committed reference. --workers no times the pool with
// a process per run (the pool's escape from its long-lived workers), recorded in the table's workers column.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs, runMain } from '../io/args.js';
import { RunFailure } from '../util/validate.js';
import { writeCsv, type Row } from '../io/table.js';

const PARTS = ['sample', 'rubric', 'judge', 'update'] as const;

/** Wall seconds and children's CPU seconds (user, sys) of one shell command, its output to `log`. */
function timed(command: string, log: string): { wall: number; user: number; sys: number } {
  const t0 = Date.now();
  // `times` prints the shell's own line, then its children's: "<m>m<s>s <m>m<s>s"
  const r = spawnSync('bash', ['-c', `(${command}) > ${log} 2>&1; rc=$?; times; exit $rc`], { encoding: 'utf8' });
  const wall = (Date.now() - t0) / 1000;
  if (r.status !== 0) throw new RunFailure(`"${command}" failed (exit ${r.status}): see ${log}`);
  const secs = (t: string) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    if (!m) throw new RunFailure(`unexpected output of bash's times: "${t}"`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  const [user, sys] = r.stdout.trim().split('\n').at(-1)!.trim().split(/\s+/).map(secs);
  return { wall, user, sys };
}

/** The finished runs' own seconds and the step parts their trainers timed, summed over runs. */
export function runSeconds(root: string): { runs: number; inProcess: number; parts: Record<string, number> } {
  const parts: Record<string, number> = Object.fromEntries(PARTS.map((p) => [p, 0]));
  let runs = 0,
    inProcess = 0;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'done.json') {
        runs++;
        inProcess += JSON.parse(fs.readFileSync(p, 'utf8')).seconds;
        const m = path.join(dir, 'metrics.jsonl');
        if (!fs.existsSync(m)) continue;
        for (const line of fs.readFileSync(m, 'utf8').split('\n').filter(Boolean)) {
          const r = JSON.parse(line) as Record<string, number>;
          for (const k of PARTS) parts[k] += (r[`${k}_ms`] ?? 0) / 1000;
        }
      }
    }
  };
  walk(root);
  return { runs, inProcess, parts };
}

runMain(async () => {
  if (!/bench-quick\.ts$/.test(process.argv[1] ?? '')) return; // imported (the tests), not run
  const a = parseArgs(process.argv.slice(2), {
    out: { help: 'the CSV written', default: 'results/bench/quick.csv' },
    logs: { help: 'where the two logs go', default: 'runs/bench-quick' },
    workers: { help: "the pool's --workers: yes (long-lived workers), no (a process per run)", default: 'yes' },
  });
  fs.rmSync('runs/table2/quick', { recursive: true, force: true });
  fs.rmSync('runs/results/quick', { recursive: true, force: true });
  fs.mkdirSync(a.logs, { recursive: true });
  const load0 = os.loadavg()[0];
  const runs = timed(
    `./node_modules/.bin/tsx src/cli/table2.ts --profile quick --workers ${a.workers}`,
    `${a.logs}/runs.log`,
  );
  const report = timed('make --no-print-directory table2-report', `${a.logs}/report.log`);
  const s = runSeconds('runs/table2/quick');
  const cpu = runs.user + runs.sys + report.user + report.sys;
  const stepParts = PARTS.reduce((t, k) => t + s.parts[k], 0);
  const r2 = (x: number) => Math.round(x * 10) / 10;
  const rows: Row[] = [
    { part: 'total', wall_s: r2(runs.wall + report.wall), core_s: r2(cpu) },
    { part: 'runs', wall_s: r2(runs.wall), core_s: r2(runs.user + runs.sys) },
    { part: 'runs: user', wall_s: '', core_s: r2(runs.user) },
    { part: 'runs: sys', wall_s: '', core_s: r2(runs.sys) },
    { part: 'report', wall_s: r2(report.wall), core_s: r2(report.user + report.sys) },
    ...PARTS.map((k) => ({ part: `steps: ${k}`, wall_s: '', core_s: r2(s.parts[k]) })),
    { part: 'runs: the rest inside the processes', wall_s: '', core_s: r2(s.inProcess - stepParts) },
    { part: 'runs: outside the timed part of each run', wall_s: '', core_s: r2(runs.user + runs.sys - s.inProcess) },
  ].map((r) => ({
    ...r,
    runs: s.runs,
    load_average_start: r2(load0),
    load_average_end: r2(os.loadavg()[0]),
    workers: a.workers,
  }));
  writeCsv(a.out, rows);
  for (const r of rows)
    console.log(`${String(r.part).padEnd(42)} wall ${String(r.wall_s).padStart(6)}  core-s ${r.core_s}`);
  console.log(`[bench-quick] ${s.runs} runs -> ${a.out}; the report: ${a.logs}/report.log`);
});
