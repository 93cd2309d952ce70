// `make docs`: the Markdown tables of README.md and docs/*.md, rendered from the committed CSVs, so a report cannot
// drift from its data. Each generated block sits between two marker comments:
//   <!-- table: results/table2.csv+results/ablations.csv size=S view=pivot show=average,add ... -->
//   ... (rewritten by this script) ...
//   <!-- /table -->
// The first word names the CSV(s) (joined by +, paths from the repository root); then key=value options (a value
// with spaces in double quotes). Keys that are no option filter the CSV's rows on that column: a comma list of
// values, * matching any text, !value excluding (only exclusions: everything else is kept).
// Views:
//   pivot (default)  one row per `rows` key (default method), one column per `cols` value (default column), cells
//                    `value` (default mean, else delta) with [ci_low, ci_high] where `ci` allows (all|none|a list of
//                    column keys) and the interval is not a point; a seeds column (max over the row) when the CSV
//                    has one (seeds=no drops it)
//   rows             one Markdown row per CSV row, the CSV's `columns` (default all)
//   claims           a claims CSV (profile,claim,run,against,measure,...,verdict): `by=setting` puts each setting (the
//                    run's prefix: size, agent) in its own column as "verdict, delta [ci_low, ci_high]"
//   summary          one row per paper claim from claims CSVs: the paper (linked to its report), the paper's number
//                    (from the reported CSV beside it, where both sides of the claim were reported), ours (the
//                    difference per setting), the verdict, and whether it could detect +0.03 (the power file beside it)
//   confirm          the sensitivity campaign's claims (results/sensitivity/confirm/claims.csv): one row per claim (its
//                    two arms), one column per cell (size, regime, horizon), each cell its endpoints' verdicts as
//                    symbols (CONFIRM_SYMBOLS; a legend line after the table), and whether every finished cell's MDE
//                    is at most 0.03 (the power file beside it)
// A list option (show, order, ci, columns) may repeat; its values are joined. Common options: digits (3), sign
// (yes|no: + on positive numbers), sci (yes|no: numbers below 10^-digits in exponent notation), sig (yes|no: digits
// counts significant figures), order (row keys first, in that order),
// label:KEY="text" (a row, column or header label; KEY as it appears in the CSV, multi-field keys joined by |),
// prefix:FILE="text" (before the label of each pivot row that comes from FILE, one of the marker's CSVs).
// Usage: tsx analysis/docs.ts [--check] [files...]   (default README.md and docs/*.md; --check rewrites nothing,
// names each stale file and exits 1)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCsv, type Cell, type Row } from '../src/io/table.js';
import { ConfigError } from '../src/util/validate.js';
import { runMain } from '../src/io/args.js';
import { METHODS } from '../src/methods/tables/table2.js';
import { CORL_METHODS } from '../src/methods/tables/table1.js';
import { FAMILIES } from '../src/world/families.js';

/** Labels of method ids, columns and options, shared by every table (a marker's label:KEY overrides). */
export const LABELS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(METHODS).map(([k, m]) => [k, m.label])),
  ...Object.fromEntries(Object.entries(CORL_METHODS).map(([k, m]) => [k, m.label])),
  method: 'row',
  average: 'average accuracy',
  ...Object.fromEntries(FAMILIES.map((f) => [f, f])),
  rubric_quality: 'rubric quality',
  reward_std_ratio: 'reward std, end / start',
  seeds: 'seeds',
  weighted_sum: 'weighted sum',
  constraints_only: 'constraints only',
  quality_only: 'quality only',
  stagewise: 'stage-wise',
  joint_filtered: 'joint, filtered prompts',
  none: 'none',
  constraints: 'constraint dims',
  quality: 'quality dims',
  accuracy: 'accuracy',
};

export interface Spec {
  files: string[];
  view: string;
  filters: [string, string[]][];
  opts: Record<string, string>;
  labels: Record<string, string>;
  prefixes: Record<string, string>;
}

const OPTIONS = new Set([
  'view',
  'rows',
  'cols',
  'show',
  'value',
  'ci',
  'digits',
  'sign',
  'sci',
  'sig',
  'order',
  'columns',
  'by',
  'seeds',
]);
// list options that may repeat (a long list over several lines): their values are joined
const LISTS = new Set(['show', 'order', 'ci', 'columns']);
const VIEWS = new Set(['pivot', 'rows', 'claims', 'summary', 'confirm']);

