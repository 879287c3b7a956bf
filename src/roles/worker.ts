import { RedisApprovalStore } from '../chat/adapters/redis-approval-store.adapter.js';
import { RedisTurnTextFeed, TURN_TEXT_TTL_S } from '../chat/adapters/redis-turn-text.adapter.js';
import { BuiltinPlatformTools } from '../tool-server/builtin-tools.adapter.js';
import { QueueWorker, type WorkerCloseOptions } from '../kernel/bullmq/bullmq-worker.adapter.js';
import { HttpHealthChecker } from '../health/adapters/http-health-checker.adapter.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import { SdkMcpConnector } from '../mcp-client/adapters/sdk-connector.adapter.js';
import { closeRedisClient, createRedisClient, type RedisClient } from '../kernel/redis/redis-client.js';
import { reportRedis } from './redis.js';
import { RedisAuditLog } from '../chat/audit/redis-audit-log.adapter.js';
import { countedUsage } from '../chat/usage/counted-usage.js';
import { RedisTokenUsage } from '../chat/usage/redis-token-usage.adapter.js';
import { TokenBudget } from '../chat/usage/token-budget.js';
import { RedisPersonalTokenStore } from '../platform/adapters/redis-personal-tokens.adapter.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { RedisSessionStore } from '../chat/adapters/redis-session-store.adapter.js';
import { RedisHealthStreakStore } from '../health/adapters/redis-health-streaks.adapter.js';
import { RedisProviderSlots } from '../chat/adapters/redis-provider-slots.adapter.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { RedisToolVersionStore } from '../mcp-client/adapters/redis-tool-versions.adapter.js';
import { AgentLoop } from '../chat/agent/agent-loop.js';
import { CombinedChatTools } from '../chat/agent/combined-chat-tools.js';
import { McpChatTools } from '../chat/agent/mcp-chat-tools.js';
import { ToolCallAudit } from '../chat/audit/tool-call-audit.js';
import type { ChatTools } from '../chat/chat-tools.port.js';
import { SESSION_CLEANUP } from '../chat/chat.jobs.js';
import { ChatTurnRunner } from '../chat/chat-turn.js';
import type { SessionStore } from '../chat/session-store.port.js';
import type { Config } from '../kernel/config/config.js';
import { HealthCheckService } from '../health/health-check.service.js';
import { serversToCheck } from '../health/health-rounds.js';
import { HEALTH_ROUND, HealthJobName } from '../health/health.jobs.js';
import { jobQueue, type OpenQueueOptions } from '../kernel/bullmq/job-queue.adapter.js';
import { protocolChecker, StdioHealthChecker } from '../health/health-checker.js';
import type { CredentialLookup } from '../health/health-checker.port.js';
import type { QueueProcessor } from '../kernel/jobs/queue-processor.js';
import type { Logger } from '../kernel/logging/logger.js';
import { McpClientManager } from '../mcp-client/mcp-client-manager.js';
import type { McpConnector } from '../mcp-client/mcp-connector.port.js';
import { type Metrics } from '../kernel/metrics/metrics.js';
import { jobObserver } from '../kernel/bullmq/bullmq-worker.adapter.js';
import { providerObserver } from '../chat/providers/provider-registry.adapter.js';
import type { AzureCredentialFactory } from '../chat/providers/azure-openai.provider.js';
import { ConcurrencyLimiter } from '../chat/providers/concurrency-limiter.js';
import { loadCustomProviders } from '../chat/providers/custom.provider.js';
import { ProviderRegistry } from '../chat/providers/provider-registry.adapter.js';
import type { Records } from '../records/records.js';
import { SecretResolver } from '../records/secret-resolver.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import { chatProcessor } from '../chat/chat.processor.js';
import { healthProcessor } from '../health/health.processor.js';
import { indexProcessor } from '../knowledge/index.processor.js';
import { openQueue, QueueName, type CatalogueQueue, type JobsOf } from './job-catalogue.js';
import { assertCronSetting, keepScheduled, type PeriodicJob } from './job-schedules.js';
import { buildKnowledgeParts, knowledgeSharing, openDenseParts } from './knowledge.js';
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

