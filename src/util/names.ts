// The known names nearest to a mistyped one (a method, a config key, a profile), for "did you mean" in errors.

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours) between two strings. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The known names close to `name` (case ignored), nearest first, at most `max`: within an edit distance of a third
 * of the name's length (at least 1, at most 3), or a name that contains it or is contained in it.
 */
export function nearestNames(name: string, known: readonly string[], max = 3): string[] {
  const n = name.toLowerCase(),
    limit = Math.min(3, Math.max(1, Math.floor(n.length / 3)));
  return known
    .map((k) => ({ k, d: editDistance(n, k.toLowerCase()) }))
    .filter(({ k, d }) => d <= limit || (n.length >= 3 && (k.toLowerCase().includes(n) || n.includes(k.toLowerCase()))))
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, max)
    .map(({ k }) => k);
}

/** ` (did you mean "a" or "b"?)`, or '' when no known name is near. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = nearestNames(name, known);
  if (!near.length) return '';
  const quoted = near.map((k) => `"${k}"`);
  return ` (did you mean ${quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0]}?)`;
}
