import type { BullQueue } from '../kernel/bullmq/bullmq-queue.adapter.js';
import { jobQueue } from '../kernel/bullmq/job-queue.adapter.js';
import type { KernelSettings } from '../kernel/config/config.js';
import type { ChatSettings } from './chat.settings.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import type { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { QueueConsumer } from '../kernel/jobs/queue-consumer.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { Metrics } from '../kernel/metrics/metrics.js';
import { closeRedisClient, createRedisClient, duplicateClient, type RedisClient } from '../kernel/redis/redis-client.js';
import type { Records } from '../records/records.js';
import type { SecretResolver } from '../records/secret-resolver.js';
import { RedisApprovalStore } from './adapters/redis-approval-store.adapter.js';
import { RedisElicitationStore } from './adapters/redis-elicitation-store.adapter.js';
import { RedisRateLimiter } from './adapters/redis-rate-limiter.adapter.js';
import { RedisSessionStore } from './adapters/redis-session-store.adapter.js';
import { RedisTurnSlots } from './adapters/redis-turn-slots.adapter.js';
import { RedisTurnTextFeed, TURN_TEXT_TTL_S } from './adapters/redis-turn-text.adapter.js';
import type { AgentLoop } from './agent/agent-loop.js';
import { ApprovalsService } from './approvals.service.js';
import { RedisAuditLog } from './audit/redis-audit-log.adapter.js';
import { ChatTurnRunner } from './chat-turn.js';
import { ChatJobName, type ChatJob } from './chat.jobs.js';
import { chatProcessor } from './chat.processor.js';
import { ElicitationsService } from './elicitations.service.js';
import type { ChatServices } from './http/chat.router.js';
import { modelDirectory } from './model-directory.js';
import type { AzureCredentialFactory } from './providers/azure-openai.provider.js';
import type { CustomProviderDefinition } from './providers/custom.provider.js';
import { ProviderRegistry, providerObserver } from './providers/provider-registry.adapter.js';
import { UNLIMITED } from './rate-limiter.port.js';
import type { SessionStore } from './session-store.port.js';
import { SessionsService } from './sessions.service.js';
import { TurnEventsService } from './turn-events.service.js';
import { TurnSubmissionService } from './turn-submission.service.js';
import { countedUsage } from './usage/counted-usage.js';
import { RedisTokenUsage } from './usage/redis-token-usage.adapter.js';
import { TokenBudget, type TokenBudgetOptions } from './usage/token-budget.js';
import { UsageReportService } from './usage/usage-report.service.js';

/**
 * Chat's wiring: its services on the API side and its `chat` queue's consumer in a worker, each
 * built from chat's adapters on the clients the role shares (Redis, records).
 */

/** The configuration sections chat reads. */
type ChatConfig = Pick<KernelSettings, 'redis'> & Pick<ChatSettings, 'chat' | 'agent' | 'usage'>;

/** The daily token budget, held while a turn may still run: the API checks it before queueing, the worker as it spends. */
function tokenBudget(config: ChatConfig, usage: TokenBudgetOptions['usage']): TokenBudget {
  return new TokenBudget({ usage, perUserPerDay: config.chat.tokenBudgetPerDay, holdMs: config.chat.waitMs + config.agent.timeoutMs });
}

export interface ChatApiDeps {
  config: ChatConfig & Pick<ChatSettings, 'audit'>;
  /** The API's client on the records database. */
  redis: RedisClient;
  records: Pick<Records, 'llmModels'>;
  /** The `chat` queue, opened by the role with event streams (the services wait for turns). */
  queue: BullQueue<ChatJob>;
}

/** What the API serves of chat: its routes' services, the usage report and the audit log. */
export interface ChatApi {
  services: ChatServices;
  usage: UsageReportService;
  auditLog: RedisAuditLog;
  /** Ends event streams and answers waiting requests, then drops the session store's connection. */
  close(): void;
}

