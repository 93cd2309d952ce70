// Small numeric helpers shared across the library.

/** Mean of an array (0 for an empty one). */
export const mean = (xs: ArrayLike<number>) => (xs.length ? Array.from(xs).reduce((a, b) => a + b, 0) / xs.length : 0);

/** Median of a non-empty array (the mean of the two middle values for an even length). */
export const median = (xs: readonly number[]) => {
  const s = xs.slice().sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
