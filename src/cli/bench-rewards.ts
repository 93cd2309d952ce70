// `make bench-rewards`: a bounded loopback load test of the reward service, the way OpenRLHF >= v0.9.1 calls it
// (one sample per request, a new connection per request, many concurrent): throughput and latency percentiles
// for the outcome reward, for RLCER groups formed across requests, and for RLCER groups whose rubrics are written and
// judged by the local llama.cpp engine (src/cli/llm-server.ts, the random-weight tiny model: the LLM's own cost, on
// this CPU, of one rubric and one verdict call per sample). BENCH_ARGS='--requests 4000 --concurrency 128'.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { startRewardServer } from './reward-server.js';
import { defaultServiceConfig } from '../methods/service/reward-routes.js';
import { startLlmServer } from './llm-server.js';
import { writeTinyLlamaGguf } from '../models/gguf.js';
import { ChatBackend, llmRoles } from '../models/chat.js';
import { percentile } from '../util/stats.js';

function postOnce(port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
            : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function load(port: number, path: string, bodies: string[], concurrency: number) {
  const lat: number[] = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, bodies.length) }, async () => {
      while (next < bodies.length) lat.push(await postOnce(port, path, bodies[next++]));
    }),
  );
  const wall = (Date.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return {
    n: bodies.length,
    wall,
    rps: bodies.length / wall,
    p50: percentile(lat, 50),
    p90: percentile(lat, 90),
    p99: percentile(lat, 99),
    max: lat[lat.length - 1],
  };
}

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    requests: { help: 'requests per scenario (at most 20000)', default: '2000' },
    concurrency: { help: 'concurrent clients (at most 512)', default: '64' },
    'group-size': { help: 'RLCER group size', default: '8' },
    'llm-requests': {
      help: 'requests of the scenario with the llama.cpp rubricator and judge (0 leaves it out)',
      default: '16',
    },
  });
  const n = intArg('requests', a.requests, 1, 20_000);
  const conc = intArg('concurrency', a.concurrency, 1, 512);
  const g = intArg('group-size', a['group-size'], 2, 64);
  const nLlm = intArg('llm-requests', a['llm-requests'], 0, 1000);
  const srv = await startRewardServer({ port: 0, service: { ...defaultServiceConfig, groupTimeoutMs: 30_000 } });
  const prompt = '<|im_start|>user\nWhat is 1+1? Put it in \\boxed{}.<|im_end|>\n<|im_start|>assistant\n';
  const one = (i: number) =>
    JSON.stringify({
      query: [`${prompt}The answer is \\boxed{${i % 3}}<|im_end|>`],
      prompts: [prompt],
      labels: ['1'],
    });
  const rubric = [
    { criterion: 'Writes the steps.', points: 2 },
    { criterion: 'Checks the sum.', points: 1 },
  ];
  const member = (i: number) =>
    JSON.stringify({
      query: [`${prompt}\\boxed{${i % 2}}`],
      prompts: [prompt],
      labels: [
        {
          group: `p${Math.floor(i / g)}`,
          group_size: g,
          answer: '1',
          rubric,
          satisfied: [i % 2 === 1, i % 4 === 1],
        },
      ],
    });
  console.log(
    `reward service load test on loopback: ${n} one-sample requests per scenario, ` +
      `${conc} concurrent clients, ` +
      'a new connection per request',
  );
  console.log('scenario        requests  wall_s  req_per_s   p50_ms   p90_ms   p99_ms   max_ms');
  const ms = (xs: number[]) => xs.map((x) => x.toFixed(1).padStart(8)).join(' ');
  const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
    console.log(
      `${name.padEnd(15)} ` +
        `${String(r.n).padStart(8)} ${r.wall.toFixed(2).padStart(7)} ${r.rps.toFixed(r.rps < 10 ? 1 : 0).padStart(10)} ` +
        `${ms([r.p50, r.p90, r.p99, r.max])}`,
    );
  await load(
    srv.port,
    '/outcome',
    Array.from({ length: Math.min(200, n) }, (_, i) => one(i)),
    conc,
  ); // warm-up
  row(
    'outcome',
    await load(
      srv.port,
      '/outcome',
      Array.from({ length: n }, (_, i) => one(i)),
      conc,
    ),
  );
  // groups complete only when all g members arrived: a member's latency includes the wait for its group
  const members = Array.from({ length: Math.ceil(n / g) * g }, (_, i) => member(i));
  row(`rlcer (g=${g})`, await load(srv.port, '/rlcer', members, conc));
  await srv.close();
  if (nLlm > 0) {
    // no rubric and no verdicts in the labels: the engine writes each sample's rubric and judges every criterion
    const model = writeTinyLlamaGguf(fs.mkdtempSync(path.join(os.tmpdir(), 'wb-bench-llm-')));
    const llm = await startLlmServer({ modelPath: model });
    const withLlm = await startRewardServer({
      port: 0,
      service: {
        ...defaultServiceConfig,
        groupTimeoutMs: 170_000,
        llm: llmRoles(new ChatBackend({ baseURL: llm.url, model: llm.model, temperature: 0.8 })),
      },
    });
    const bare = (i: number) =>
      JSON.stringify({
        query: [`${prompt}Step ${i}: 1 + 1 = ${1 + (i % 2)}. \\boxed{${1 + (i % 2)}}`],
        prompts: [prompt],
        labels: [{ group: `q${Math.floor(i / g)}`, group_size: g, answer: '2' }],
      });
    row(
      `rlcer+llm (g=${g})`,
      await load(
        withLlm.port,
        '/rlcer',
        Array.from({ length: Math.ceil(nLlm / g) * g }, (_, i) => bare(i)),
        conc,
      ),
    );
    await withLlm.close();
    await llm.close();
  }
});
