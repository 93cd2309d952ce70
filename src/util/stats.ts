// Small numeric helpers shared across the library.

/** Mean of an array (0 for an empty one). */
export const mean = (xs: ArrayLike<number>) => (xs.length ? Array.from(xs).reduce((a, b) => a + b, 0) / xs.length : 0);
