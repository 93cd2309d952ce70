// Every option a researcher may set, generated from the config types (their fields' doc comments and type texts,
// read by the TypeScript parser) and their defaults (the objects the trainers merge overrides over):
//   docs/options.md      the methods, the profiles, and every option of each kind of run (RLVR, RLCER, EvoLM) with its
//                        type, default and meaning: what --overrides / --config of table2-run.ts and a sweep's
//                        `overrides` and knob levels may set (src/io/config.ts refuses anything else, and a value of
//                        another type)
//   docs/experiments.md  the block between <!-- options: sweep --> and <!-- /options -->: every field of a sweep file
//   tsx analysis/options.ts           rewrites both
//   tsx analysis/options.ts --check   rewrites nothing; names what is missing or stale and exits 1
// test/options.test.ts fails when an option has no meaning (no doc comment and no entry in MEANINGS below), when an
// entry of MEANINGS is stale, and when either page is not what this writes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { runMain } from '../src/io/args.js';
import { defaultRlvrConfig } from '../src/methods/trainers/rlvr.js';
import { defaultRlcerConfig } from '../src/methods/trainers/rlcer.js';
import { defaultEvolmConfig } from '../src/methods/trainers/evolm.js';
import { METHODS, PROFILES, type MethodSpec } from '../src/methods/tables/table2.js';
import { wrap } from './settings.js';

export const OPTIONS_DOC = 'docs/options.md';
export const EXPERIMENTS_DOC = 'docs/experiments.md';

/** The kinds of run and their configs: the interface, where it is declared, its defaults, the kinds that read it. */
export const CONFIGS: {
  id: string;
  title: string;
  iface: string;
  file: string;
  defaults: object;
  kinds: MethodSpec['kind'][];
  intro: string;
}[] = [
  {
    id: 'rlvr',
    title: 'RLVR options',
    iface: 'RlvrConfig',
    file: 'src/methods/trainers/rlvr.ts',
    defaults: defaultRlvrConfig,
    kinds: ['rlvr', 'scalar_rm', 'sft'],
    intro:
      'Rows of kind `rlvr` (RLVR, its controls and the positive controls) and `scalar_rm` read these; the cold ' +
      "start's rows (`sft`) train nothing and read only `world` (where their in-distribution endpoint is measured).",
  },
  {
    id: 'rlcer',
    title: 'RLCER options',
    iface: 'RlcerConfig',
    file: 'src/methods/trainers/rlcer.ts',
    defaults: defaultRlcerConfig,
    kinds: ['rlcer'],
    intro:
      "Rows of kind `rlcer`; each method's own settings (Methods, above) are applied first, yours over them. The " +
      "paper's ambiguities among them: [rlcer](rlcer.md#method).",
  },
  {
    id: 'evolm',
    title: 'EvoLM options',
    iface: 'EvolmConfig',
    file: 'src/methods/trainers/evolm.ts',
    defaults: defaultEvolmConfig,
    kinds: ['evolm'],
    intro: 'Rows of kind `evolm` (EvoLM, its ablations and the judge-only controls): [evolm](evolm.md).',
  },
];

/**
 * Meanings of the options whose field has no doc comment, by "<Interface>.<field>" (a field with a doc comment is
 * described by it; an entry here for an option that no longer exists is stale).
 */
