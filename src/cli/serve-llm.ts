// `make serve-llm`: an OpenAI-compatible /v1/chat/completions on 127.0.0.1:8089 over the local llama.cpp engine
// (src/cli/llm-server.ts). With no --model it serves the random-weight tiny GGUF (src/models/gguf.ts; gibberish by
// construction, for plumbing only); --model FILE.gguf serves a real one. Then point the reward service at it:
//   make serve-rewards SERVE_ARGS='--reward rlcer --judge-url http://127.0.0.1:8089/v1 --judge-model tiny-random-llama'
import * as path from 'node:path';
import { intArg, parseArgs, runMain } from '../io/args.js';
import { startLlmServer } from './llm-server.js';
import { writeTinyLlamaGguf } from '../models/gguf.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    model: 'a GGUF file (default: the random-weight tiny model, written to runs/llm/tiny-random-llama.gguf)',
    host: { help: 'address to bind', default: '127.0.0.1' },
    port: { help: 'port (0 = any free port)', default: '8089' },
    threads: { help: 'llama.cpp threads (2 stall on this 2-core VM)', default: '1' },
    context: { help: 'context size', default: '4096' },
    'max-tokens': { help: 'the most tokens a reply may have, whatever a request asks', default: '1024' },
  });
  const model = a.model ?? writeTinyLlamaGguf(path.join('runs', 'llm'));
  const s = await startLlmServer({
    modelPath: model,
    host: a.host,
    port: intArg('port', a.port, 0, 65535),
    threads: intArg('threads', a.threads, 1, 64),
    contextSize: intArg('context', a.context, 64),
    maxTokensCap: intArg('max-tokens', a['max-tokens'], 1),
  });
  console.log(`LLM server on ${s.url} (model ${s.model}): GET /v1/models, POST /v1/chat/completions`);
  const stop = () => {
    s.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
