// Config files: a partial user config deep-merged over the defaults, unknown keys rejected by name (with the nearest
// known keys), and every value checked against the default's type: a string where a number belongs is an error here,
// before any check of ranges or any training.
import { ConfigError } from '../util/validate.js';
import { didYouMean } from '../util/names.js';

/**
 * A config override as `mergeConfig` reads it: any subset of the keys, at any depth; arrays (and scalars) replace
 * whole, as they do in the merge.
 */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value's JSON type as an error names it. */
const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : isObject(v) ? 'an object' : `a ${typeof v}`;

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)));

/**
 * Throws a ConfigError when `over` is not of the default's type: a number, a string, a boolean or a list where the
 * default is one (a list's items of its items' type, where they share one). A null default (an option that is off)
 * takes any value; its own check reads it.
 */
function checkType(base: unknown, over: unknown, where: string): void {
  if (base === null || base === undefined || over === undefined) return;
  const want =
    typeof base === 'number' || typeof base === 'string' || typeof base === 'boolean' ? typeof base : undefined;
  if (want && typeof over !== want) throw new ConfigError(`${where} must be a ${want} (got ${shown(over)})`);
  if (Array.isArray(base)) {
    if (!Array.isArray(over)) throw new ConfigError(`${where} must be a list (got ${shown(over)})`);
    const kinds = new Set(base.map((x) => typeof x));
    const item = kinds.size === 1 ? [...kinds][0] : undefined;
    if (item === 'number' || item === 'string' || item === 'boolean')
      over.forEach((x, i) => {
        if (typeof x !== item) throw new ConfigError(`${where}[${i}] must be a ${item} (got ${shown(x)})`);
      });
  }
}

/** Deep-merge a partial user config over the defaults (objects merge, arrays and scalars replace). */
export function mergeConfig<T>(base: T, over: unknown, where = 'config'): T {
  if (over === undefined) return base;
  if (!isObject(base)) {
    checkType(base, over, where);
    return over as T;
  }
  if (!isObject(over)) throw new ConfigError(`${where} must be an object (got ${jsonType(over)})`);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const name = where === 'config' ? k : `${where}.${k}`;
    if (!Object.hasOwn(out, k)) throw new ConfigError(`unknown config key "${name}"${didYouMean(k, Object.keys(out))}`);
    out[k] = mergeConfig(out[k], v, name);
  }
  return out as T;
}

/**
 * `over` deep-merged onto `base` with no defaults to check against (plain objects merge, everything else replaces):
 * how --config and --overrides, or a sweep's per-method and per-level overrides, combine before mergeConfig.
 */
export function overlayConfig(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over))
    out[k] = isObject(v) && isObject(out[k]) ? overlayConfig(out[k] as Record<string, unknown>, v) : v;
  return out;
}
