// Seeded random numbers (sfc32): every stochastic result in the workbench is reproducible from its seed.

export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** standard normal */
  normal(): number;
  /** index drawn from unnormalised non-negative weights */
  categorical(weights: ArrayLike<number>, offset?: number, length?: number): number;
  /** integer in [0, n) */
  int(n: number): number;
}

export function makeRng(seed: number): Rng {
  if (!Number.isInteger(seed)) throw new Error(`seed must be an integer (got ${seed})`);
  // splitmix32 to spread the seed over sfc32's 128-bit state
  let s = seed >>> 0;
  const mix = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = mix(),
    b = mix(),
    c = mix(),
    d = mix();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  let spare: number | null = null;
  return {
    next,
    normal() {
      if (spare !== null) {
        const v = spare;
        spare = null;
        return v;
      }
      let u = 0;
      while (u === 0) u = next();
      const r = Math.sqrt(-2 * Math.log(u)),
        th = 2 * Math.PI * next();
      spare = r * Math.sin(th);
      return r * Math.cos(th);
    },
    categorical(weights, offset = 0, length = weights.length - offset) {
      let total = 0;
      for (let i = 0; i < length; i++) total += weights[offset + i];
      let u = next() * total;
      for (let i = 0; i < length - 1; i++) {
        u -= weights[offset + i];
        if (u < 0) return i;
      }
      return length - 1;
    },
    int(n) {
      return Math.floor(next() * n);
    },
  };
}
