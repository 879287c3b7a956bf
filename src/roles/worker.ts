import { BuiltinPlatformTools } from '../tool-server/builtin-tools.adapter.js';
import { QueueWorker } from '../kernel/bullmq/bullmq-worker.adapter.js';
import { closeRedisClient, createRedisClient, type RedisClient } from '../kernel/redis/redis-client.js';
import { reportRedis } from './redis.js';
import { RedisAuditLog } from '../chat/audit/redis-audit-log.adapter.js';
import { RedisPersonalTokenStore } from '../platform/adapters/redis-personal-tokens.adapter.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { mcpOAuthSettings } from './mcp-oauth.js';
import { RedisProviderSlots } from '../chat/adapters/redis-provider-slots.adapter.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { ToolCallAudit } from '../chat/audit/tool-call-audit.js';
import type { ChatTools } from '../chat/chat-tools.port.js';
import type { SessionStore } from '../chat/session-store.port.js';
import type { Config } from './config.js';
import { type OpenQueueOptions } from '../kernel/bullmq/job-queue.adapter.js';
import type { Logger } from '../kernel/logging/logger.js';
import { type Metrics } from '../kernel/metrics/metrics.js';
import { jobObserver } from '../kernel/bullmq/bullmq-worker.adapter.js';
import type { AzureCredentialFactory } from '../chat/providers/azure-openai.provider.js';
import { ConcurrencyLimiter } from '../chat/providers/concurrency-limiter.js';
import { loadCustomProviders, type CustomProviderDefinition } from '../chat/providers/custom.provider.js';
import type { Records } from '../records/records.js';
import { SecretResolver } from '../records/secret-resolver.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import { openQueue, periodicJobs, QueueName, type CatalogueQueue, type Job, type JobsOf } from './job-catalogue.js';
import { keepScheduled, schedulesOf, type Schedule } from '../kernel/bullmq/job-schedules.js';
import { assertCronSettings, type PeriodicJob } from '../kernel/jobs/periodic-job.js';
import { openDenseParts, type DenseParts } from '../embeddings/embeddings.wiring.js';
import { buildKnowledgeParts, knowledgeSharing } from '../knowledge/knowledge.wiring.js';
import { buildWorkerMcp, type WorkerMcp } from './worker-mcp.js';
import type { QueueConsumer } from '../kernel/jobs/queue-consumer.js';
import { chatQueue } from '../chat/chat.wiring.js';
import { healthQueue } from '../health/health.wiring.js';
import { indexQueue } from '../knowledge/knowledge.wiring.js';
import { ChatApprovalSeal } from '../chat/agent/chat-approval-seal.js';
import { ConfirmTokens } from '../write-plans/confirm-tokens.js';
import { buildPlatformToolServer } from './mcp.js';

export interface StartWorkersOptions {
  queues: QueueName[];
  /** Jobs run at once per queue (default CHAT_WORKER_CONCURRENCY). */
  concurrency?: number;
  /** The tools chat turns may call (default: those of the Healthy MCP servers). */
  tools?: ChatTools;
  /** Reported to MCP servers as the client's version. */
  version?: string;
  /** Wraps the session store, for instance to observe or interrupt turns in tests. */
  sessionStore?: (store: SessionStore) => SessionStore;
  azureCredential?: AzureCredentialFactory;
  /** BullMQ lock and stalled-check timings (defaults 30 s each): how soon a killed worker's job is retried. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Where job and provider metrics are recorded. */
  metrics?: Metrics;
  /** This service's API, when it is the platform (`aiops start` passes its bound port). */
  apiUrl?: string;
  /** Say which Redis the workers use, or that it is unreachable (`aiops worker`; `aiops start` says it once for every role). */
  reportRedis?: boolean;
}

export interface RunningWorkers {
  ready(): Promise<void>;
  /** Closes the workers (active jobs get up to SHUTDOWN_TIMEOUT_MS), then their Redis connections. */
  close(): Promise<void>;
}

/** The configuration sections the worker role reads (of `http`, the shutdown timeout and, for the built-in tools, the API port). */
export type WorkerConfig = Pick<
  Config,
  | 'redis'
  | 'chat'
  | 'agent'
  | 'audit'
  | 'usage'
  | 'mcp'
  | 'health'
  | 'providers'
  | 'dataDir'
  | 'vectors'
  | 'knowledge'
  | 'platform'
  | 'toolServer'
  | 'writePlans'
  | 'http'
  | 'security'
>;

/** What the queues share in one worker process. */
interface WorkerContext {
  config: WorkerConfig;
  logger: Logger;
  options: StartWorkersOptions;
  /** A worker-role client on the records database. */
  redis: RedisClient;
  records: Records;
  secrets: SecretResolver;
  outbound: OutboundPolicy;
}