/** Chat's services on the API side: the turns they queue run in the `chat` queue's workers. */
export function chatApi({ config, redis, records, queue }: ChatApiDeps): ChatApi {
  const { keyPrefix, replicaWait } = config.redis;
  // Sessions live on their own database (on a cluster, under keys of their own).
  const sessionRedis = duplicateClient(redis, { db: config.redis.sessionDb, connectionName: 'aiops-api-sessions' });
  sessionRedis.on('error', () => {
    // The records client already reports outages; requests answer 503 meanwhile.
  });
  const { ratePerMinute } = config.chat;
  const turnText = new RedisTurnTextFeed(redis, { prefix: keyPrefix, ttlSeconds: TURN_TEXT_TTL_S });
  const turns = jobQueue(queue, ChatJobName.Turn);
  const models = modelDirectory(records.llmModels);
  const sessions = new RedisSessionStore(sessionRedis, { prefix: keyPrefix, ttlSeconds: config.chat.sessionTtlS, replicaWait });
  const approvals = new RedisApprovalStore(redis, { prefix: keyPrefix });
  const elicitations = new RedisElicitationStore(redis, { prefix: keyPrefix });
  const usage = new RedisTokenUsage(redis, { prefix: keyPrefix, retentionDays: config.usage.retentionDays });
  const budget = tokenBudget(config, usage);
  const services: ChatServices = {
    submission: new TurnSubmissionService({
      models,
      queue: turns,
      sessions,
      approvals,
      limiter:
        ratePerMinute > 0
          ? new RedisRateLimiter(redis, { prefix: keyPrefix, name: 'chat', limit: ratePerMinute, windowMs: 60_000 })
          : UNLIMITED,
      ratePerMinute,
      budget,
      waitMs: config.chat.waitMs,
    }),
    approvals: new ApprovalsService({ queue: turns, approvals }),
    elicitations: new ElicitationsService({ queue: turns, elicitations }),
    events: new TurnEventsService({ queue: turns, approvals, elicitations, text: turnText }),
    sessions: new SessionsService({ sessions, models }),
  };
  return {
    services,
    usage: new UsageReportService({ usage, models: records.llmModels, budget }),
    auditLog: new RedisAuditLog(redis, { prefix: keyPrefix, retentionMs: config.audit.retentionMs }),
    close() {
      services.events.closeStreams();
      turnText.close();
      sessionRedis.disconnect();
    },
  };
}

export interface ChatQueueDeps {
  config: ChatConfig & Pick<ChatSettings, 'providers'>;
  logger: Logger;
  /** The worker's client on the records database. */
  redis: RedisClient;
  records: Pick<Records, 'llmModels' | 'tokens'>;
  secrets: SecretResolver;
  outbound: OutboundPolicy;
  /** The agent loop over the tools chat turns may call (the role's shared MCP clients). */
  agent: AgentLoop;
  /** CUSTOM_PROVIDERS' handler modules, loaded by the role before anything opens. */
  custom: Map<string, CustomProviderDefinition>;
  /** Turns at once per worker (default CHAT_WORKER_CONCURRENCY). */
  concurrency?: number;
  /** Wraps the session store, for instance to observe or interrupt turns in tests. */
  sessionStore?: (store: SessionStore) => SessionStore;
  azureCredential?: AzureCredentialFactory;
  /** Where provider calls and token usage are counted. */
  metrics?: Metrics;
}

/** The `chat` queue's consumer: chat turns (provider, session store, the agent, approvals) and the cleanup of expired sessions. */
export function chatQueue(deps: ChatQueueDeps): QueueConsumer<ChatJob> {
  const { config, logger, redis, records, metrics } = deps;
  const { keyPrefix, replicaWait, topology } = config.redis;
  const sessionRedis = createRedisClient({
    topology,
    role: 'worker',
    logger,
    db: config.redis.sessionDb,
    connectionName: 'aiops-worker-sessions',
  });
  const store = new RedisSessionStore(sessionRedis, { prefix: keyPrefix, ttlSeconds: config.chat.sessionTtlS, replicaWait });
  const sessions = deps.sessionStore ? deps.sessionStore(store) : store;
  const usageStore = new RedisTokenUsage(redis, { prefix: keyPrefix, retentionDays: config.usage.retentionDays });
  const usage = metrics ? countedUsage(usageStore, metrics) : usageStore;
  const turns = new ChatTurnRunner({
    models: records.llmModels,
    secrets: deps.secrets,
    providers: new ProviderRegistry({
      ollamaHost: config.providers.ollamaHost,
      custom: deps.custom,
      azureCredential: deps.azureCredential,
      outbound: outboundFetch(deps.outbound),
      ...(metrics ? { observer: providerObserver(metrics) } : {}),
    }),
    sessions,
    agent: deps.agent,
    delegator: records.tokens,
    usage: { store: usage, budget: tokenBudget(config, usage) },
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
    processor: chatProcessor({ turns, sessions, ...(text ? { text } : {}) }),
    concurrency: deps.concurrency ?? config.chat.workerConcurrency,
    failedForGood: (job) => (job.name === ChatJobName.Turn ? turns.abandoned(job.data) : Promise.resolve()),
    close: () => closeRedisClient(sessionRedis),
  };
}
