import { RedisApprovalStore } from '../chat/adapters/redis-approval-store.adapter.js';
import { RedisElicitationStore } from '../chat/adapters/redis-elicitation-store.adapter.js';
import { RedisTurnTextFeed, TURN_TEXT_TTL_S } from '../chat/adapters/redis-turn-text.adapter.js';
import { BuiltinPlatformTools } from '../tool-server/builtin-tools.adapter.js';
import { QueueWorker, type FailedForGood } from '../kernel/bullmq/bullmq-worker.adapter.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import { closeRedisClient, createRedisClient, type RedisClient } from '../kernel/redis/redis-client.js';
import { reportRedis } from './redis.js';
import { RedisAuditLog } from '../chat/audit/redis-audit-log.adapter.js';
import { countedUsage } from '../chat/usage/counted-usage.js';
import { RedisTokenUsage } from '../chat/usage/redis-token-usage.adapter.js';
import { TokenBudget } from '../chat/usage/token-budget.js';
import { RedisPersonalTokenStore } from '../platform/adapters/redis-personal-tokens.adapter.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { mcpOAuthSettings } from './mcp-oauth.js';
import { RedisSessionStore } from '../chat/adapters/redis-session-store.adapter.js';
import { RedisProviderSlots } from '../chat/adapters/redis-provider-slots.adapter.js';
import { RedisTurnSlots } from '../chat/adapters/redis-turn-slots.adapter.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { AgentLoop } from '../chat/agent/agent-loop.js';
import { ToolCallAudit } from '../chat/audit/tool-call-audit.js';
import type { ChatTools } from '../chat/chat-tools.port.js';
import { ChatJobName } from '../chat/chat.jobs.js';
import { ChatTurnRunner } from '../chat/chat-turn.js';
import type { SessionStore } from '../chat/session-store.port.js';
import type { Config } from '../kernel/config/config.js';
import { HealthCheckService } from '../health/health-check.service.js';
import { serversToCheck } from '../health/health-rounds.js';
import { HealthJobName } from '../health/health.jobs.js';
import { jobQueue, type OpenQueueOptions } from '../kernel/bullmq/job-queue.adapter.js';
import type { QueueProcessor } from '../kernel/jobs/queue-processor.js';
import type { Logger } from '../kernel/logging/logger.js';
import { type Metrics } from '../kernel/metrics/metrics.js';
import { jobObserver } from '../kernel/bullmq/bullmq-worker.adapter.js';
import { providerObserver } from '../chat/providers/provider-registry.adapter.js';
import type { AzureCredentialFactory } from '../chat/providers/azure-openai.provider.js';
import { ConcurrencyLimiter } from '../chat/providers/concurrency-limiter.js';
import { loadCustomProviders, type CustomProviderDefinition } from '../chat/providers/custom.provider.js';
import { ProviderRegistry } from '../chat/providers/provider-registry.adapter.js';
import type { Records } from '../records/records.js';
import { SecretResolver } from '../records/secret-resolver.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import { chatProcessor } from '../chat/chat.processor.js';
import { healthProcessor } from '../health/health.processor.js';
import { indexProcessor } from '../knowledge/index.processor.js';
import { openQueue, periodicJobs, QueueName, type CatalogueQueue, type Job, type JobsOf } from './job-catalogue.js';
import { keepScheduled, schedulesOf, type Schedule } from '../kernel/bullmq/job-schedules.js';
import { assertCronSettings, type PeriodicJob } from '../kernel/jobs/periodic-job.js';
import { buildKnowledgeParts, knowledgeSharing, openDenseParts, type DenseParts } from './knowledge.js';
import { buildWorkerMcp, type WorkerMcp } from './worker-mcp.js';
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
  /** Wraps the checkpoint store, for instance to observe or interrupt turns in tests. */
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
  | 'http'
  | 'security'
>;

