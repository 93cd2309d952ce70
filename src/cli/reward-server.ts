// The reward service's HTTP server (Node http, no framework): OpenRLHF's remote reward-model protocol
// (POST {"query", "prompts", "labels"} -> {"rewards", "scores", "extra_logs"}, every number written as a float,
// Content-Type application/json) over the routes of src/methods/reward-routes.ts. Bad requests get a 4xx with a
// one-line JSON message {"error": "..."}; no request can crash the server. docs/reward-service.md.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { floatJson, HttpError, parseJsonBody, readBody } from '../io/json-http.js';
import { corlRoute, defaultServiceConfig, evolmRoute, outcomeRoute, parseRewardRequest, RlcerGroups, rubiconRoute,
  type RewardReply, type RewardRequest, type ServiceConfig } from '../methods/reward-routes.js';

export const REWARDS = ['outcome', 'rlcer', 'evolm', 'corl', 'rubicon/<aggregator>'] as const;

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
  /** called with each request's raw body bytes (tests pin what real clients send) */
  onBody?: (raw: Buffer, req: http.IncomingMessage) => void;
  log?: (line: string) => void;
}

export const defaultServerOptions: ServerOptions = {
  host: '127.0.0.1', port: 5057, defaultReward: 'outcome', maxBodyBytes: 16 * 1024 * 1024, bodyTimeoutMs: 30_000,
  headersTimeoutMs: 20_000, service: defaultServiceConfig,
};

export interface RewardServer {
  server: http.Server; url: string; port: number; groups: RlcerGroups; close(): Promise<void>;
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
  const groups = new RlcerGroups(o.service);
  const log = o.log ?? (() => {});

  async function route(path: string, r: RewardRequest): Promise<RewardReply> {
    const name = path.replace(/^\/+|\/+$/g, '');
    const reward = ['', 'get_reward', 'reward'].includes(name) ? o.defaultReward : name;
    if (r.query.length === 0) return { rewards: [], scores: [], extra_logs: {} };
    if (reward === 'outcome') return outcomeRoute(r);
    if (reward === 'rlcer') return groups.route(r);
    if (reward === 'evolm') return evolmRoute(r, o.service);
    if (reward === 'corl') return corlRoute(r);
    if (reward.startsWith('rubicon/')) return rubiconRoute(r, reward.slice('rubicon/'.length), o.service);
    throw new HttpError(404, `no reward at ${path} (POST /get_reward or /${REWARDS.join(', /')})`);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') { send(res, 200, '{"ok": true}\n'); return; }
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} not allowed: POST a JSON body`);
    const text = await readBody(req, { maxBytes: o.maxBodyBytes, timeoutMs: o.bodyTimeoutMs });
    o.onBody?.(Buffer.from(text, 'utf8'), req);
    const r = parseRewardRequest(parseJsonBody(text));
    const out = await route(path, r);
    checkReply(out, r.query.length);
    send(res, 200, floatJson(out));
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (status >= 500) log(`reward server: 500 on ${req.url}: ${message}`);
      // the rest of a refused body is not read: close the connection after the reply
      if (status === 413 || status === 408) res.setHeader('Connection', 'close');
      send(res, status, errorBody(status >= 500 ? `internal error: ${message}` : message));
      if (status === 413 || status === 408) res.on('finish', () => req.socket.destroy());
    });
  });
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = o.bodyTimeoutMs + o.headersTimeoutMs;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) { socket.destroy(); return; }
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timeout ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = errorBody(timeout ? 'request not received in time' : `bad HTTP request (${err.code ?? err.message})`);
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        server, port, groups, url: `http://${o.host}:${port}`,
        close: () => new Promise<void>((done) => {
          groups.flush();
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}
