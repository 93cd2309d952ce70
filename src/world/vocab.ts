// The token vocabulary shared by every role: arithmetic, chain of thought, and the rubric language.
export const DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'] as const;
export const MAX_COLUMNS = 8;
export const COLUMN_TOKENS = Array.from({ length: MAX_COLUMNS }, (_, k) => `C${k}`);
export const ROLES = ['<reason>', '<rubric>', '<hint>'] as const;
export type Role = 'reason' | 'rubric' | 'hint';
export const CATEGORY_TOKENS = ['K:dec', 'K:val', 'K:cla', 'K:foc', 'K:spe'] as const;
export const CRITERION_TOKENS = [
  'STEPS',
  'ORDER',
  'NSTEP',
  'SHORT',
  'VERIFY',
  'REVISE',
  'CARRY',
  'STEPOK',
  'REPEAT',
  'LEN',
  'COL',
  'NDIG',
  'MATCH',
] as const;
export const POINT_TOKENS = ['P-3', 'P-2', 'P-1', 'P+1', 'P+2', 'P+3'] as const;

export const VOCAB: readonly string[] = [
  '<pad>',
  '<eos>',
  ...ROLES,
  ...DIGITS,
  '+',
  '-',
  '=',
  'Q',
  'A',
  'V',
  'R',
  '|',
  ';',
  'H',
  ...COLUMN_TOKENS,
  ...CATEGORY_TOKENS,
  ...CRITERION_TOKENS,
  ...POINT_TOKENS,
];
export const V = VOCAB.length;
const INDEX = new Map(VOCAB.map((t, i) => [t, i]));

export const PAD = 0;
export const EOS = 1;

export function tokenId(t: string): number {
  const i = INDEX.get(t);
  if (i === undefined) throw new Error(`unknown token "${t}"`);
  return i;
}
export const encode = (tokens: readonly string[]): number[] => tokens.map(tokenId);
export const decode = (ids: ArrayLike<number>): string[] => Array.from(ids, (i) => VOCAB[i] ?? `<?${i}>`);
export const roleToken = (r: Role): string => `<${r === 'reason' ? 'reason' : r}>`;