/** What every queue's wiring shares in one worker process. */
interface WorkerContext {
  config: WorkerConfig;
  logger: Logger;
  options: StartWorkersOptions;
  /** A worker-role client on the records database. */
  redis: RedisClient;
  records: Records;
  secrets: SecretResolver;
  outbound: OutboundPolicy;
  /** Queue Q, opened once to add jobs and set schedules on (closed with the workers). */
  ownQueue: <Q extends QueueName>(queueName: Q) => CatalogueQueue<Q>;
  /** A BullMQ worker on queue Q with the settings every queue's worker shares. */
  worker: <Q extends QueueName>(
    queueName: Q,
    concurrency: number,
    processor: QueueProcessor<JobsOf<Q>>,
    failedForGood?: FailedForGood<JobsOf<Q>>,
  ) => QueueWorker<JobsOf<Q>>;
}

/** One queue's part of a worker process: its BullMQ worker and what else it closes. */
interface QueuePart {
  worker: QueueWorker<Job>;
  close?(): Promise<void>;
}

/**
 * The worker role (`aiops worker`): one BullMQ worker per queue, each wired by its own function
 * below from the components' services and adapters, and the periodic jobs of those queues kept in
 * their schedulers. What the queues share is built once: the Redis connection and records, the MCP
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
  const context: WorkerContext = {
    config,
    logger,
    options,
    redis,
    records,
    secrets: new SecretResolver(records.secrets),
    outbound: OutboundPolicy.fromList(config.security.outboundAllow),
    // One per queue, whoever asks for it.
    ownQueue: <Q extends QueueName>(queueName: Q) => {
      const queue = (queues.get(queueName) as CatalogueQueue<Q> | undefined) ?? openQueue(queueName, ownQueueOptions);
      queues.set(queueName, queue);
      return queue;
    },
    worker: (queueName, concurrency, processor, failedForGood) =>
      new QueueWorker(
        {
          queueName,
          connection: redis,
          keyPrefix,
          concurrency,
          logger,
          lockDurationMs: options.lockDurationMs,
          stalledIntervalMs: options.stalledIntervalMs,
          ...(options.metrics ? { observer: jobObserver(options.metrics) } : {}),
          // Chat turns can be stopped by their user.
          stoppable: queueName === QueueName.Chat,
        },
        processor,
        failedForGood,
      ),
  };
  const builtinTools = runs(QueueName.Chat) && config.agent.builtinTools && !options.tools;
  // One embedder and one vector store per process, whichever of its queues use them.
  const dense = builtinTools || runs(QueueName.Index) ? await openDenseParts(config.vectors, config.dataDir) : {};
  const mcp = runs(QueueName.Chat) || runs(QueueName.Health) ? await workerMcp(context, builtinTools, dense) : undefined;
  const parts: QueuePart[] = [];
  if (mcp && runs(QueueName.Chat)) parts.push(chatQueue(context, mcp.agent, custom));
  if (mcp && runs(QueueName.Health)) parts.push(healthQueue(context, mcp.health));
  if (runs(QueueName.Index)) parts.push(await indexQueue(context, dense));
  logger.info('workers started', {
    queues: options.queues,
    concurrency: options.concurrency ?? config.chat.workerConcurrency,
    custom_providers: [...custom.keys()],
  });
  // Every periodic job of the queues this process works, in its queue's scheduler.
  const scheduled = <Q extends QueueName>(queueName: Q): Schedule[] =>
    periodic[queueName].length > 0 ? schedulesOf(context.ownQueue(queueName), periodic[queueName]) : [];
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
            ttlMs: config.platform.confirmTtlMs,
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

/** The `chat` queue: chat turns (provider, session store, the agent, approvals) and the cleanup of expired sessions. */
function chatQueue(
  { config, logger, options, redis, records, secrets, outbound, worker }: WorkerContext,
  agent: AgentLoop,
  custom: Map<string, CustomProviderDefinition>,
): QueuePart {
  const { keyPrefix, replicaWait, topology } = config.redis;
  const sessionRedis = createRedisClient({
    topology,
    role: 'worker',
    logger,
    db: config.redis.sessionDb,
    connectionName: 'aiops-worker-sessions',
  });
  const store = new RedisSessionStore(sessionRedis, { prefix: keyPrefix, ttlSeconds: config.chat.sessionTtlS, replicaWait });
  const sessions = options.sessionStore ? options.sessionStore(store) : store;
  const usageStore = new RedisTokenUsage(redis, { prefix: keyPrefix, retentionDays: config.usage.retentionDays });
  const usage = options.metrics ? countedUsage(usageStore, options.metrics) : usageStore;
  const turns = new ChatTurnRunner({
    models: records.llmModels,
    secrets,
    providers: new ProviderRegistry({
      ollamaHost: config.providers.ollamaHost,
      custom,
      azureCredential: options.azureCredential,
      outbound: outboundFetch(outbound),
      ...(options.metrics ? { observer: providerObserver(options.metrics) } : {}),
    }),
    sessions,
    agent,
    delegator: records.tokens,
    usage: {
      store: usage,
      budget: new TokenBudget({ usage, perUserPerDay: config.chat.tokenBudgetPerDay, holdMs: config.chat.waitMs + config.agent.timeoutMs }),
    },
    policy: {
      timeoutMs: config.providers.timeoutMs,
      maxRetries: config.providers.maxRetries,
      maxResponseBytes: config.providers.maxResponseBytes,
    },
    limits: {
      historyBudgetChars: config.chat.historyBudgetChars,
      turnTimeoutMs: config.agent.timeoutMs,
      approvalTimeoutMs: config.agent.approvalTimeoutMs,
    },
    approvals: new RedisApprovalStore(redis, { prefix: keyPrefix }),
    elicitations: new RedisElicitationStore(redis, { prefix: keyPrefix }),
    ...(config.chat.userMaxTurns > 0
      ? { turnSlots: new RedisTurnSlots(redis, { prefix: keyPrefix, limit: config.chat.userMaxTurns }) }
      : {}),
  });
  const text = config.chat.streaming
    ? { feed: new RedisTurnTextFeed(redis, { prefix: keyPrefix, ttlSeconds: TURN_TEXT_TTL_S }), intervalMs: config.chat.streamIntervalMs }
    : undefined;
  return {
    worker: worker(
      QueueName.Chat,
      options.concurrency ?? config.chat.workerConcurrency,
      chatProcessor({ turns, sessions, ...(text ? { text } : {}) }),
      (job) => (job.name === ChatJobName.Turn ? turns.abandoned(job.data) : Promise.resolve()),
    ),
    close: () => closeRedisClient(sessionRedis),
  };
}

/** The `health` queue: each server's check, and the rounds that add one check per server (HEALTH_CRON). */
function healthQueue({ config, records, ownQueue, worker }: WorkerContext, health: HealthCheckService): QueuePart {
  const queue = ownQueue(QueueName.Health);
  const rounds = { queue: jobQueue(queue, HealthJobName.Check), servers: serversToCheck(records.mcpServers) };
  return {
    worker: worker(QueueName.Health, config.health.concurrency, healthProcessor({ health, rounds })),
  };
}

/** The `index` queue: clone, chunk and index repositories into the knowledge base shared in Redis. */
async function indexQueue({ config, logger, redis, secrets, outbound, worker }: WorkerContext, dense: DenseParts): Promise<QueuePart> {
  const sharing = knowledgeSharing(config.dataDir, { client: redis, keyPrefix: config.redis.keyPrefix });
  const parts = await buildKnowledgeParts(config.knowledge, { dataDir: config.dataDir, logger, ...dense, sharing, secrets, outbound });
  return {
    worker: worker(QueueName.Index, config.knowledge.indexConcurrency, indexProcessor({ indexer: parts.indexer })),
    close: () => parts.close(),
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
