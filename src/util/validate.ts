// Argument checks that fail loudly and name the parameter, so that bad input never becomes a NaN table.

/**
 * Bad input from the user: an argument, a config file, a checkpoint or data file that is missing or malformed.
 * The CLIs (runMain) print its message as one line `error: <message>` and exit 2, without a stack trace.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    // one line, even where it quotes a user's text (JSON.parse's message quotes the file around the error)
    super(message.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' '));
    this.name = 'ConfigError';
  }
}

/** An expected failure that is not a bug (some runs of a job pool failed): one line, exit 1, no stack trace. */
export class RunFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFailure';
  }
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

export function requireFinite(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ConfigError(`${name} must be a finite number (got ${show(v)})`);
  return v;
}

export function requireInteger(name: string, v: unknown, min = -Infinity, max = Infinity): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    const range = max === Infinity ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new ConfigError(`${name} must be an integer ${range} (got ${show(v)})`);
  }
  return v;
}

/** Group size K for majority votes: odd so that a vote never ties (CO-RL's binary reduction). */
export function requireOddK(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v % 2 === 0) {
    throw new ConfigError(`${name} must be an odd integer >= 1 (got ${show(v)})`);
  }
  return v;
}

export function requireProbability(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new ConfigError(`${name} must be a probability in [0, 1] (got ${show(v)})`);
  }
  return v;
}

export function requirePositive(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new ConfigError(`${name} must be > 0 (got ${show(v)})`);
  return v;
}

export function requireNonNegative(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new ConfigError(`${name} must be >= 0 (got ${show(v)})`);
  return v;
}

export function requireArray<T>(
  name: string,
  v: unknown,
  each: (itemName: string, item: unknown) => T,
  minLength = 1,
): T[] {
  if (!Array.isArray(v) || v.length < minLength) {
    throw new ConfigError(`${name} must be an array of at least ${minLength} item(s) (got ${show(JSON.stringify(v))})`);
  }
  return v.map((item, i) => each(`${name}[${i}]`, item));
}