/** Parse a marker's text (everything after `table:`). */
export function parseSpec(text: string): Spec {
  const tokens = [...text.trim().matchAll(/([^\s=]+)(?:=(?:"([^"]*)"|(\S+)))?/g)];
  if (tokens.length === 0 || tokens[0][2] !== undefined || tokens[0][3] !== undefined) {
    throw new ConfigError(`table marker "${text}" must start with the CSV path(s)`);
  }
  const spec: Spec = { files: tokens[0][1].split('+'), view: 'pivot', filters: [], opts: {}, labels: {}, prefixes: {} };
  for (const t of tokens.slice(1)) {
    const [key, value] = [t[1], t[2] ?? t[3]];
    if (value === undefined) throw new ConfigError(`table marker "${text}": "${key}" has no =value`);
    if (key.startsWith('label:')) spec.labels[key.slice(6)] = value;
    else if (key.startsWith('prefix:')) spec.prefixes[key.slice(7)] = value;
    else if (key === 'view') spec.view = value;
    else if (OPTIONS.has(key)) {
      spec.opts[key] = LISTS.has(key) && key in spec.opts ? `${spec.opts[key]},${value}` : value;
    } else spec.filters.push([key, value.split(',')]);
  }
  if (!VIEWS.has(spec.view)) throw new ConfigError(`table marker "${text}": unknown view "${spec.view}"`);
  return spec;
}

const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** Does `value` pass a filter's list (values, * globs, !exclusions)? */
export function passes(value: Cell, list: string[]): boolean {
  const s = String(value),
    inc = list.filter((p) => !p.startsWith('!')),
    exc = list.filter((p) => p.startsWith('!'));
  if (exc.some((p) => glob(p.slice(1)).test(s))) return false;
  return inc.length === 0 || inc.some((p) => glob(p).test(s));
}

/** A number rounded to `digits` (no "-0.000"), with + on positive ones when `sign`; text as it is. */
export function fmt(v: Cell | undefined, digits = 3, sign = false, sci = false, sig = false): string {
  if (v === undefined || v === '') return '';
  if (typeof v !== 'number') return String(v);
  let s = sig
    ? Math.abs(v) >= 10 ** digits
      ? v.toFixed(0)
      : v.toPrecision(digits)
    : sci && v !== 0 && Math.abs(v) < 10 ** -digits
      ? v.toExponential(1)
      : v.toFixed(digits);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1);
  return sign && v > 0 && Number(s) !== 0 ? `+${s}` : s;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
function markdown(header: string[], body: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...body.map(line)].join('\n') + '\n';
}

type Reader = (file: string) => Row[];
type ClaimRow = Row & { file: string };

/** The rows of a marker's CSVs that pass its filters, each with the file it came from. */
function rowsOf(spec: Spec, read: Reader): ClaimRow[] {
  const rows = spec.files.flatMap((f) => read(f).map((r): ClaimRow => ({ ...r, file: f })));
  for (const [col] of spec.filters) {
    if (rows.length && !(col in rows[0])) {
      throw new ConfigError(`${spec.files.join('+')}: no column "${col}" to filter`);
    }
  }
  return rows.filter((r) => spec.filters.every(([col, list]) => passes(r[col], list)));
}

/** The label of a key; a key of several fields (joined by |) without a label of its own joins its fields' labels. */
const labelOf = (spec: Spec, key: string, fields = 1) =>
  spec.labels[key] ??
  LABELS[key] ??
  (fields > 1
    ? key
        .split('|')
        .map((k) => spec.labels[k] ?? LABELS[k] ?? k)
        .join(', ')
    : key);

/** Row keys in `order` first, then the others in order of first appearance. */
function ordered(keys: string[], order: string | undefined): string[] {
  const seen = [...new Set(keys)],
    first = (order ?? '').split(',').filter((k) => seen.includes(k));
  return [...first, ...seen.filter((k) => !first.includes(k))];
}

function pivot(spec: Spec, rows: ClaimRow[]): string {
  const o = spec.opts,
    digits = Number(o.digits ?? 3),
    sign = o.sign === 'yes',
    sci = o.sci === 'yes';
  const rowFields = (o.rows ?? 'method').split(','),
    colFields = (o.cols ?? 'column').split(',');
  const value = o.value ?? (rows.length && 'mean' in rows[0] ? 'mean' : 'delta');
  const key = (r: Row, fields: string[]) => fields.map((f) => String(r[f])).join('|');
  const cols = o.show ? o.show.split(',') : [...new Set(rows.map((r) => key(r, colFields)))];
  const ciCols = o.ci === undefined || o.ci === 'all' ? cols : o.ci === 'none' ? [] : o.ci.split(',');
  const withSeeds = o.seeds !== 'no' && rows.length > 0 && 'seeds' in rows[0];
  const byRow = new Map<string, Map<string, Row>>(),
    fileOf = new Map<string, string>();
  for (const r of rows) {
    const k = key(r, rowFields),
      c = key(r, colFields);
    if (!cols.includes(c)) continue;
    if (!byRow.has(k)) {
      byRow.set(k, new Map());
      fileOf.set(k, r.file);
    }
    byRow.get(k)!.set(c, r);
  }
  const known = Object.keys(LABELS),
    appearance = [...byRow.keys()];
  const defaultOrder = o.order ?? known.filter((k) => byRow.has(k)).join(',');
  const body = ordered(appearance, defaultOrder).map((k) => {
    const cells = byRow.get(k)!,
      seeds = Math.max(...[...cells.values()].map((r) => Number(r.seeds) || 0));
    const label = (spec.prefixes[fileOf.get(k)!] ?? '') + labelOf(spec, k, rowFields.length);
    return [
      label,
      ...(withSeeds ? [String(seeds)] : []),
      ...cols.map((c) => {
        const r = cells.get(c);
        if (!r) return '';
        const lo = r.ci_low,
          hi = r.ci_high,
          v = fmt(r[value], digits, sign, sci);
        const interval =
          ciCols.includes(c) &&
          typeof lo === 'number' &&
          typeof hi === 'number' &&
          Number(r.seeds ?? 2) > 1 &&
          fmt(lo, digits) !== fmt(hi, digits);
        return interval ? `${v} [${fmt(lo, digits, sign)}, ${fmt(hi, digits, sign)}]` : v;
      }),
    ];
  });
  return markdown(
    [
      labelOf(spec, rowFields.join('|'), rowFields.length),
      ...(withSeeds ? ['seeds'] : []),
      ...cols.map((c) => labelOf(spec, c, colFields.length)),
    ],
    body,
  );
}

function plainRows(spec: Spec, rows: ClaimRow[]): string {
  const digits = Number(spec.opts.digits ?? 3),
    sign = spec.opts.sign === 'yes',
    sci = spec.opts.sci === 'yes';
  const sig = spec.opts.sig === 'yes';
  const cols = spec.opts.columns ? spec.opts.columns.split(',') : Object.keys(rows[0]).filter((c) => c !== 'file');
  // a column of whole numbers (counts, seeds) is written as whole numbers
  const whole = new Set(cols.filter((c) => rows.every((r) => typeof r[c] !== 'number' || Number.isInteger(r[c]))));
  // a column with text in some row is a label (a knob's levels: natural, 0.1, 60): numbers in it as written
  const label = new Set(cols.filter((c) => rows.some((r) => typeof r[c] === 'string' && r[c] !== '')));
  return markdown(
    cols.map((c) => spec.labels[c] ?? c),
    rows.map((r) =>
      cols.map((c) => (label.has(c) ? String(r[c]) : whole.has(c) ? fmt(r[c], 0) : fmt(r[c], digits, sign, sci, sig))),
    ),
  );
}

// ---- claims ----

const settingOf = (run: Cell) => String(run).split('|')[0];
const methodOf = (run: Cell) => String(run).split('|').slice(1).join('|');

/** Which paper a claim row tests: by its file, and in Table 2's claims by whether an EvoLM row is involved. */
export function paperOf(file: string, r: Row): string {
  if (/corl/.test(file)) return 'CO-RL';
  if (/rubicon/.test(file)) return 'Rubicon';
  const evolm = [r.run, r.against].some(
    (x) => METHODS[methodOf(x)]?.kind === 'evolm' || (methodOf(x) === 'scalar_rm' && String(r.claim).includes('EvoLM')),
  );
  return evolm ? 'EvoLM' : 'RLCER';
}
const DOCS: Record<string, string> = {
  RLCER: 'docs/rlcer.md',
  EvoLM: 'docs/evolm.md',
  'CO-RL': 'docs/corl.md',
  Rubicon: 'docs/rubicon.md',
};

/** The claim's text without its setting (`(transformer-S, average accuracy)` -> `(average accuracy)`). */
export function claimText(r: Row): string {
  const s = settingOf(r.run).replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return String(r.claim)
    .replace(new RegExp(`\\b${s}(, |; |(?=\\)))`), '')
    .replace(/ \(\)/, '');
}

/** Claim rows with the file they came from and their paper (a `paper` filter selects on it). */
function claimRows(spec: Spec, read: Reader): ClaimRow[] {
  const rows = spec.files.flatMap((f) => read(f).map((r): ClaimRow => ({ ...r, file: f, paper: paperOf(f, r) })));
  return rows.filter((r) => spec.filters.every(([col, list]) => passes(r[col], list)));
}

/** Claims grouped by (paper, text without setting), in order of first appearance. */
function grouped(rows: ClaimRow[]): { paper: string; text: string; rows: ClaimRow[] }[] {
  const groups = new Map<string, { paper: string; text: string; rows: ClaimRow[] }>();
  for (const r of rows) {
    const text = claimText(r),
      k = `${r.paper}|${text}`;
    if (!groups.has(k)) groups.set(k, { paper: String(r.paper), text, rows: [] });
    groups.get(k)!.rows.push(r);
  }
  return [...groups.values()];
}

/** A claim with no paired seed (its rows have no committed runs) reads "not run yet", not as a verdict. */
const unmeasured = (r: Row) => Number(r.seeds) === 0;
const verdictOf = (r: Row) => (unmeasured(r) ? 'not run yet' : String(r.verdict));
const verdictCell = (r: Row, digits: number) =>
  unmeasured(r)
    ? 'not run yet'
    : `${r.verdict}, ${fmt(r.delta, digits, true)} [${fmt(r.ci_low, digits, true)}, ${fmt(r.ci_high, digits, true)}]`;

function claims(spec: Spec, read: Reader): string {
  const digits = Number(spec.opts.digits ?? 3),
    rows = claimRows(spec, read);
  if (spec.opts.by === 'setting') {
    const settings = ordered(
      rows.map((r) => settingOf(r.run)),
      spec.opts.order,
    );
    return markdown(
      ['claim', ...settings.map((s) => labelOf(spec, s))],
      grouped(rows).map((g) => [
        g.text,
        ...settings.map((s) => {
          const r = g.rows.find((x) => settingOf(x.run) === s);
          return r ? verdictCell(r, digits) : '';
        }),
      ]),
    );
  }
  return markdown(
    ['claim', 'ours: delta [95% CI]', 'seeds', 'verdict'],
    rows.map((r) => [
      String(r.claim),
      unmeasured(r)
        ? ''
        : `${fmt(r.delta, digits, true)} [${fmt(r.ci_low, digits, true)}, ${fmt(r.ci_high, digits, true)}]`,
      String(r.seeds),
      verdictOf(r),
    ]),
  );
}

const signed1 = (x: number) => fmt(Math.round(x * 10) / 10, 1, true).replace(/\.0$/, '');

/**
 * The paper's number for a claim, from the reported CSV beside its claims CSV: Table 2 (table2_reported.csv) and
 * CO-RL (table1_reported.csv) as the reported difference of the claim's two rows where the paper reports both;
 * Rubicon (reported.csv) as the reported changes of the run's schedule on the measure's benchmarks. '' when none.
 */
export function paperNumber(r: ClaimRow, read: Reader): string {
  const dir = path.dirname(r.file),
    [run, against] = [methodOf(r.run), methodOf(r.against)],
    setting = settingOf(r.run);
  const tryRead = (f: string) => {
    try {
      return read(path.join(dir, f));
    } catch {
      return null;
    }
  };
  if (path.basename(r.file) === 'table2_claims.csv') {
    const rep = tryRead('table2_reported.csv'),
      col = r.measure === 'average' ? 'policy_average' : String(r.measure);
    for (const a of rep ?? []) {
      const b = rep!.find((x) => x.paper === a.paper && x.method === against);
      if (a.method === run && b && typeof a[col] === 'number' && typeof b[col] === 'number') {
        return signed1((a[col] as number) - (b[col] as number));
      }
    }
  } else if (/corl/.test(r.file) && r.measure === 'average') {
    const rep = tryRead('table1_reported.csv') ?? [];
    const get = (m: string) => rep.find((x) => x.method === m && x.analogue === setting)?.average;
    const [a, b] = [get(run), get(against)];
    if (typeof a === 'number' && typeof b === 'number') return signed1(a - b);
  } else if (/rubicon/.test(r.file)) {
    const schedule = String(r.run).split('|')[1];
    const rep = (tryRead('reported.csv') ?? []).filter((x) => x.experiment === schedule && x.analogue === r.measure);
    return rep.map((x) => `${x.benchmark} ${signed1(Number(x.delta))}`).join(', ');
  }
  return '';
}

/**
 * Whether a claim's comparison could detect +0.03 (`detects_0_03` of the power file beside its claims file:
 * table2_claims.csv -> table2_power.csv, claims.csv -> power.csv), or '' where no power row names it.
 */
export function detects003(r: ClaimRow, read: Reader): string {
  const file = path.join(path.dirname(r.file), path.basename(r.file).replace('claims', 'power'));
  let rows: Row[];
  try {
    rows = read(file);
  } catch {
    return '';
  }
  const keys = ['profile', 'claim', 'run', 'against', 'measure', 'endpoint'] as const;
  const p = rows.find((x) => keys.every((k) => String(x[k]) === String(r[k])));
  return p ? String(p.detects_0_03) : '';
}

function summary(spec: Spec, read: Reader): string {
  const digits = Number(spec.opts.digits ?? 3);
  const papers = Object.keys(DOCS),
    rank = (p: string) => (papers.indexOf(p) + papers.length + 1) % (papers.length + 1);
  const uniq = (xs: string[]) => [...new Set(xs)];
  const groups = grouped(claimRows(spec, read)).sort((a, b) => rank(a.paper) - rank(b.paper));
  const body = groups.map((g) => {
    // a setting is a size (Table 2) or an agent (CO-RL); Rubicon's run prefix is its aggregator, named in the claim
    const tag = (r: Row, s: string) => (g.paper === 'Rubicon' ? s : `${settingOf(r.run)} ${s}`);
    const papers = g.rows.map((r) => paperNumber(r, read)),
      verdicts = uniq(g.rows.map(verdictOf)),
      power = g.rows.map((r) => (unmeasured(r) ? '' : detects003(r, read)));
    return [
      DOCS[g.paper] ? `[${g.paper}][]` : g.paper,
      g.text,
      papers.some(Boolean) ? (uniq(papers).length === 1 ? papers[0] : papers.map((x) => x || '-').join(' · ')) : '',
      g.rows.map((r) => tag(r, unmeasured(r) ? 'not run' : fmt(r.delta, digits, true))).join(' · '),
      verdicts.length === 1 ? verdicts[0] : g.rows.map((r) => tag(r, verdictOf(r))).join(' · '),
      uniq(power).length === 1 ? power[0] : g.rows.map((r, i) => tag(r, power[i] || '-')).join(' · '),
    ];
  });
  // the papers' links as reference definitions after the table (a short cell in every row)
  const linked = uniq(groups.map((g) => g.paper)).filter((p) => DOCS[p]);
  return (
    markdown(['paper', 'claim', "paper's number", 'ours (difference)', 'verdict', 'could detect +0.03'], body) +
    '\n' +
    linked.map((p) => `[${p}]: ${DOCS[p]}\n`).join('')
  );
}

// ---- the sensitivity campaign ----

/** A confirm cell's symbol per verdict (the verdicts of analysis/sensitivity.ts; `not testable` by its prefix). */
export const CONFIRM_SYMBOLS: [string, string][] = [
  ['helps', '+'],
  ['hurts', '-'],
  ['no effect larger than MDE', '='],
  ['inconclusive', '?'],
  ['uninformative', 'u'],
  ['pending', '…'],
  ['not testable', 'x'],
];
const ENDPOINT_SHORT: Record<string, string> = { in_distribution: 'acc', chain_ood: 'ood', trace_error: 'err' };
const endpointRank = (e: Cell) => Object.keys(ENDPOINT_SHORT).indexOf(String(e));
const symbolOf = (verdict: Cell) =>
  CONFIRM_SYMBOLS.find(([v]) => String(verdict) === v || String(verdict).startsWith(`${v} (`))?.[1] ?? '?';

function confirm(spec: Spec, read: Reader): string {
  const rows = rowsOf(spec, read);
  if (rows.length === 0) throw new ConfigError(`table ${spec.files.join('+')}: no row passes the filters`);
  const cellOf = (r: Row) => `${r.size} ${r.regime}, ${r.horizon}`;
  const cells = ordered(rows.map(cellOf), spec.opts.order),
    claimsIn = [...new Set(rows.map((r) => String(r.claim)))];
  const power = (r: ClaimRow) => {
    const file = path.join(path.dirname(r.file), 'power.csv');
    const keys = ['size', 'regime', 'horizon', 'endpoint', 'claim'] as const;
    return read(file).find((p) => keys.every((k) => String(p[k]) === String(r[k])));
  };
  const body = claimsIn.map((claim) => {
    const mine = rows.filter((r) => r.claim === claim),
      first = mine[0];
    const finished = mine.filter((r) => r.verdict !== 'pending' && !String(r.verdict).startsWith('not testable'));
    const mdes = finished.map((r) => power(r)?.detects_0_03);
    return [
      `${labelOf(spec, String(first.a))} - ${labelOf(spec, String(first.b))}`,
      ...cells.map((c) =>
        mine
          .filter((r) => cellOf(r) === c)
          .sort((x, y) => endpointRank(x.endpoint) - endpointRank(y.endpoint))
          .map((r) => `${ENDPOINT_SHORT[String(r.endpoint)] ?? r.endpoint} ${symbolOf(r.verdict)}`)
          .join(' '),
      ),
      finished.length === 0
        ? ''
        : mdes.every((d) => d === 'yes')
          ? 'yes'
          : mdes.some((d) => d === 'yes')
            ? 'partly'
            : 'no',
    ];
  });
  const legend = CONFIRM_SYMBOLS.map(([v, sym]) => `${sym} ${v}`).join(', ');
  return (
    markdown(['claim', ...cells.map((c) => labelOf(spec, c)), 'could detect +0.03'], body) +
    `\n${Object.entries(ENDPOINT_SHORT)
      .map(([k, v]) => `${v}: ${k}`)
      .join(', ')}; ${legend}.\n`
  );
}

// ---- documents ----

/** The Markdown table of one marker. */
export function renderTable(spec: Spec, read: Reader): string {
  if (spec.view === 'claims') return claims(spec, read);
  if (spec.view === 'summary') return summary(spec, read);
  if (spec.view === 'confirm') return confirm(spec, read);
  const rows = rowsOf(spec, read);
  if (rows.length === 0) throw new ConfigError(`table ${spec.files.join('+')}: no row passes the filters`);
  return spec.view === 'rows' ? plainRows(spec, rows) : pivot(spec, rows);
}

// a marker may span lines
const BLOCK = /<!-- table: ([\s\S]*?) -->\n[\s\S]*?<!-- \/table -->/g;

/** The markers' texts of a document, in order. */
export const markersOf = (text: string): string[] => [...text.matchAll(BLOCK)].map((m) => m[1]);

/** A document with every generated block rewritten from the CSVs under `root`. */
export function renderDocument(text: string, root: string): string {
  const cache = new Map<string, Row[]>();
  const read: Reader = (f) => {
    // a CSV not written yet (no runs of its rows) reads as no rows beside the others of its table
    if (!cache.has(f)) cache.set(f, fs.existsSync(path.join(root, f)) ? readCsv(path.join(root, f)) : []);
    return cache.get(f)!;
  };
  // a table none of whose CSVs is committed yet (no runs of its rows) renders as a line saying so
  const table = (spec: Spec) =>
    spec.files.some((f) => fs.existsSync(path.join(root, f)))
      ? renderTable(spec, read)
      : `_Not measured yet: no committed runs write ${spec.files.map((f) => `\`${f}\``).join(', ')}._\n`;
  return text.replace(
    BLOCK,
    (_, marker: string) => `<!-- table: ${marker} -->\n${table(parseSpec(marker))}<!-- /table -->`,
  );
}

/** README.md and every docs/*.md under `root`. */
export function documents(root: string): string[] {
  const docs = fs.existsSync(path.join(root, 'docs'))
    ? fs
        .readdirSync(path.join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => path.join('docs', f))
    : [];
  return ['README.md', ...docs];
}

if (process.argv[1]?.endsWith('docs.ts')) {
  runMain(async () => {
    const args = process.argv.slice(2),
      check = args.includes('--check'),
      root = process.cwd();
    const files = args.filter((a) => a !== '--check');
    let stale = 0;
    for (const f of files.length ? files : documents(root)) {
      const text = fs.readFileSync(path.join(root, f), 'utf8'),
        next = renderDocument(text, root);
      if (next === text) continue;
      stale++;
      if (check) console.log(`stale: ${f} (make docs rewrites it)`);
      else {
        fs.writeFileSync(path.join(root, f), next);
        console.log(`rewrote ${f}`);
      }
    }
    if (check && stale) process.exit(1);
    if (!check) console.log(`docs: ${stale} file(s) rewritten`);
  });
}
