import { startApiServer, type ApiServer } from '../../src/roles/api.js';
import { createRedisClient, waitForRedis, type RedisClient } from '../../src/kernel/redis/redis-client.js';
import { OPERATOR, type Permission } from '../../src/records/auth/permissions.js';
import type { ChatTools } from '../../src/chat/chat-tools.port.js';
import { loadConfig, type Config } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { Metrics } from '../../src/kernel/metrics/metrics.js';
import type { LlmModelFields } from '../../src/records/llm-model.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { callApi, type JsonReply } from '../support/http.js';
import { LOOPBACK_ALLOW } from '../support/outbound.js';
import type { TestRedis } from '../support/redis.js';
import type { TestTopology } from '../support/redis-topologies.js';

export const STUB_KEY = 'sk-chat-test-0123456789abcdef';

export interface ChatHarness {
  baseUrl: string;
  prefix: string;
  config: Config;
  stub: ProviderStub;
  records: Records;
  api: ApiServer;
  workers?: RunningWorkers;
  /** The secret holding the stub's key: name and environment variable. */
  secret: { name: string; variable: string };
  token(username: string, permissions?: Permission[]): Promise<string>;
  /** Creates an LLM model pointing at the stub (OpenAI protocol by default). */
  model(fields?: Partial<LlmModelFields>): Promise<{ id: string; name: string }>;
  call(method: string, path: string, options: { key: string; body?: unknown; headers?: Record<string, string> }): Promise<JsonReply>;
  close(): Promise<void>;
}

export interface ChatHarnessOptions {
  waitMs?: number;
  ratePerMinute?: number;
  tools?: ChatTools;
  /** Start the chat worker in this process (default true). */
  workers?: boolean;
  env?: Record<string, string>;
  /** Where the worker records its metrics. */
  metrics?: Metrics;
}

let counter = 0;

/** The real API and chat worker over a private Redis (or Sentinel or Cluster), with an OpenAI-protocol stub provider. */
export async function startChatHarness(redis: TestRedis | TestTopology, options: ChatHarnessOptions = {}): Promise<ChatHarness> {
  const prefix = `chat${process.pid}x${counter++}`;
  const logger = silentLogger();
  const stub = await startProviderStub({ apiKey: STUB_KEY });
  const secret = { name: `${prefix}-openai-key`, variable: `AIOPS_TEST_KEY_${prefix.toUpperCase()}` };
  process.env[secret.variable] = STUB_KEY;
  const config = loadConfig({
    ...('url' in redis ? { REDIS_URL: redis.url } : redis.env),
    REDIS_KEY_PREFIX: prefix,
    PROVIDER_TIMEOUT_S: '10',
    PROVIDER_MAX_RETRIES: '1',
    CHAT_WORKER_CONCURRENCY: '8',
    CHAT_WAIT_S: String((options.waitMs ?? 10_000) / 1_000),
    CHAT_RATE_PER_MIN: String(options.ratePerMinute ?? 0),
    DRAIN_DELAY_MS: '0',
    // Suites that test the built-in platform tools turn them on; the rest see only their own tools.
    AGENT_BUILTIN_TOOLS: 'false',
    OUTBOUND_ALLOW: LOOPBACK_ALLOW,
    // The health workers a suite starts schedule no round of their own (once a year): its checks are those it asks for.
    HEALTH_CRON: '0 0 1 1 *',
    ...options.env,
  });
  const apiRedis: RedisClient = createRedisClient({ topology: config.redis.topology, role: 'request', logger });
  await waitForRedis(apiRedis, 5_000);
  const api = await startApiServer({ config, redis: apiRedis, port: 0, logger, version: 'test', validateResponses: true });
  const workers =
    options.workers === false
      ? undefined
      : await startWorkers(config, logger, {
          queues: [QueueName.Chat],
          tools: options.tools,
          ...(options.metrics ? { metrics: options.metrics } : {}),
          apiUrl: `http://127.0.0.1:${api.port}`,
        });
  await workers?.ready();
  const records = createRecords(redis.client, prefix);
  await records.secrets.create(
    { name: secret.name, description: '', provider: 'environment-variable', parameters: { variable: secret.variable } },
    OPERATOR,
  );
  const baseUrl = `http://127.0.0.1:${api.port}`;
  let models = 0;
  return {
    baseUrl,
    prefix,
    config,
    stub,
    records,
    api,
    workers,
    secret,
    token: async (username, permissions = ['ai_ops.chat']) =>
      (await records.tokens.create({ username, superuser: false, permissions, writeEnabled: true, expires: null })).key,
    async model(fields = {}) {
      const model = await records.llmModels.create(
        {
          name: `model-${models++}`,
          description: '',
          provider: 'openai',
          model_secret_key: secret.name,
          hosted_endpoint: `${stub.url}/v1`,
          api_version: '',
          is_default: true,
          temperature: 0.2,
          model_config: {},
          system_prompt: '',
          ...fields,
        },
        OPERATOR,
      );
      return { id: model.id, name: model.name };
    },
    call: (method, path, options) => callApi(baseUrl, method, path, options),
    async close() {
      await api.close();
      await workers?.close();
      apiRedis.disconnect();
      await stub.close();
      delete process.env[secret.variable];
    },
  };
}

/** Reads an event stream to its end: `[event, data]` pairs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON whose shape the assertions check
export async function readEvents(response: Response): Promise<[string, any][]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event:'))
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      return [eventLine!.slice('event: '.length), JSON.parse(dataLine!.slice('data: '.length))];
    });
}
