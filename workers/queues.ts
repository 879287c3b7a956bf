import type { Redis } from 'ioredis';
import { endpointOf, type RedisEndpoint } from '../shared/adapters/bullmq/bullmq-connection.js';
import { BullQueue } from '../shared/adapters/bullmq/bullmq-queue.adapter.js';
import { ChatService, modelDirectory } from '../shared/chat/chat.service.js';
import { UNLIMITED } from '../shared/chat/rate-limiter.js';
import { RedisConversationStore } from '../shared/chat/redis-conversation-store.adapter.js';
import { RedisRateLimiter } from '../shared/chat/redis-rate-limiter.adapter.js';
import type { Records } from '../shared/records/records.js';
import {
  encodeFailure,
  TURN_STOPPED,
  type ChatProgressLog,
  type ChatTurnData,
  type ChatTurnQueue,
  type ChatTurnResult,
  type JobOutcome,
  type JobSnapshot,
} from '../shared/chat/chat-queue.js';
import type { Logger } from '../shared/logging/logger.js';
import type { ChatJobResult } from './chat.processor.js';
import type { IndexProgress } from '../shared/knowledge/index-pipeline.js';
import { KnowledgeBase } from '../shared/knowledge/knowledge-base.service.js';
import { KnowledgeLayout } from '../shared/knowledge/knowledge-layout.js';
import { QueuedIndexRunner, type IndexJobQueue } from '../shared/knowledge/queued-index-runner.js';
import { RepositoryList } from '../shared/knowledge/repository-list.js';
import type { IndexJobResult } from './index.processor.js';
import type { HealthCheckResult } from '../shared/health/health-check.service.js';
import { HealthCheckRequests, type HealthJobQueue } from '../shared/health/health-requests.js';
import { RedisHealthStreakStore } from '../shared/health/redis-health-streaks.adapter.js';
import { RedisToolVersionStore } from '../shared/mcp-client/redis-tool-versions.adapter.js';
import { JOB_POLICIES, JobName, QueueName, type ChatQueueItem, type HealthQueueItem, type IndexQueueItem } from './jobs.js';

export type ChatQueue = BullQueue<ChatQueueItem, ChatJobResult, ChatProgressLog>;

export interface OpenQueueOptions {
  connection: RedisEndpoint;
  keyPrefix: string;
  logger: Logger;
  /** Read the event stream too (the API waits for and streams turns; the scheduler only adds). */
  events: boolean;
}

/** The producer side of the `chat` queue, with the job catalogue's retry and retention policies. */
export function openChatQueue({ connection, keyPrefix, logger, events }: OpenQueueOptions): ChatQueue {
  return new BullQueue({
    queueName: QueueName.Chat,
    connection,
    keyPrefix,
    logger,
    events,
    jobOptions: (name) => JOB_POLICIES[name],
    // A turn stopped before a worker took it is removed from the queue.
    removedReason: encodeFailure('stopped', `${TURN_STOPPED} before a worker took it`),
  });
}

export type IndexQueue = BullQueue<IndexQueueItem, IndexJobResult, IndexProgress>;

/** The producer side of the `index` queue (knowledge-base clone-and-embed runs and purges). */
export function openIndexQueue(options: OpenQueueOptions): IndexQueue {
  return new BullQueue({ ...options, queueName: QueueName.Index, jobOptions: (name) => JOB_POLICIES[name] });
}

/** The port the knowledge base's QueuedIndexRunner uses. */
export function indexJobQueue(queue: IndexQueue): IndexJobQueue {
  return {
    add: (item, jobId) =>
      queue.add(item.name === 'kb-index' ? { name: JobName.KbIndex, data: item.data } : { name: JobName.KbPurge, data: item.data }, jobId),
    waitFor: (jobId, timeoutMs, signal) => queue.waitFor(jobId, timeoutMs, signal),
  };
}

export interface KnowledgeApiSettings {
  dataDir: string;
  /** How long a removal waits for its purge job. */
  jobWaitMs: number;
}

/**
 * The knowledge base as the API role needs it: the repository lists and status under DATA_DIR and
 * the `index` queue producer (failing fast); index and purge work runs in the index workers.
 */
export function openKnowledgeApi(
  redis: Redis,
  keyPrefix: string,
  settings: KnowledgeApiSettings,
  logger: Logger,
): { service: KnowledgeBase; counts(): Promise<Record<string, number>>; close(): Promise<void> } {
  const queue = openIndexQueue({ connection: endpointOf(redis), keyPrefix, logger, events: true });
  const layout = new KnowledgeLayout(settings.dataDir);
  const service = new KnowledgeBase({ lists: new RepositoryList(layout.knowledgeDir), layout, runner: new QueuedIndexRunner(indexJobQueue(queue), settings.jobWaitMs), logger });
  return { service, counts: () => queue.counts(), close: () => queue.close() };
}

