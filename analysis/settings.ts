// Every environment variable the workbench reads, in one registry, and docs/settings.md written from it:
//   tsx analysis/settings.ts           rewrites docs/settings.md
//   tsx analysis/settings.ts --check   rewrites nothing; names what is missing or stale and exits 1
// test/settings.test.ts fails when code reads a variable the registry lacks, when a file reads one without being
// named among its readers, and when docs/settings.md is not what this writes. The reads are found by a scan of the
// sources (`envReads`): TypeScript and JavaScript (`process.env.NAME`, `process.env['NAME']`, `env.NAME` on an
// environment handed in, `{ NAME } = process.env`), Python (`os.environ.get("NAME")`, `os.environ["NAME"]`,
// `os.getenv("NAME")`) and the shell scripts of bin/ and .ci/ (`$NAME` and `${NAME...}` the script does not assign).
// Make's own variables (PROFILE, SEEDS, EXECUTOR, ...) are make's, listed by `make help`, not here.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runMain } from '../src/io/args.js';

export interface Setting {
  name: string;
  /** the value taken when the variable is unset, in words where it is no literal */
  default: string;
  /** what it changes */
  does: string;
  /** the files that read it (test/ files only where nothing else reads it) */
  readers: string[];
}

export interface SettingGroup {
  title: string;
  intro: string;
  settings: Setting[];
}

const ENGINE = 'src/models/engine-settings.ts';
const SETUP = ['bin/setup-native', 'bin/setup-python-clients', 'bin/setup-torch'];

