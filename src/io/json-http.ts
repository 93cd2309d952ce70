// JSON over HTTP for the reward service (src/cli/reward-server.ts): a serializer that writes every number with a
// decimal point (OpenRLHF turns an integer into an int64 tensor, whose std() fails: `1` must be written `1.0`), a
// body reader with a size limit, a time limit and a strict UTF-8 check, and an HTTP error with a one-line message.
import type { IncomingMessage } from 'node:http';

/** An error that becomes an HTTP reply with this status and a one-line message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' '));
    this.name = 'HttpError';
  }
}

/** One number as JSON with a decimal point: 1 -> "1.0", -0 -> "0.0", 0.25 -> "0.25"; non-finite numbers throw. */
export function floatText(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`non-finite number ${x} cannot be written as JSON`);
  const s = String(x);
  return /[.eE]/.test(s) ? s : x.toFixed(1);
}

/**
 * JSON.stringify for plain data (objects, arrays, strings, booleans, null, numbers), with every number written as a
 * float (floatText). Separators as Python's json.dumps: ", " and ": ". Throws on non-finite numbers.
 */
export function floatJson(v: unknown): string {
  if (typeof v === 'number') return floatText(v);
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(floatJson).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}: ${floatJson(x)}`)
      .join(', ')}}`;
  }
  throw new Error(`cannot write a ${typeof v} as JSON`);
}

export interface BodyLimits {
  /** largest body accepted, in bytes (413 beyond it) */
  maxBytes: number;
  /** the whole body must arrive within this many milliseconds of the request's headers (408 otherwise) */
  timeoutMs: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Read a request body as text. Rejects with an HttpError: 413 when Content-Length or the bytes received exceed
 * maxBytes, 408 when the body is not complete in time, 400 when it is not valid UTF-8 or the client aborts.
 */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limits.maxBytes) {
      reject(new HttpError(413, `body of ${declared} bytes is over the limit of ${limits.maxBytes} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0,
      done = false;
    const finish = (err: HttpError | null, text?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(text!);
    };
    const timer = setTimeout(
      () => finish(new HttpError(408, `body not received within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limits.maxBytes) finish(new HttpError(413, `body is over the limit of ${limits.maxBytes} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => {
      try {
        finish(null, utf8.decode(Buffer.concat(chunks)));
      } catch {
        finish(new HttpError(400, 'body is not valid UTF-8'));
      }
    });
    req.on('aborted', () => finish(new HttpError(400, 'client aborted the request')));
    req.on('error', () => finish(new HttpError(400, 'client connection failed')));
  });
}

/** Parse a JSON body; a syntax error is a 400 naming JSON.parse's reason. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, `malformed JSON: ${(e as Error).message}`);
  }
}
