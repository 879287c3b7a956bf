import { endpointFromUrl } from '../shared/adapters/bullmq/bullmq-connection.js';
import { QueueWorker } from '../shared/adapters/bullmq/bullmq-worker.adapter.js';
import { createRedisClient } from '../shared/adapters/redis/redis-client.js';
import type { ChatProgressLog } from '../shared/chat/chat-queue.js';
import { ChatTurnRunner } from '../shared/chat/chat-turn.js';
import type { ConversationStore } from '../shared/chat/conversation.js';
import { RedisConversationStore } from '../shared/chat/redis-conversation-store.adapter.js';
import type { ChatTools } from '../shared/chat/tools.js';
import { loadKnowledgeConfig, type Config, type KnowledgeConfig } from '../shared/config/config.js';
import { buildKnowledgeParts, openDenseParts } from '../shared/knowledge/knowledge-runtime.js';
import type { HealthCheckResult } from '../shared/health/health-check.service.js';
import type { Logger } from '../shared/logging/logger.js';
import { jobObserver, providerObserver, type Metrics } from '../shared/metrics/metrics.js';
import { buildMcpRuntime } from '../shared/mcp-client/mcp-runtime.js';
import type { AzureCredentialFactory } from '../shared/providers/azure-openai.provider.js';
import { ConcurrencyLimiter } from '../shared/providers/concurrency-limiter.js';
import { loadCustomProviders } from '../shared/providers/custom.provider.js';
import { ProviderRegistry } from '../shared/providers/provider-registry.js';
import { createRecords } from '../shared/records/records.js';
import { SecretResolver } from '../shared/secrets/secret-resolver.js';
import { chatProcessor, type ChatJobResult } from './chat.processor.js';
import { healthProcessor } from './health.processor.js';
import { indexProcessor, type IndexJobResult } from './index.processor.js';
import type { IndexProgress } from '../shared/knowledge/index-pipeline.js';
import { QueueName, type ChatQueueItem, type HealthQueueItem, type IndexQueueItem } from './jobs.js';

export interface StartWorkersOptions {
  queues: QueueName[];
  /** Jobs run at once per queue (default CHAT_WORKER_CONCURRENCY). */
  concurrency?: number;
  /** The tools chat turns may call (default: those of the Healthy MCP servers). */
  tools?: ChatTools;
  /** Reported to MCP servers as the client's version. */
  version?: string;
  /** Wraps the checkpoint store, for instance to observe or interrupt turns in tests. */
  conversationStore?: (store: ConversationStore) => ConversationStore;
  azureCredential?: AzureCredentialFactory;
  /** BullMQ lock and stalled-check timings (defaults 30 s each): how soon a killed worker's job is retried. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Knowledge-base settings for the `index` queue (default: read from the environment). */
  knowledge?: KnowledgeConfig;
  /** Where job and provider metrics are recorded. */
  metrics?: Metrics;
}

export interface RunningWorkers {
  ready(): Promise<void>;
  /** Closes the workers (waiting for active jobs), then their Redis connections. */
  close(): Promise<void>;
}

/** `aiops worker`: one BullMQ worker per queue, built from the same shared/ modules as every role. */
export async function startWorkers(config: Config, logger: Logger, options: StartWorkersOptions): Promise<RunningWorkers> {
  const custom = await loadCustomProviders(config.providers.customModules);
  const recordsRedis = createRedisClient({ url: config.redis.url, role: 'worker', logger, connectionName: 'aiops-worker' });
  const checkpointRedis = createRedisClient({ url: config.redis.url, role: 'worker', logger, db: config.redis.checkpointDb, connectionName: 'aiops-worker-checkpoints' });
  const records = createRecords(recordsRedis, config.redis.keyPrefix);
  const stopFollowing = records.followChanges();
  const store = new RedisConversationStore(checkpointRedis, { prefix: config.redis.keyPrefix, ttlSeconds: config.chat.checkpointTtlS });
  const conversations = options.conversationStore ? options.conversationStore(store) : store;
  const secrets = new SecretResolver(records.secrets);
  const mcp = buildMcpRuntime({
    redis: recordsRedis,
    collections: records.collections,
    keyPrefix: config.redis.keyPrefix,
    config,
    secrets,
    limiter: new ConcurrencyLimiter(config.chat.providerConcurrency),
    logger,
    tools: options.tools,
    clientVersion: options.version ?? 'dev',
  });
  const turns = new ChatTurnRunner({
    models: records.llmModels,
    secrets,
    providers: new ProviderRegistry({
      ollamaHost: config.providers.ollamaHost,
      custom,
      azureCredential: options.azureCredential,
      ...(options.metrics ? { observer: providerObserver(options.metrics) } : {}),
    }),
    conversations,
    agent: mcp.agent,
    policy: { timeoutMs: config.providers.timeoutMs, maxRetries: config.providers.maxRetries },
    limits: { historyBudgetChars: config.chat.historyBudgetChars, turnTimeoutMs: config.agent.timeoutMs },
  });

  const workers: Array<{ ready(): Promise<void>; close(): Promise<void> }> = [];
  /** The settings every queue's worker shares; each queue brings its concurrency and processor. */
  const settings = (queueName: QueueName, concurrency: number) => ({
    queueName,
    connection: endpointFromUrl(config.redis.url),
    keyPrefix: config.redis.keyPrefix,
    concurrency,
    logger,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
    ...(options.metrics ? { observer: jobObserver(options.metrics) } : {}),
  });
  if (options.queues.includes(QueueName.Chat)) {
    const concurrency = options.concurrency ?? config.chat.workerConcurrency;
    workers.push(
      new QueueWorker<ChatQueueItem, ChatJobResult, ChatProgressLog>({ ...settings(QueueName.Chat, concurrency), stoppable: true }, chatProcessor({ turns, conversations })),
    );
  }
  if (options.queues.includes(QueueName.Health)) {
    workers.push(
      new QueueWorker<HealthQueueItem, HealthCheckResult, never>(settings(QueueName.Health, config.health.concurrency), healthProcessor({ health: mcp.health })),
    );
  }
  let closeIndex = async () => {};
  if (options.queues.includes(QueueName.Index)) {
    const knowledge = options.knowledge ?? loadKnowledgeConfig();
    const dense = await openDenseParts(knowledge, config.dataDir);
    const parts = await buildKnowledgeParts(knowledge, { dataDir: config.dataDir, logger, ...dense });
    workers.push(
      new QueueWorker<IndexQueueItem, IndexJobResult, IndexProgress>(settings(QueueName.Index, knowledge.indexConcurrency), indexProcessor({ indexer: parts.indexer })),
    );
    closeIndex = async () => {
      await dense.vectors?.close();
    };
  }
  logger.info('workers started', { queues: options.queues, concurrency: options.concurrency ?? config.chat.workerConcurrency, custom_providers: [...custom.keys()] });
  return {
    ready: async () => {
      await Promise.all(workers.map((worker) => worker.ready()));
    },
    async close() {
      for (const worker of workers) await worker.close();
      await mcp.close();
      await closeIndex();
      stopFollowing();
      await Promise.all([recordsRedis.quit().catch(() => recordsRedis.disconnect()), checkpointRedis.quit().catch(() => checkpointRedis.disconnect())]);
    },
  };
}
