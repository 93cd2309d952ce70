// The reward service's HTTP server (Node http, no framework): OpenRLHF's remote reward-model protocol
// (POST {"query", "prompts", "labels"} -> {"rewards", "scores", "extra_logs"}, every number written as a float,
// Content-Type application/json) over the routes of src/methods/service/reward-routes.ts. Bad requests get a 4xx with a
// one-line JSON message {"error": "..."}; no request can crash the server. Bound beyond loopback it needs shared
// tokens (Authorization: Bearer), and each token is a client whose RLCER groups no other client can join.
// docs/reward-service.md.
import { createHash, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { floatJson, HttpError, parseJsonBody, readBody } from '../io/json-http.js';
import { ConfigError } from '../util/validate.js';
import { AGGREGATORS } from '../rubrics/aggregators.js';
import {
  corlRoute,
  defaultServiceConfig,
  evolmRoute,
  outcomeRoute,
  parseRewardRequest,
  RlcerGroups,
  rubiconRoute,
  type RewardReply,
  type RewardRequest,
  type ScoredGroup,
  type ServiceConfig,
} from '../methods/service/reward-routes.js';

export const REWARDS = ['outcome', 'rlcer', 'evolm', 'corl', 'rubicon/<aggregator>'] as const;
/** Every reward name the service serves: REWARDS with `rubicon/<aggregator>` spelled out for each aggregator. */
export const rewardNames = (): string[] =>
  REWARDS.flatMap((r) => (r === 'rubicon/<aggregator>' ? AGGREGATORS.map((g) => `rubicon/${g}`) : [r]));

export interface ServerOptions {
  host: string;
  /** 0 = an ephemeral port */
  port: number;
  /** the reward POST /get_reward (and / or /reward) serves: outcome, rlcer, evolm, corl, rubicon/<aggregator> */
  defaultReward: string;
  maxBodyBytes: number;
  /** the body must arrive within this time (408); the headers within headersTimeoutMs (Node's 408) */
  bodyTimeoutMs: number;
  headersTimeoutMs: number;
  service: ServiceConfig;
  /**
   * Shared bearer tokens (Authorization: Bearer TOKEN), each one client; required when `host` is not a loopback
   * address. With tokens, a POST without a known one gets a 401.
   */
  tokens?: string[];
  /** called with each request's raw body bytes (tests pin what real clients send) */
  onBody?: (raw: Buffer, req: http.IncomingMessage) => void;
  /** called with each request answered 200: its route, client, request and reply (tests and audits) */
  onReply?: (r: { path: string; client: string; request: RewardRequest; reply: RewardReply }) => void;
  /** called with each RLCER group once scored */
  onGroup?: (g: ScoredGroup) => void;
  log?: (line: string) => void;
}

/** Tokens shorter than this are refused: a shared token guards rewards that train models. */
export const MIN_TOKEN_LENGTH = 16;

/** Whether `host` binds to loopback only (127.0.0.0/8, ::1, localhost); 0.0.0.0, :: and any other address do not. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Check the tokens a server is started with (a ConfigError names the problem, never a token). */
export function checkTokens(host: string, tokens: string[]): void {
  if (tokens.length === 0 && !isLoopbackHost(host)) {
    throw new ConfigError(
      `refusing to serve rewards on ${host}, beyond loopback, without a shared token: give ` +
        '--token or set REWARD_SERVICE_TOKEN (clients send it as "Authorization: Bearer TOKEN"), or bind to 127.0.0.1',
    );
  }
  tokens.forEach((t, k) => {
    if (t.length < MIN_TOKEN_LENGTH || /[\s,]/.test(t) || /[^\x21-\x7e]/.test(t)) {
      throw new ConfigError(
        `token ${k + 1} must be at least ${MIN_TOKEN_LENGTH} printable ASCII characters, ` + 'without spaces or commas',
      );
    }
  });
  if (new Set(tokens).size !== tokens.length) throw new ConfigError('the same token is given twice');
}

const digest = (t: string) => createHash('sha256').update(t, 'utf8').digest();
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/;

export const defaultServerOptions: ServerOptions = {
  host: '127.0.0.1',
  port: 5057,
  defaultReward: 'outcome',
  maxBodyBytes: 16 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  service: defaultServiceConfig,
};

export interface RewardServer {
  server: http.Server;
  url: string;
  port: number;
  groups: RlcerGroups;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const errorBody = (message: string) => `${JSON.stringify({ error: message })}\n`;

/** Check a reply before it is written: one value per query in every list, all finite (a NaN is a bug: 500). */
function checkReply(r: RewardReply, n: number): void {
  const lists = [r.rewards, r.scores, ...Object.values(r.extra_logs)];
  if (lists.some((l) => l.length !== n)) throw new Error(`reply lists are not of length ${n}`);
  if (lists.some((l) => l.some((x) => !Number.isFinite(x)))) throw new Error('a reward is not a finite number');
}

export function startRewardServer(opts: Partial<ServerOptions> = {}): Promise<RewardServer> {
  const o = { ...defaultServerOptions, ...opts };
  const tokens = o.tokens ?? [];
  try {
    checkTokens(o.host, tokens);
  } catch (e) {
    return Promise.reject(e);
  }
  const digests = tokens.map(digest);
  const groups = new RlcerGroups(o.service, o.onGroup);
  const log = o.log ?? (() => {});

  /**
   * The client a request comes from: with tokens, the index of its bearer token (401 without a known one); then its
   * X-Client-Id header, if any. Groups of different clients never mix. No token is ever logged or echoed.
   */
  function clientOf(req: http.IncomingMessage, path: string): string {
    let client = '';
    if (digests.length > 0) {
      const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
      const d = m ? digest(m[1]) : null;
      const k = d === null ? -1 : digests.findIndex((x) => timingSafeEqual(x, d));
      if (k < 0) {
        const why = req.headers.authorization === undefined ? 'no Authorization header' : 'not a known bearer token';
        log(`reward server: 401 from ${req.socket.remoteAddress ?? '?'} on ${path}: ${why}`);
        throw new HttpError(401, `${why}: send "Authorization: Bearer TOKEN" with the service's shared token`);
      }
      client = `token${k + 1}`;
    }
    const id = req.headers['x-client-id'];
    if (id !== undefined) {
      if (typeof id !== 'string' || !CLIENT_ID.test(id)) {
        throw new HttpError(400, 'X-Client-Id must be 1 to 128 printable ASCII characters');
      }
      client += `/${id}`;
    }
    return client;
  }

  async function route(
    path: string,
    r: RewardRequest,
    req: http.IncomingMessage,
    client: string,
  ): Promise<RewardReply> {
    const name = path.replace(/^\/+|\/+$/g, '');
    const reward = ['', 'get_reward', 'reward'].includes(name) ? o.defaultReward : name;
    if (r.query.length === 0) return { rewards: [], scores: [], extra_logs: {} };
    if (reward === 'outcome') return outcomeRoute(r);
    if (reward === 'rlcer') {
      const call = req.headers['x-reward-call'];
      return groups.route(r, { client, perSample: typeof call === 'string' && call.toLowerCase() === 'per-sample' });
    }
    if (reward === 'evolm') return evolmRoute(r, o.service);
    if (reward === 'corl') return corlRoute(r);
    if (reward.startsWith('rubicon/')) return rubiconRoute(r, reward.slice('rubicon/'.length), o.service);
    throw new HttpError(404, `no reward at ${path} (POST /get_reward or /${REWARDS.join(', /')})`);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      send(res, 200, '{"ok": true}\n');
      return;
    }
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} not allowed: POST a JSON body`);
    const client = clientOf(req, path);
    const text = await readBody(req, { maxBytes: o.maxBodyBytes, timeoutMs: o.bodyTimeoutMs });
    o.onBody?.(Buffer.from(text, 'utf8'), req);
    const r = parseRewardRequest(parseJsonBody(text));
    const out = await route(path, r, req, client);
    checkReply(out, r.query.length);
    o.onReply?.({ path, client, request: r, reply: out });
    send(res, 200, floatJson(out));
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (status >= 500) log(`reward server: 500 on ${req.url}: ${message}`);
      // the rest of a refused body is not read: close the connection after the reply
      const unread = status === 413 || status === 408 || status === 401;
      if (unread) res.setHeader('Connection', 'close');
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      send(res, status, errorBody(status >= 500 ? `internal error: ${message}` : message));
      if (unread) res.on('finish', () => req.socket.destroy());
    });
  });
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = o.bodyTimeoutMs + o.headersTimeoutMs;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timeout ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = errorBody(timeout ? 'request not received in time' : `bad HTTP request (${err.code ?? err.message})`);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        server,
        port,
        groups,
        url: `http://${o.host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            groups.flush();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