/** One queue's part of a worker process: its BullMQ worker and what else it closes. */
interface QueuePart {
  worker: QueueWorker<Job>;
  close?(): Promise<void>;
}

/**
 * The worker role (`aiops worker`): one BullMQ worker per queue, each running the consumer its
 * component wires (`chatQueue` in `chat/chat.wiring.ts`, ...), and every periodic job of those queues,
 * as the components declare them (`periodicJobs`), kept in their schedulers. What the queues share is built once: the Redis connection and records, the MCP
 * clients (chat turns and health checks), the embedder and vector store (built-in tools and indexing).
 */
export async function startWorkers(config: WorkerConfig, logger: Logger, options: StartWorkersOptions): Promise<RunningWorkers> {
  const runs = (queueName: QueueName) => options.queues.includes(queueName);
  const periodic = periodicJobs(config);
  assertCronSettings(options.queues.flatMap((queueName): Array<PeriodicJob<Job>> => periodic[queueName]));
  // Before anything opens: a handler module that does not load stops the start with nothing to close.
  const custom = runs(QueueName.Chat)
    ? await loadCustomProviders(config.providers.customModules)
    : new Map<string, CustomProviderDefinition>();
  const { topology, replicaWait, keyPrefix } = config.redis;
  const redis = createRedisClient({ topology, role: 'worker', logger, connectionName: 'aiops-worker' });
  if (options.reportRedis) await reportRedis(redis, config.redis, logger, 'jobs wait');
  const records = createRecords(redis, keyPrefix, undefined, replicaWait);
  const stopFollowing = records.followChanges();
  // The queues the workers add to (a round's checks) and set schedules on: like the workers, they wait while Redis is away.
  const ownQueueOptions: OpenQueueOptions = { connection: redis, keyPrefix, logger, events: false, waitForRedis: true };
  const queues = new Map<QueueName, { close(): Promise<void> }>();
  // One per queue, whoever asks for it.
  const ownQueue = <Q extends QueueName>(queueName: Q): CatalogueQueue<Q> => {
    const queue = (queues.get(queueName) as CatalogueQueue<Q> | undefined) ?? openQueue(queueName, ownQueueOptions);
    queues.set(queueName, queue);
    return queue;
  };
  /** Runs a queue's consumer, as its component wires it, in a BullMQ worker with the settings every queue's worker shares. */
  const run = <Q extends QueueName>(queueName: Q, consumer: QueueConsumer<JobsOf<Q>>): QueuePart => ({
    worker: new QueueWorker(
      {
        queueName,
        connection: redis,
        keyPrefix,
        concurrency: consumer.concurrency,
        logger,
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
        ...(options.metrics ? { observer: jobObserver(options.metrics) } : {}),
        // Chat turns can be stopped by their user.
        stoppable: queueName === QueueName.Chat,
      },
      consumer.processor,
      consumer.failedForGood,
    ),
    ...(consumer.close ? { close: consumer.close } : {}),
  });
  const secrets = new SecretResolver(records.secrets);
  const outbound = OutboundPolicy.fromList(config.security.outboundAllow);
  const context: WorkerContext = { config, logger, options, redis, records, secrets, outbound };
  const builtinTools = runs(QueueName.Chat) && config.agent.builtinTools && !options.tools;
  // One embedder and one vector store per process, whichever of its queues use them.
  const dense = builtinTools || runs(QueueName.Index) ? await openDenseParts(config.vectors, config.dataDir) : {};
  const mcp = runs(QueueName.Chat) || runs(QueueName.Health) ? await workerMcp(context, builtinTools, dense) : undefined;
  const parts: QueuePart[] = [];
  if (mcp && runs(QueueName.Chat)) {
    const { concurrency, sessionStore, azureCredential, metrics } = options;
    const chat = { concurrency, sessionStore, azureCredential, metrics };
    parts.push(run(QueueName.Chat, chatQueue({ config, logger, redis, records, secrets, outbound, agent: mcp.agent, custom, ...chat })));
  }
  if (mcp && runs(QueueName.Health)) {
    parts.push(run(QueueName.Health, healthQueue({ config, records, queue: ownQueue(QueueName.Health), health: mcp.health })));
  }
  if (runs(QueueName.Index)) {
    const sharing = knowledgeSharing(config.dataDir, { client: redis, keyPrefix });
    const knowledge = await buildKnowledgeParts(config.knowledge, {
      dataDir: config.dataDir,
      logger,
      ...dense,
      sharing,
      secrets,
      outbound,
    });
    parts.push(run(QueueName.Index, indexQueue({ config, indexer: knowledge.indexer, close: () => knowledge.close() })));
  }
  logger.info('workers started', {
    queues: options.queues,
    concurrency: options.concurrency ?? config.chat.workerConcurrency,
    custom_providers: [...custom.keys()],
  });
  // Every periodic job of the queues this process works, in its queue's scheduler.
  const scheduled = <Q extends QueueName>(queueName: Q): Schedule[] =>
    periodic[queueName].length > 0 ? schedulesOf(ownQueue(queueName), periodic[queueName]) : [];
  const schedules = keepScheduled(options.queues.flatMap(scheduled), redis, logger);
  return {
    ready: async () => {
      await Promise.all([...parts.map((part) => part.worker.ready()), schedules.ready]);
    },
    async close() {
      schedules.stop();
      // Every queue stops taking jobs at once; active jobs get SHUTDOWN_TIMEOUT_MS to finish.
      const closing = { withinMs: config.http.shutdownTimeoutMs, redisReachable: redis.status === 'ready' };
      await Promise.all(parts.map((part) => part.worker.close(closing)));
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      for (const part of parts) await part.close?.();
      await mcp?.close();
      await dense.vectors?.close();
      stopFollowing();
      await closeRedisClient(redis);
      logger.info('workers stopped', { queues: options.queues });
    },
  };
}

