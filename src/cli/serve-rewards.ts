// `make serve-rewards`: the reward service on 127.0.0.1:5057 (OpenRLHF's --reward.remote_url / --remote_rm_url
// http://127.0.0.1:5057/get_reward; verl and TRL through python/reward_shims.py). docs/reward-service.md.
import { choiceArg, intArg, parseArgs, runMain } from '../io/args.js';
import { REWARDS, rewardNames, startRewardServer } from './reward-server.js';
import { defaultServiceConfig, type ServiceConfig } from '../methods/service/reward-routes.js';
import { ChatBackend, llmRoles } from '../models/chat.js';
import { ConfigError } from '../util/validate.js';
import { AGGREGATORS } from '../rubrics/aggregators.js';

runMain(async () => {
  const a = parseArgs(process.argv.slice(2), {
    host: { help: 'address to bind (beyond loopback --token is required)', default: '127.0.0.1' },
    port: { help: 'port (0 = any free port)', default: '5057' },
    reward: {
      help: `what POST /get_reward serves: outcome, rlcer, evolm, corl, rubicon/<${AGGREGATORS.join('|')}>`,
      default: 'outcome',
    },
    'group-size': { help: 'RLCER group size when a label gives none', default: '8' },
    'group-timeout': { help: 'seconds after which an incomplete RLCER group is scored as it stands', default: '120' },
    'max-body': { help: 'largest request body in MiB', default: '16' },
    'body-timeout': { help: 'seconds to receive a body', default: '30' },
    'cot-norm': { help: 'RLCER CoT reward normalisation: rubric or group', default: 'rubric' },
    sees: { help: 'RLCER pooling: each_pooled or each_own', default: 'each_pooled' },
    'judge-url': 'OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1) for the LLM rubricator and judge',
    'judge-model': 'model name at --judge-url',
    'judge-concurrency': { help: 'judge requests in flight at most', default: '8' },
    token:
      'shared bearer token(s), comma-separated, one per client; required beyond loopback (default: ' +
      '$REWARD_SERVICE_TOKEN, which keeps them out of the process list)',
  });
  const reward = a.reward;
  if (!rewardNames().includes(reward))
    throw new ConfigError(`--reward must be one of ${rewardNames().join(', ')} (got "${reward}")`);
  const service: ServiceConfig = {
    ...defaultServiceConfig,
    groupSize: intArg('group-size', a['group-size'], 1, 4096),
    groupTimeoutMs: 1000 * intArg('group-timeout', a['group-timeout'], 1, 170),
    rlcer: {
      ...defaultServiceConfig.rlcer,
      cotNorm: choiceArg('cot-norm', a['cot-norm'], ['rubric', 'group'] as const),
      rubricatorSees: choiceArg('sees', a.sees, ['each_pooled', 'each_own'] as const),
    },
  };
  if (a['judge-url']) {
    if (!a['judge-model']) throw new ConfigError('--judge-url needs --judge-model');
    const backend = new ChatBackend({
      baseURL: a['judge-url'],
      model: a['judge-model'],
      apiKey: process.env.OPENAI_API_KEY,
      concurrency: intArg('judge-concurrency', a['judge-concurrency'], 1),
    });
    service.llm = llmRoles(backend);
  }
  const tokenText = a.token ?? process.env.REWARD_SERVICE_TOKEN ?? '';
  const tokens = tokenText
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const s = await startRewardServer({
    host: a.host,
    tokens,
    port: intArg('port', a.port, 0, 65535),
    defaultReward: reward,
    service,
    maxBodyBytes: intArg('max-body', a['max-body'], 1, 1024) * 1024 * 1024,
    bodyTimeoutMs: 1000 * intArg('body-timeout', a['body-timeout'], 1, 170),
    log: (l) => console.error(l),
  });
  console.log(
    `reward server on ${s.url}: POST /get_reward (${reward}) or /${REWARDS.join(', /')}` +
      `${tokens.length ? `; ${tokens.length} client token${tokens.length > 1 ? 's' : ''} required` : ''}` +
      `${a['judge-url'] ? `; LLM judge ${a['judge-model']} at ${a['judge-url']}` : ''}`,
  );
  const stop = () => {
    s.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