export type HealthQueue = BullQueue<HealthQueueItem, HealthCheckResult, never>;

/** The producer side of the `health` queue (scheduled rounds, first checks, checks asked for now). */
export function openHealthQueue(options: OpenQueueOptions): HealthQueue {
  return new BullQueue({ ...options, queueName: QueueName.Health, jobOptions: (name) => JOB_POLICIES[name] });
}

/** The port the scheduler and the API's health-check requests use. */
export function healthJobQueue(queue: HealthQueue): HealthJobQueue {
  return {
    add: (jobId, data) => queue.add({ name: JobName.HealthCheck, data }, jobId),
    waitFor: (jobId, timeoutMs, signal) => queue.waitFor(jobId, timeoutMs, signal),
  };
}

/** Queueing and waiting on top of the check's own timeout before a manual check answers 503. */
const MANUAL_CHECK_MARGIN_MS = 10_000;

/** Health checks as the API role asks for them: the `health` queue's producer with its event reader. */
export function openHealthApi(
  redis: Redis,
  keyPrefix: string,
  servers: Records['mcpServers'],
  healthTimeoutMs: number,
  logger: Logger,
): { requests: HealthCheckRequests; counts(): Promise<Record<string, number>>; ready(): Promise<void>; close(): Promise<void> } {
  const queue = openHealthQueue({ connection: endpointOf(redis), keyPrefix, logger, events: true });
  return {
    requests: new HealthCheckRequests({
      servers,
      queue: healthJobQueue(queue),
      waitMs: healthTimeoutMs + MANUAL_CHECK_MARGIN_MS,
      streaks: new RedisHealthStreakStore(redis, keyPrefix),
      versions: new RedisToolVersionStore(redis, keyPrefix),
    }),
    counts: () => queue.counts(),
    ready: () => queue.ready(),
    close: () => queue.close(),
  };
}

/** The chat-turn port the API's ChatService uses: turn jobs only, typed as turns. */
export function chatTurnQueue(queue: ChatQueue): ChatTurnQueue {
  return {
    add: (jobId, data) => queue.add({ name: JobName.ChatTurn, data }, jobId),
    async get(jobId) {
      const job = await queue.get(jobId);
      return job?.name === JobName.ChatTurn ? (job as JobSnapshot<ChatTurnData, ChatTurnResult, ChatProgressLog>) : null;
    },
    // Chat-turn jobs return ChatTurnResult; the union covers the queue's other job names.
    waitFor: (jobId, timeoutMs, signal) => queue.waitFor(jobId, timeoutMs, signal) as Promise<JobOutcome<ChatTurnResult> | null>,
    watch: (jobId, listener) => queue.watch(jobId, listener as Parameters<ChatQueue['watch']>[1]),
    stop: async (jobId) => {
      await queue.stop(jobId);
    },
  };
}

export interface ChatApiSettings {
  waitMs: number;
  ratePerMinute: number;
  checkpointTtlS: number;
  checkpointDb: number;
}

export interface ChatApi {
  service: ChatService;
  /** Jobs per state on the `chat` queue (for metrics). */
  counts(): Promise<Record<string, number>>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The chat as the API role needs it, on the API's Redis client: the queue producer (failing
 * fast), the checkpoint store on its own database, and the per-user rate limit.
 */
export function openChatApi(redis: Redis, keyPrefix: string, models: Records['llmModels'], settings: ChatApiSettings, logger: Logger): ChatApi {
  const checkpoints = redis.duplicate({ db: settings.checkpointDb, connectionName: 'aiops-api-checkpoints' });
  checkpoints.on('error', () => {
    // The records client already reports outages; requests answer 503 meanwhile.
  });
  const queue = openChatQueue({ connection: endpointOf(redis), keyPrefix, logger, events: true });
  const service = new ChatService({
    models: modelDirectory(models),
    queue: chatTurnQueue(queue),
    conversations: new RedisConversationStore(checkpoints, { prefix: keyPrefix, ttlSeconds: settings.checkpointTtlS }),
    limiter:
      settings.ratePerMinute > 0 ? new RedisRateLimiter(redis, { prefix: keyPrefix, name: 'chat', limit: settings.ratePerMinute, windowMs: 60_000 }) : UNLIMITED,
    ratePerMinute: settings.ratePerMinute,
    waitMs: settings.waitMs,
  });
  return {
    service,
    counts: () => queue.counts(),
    ready: () => queue.ready(),
    async close() {
      service.closeStreams();
      await queue.close();
      checkpoints.disconnect();
    },
  };
}
