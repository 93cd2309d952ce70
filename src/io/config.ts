// Config files: a partial user config deep-merged over the defaults, unknown keys rejected by name.
import { ConfigError } from './validate.js';

/**
 * A config override as `mergeConfig` reads it: any subset of the keys, at any depth; arrays (and scalars) replace
 * whole, as they do in the merge.
 */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** Deep-merge a partial user config over the defaults (objects merge, arrays and scalars replace). */
export function mergeConfig<T>(base: T, over: unknown, where = 'config'): T {
  if (over === undefined) return base;
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return over as T;
  if (typeof over !== 'object' || over === null || Array.isArray(over))
    throw new ConfigError(`${where} must be an object`);
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over as Record<string, unknown>)) {
    if (!Object.hasOwn(out, k))
      throw new ConfigError(`unknown config key "${where === 'config' ? k : `${where}.${k}`}"`);
    out[k] = mergeConfig(out[k], v, where === 'config' ? k : `${where}.${k}`);
  }
  return out as T;
}