/** The registry: every variable any code of the repository reads, by theme. */
export const SETTINGS: SettingGroup[] = [
  {
    title: 'Engine',
    intro:
      'One typed object, `EngineSettings` (`src/models/engine-settings.ts`), read from the environment in that one ' +
      'file: each CLI builds it once (`engineSettings()`) and hands it to `startEngine`, which starts the backend and ' +
      'describes it as every run records it (`engine` in `config.json`). The kernels ask `kernelVersion()` and ' +
      '`decodeGraphOn()` at each call, the same parsers over the same variables. How each setting was chosen: ' +
      '[engine](engine.md).',
    settings: [
      {
        name: 'TFJS_BACKEND',
        default: 'unset: the first of tensorflow, wasm, cpu that starts',
        does: 'the one tensor backend to use (`tensorflow`, `wasm` or `cpu`); fails when it cannot start',
        readers: [ENGINE],
      },
      {
        name: 'WORKBENCH_KERNELS',
        default: '4 (the newest)',
        does:
          'the kernel generation: 1 reruns the records made before 2026-12-05 bit for bit, 2 those of 2026-12-05 and ' +
          '-06 and the sensitivity campaign, 3 those of 2026-12-06 and -07 before generation 4 (sampling in chunks ' +
          'of decode steps); a run resumes only under its own',
        readers: [ENGINE],
      },
      {
        name: 'WORKBENCH_DECODE_GRAPH',
        default: 'on',
        does:
          "`0` turns off the native backend's graphs (the decode steps, with kernels 2 the prefill and the " +
          "training passes, with kernels 3 the last-position pass and the GRU's recurrence, with kernels 4 the " +
          'sampling in chunks): the eager ops run instead',
        readers: [ENGINE],
      },
      {
        name: 'WORKBENCH_THREADS',
        default: '1',
        does: "the native backend's intra-op and inter-op threads (one process per core in every target)",
        readers: [ENGINE],
      },
      {
        name: 'TF_NUM_INTRAOP_THREADS',
        default: 'WORKBENCH_THREADS',
        does: "TensorFlow's intra-op threads",
        readers: [ENGINE],
      },
      {
        name: 'TF_NUM_INTEROP_THREADS',
        default: 'WORKBENCH_THREADS',
        does: "TensorFlow's inter-op threads",
        readers: [ENGINE],
      },
      {
        name: 'TF_ENABLE_ONEDNN_OPTS',
        default: '1',
        does: "oneDNN's kernels (off, element-wise kernels run about 9x slower on one thread)",
        readers: [ENGINE],
      },
      {
        name: 'TF_DETERMINISTIC_OPS',
        default: '1',
        does: "TensorFlow's deterministic ops (bit-identical reruns)",
        readers: [ENGINE],
      },
      {
        name: 'TF_CPU_ALLOCATOR_USE_BFC',
        default: 'true',
        does: 'the BFC allocator for CPU tensors (keeps freed buffers; changes no number)',
        readers: [ENGINE],
      },
      {
        name: 'TF_CPP_MIN_LOG_LEVEL',
        default: '2',
        does: "TensorFlow's log level (2: errors only)",
        readers: [ENGINE],
      },
    ],
  },
  {
    title: 'Runs, jobs and sweeps',
    intro:
      'The job pool (`src/io/jobs.ts`) that runs every `make reproduce-*` target, its status line, and the ' +
      'sweeps ([sweeps](sweeps.md)).',
    settings: [
      {
        name: 'WORKBENCH_KILL_BEFORE_RENAME',
        default: 'unset',
        does:
          'fault injection for the resume tests: `FILE:N` makes the process SIGKILL itself at its N-th atomic ' +
          'write of a file named FILE, after the temporary file and before the rename',
        readers: ['src/io/table.ts'],
      },
      {
        name: 'WORKBENCH_ALLOW_DIRTY',
        default: 'unset',
        does:
          '`1` (set by `--allow-dirty`): records of a tree with uncommitted changes may be archived under `results/`, ' +
          'and campaigns archiving there may start from one (no campaign sets it)',
        readers: ['src/io/run.ts', 'src/io/args.ts'],
      },
      {
        name: 'JOBS_PROGRESS_S',
        default: '60',
        does: "seconds between the pool's lines on its running jobs (`0` turns them off)",
        readers: ['src/io/jobs.ts'],
      },
      {
        name: 'JOBS_DEADLINE',
        default: 'unset',
        does: 'a date such as `2026-11-29T20:40`: the pool starts no job after it (the running ones finish)',
        readers: ['src/io/jobs.ts'],
      },
      {
        name: 'JOBS_PLAIN',
        default: 'unset',
        does: '`1`: plain progress lines, no redrawn status line',
        readers: ['src/io/progress.ts'],
      },
      {
        name: 'CI',
        default: 'unset',
        does: 'any value: plain progress lines, no redrawn status line',
        readers: ['src/io/progress.ts'],
      },
      {
        name: 'SLURM_JOB_ID',
        default: 'unset (set by Slurm)',
        does:
          'an array task of a sweep: recorded in its status file and in the run lock it takes (with its host and ' +
          'pid), so that another task asks Slurm whether the holder still runs; the same job id in a lock is the ' +
          "task's own earlier attempt (requeued)",
        readers: ['src/io/slurm.ts', 'src/io/executors.ts'],
      },
      {
        name: 'SLURM_ARRAY_JOB_ID',
        default: 'unset (set by Slurm)',
        does: "with SLURM_ARRAY_TASK_ID, the task's `<array job>_<index>`, recorded in its run lock",
        readers: ['src/io/slurm.ts'],
      },
      {
        name: 'SLURM_ARRAY_TASK_ID',
        default: 'unset (set by Slurm)',
        does: 'the sweep index an array task runs (its script passes it to `sweep.ts run --index`); in its run lock',
        readers: ['src/io/slurm.ts'],
      },
      {
        name: 'SLURM_RESTART_COUNT',
        default: '0 (set by Slurm on a requeue)',
        does: 'how often Slurm requeued the task, recorded in its run lock',
        readers: ['src/io/slurm.ts'],
      },
    ],
  },
  {
    title: 'Reward service and its clients',
    intro:
      '`make serve-rewards` and the Python clients of `python/reward_shims.py` ' +
      '([reward service](reward-service.md)).',
    settings: [
      {
        name: 'REWARD_SERVICE_TOKEN',
        default: 'unset',
        does:
          'the service: its shared tokens (comma-separated) where `--token` is not given; a client: the bearer ' +
          'token it sends',
        readers: ['python/reward_shims.py', 'src/cli/serve-rewards.ts'],
      },
      {
        name: 'REWARD_CLIENT_ID',
        default: 'unset',
        does: "a client's `X-Client-Id` header (its own RLCER groups)",
        readers: ['python/reward_shims.py'],
      },
      {
        name: 'REWARD_URL',
        default: 'http://127.0.0.1:5057/get_reward',
        does: 'the URL a client calls',
        readers: ['python/reward_shims.py'],
      },
      {
        name: 'OPENAI_API_KEY',
        default: 'unset',
        does: 'the API key sent to the LLM judge of `--judge-url`',
        readers: ['src/cli/serve-rewards.ts'],
      },
    ],
  },
  {
    title: 'Figures and benchmarks',
    intro: '`make figures`, `make table2-report` and `make bench`.',
    settings: [
      {
        name: 'RESULTS',
        default: 'results',
        does: 'the folder the figures read their tables from',
        readers: ['analysis/make-figures.ts'],
      },
      {
        name: 'FIGURES',
        default: 'results/figures',
        does: 'the folder the figures are written to',
        readers: ['analysis/make-figures.ts'],
      },
      {
        name: 'CHROMIUM_PATH',
        default: '/usr/bin/chromium',
        does: 'the Chromium that exports static figures',
        readers: ['analysis/figures.ts'],
      },
      {
        name: 'TORCH_PYTHON',
        default: '/usr/bin/python3',
        does: "the Python of the PyTorch reference in `make bench` (which sets it to `bin/setup-torch`'s)",
        readers: ['src/cli/bench.ts'],
      },
    ],
  },
  {
    title: 'Setup',
    intro: "`make setup` (`bin/setup` and the scripts it calls) and `make bench`'s PyTorch.",
    settings: [
      {
        name: 'WORKBENCH_CACHE',
        default: '$XDG_CACHE_HOME/rubric-rl-workbench',
        does: "the cache shared by checkouts: the TensorFlow C API, the Python clients' and PyTorch's virtualenvs",
        readers: SETUP,
      },
      {
        name: 'XDG_CACHE_HOME',
        default: '$HOME/.cache',
        does: 'where the cache lies when WORKBENCH_CACHE is unset',
        readers: SETUP,
      },
      {
        name: 'HOME',
        default: "(the user's)",
        does: 'where the cache lies when neither of the two above is set',
        readers: SETUP,
      },
      {
        name: 'WORKBENCH_TF_WHEEL',
        default: "unset: the newest found in pip's local sources",
        does: 'the TensorFlow wheel whose C API the native backend is built against',
        readers: ['bin/setup-native'],
      },
      {
        name: 'WORKBENCH_SKIP_PYTHON_CLIENTS',
        default: 'unset',
        does: "`1` skips the Python clients' environment",
        readers: ['bin/setup-python-clients'],
      },
      {
        name: 'PIP_INDEX_URL',
        default: 'unset',
        does: 'a `file://` index the Python clients install from (offline)',
        readers: ['bin/setup-python-clients'],
      },
      {
        name: 'PIP_EXTRA_INDEX_URL',
        default: 'unset',
        does: 'further `file://` indexes, as PIP_INDEX_URL',
        readers: ['bin/setup-python-clients'],
      },
      {
        name: 'PIP_FIND_LINKS',
        default: 'unset',
        does: 'local wheel folders: the Python clients install from them, the native backend and PyTorch search them',
        readers: ['bin/setup-python-clients', 'bin/wheel-dirs'],
      },
    ],
  },
  {
    title: 'Tests and mutation testing',
    intro:
      '`make test` and `make mutation` ([testing](testing.md), [mutation testing](testing-mutation.md)). The ' +
      'tests also set the variables above to exercise them.',
    settings: [
      {
        name: 'FUZZ_TIMES',
        default: 'unset',
        does: "any value: the fuzz tests print each property's runs and CPU time",
        readers: ['test/fuzz.test.ts'],
      },
      {
        name: 'FAKE_SLEEP_MS',
        default: '0',
        does: "the sweep tests' fake run waits this long before its record",
        readers: ['test/fixtures/sweep-fake-run.ts'],
      },
      {
        name: 'PATH',
        default: "(the shell's)",
        does:
          "where the Slurm executor finds sbatch, squeue and sacct; the Slurm executor's tests put fake " +
          'clients first on it',
        readers: ['test/slurm-executor.test.ts'],
      },
      {
        name: 'FORCE',
        default: 'unset',
        does: 'any value: `make mutation` tests every mutant again (no incremental)',
        readers: ['stryker/static-pass.mjs'],
      },
    ],
  },
];