/**
 * The worker role (`aiops worker`): one BullMQ worker per queue, its processor built here from the
 * components' services and adapters, and the periodic jobs of those queues kept in their schedulers.
 */
export async function startWorkers(config: WorkerConfig, logger: Logger, options: StartWorkersOptions): Promise<RunningWorkers> {
  if (options.queues.includes(QueueName.Chat)) assertCronSetting('SESSION_CLEANUP_CRON', config.chat.cleanupCron);
  if (options.queues.includes(QueueName.Health)) assertCronSetting('HEALTH_CRON', config.health.cron);
  const custom = await loadCustomProviders(config.providers.customModules);
  const { topology, replicaWait, keyPrefix } = config.redis;
  const recordsRedis = createRedisClient({ topology, role: 'worker', logger, connectionName: 'aiops-worker' });
  const sessionRedis = createRedisClient({
    topology,
    role: 'worker',
    logger,
    db: config.redis.sessionDb,
    connectionName: 'aiops-worker-checkpoints',
  });
  if (options.reportRedis) await reportRedis(recordsRedis, topology, logger, 'jobs wait');
  const records = createRecords(recordsRedis, keyPrefix, undefined, replicaWait);
  const stopFollowing = records.followChanges();
  const store = new RedisSessionStore(sessionRedis, { prefix: keyPrefix, ttlSeconds: config.chat.sessionTtlS, replicaWait });
  const sessions = options.sessionStore ? options.sessionStore(store) : store;
  const secrets = new SecretResolver(records.secrets);
  const outbound = OutboundPolicy.fromList(config.security.outboundAllow);
  const builtin =
    options.queues.includes(QueueName.Chat) && config.agent.builtinTools && !options.tools
      ? await builtinPlatformTools(config, logger, options, recordsRedis)
      : undefined;
  const mcp = buildWorkerMcp({
    redis: recordsRedis,
    collections: records.collections,
    keyPrefix: config.redis.keyPrefix,
    config,
    secrets,
    limiter: new ConcurrencyLimiter(
      config.chat.providerConcurrency,
      config.chat.providerConcurrencyTotal > 0
        ? new RedisProviderSlots(recordsRedis, {
            prefix: keyPrefix,
            limit: config.chat.providerConcurrencyTotal,
            waitMs: config.agent.timeoutMs,
          })
        : undefined,
    ),
    logger,
    outbound,
    tools: options.tools,
    ...(builtin ? { builtinTools: builtin.tools } : {}),
    clientVersion: options.version ?? 'dev',
    // The service's platform token is redacted from recorded arguments too.
    audit: new ToolCallAudit(new RedisAuditLog(recordsRedis, { prefix: config.redis.keyPrefix, retentionMs: config.audit.retentionMs }), [
      config.platform.token,
    ]),
  });
  const usageStore = new RedisTokenUsage(recordsRedis, { prefix: keyPrefix, retentionDays: config.usage.retentionDays });
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
    agent: mcp.agent,
    delegator: records.tokens,
    usage: { store: usage, budget: new TokenBudget({ usage, perUserPerDay: config.chat.tokenBudgetPerDay }) },
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
    approvals: new RedisApprovalStore(recordsRedis, { prefix: config.redis.keyPrefix }),
  });

  const workers: Array<{ ready(): Promise<void>; close(options: WorkerCloseOptions): Promise<void> }> = [];
  /** One worker on `queueName`; every queue's worker shares these settings. */
  const startWorker = <Q extends QueueName>(queueName: Q, concurrency: number, processor: QueueProcessor<JobsOf<Q>>) =>
    workers.push(
      new QueueWorker<JobsOf<Q>>(
        {
          queueName,
          connection: recordsRedis,
          keyPrefix: config.redis.keyPrefix,
          concurrency,
          logger,
          lockDurationMs: options.lockDurationMs,
          stalledIntervalMs: options.stalledIntervalMs,
          ...(options.metrics ? { observer: jobObserver(options.metrics) } : {}),
          // Chat turns can be stopped by their user.
          stoppable: queueName === QueueName.Chat,
        },
        processor,
      ),
    );
  // The queues the workers add to (a round's checks) and set schedules on: like the workers, they wait while Redis is away.
  const ownQueueOptions: OpenQueueOptions = { connection: recordsRedis, keyPrefix, logger, events: false, waitForRedis: true };
  const queues: Array<{ close(): Promise<void> }> = [];
  const ownQueue = <Q extends QueueName>(queueName: Q): CatalogueQueue<Q> => {
    const queue = openQueue(queueName, ownQueueOptions);
    queues.push(queue);
    return queue;
  };
  const periodic: PeriodicJob[] = [];
  if (options.queues.includes(QueueName.Chat)) {
    const chatQueue = ownQueue(QueueName.Chat);
    const { cleanupCron } = config.chat;
    periodic.push({
      setting: 'SESSION_CLEANUP_CRON',
      pattern: cleanupCron,
      schedule: () => chatQueue.schedule(SESSION_CLEANUP, cleanupCron),
    });
    const text = config.chat.streaming
      ? {
          feed: new RedisTurnTextFeed(recordsRedis, { prefix: config.redis.keyPrefix, ttlSeconds: TURN_TEXT_TTL_S }),
          intervalMs: config.chat.streamIntervalMs,
        }
      : undefined;
    startWorker(
      QueueName.Chat,
      options.concurrency ?? config.chat.workerConcurrency,
      chatProcessor({ turns, sessions, ...(text ? { text } : {}) }),
    );
  }
  if (options.queues.includes(QueueName.Health)) {
    const healthQueue = ownQueue(QueueName.Health);
    const { cron } = config.health;
    periodic.push({ setting: 'HEALTH_CRON', pattern: cron, schedule: () => healthQueue.schedule(HEALTH_ROUND, cron) });
    const rounds = { queue: jobQueue(healthQueue, HealthJobName.Check), servers: serversToCheck(records.mcpServers) };
    startWorker(QueueName.Health, config.health.concurrency, healthProcessor({ health: mcp.health, rounds }));
  }
  let closeIndex = async () => {};
  if (options.queues.includes(QueueName.Index)) {
    const dense = await openDenseParts(config.vectors, config.dataDir);
    const sharing = knowledgeSharing(config.dataDir, { client: recordsRedis, keyPrefix: config.redis.keyPrefix });
    const parts = await buildKnowledgeParts(config.knowledge, { dataDir: config.dataDir, logger, ...dense, sharing });
    startWorker(QueueName.Index, config.knowledge.indexConcurrency, indexProcessor({ indexer: parts.indexer }));
    closeIndex = async () => {
      await dense.vectors?.close();
    };
  }
  logger.info('workers started', {
    queues: options.queues,
    concurrency: options.concurrency ?? config.chat.workerConcurrency,
    custom_providers: [...custom.keys()],
  });
  const schedules = keepScheduled(periodic, recordsRedis, logger);
  return {
    ready: async () => {
      await Promise.all([...workers.map((worker) => worker.ready()), schedules.ready]);
    },
    async close() {
      schedules.stop();
      // Every queue stops taking jobs at once; active jobs get SHUTDOWN_TIMEOUT_MS to finish.
      const closing = { withinMs: config.http.shutdownTimeoutMs, redisReachable: recordsRedis.status === 'ready' };
      await Promise.all(workers.map((worker) => worker.close(closing)));
      await Promise.all(queues.map((queue) => queue.close()));
      await mcp.close();
      await builtin?.close();
      await closeIndex();
      stopFollowing();
      await Promise.all([closeRedisClient(recordsRedis), closeRedisClient(sessionRedis)]);
      logger.info('workers stopped', { queues: options.queues });
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
): Promise<{ tools: BuiltinPlatformTools; close(): Promise<void> }> {
  const { platform } = config;
  const url = platform.isSelf ? (options.apiUrl ?? `http://127.0.0.1:${config.http.port}`) : platform.url;
  const parts = await buildPlatformToolServer({ ...config, platform: { ...platform, url } }, logger, redis);
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

export interface WorkerMcpOptions {
  /** A worker-role client on the records database. */
  redis: RedisClient;
  /** The server and status stores (health results are written straight to them). */
  collections: Records['collections'];
  keyPrefix: string;
  config: Pick<Config, 'agent' | 'mcp' | 'health'>;
  secrets: { resolve(name: string): Promise<string> };
  limiter: ConcurrencyLimiter;
  logger: Logger;
  /** Where servers whose address no superuser set may connect (OUTBOUND_ALLOW). */
  outbound: OutboundPolicy;
  /** Replaces the chat's tools (tests); the MCP servers' tools otherwise. */
  tools?: ChatTools;
  /** Offered before the MCP servers' tools, under their own names (the built-in platform tools). */
  builtinTools?: ChatTools & { readonly names: ReadonlySet<string> };
  clientVersion: string;
  /** Where every tool call of a chat turn is recorded. */
  audit?: ToolCallAudit;
}

export interface WorkerMcp {
  agent: AgentLoop;
  health: HealthCheckService;
  close(): Promise<void>;
}

/**
 * What a worker needs for MCP servers, built once per process: one client manager (sessions and
 * tool lists shared by every chat turn), the agent loop over the Healthy servers' tools, and the
 * health-check service. Server records are read straight from their collection (health results
 * are written with its compare-and-swap).
 */
export function buildWorkerMcp({
  redis,
  collections,
  keyPrefix,
  config,
  secrets,
  limiter,
  logger,
  outbound,
  tools,
  builtinTools,
  clientVersion,
  audit,
}: WorkerMcpOptions): WorkerMcp {
  const { mcpServers: servers, statuses } = collections;
  const versions = new RedisToolVersionStore(redis, keyPrefix);
  const connector: McpConnector = new SdkMcpConnector({ clientName: 'aiops', clientVersion, outbound: outboundFetch(outbound) });
  const manager = new McpClientManager({
    connector,
    credentials: secrets,
    connectionTtlMs: config.mcp.connectionTtlMs,
    connectTimeoutMs: config.mcp.connectTimeoutMs,
    logger,
  });
  const serverTools = new McpChatTools({
    servers,
    statuses: { getByName: (name) => statuses.getByKey(name) },
    versions,
    manager,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    logger,
    ...(builtinTools ? { reservedNames: builtinTools.names } : {}),
  });
  const chatTools = tools ?? (builtinTools ? new CombinedChatTools(builtinTools, serverTools) : serverTools);
  const agent = new AgentLoop({
    tools: chatTools,
    limiter,
    maxSteps: config.agent.maxSteps,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    resultChars: config.agent.resultChars,
    answerChars: config.agent.answerChars,
    ...(audit ? { audit } : {}),
  });
  const credential: CredentialLookup = async (server) => (server.auth_secret_key ? secrets.resolve(server.auth_secret_key) : undefined);
  const health = new HealthCheckService({
    servers,
    statuses,
    checker: protocolChecker({ http: new HttpHealthChecker(credential, outbound), stdio: new StdioHealthChecker(connector, credential) }),
    streaks: new RedisHealthStreakStore(redis, keyPrefix),
    versions,
    thresholds: { fall: config.health.fall, rise: config.health.rise },
    timeoutMs: config.health.timeoutMs,
  });
  return { agent, health, close: () => manager.close() };
}