/**
 * The MCP side of the process: one client manager for the chat agent (the Healthy servers' tools,
 * and the built-in platform tools unless `builtinTools` is false) and the health checks, and the
 * audit of every tool call.
 */
async function workerMcp(
  { config, logger, options, redis, records, secrets, outbound }: WorkerContext,
  builtinTools: boolean,
  dense: DenseParts,
): Promise<WorkerMcp> {
  const builtin = builtinTools ? await builtinPlatformTools(config, logger, options, redis, dense) : undefined;
  const { keyPrefix } = config.redis;
  const mcp = buildWorkerMcp({
    redis,
    collections: records.collections,
    keyPrefix,
    config,
    secrets,
    limiter: new ConcurrencyLimiter(
      config.chat.providerConcurrency,
      config.chat.providerConcurrencyTotal > 0
        ? new RedisProviderSlots(redis, { prefix: keyPrefix, limit: config.chat.providerConcurrencyTotal, waitMs: config.agent.timeoutMs })
        : undefined,
    ),
    logger,
    outbound,
    tools: options.tools,
    ...(builtin ? { builtinTools: builtin.tools } : {}),
    clientVersion: options.version ?? 'dev',
    oauth: mcpOAuthSettings(config, redis, outbound),
    // An approved write through this service's own tool server is not asked again there: the approval goes sealed with the call.
    ...(config.platform.personalTokenKey
      ? {
          approvals: new ChatApprovalSeal({
            tokens: new ConfirmTokens(new SealedBox(config.platform.personalTokenKey)),
            secrets,
            keys: records.tokens,
            ttlMs: config.toolServer.confirmTtlMs,
          }),
        }
      : {}),
    // The service's platform token is redacted from recorded arguments too.
    audit: new ToolCallAudit(new RedisAuditLog(redis, { prefix: keyPrefix, retentionMs: config.audit.retentionMs }), [
      config.platform.token,
    ]),
  });
  return {
    ...mcp,
    async close() {
      await mcp.close();
      await builtin?.close();
    },
  };
}

/**
 * The platform tools chat turns get with no MCP server record: the tool server's parts built as
 * `aiops mcp` builds them, served in this process. On this service's own API they act with the
 * asking user's delegated rights.
 */
async function builtinPlatformTools(
  config: WorkerConfig,
  logger: Logger,
  options: StartWorkersOptions,
  redis: RedisClient,
  dense: DenseParts,
): Promise<{ tools: BuiltinPlatformTools; close(): Promise<void> }> {
  const { platform } = config;
  const url = platform.isSelf ? (options.apiUrl ?? `http://127.0.0.1:${config.http.port}`) : platform.url;
  const parts = await buildPlatformToolServer({ ...config, platform: { ...platform, url } }, logger, { redis, dense });
  // Built now, as `aiops mcp` does: a turn's first search does not wait for it, and platform requests are named by their operation.
  void parts.deps.index.start();
  logger.info('built-in platform tools offered to chat turns', {
    platform: url,
    acting_as: platform.isSelf
      ? 'the asking user'
      : platform.personalTokenKey
        ? "the user's personal token, else the service token for reads"
        : 'the service token, reads only',
  });
  const personalTokens =
    !platform.isSelf && platform.personalTokenKey
      ? new RedisPersonalTokenStore(redis, config.redis.keyPrefix, new SealedBox(platform.personalTokenKey))
      : undefined;
  return {
    tools: new BuiltinPlatformTools({
      deps: parts.deps,
      version: options.version ?? 'dev',
      platformIsSelf: platform.isSelf,
      ...(personalTokens ? { personalTokens } : {}),
    }),
    close: () => parts.close(),
  };
}