/** Where the scan looks (from the repository root); folders named node_modules or starting with a dot are skipped. */
export const SCANNED = ['src', 'analysis', 'bin', 'python', 'test', 'stryker', 'bench', '.ci'];

/** The scan's own files, whose patterns and examples are no reads. */
const SCANNER = new Set(['analysis/settings.ts', 'test/settings.test.ts']);

/** Shell variables that are the shell's own, not read from the environment. */
const SHELL_OWN = new Set([
  'PWD',
  'OLDPWD',
  'RANDOM',
  'LINENO',
  'SECONDS',
  'BASH_SOURCE',
  'BASHPID',
  'IFS',
  'UID',
  'EUID',
]);

const allMatches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]);

/** The environment variables a source file reads, by its kind (from its name, and a shebang for the shell). */
export function readsOf(file: string, text: string): string[] {
  const names = new Set<string>();
  if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(file)) {
    for (const n of allMatches(text, /\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(n);
    for (const n of allMatches(text, /\bprocess\.env\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g)) names.add(n);
    for (const n of allMatches(text, /\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(n);
    for (const list of allMatches(text, /\{([^{}]*)\}\s*=\s*process\.env\b/g)) {
      for (const part of list.split(',')) {
        const n = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(part)?.[1];
        if (n) names.add(n);
      }
    }
  } else if (file.endsWith('.py')) {
    for (const n of allMatches(text, /\bos\.environ\.get\(\s*['"]([A-Za-z_]\w*)['"]/g)) names.add(n);
    for (const n of allMatches(text, /\bos\.environ\[\s*['"]([A-Za-z_]\w*)['"]\s*\]/g)) names.add(n);
    for (const n of allMatches(text, /\bos\.getenv\(\s*['"]([A-Za-z_]\w*)['"]/g)) names.add(n);
  } else if (/^#!.*\b(ba)?sh\b/.test(text)) {
    const assigned = new Set([
      ...allMatches(text, /(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+)?([A-Za-z_][A-Za-z0-9_]*)=/gm),
      ...allMatches(text, /\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b/g),
    ]);
    for (const n of allMatches(text, /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
      if (/^[A-Z][A-Z0-9_]*$/.test(n) && !assigned.has(n) && !SHELL_OWN.has(n)) names.add(n);
    }
  }
  return [...names].sort();
}

/** Every source file of the scanned folders, from `root`, sorted. */
export function scannedFiles(root = '.'): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(path.join(root, d))) return;
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
      const p = path.posix.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.') && e.name !== '__pycache__') walk(p);
      } else if (e.isFile()) out.push(p);
    }
  };
  for (const d of SCANNED) walk(d);
  return out.sort();
}

/** Variable -> the files that read it (sorted), over every scanned file. */
export function envReads(root = '.'): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  for (const f of scannedFiles(root).filter((x) => !SCANNER.has(x))) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    if (text.includes('\u0000')) continue; // a binary file
    for (const n of readsOf(f, text)) reads.set(n, [...(reads.get(n) ?? []), f]);
  }
  return new Map([...reads].sort(([a], [b]) => a.localeCompare(b)));
}

/** What the registry lacks against the code: one line per unregistered variable, and per reader left unnamed. */
export function registryGaps(reads: Map<string, string[]>, groups: SettingGroup[] = SETTINGS): string[] {
  const byName = new Map(groups.flatMap((g) => g.settings).map((s) => [s.name, s]));
  const gaps: string[] = [];
  for (const [name, files] of reads) {
    const s = byName.get(name);
    if (!s) {
      gaps.push(`${name} (read by ${files.join(', ')}) is not in the registry (analysis/settings.ts)`);
      continue;
    }
    // a test reads the variables it sets; it is named as a reader only where nothing else reads the variable
    const must = files.some((f) => !f.startsWith('test/')) ? files.filter((f) => !f.startsWith('test/')) : files;
    for (const f of must)
      if (!s.readers.includes(f)) gaps.push(`${name} is read by ${f}, which its registry entry does not name`);
  }
  return gaps;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** A paragraph wrapped at `width` columns, as the reports are written. */
export function wrap(text: string, width = 120): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** docs/settings.md as the registry writes it. */
export function renderSettings(groups: SettingGroup[] = SETTINGS): string {
  const n = groups.reduce((a, g) => a + g.settings.length, 0);
  const lines = [
    '# Settings: every environment variable',
    '',
    ...wrap(
      `The ${n} environment variables the workbench's code reads, with their defaults, what each changes and the files ` +
        'that read it. This file is generated from the registry in `analysis/settings.ts` ' +
        '(`./node_modules/.bin/tsx analysis/settings.ts` rewrites it); `test/settings.test.ts` fails when code reads a ' +
        'variable the registry lacks, when a file reads one its entry does not name, and when this file is stale. ' +
        "Make's own variables (`PROFILE`, `SEEDS`, `EXECUTOR`, ...) are listed by `make help`. Back to the " +
        '[README](../README.md).',
    ),
  ];
  for (const g of groups) {
    lines.push(
      '',
      `## ${g.title}`,
      '',
      ...wrap(g.intro),
      '',
      '| variable | default | what it does | read by |',
      '|---|---|---|---|',
    );
    for (const s of g.settings) {
      lines.push(
        `| \`${s.name}\` | ${cell(s.default)} | ${cell(s.does)} | ${s.readers.map((r) => `\`${r}\``).join(', ')} |`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

export const SETTINGS_DOC = 'docs/settings.md';

if (process.argv[1]?.endsWith(path.join('analysis', 'settings.ts'))) {
  runMain(async () => {
    const check = process.argv.includes('--check');
    const gaps = registryGaps(envReads('.'));
    for (const g of gaps) console.error(`settings: ${g}`);
    const text = renderSettings(),
      now = fs.existsSync(SETTINGS_DOC) ? fs.readFileSync(SETTINGS_DOC, 'utf8') : '';
    if (check) {
      if (now !== text) console.error(`settings: ${SETTINGS_DOC} is stale (tsx analysis/settings.ts rewrites it)`);
      if (gaps.length || now !== text) process.exit(1);
      return;
    }
    if (now !== text) fs.writeFileSync(SETTINGS_DOC, text);
    console.log(
      `${SETTINGS_DOC}: ${now === text ? 'current' : 'rewritten'}${gaps.length ? `; ${gaps.length} gap(s) above` : ''}`,
    );
    if (gaps.length) process.exit(1);
  });
}