export const MEANINGS: Record<string, string> = {
  'RlvrConfig.steps': "RL steps (a Table 2 run takes its profile's, or --steps: a value here is replaced)",
  'RlvrConfig.temperature': 'sampling temperature of the rollouts',
  'RlvrConfig.algo':
    'the update: PPO (`ppo`, the default, with a value head) or GRPO (`grpo`, group-normalised advantages)',
  'PpoConfig.clip': "PPO's clip range of the probability ratio (epsilon)",
  'PpoConfig.valueClip': 'clip range of the value prediction around its old value',
  'PpoConfig.valueCoef': "weight of the value loss in each role's loss",
  'PpoConfig.entropyCoef': 'weight of the entropy bonus (0: none)',
  'PpoConfig.gamma': 'discount factor of the per-token rewards (1: none)',
  'PpoConfig.lambda': "GAE's lambda (1: Monte Carlo returns)",
  'PpoConfig.epochs': "passes over each step's rollouts",
  'PpoConfig.minibatches': 'minibatches per pass',
  'PpoConfig.maxGradNorm': "each role's gradient is clipped to this global norm",
  'GrpoConfig.clip': "GRPO's clip range of the probability ratio (epsilon)",
  'GrpoConfig.epochs': "passes over each step's rollouts",
  'GrpoConfig.minibatches': 'minibatches per pass',
  'GrpoConfig.maxGradNorm': 'the gradient is clipped to this global norm',
  'GrpoConfig.lr': 'learning rate (Adam)',
  'RlcerConfig.steps': "RL steps (a Table 2 run takes its profile's, or --steps: a value here is replaced)",
  'RlcerConfig.temperature': 'sampling temperature of the rollouts (both roles)',
  'RlcerConfig.constantCorrectness':
    "when a prompt's rollouts are all right or all wrong Pearson is undefined: no criterion is valid " +
    '(`none_valid`, the test read literally) or every criterion whose satisfaction varies is (`discriminative`, ' +
    "EvoLM's re-implementation)",
  'RlcerConfig.cotNorm':
    "how the CoT reward is normalised: min-max over the valid criteria's point range (`rubric`) or over the " +
    "group's raw scores (`group`)",
  'EvolmConfig.prompts': 'prompts per step',
  'EvolmConfig.temperature': 'sampling temperature of the policy and the generator',
  'EvolmConfig.formatWeight': "weight of the format reward in the generator's reward (with marginWeight)",
  'EvolmConfig.policyLr': "the policy's learning rate (Adam)",
  'EvolmConfig.verifier':
    "the judge: 'learned' (the frozen distilled verifier) or 'oracle' (the teacher's exact judgement)",
  'Profile.steps': 'RL steps of every run (a method of `stepsByMethod` excepted)',
  'Profile.seeds': 'the seeds a profile runs (a sweep gives its own)',
  'Profile.sizes': 'the model sizes a profile runs (a sweep gives its own)',
  'Profile.evalSamples': 'samples per evaluation problem (with evalPerCell)',
};

/** The profile fields the Profiles table shows. */
const PROFILE_COLUMNS = ['steps', 'seeds', 'sizes', 'evalPerCell', 'evalSamples', 'curveEvery', 'pairsPerCell'];

/** A field of an interface: its doc comment (one line) and its type as written. */
interface Field {
  doc: string;
  type: string;
  optional: boolean;
}

/** The interfaces and type aliases of src/ (by name), read with the TypeScript parser, no type checking. */
export interface Declarations {
  interfaces: Map<string, { file: string; fields: Map<string, Field> }>;
  /** a type alias's literal members where it is a union of literals (or `(typeof X)[number]` of a const list) */
  literals: Map<string, string[]>;
}

const docOf = (node: ts.Node): string =>
  ((node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [])
    .map((d) => (typeof d.comment === 'string' ? d.comment : (ts.getTextOfJSDocComment(d.comment) ?? '')))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Every .ts file under `dir`, sorted. */
function tsFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    )
    .sort();
}

/** The declarations of every file under src/. */
export function declarations(root = 'src'): Declarations {
  const out: Declarations = { interfaces: new Map(), literals: new Map() };
  const constLists = new Map<string, string[]>();
  const pending: { name: string; node: ts.TypeNode }[] = [];
  // an interface's bases (`extends`): their fields come first, the interface's own after them (a field it declares
  // again, with its own doc, replaces the base's)
  const bases = new Map<string, string[]>();
  for (const file of tsFiles(root)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (n: ts.Node) => {
      if (ts.isInterfaceDeclaration(n)) {
        const fields = new Map<string, Field>();
        for (const m of n.members)
          if (ts.isPropertySignature(m) && m.name && ts.isIdentifier(m.name))
            fields.set(m.name.text, {
              doc: docOf(m),
              type: m.type ? m.type.getText(sf).replace(/\s+/g, ' ') : '',
              optional: m.questionToken !== undefined,
            });
        const ext = (n.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(sf)));
        const key = out.interfaces.has(n.name.text) ? `${n.name.text}@${file}` : n.name.text;
        out.interfaces.set(key, { file, fields });
        if (ext.length) bases.set(key, ext);
      } else if (ts.isTypeAliasDeclaration(n)) pending.push({ name: n.name.text, node: n.type });
      else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) {
        let init = n.initializer;
        if (ts.isAsExpression(init)) init = init.expression;
        if (ts.isArrayLiteralExpression(init) && init.elements.every(ts.isStringLiteral))
          constLists.set(
            n.name.text,
            init.elements.map((e) => `'${(e as ts.StringLiteral).text}'`),
          );
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  const withBases = (name: string): Map<string, Field> => {
    const own = out.interfaces.get(name)!.fields;
    const inherited = (bases.get(name) ?? []).flatMap((b) => (out.interfaces.has(b) ? [...withBases(b)] : []));
    return new Map([...inherited.filter(([k]) => !own.has(k)), ...own]);
  };
  for (const name of bases.keys()) out.interfaces.get(name)!.fields = withBases(name);
  for (const { name, node } of pending) {
    if (ts.isUnionTypeNode(node) && node.types.every(ts.isLiteralTypeNode))
      out.literals.set(
        name,
        node.types.map((t) => t.getText()),
      );
    else if (
      ts.isIndexedAccessTypeNode(node) &&
      ts.isParenthesizedTypeNode(node.objectType) &&
      ts.isTypeQueryNode(node.objectType.type) &&
      ts.isIdentifier(node.objectType.type.exprName) &&
      constLists.has(node.objectType.type.exprName.text)
    )
      out.literals.set(name, constLists.get(node.objectType.type.exprName.text)!);
  }
  return out;
}

/** A type as the tables write it: an alias of literals spelled out after its name. */
function typeText(type: string, d: Declarations): string {
  const lit = d.literals.get(type.replace(/\[\]$/, ''));
  return lit ? `${type} (${lit.join(' \\| ')})` : type.replace(/\|/g, '\\|');
}

/** One row of an options table. */
export interface OptionRow {
  option: string;
  type: string;
  default: string;
  meaning: string;
  /** where its meaning comes from: "<Interface>.<field>" */
  field: string;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The settable options of a config: every key of its defaults (what mergeConfig accepts), described by the
 * interface's field; an object whose type is an interface of its own is descended (ppo.clip, world.labelNoise).
 */
export function optionRows(iface: string, defaults: object, d: Declarations, prefix = ''): OptionRow[] {
  const decl = d.interfaces.get(iface);
  if (!decl) throw new Error(`no interface ${iface} under src/`);
  return Object.entries(defaults).flatMap(([k, v]) => {
    const f = decl.fields.get(k);
    if (!f) throw new Error(`${iface} has no field "${k}" though its defaults do`);
    const name = `${prefix}${k}`,
      field = `${iface}.${k}`;
    const nestedType = f.type.replace(/\s*\|\s*null$/, '');
    if (isPlain(v) && d.interfaces.has(nestedType)) return optionRows(nestedType, v, d, `${name}.`);
    return [
      {
        option: name,
        type: typeText(f.type, d),
        default: JSON.stringify(v) ?? 'undefined',
        meaning: f.doc || MEANINGS[field] || '',
        field,
      },
    ];
  });
}

/** Every option of every config, by config id. */
export function allOptions(d = declarations()): Map<string, OptionRow[]> {
  return new Map(CONFIGS.map((c) => [c.id, optionRows(c.iface, c.defaults, d)]));
}

/** What is wrong with the meanings: options without one, and entries of MEANINGS that are stale. */
export function meaningGaps(d = declarations(), options = allOptions(d)): string[] {
  const profile = d.interfaces.get('Profile')!.fields;
  const rows = [
    ...[...options.values()].flat(),
    ...PROFILE_COLUMNS.map((k) => ({
      field: `Profile.${k}`,
      meaning: profile.get(k)?.doc || MEANINGS[`Profile.${k}`] || '',
    })),
  ];
  const missing = [...new Set(rows.filter((r) => !r.meaning).map((r) => r.field))].map(
    (f) => `${f} has no meaning: give the field a doc comment, or add it to MEANINGS in analysis/options.ts`,
  );
  const used = new Set(rows.map((r) => r.field));
  // an entry whose field has since gained a doc comment is not wrong (the comment is read first), only unused
  const stale = Object.keys(MEANINGS)
    .filter((k) => !used.has(k))
    .map((k) => `MEANINGS["${k}"] is stale: no such option any more`);
  return [...missing, ...stale];
}

/** Text in a table cell: its pipes escaped, and its angle brackets (<root>) kept from reading as HTML. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;

/** A method's own settings, as its spec gives them (over its kind's defaults). */
function ownSettings(m: MethodSpec): string {
  const parts: string[] = [];
  if (m.kind === 'rlvr' && m.reward) parts.push(`reward ${code(m.reward)}`);
  const own = m.kind === 'rlcer' ? m.rlcer : m.kind === 'evolm' ? m.evolm : undefined;
  if (own && Object.keys(own).length) parts.push(code(JSON.stringify(own)));
  if (m.coldstart) parts.push(`cold start ${code(m.coldstart)}`);
  if (m.klMatch) parts.push("reasoner's rate KL-matched to RLVR's");
  return parts.join(', ');
}

/** The anchor of a config's section. */
const anchorOf = (kind: MethodSpec['kind']) => {
  const c = CONFIGS.find((x) => x.kinds.includes(kind))!;
  return `[${kind}](#${c.title.toLowerCase().replace(/ /g, '-')})`;
};

/** docs/options.md as the generator writes it. */
export function renderOptions(d = declarations()): string {
  const options = allOptions(d);
  const profileFields = d.interfaces.get('Profile')!.fields;
  const profileCols = PROFILE_COLUMNS;
  const lines = [
    '# Options: everything a run can be given',
    '',
    ...wrap(
      'The methods, the profiles and every option of each kind of run, with its type, its default and what it ' +
        'means. Generated from the config types and their defaults by `analysis/options.ts` ' +
        '(`./node_modules/.bin/tsx analysis/options.ts` rewrites it); `test/options.test.ts` fails when an option ' +
        'is missing here or has no meaning, and when this page is stale. Back to the [docs index](README.md).',
    ),
    '',
    '## How to set them',
    '',
    ...wrap(
      'One run: `tsx src/cli/table2-run.ts --method rlcer --overrides \'{"threshold": 0.4}\'` (or `--config F` with ' +
        'the same JSON in a file; `--overrides` goes over it). A comparison: a sweep, whose `overrides` give each ' +
        "method's runs their options and whose knobs move one option at a time ([experiments](experiments.md)). " +
        'Nested options are nested objects (`{"ppo": {"clip": 0.1}}`, `{"world": {"labelNoise": 0.1}}`). Every name ' +
        "is checked (a typo is refused, with the nearest names), and every value against its default's type (a " +
        'string where a number belongs is refused) and its range, before any run starts.',
    ),
    '',
    '## Methods',
    '',
    ...wrap(
      'Each method is a kind of run (its options below) with settings of its own, applied before yours ' +
        '(`src/methods/tables/table2.ts`).',
    ),
    '',
    '| method | kind | what it is | its own settings |',
    '|---|---|---|---|',
    ...Object.entries(METHODS).map(
      ([id, m]) => `| ${code(id)} | ${anchorOf(m.kind)} | ${cell(m.label)} | ${cell(ownSettings(m))} |`,
    ),
    '',
    '## Profiles',
    '',
    ...wrap(
      "A run's length and evaluation (`--profile`, or a sweep's `profile`); `make reproduce-table2 PROFILE=...` " +
        "runs a profile's own methods.",
    ),
    '',
    `| profile | ${profileCols.join(' | ')} | methods it runs |`,
    `|---|${profileCols.map(() => '---').join('|')}|---|`,
    ...Object.entries(PROFILES).map(
      ([name, p]) =>
        `| ${code(name)} | ${profileCols.map((k) => JSON.stringify((p as unknown as Record<string, unknown>)[k])).join(' | ')} | ${p.methods.length} |`,
    ),
    '',
    ...profileCols.flatMap((k) => [`- \`${k}\`: ${profileFields.get(k)?.doc || MEANINGS[`Profile.${k}`] || ''}`]),
  ];
  for (const c of CONFIGS) {
    const rows = options.get(c.id)!;
    lines.push(
      '',
      `## ${c.title}`,
      '',
      ...wrap(`${c.intro} Declared as \`${c.iface}\` in \`${c.file}\`; ${rows.length} options.`),
      '',
      '| option | type | default | meaning |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${code(r.option)} | ${code(r.type)} | ${code(r.default)} | ${cell(r.meaning)} |`),
    );
  }
  return lines.join('\n') + '\n';
}

/** The fields of a sweep file (SweepFile, Knob, KnobLevel, Comparison), as docs/experiments.md's block lists them. */
export function renderSweepFields(d = declarations()): string {
  const table = (iface: string, prefix: string) => {
    const fields = d.interfaces.get(iface)!.fields;
    return [
      '| field | type | required | meaning |',
      '|---|---|---|---|',
      ...[...fields].map(
        ([k, f]) =>
          `| ${code(prefix + k)} | ${code(typeText(f.type, d))} | ${f.optional ? 'no' : 'yes'} | ${cell(f.doc)} |`,
      ),
    ];
  };
  return [
    'A sweep file (`SweepFile`):',
    '',
    ...table('SweepFile', ''),
    '',
    'Each knob (`Knob`):',
    '',
    ...table('Knob', 'knobs[].'),
    '',
    'Each level of a knob (`KnobLevel`):',
    '',
    ...table('KnobLevel', 'knobs[].levels[].'),
    '',
    'Each comparison (`Comparison`):',
    '',
    ...table('Comparison', 'comparisons[].'),
  ].join('\n');
}

const BLOCK = /(<!-- options: sweep -->\n)[\s\S]*?(<!-- \/options -->)/;

/** docs/experiments.md with its block of sweep fields as the generator writes it (null: no block in it). */
export function renderExperiments(text: string, d = declarations()): string | null {
  if (!BLOCK.test(text)) return null;
  return text.replace(BLOCK, (_, a: string, b: string) => `${a}${renderSweepFields(d)}\n${b}`);
}

if (process.argv[1]?.endsWith(path.join('analysis', 'options.ts'))) {
  runMain(async () => {
    const check = process.argv.includes('--check');
    const d = declarations(),
      gaps = meaningGaps(d);
    for (const g of gaps) console.error(`options: ${g}`);
    const want = new Map<string, string>([[OPTIONS_DOC, renderOptions(d)]]);
    const exp = fs.existsSync(EXPERIMENTS_DOC) ? fs.readFileSync(EXPERIMENTS_DOC, 'utf8') : '';
    const expNow = renderExperiments(exp, d);
    if (expNow === null) console.error(`options: ${EXPERIMENTS_DOC} has no <!-- options: sweep --> block`);
    else want.set(EXPERIMENTS_DOC, expNow);
    let stale = 0;
    for (const [file, text] of want) {
      const now = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (now === text) continue;
      stale++;
      if (check) console.error(`options: ${file} is stale (tsx analysis/options.ts rewrites it)`);
      else {
        fs.writeFileSync(file, text);
        console.log(`${file}: rewritten`);
      }
    }
    if (gaps.length || expNow === null || (check && stale)) process.exit(1);
  });
}
