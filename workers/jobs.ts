import type { JobPolicy } from '../shared/adapters/bullmq/bullmq-queue.adapter.js';
import type { ChatTurnData } from '../shared/chat/chat-queue.js';
import type { HealthCheckData } from '../shared/health/health-requests.js';
import type { IndexJobData, PurgeJobData } from '../shared/knowledge/queued-index-runner.js';

/** Queues, one worker (and one processor file) each. */
export enum QueueName {
  Chat = 'chat',
  Health = 'health',
  Index = 'index',
}

/** Every queue, in catalogue order. */
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);

/** Job names, `<entity>-<action>`. */
export enum JobName {
  ChatTurn = 'chat-turn',
  CheckpointCleanup = 'checkpoint-cleanup',
  KbIndex = 'kb-index',
  KbPurge = 'kb-purge',
  HealthCheck = 'health-check',
}

/** The cron slot the cleanup was scheduled for; it names the job, so two schedulers enqueue it once. */
export interface CheckpointCleanupData {
  slot: string;
}

/** Every job: its name and the data it carries (ids, never secret values). */
export type JobItem =
  | { name: JobName.ChatTurn; data: ChatTurnData }
  | { name: JobName.CheckpointCleanup; data: CheckpointCleanupData }
  | { name: JobName.KbIndex; data: IndexJobData }
  | { name: JobName.KbPurge; data: PurgeJobData }
  | { name: JobName.HealthCheck; data: HealthCheckData };

export type JobOf<N extends JobName> = Extract<JobItem, { name: N }>;

export const QUEUE_OF: Record<JobName, QueueName> = {
  [JobName.ChatTurn]: QueueName.Chat,
  [JobName.CheckpointCleanup]: QueueName.Chat,
  [JobName.KbIndex]: QueueName.Index,
  [JobName.KbPurge]: QueueName.Index,
  [JobName.HealthCheck]: QueueName.Health,
};

export type ChatQueueItem = JobOf<JobName.ChatTurn | JobName.CheckpointCleanup>;
export type IndexQueueItem = JobOf<JobName.KbIndex | JobName.KbPurge>;
export type HealthQueueItem = JobOf<JobName.HealthCheck>;

/**
 * Deterministic job ids (no `:`, never all digits), so a repeated enqueue is ignored while the job
 * is kept. Chat turns are `chat-<turn id>` (chatTurnJobId, next to their producer); knowledge-base
 * jobs are `kb-index-<owner>~<name>` and `kb-purge-<owner>~<name>` (indexJobId, purgeJobId);
 * health checks are `health-<server id>-<slot>` and the like (healthJobId).
 */
export const cleanupJobId = (slot: Date): string => `checkpoint-cleanup-${slot.toISOString().slice(0, 16).replace(/[-:T]/g, '')}`;

const HOUR_S = 3_600;

/**
 * Retries and retention per job name, in one place. Chat turns: 3 attempts with exponential
 * backoff and jitter (permanent faults end early through UnrecoverableError); finished turns
 * are kept an hour for polling. Cleanups are kept a day, longer than any cron slot, so a second
 * scheduler's enqueue of the same slot is a no-op.
 */
export const JOB_POLICIES: Record<JobName, JobPolicy> = {
  [JobName.ChatTurn]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: HOUR_S, count: 10_000 },
    removeOnFail: { age: 24 * HOUR_S, count: 10_000 },
  },
  [JobName.CheckpointCleanup]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 30_000, jitter: 0.5 },
    removeOnComplete: { age: 24 * HOUR_S, count: 1_000 },
    removeOnFail: { age: 7 * 24 * HOUR_S, count: 1_000 },
  },
  // One job per repository at a time: the id is taken while the job is queued or running and
  // freed as soon as it ends (waiting callers get the result from the event stream), so the next
  // update can be enqueued. Runs are idempotent (content-hash manifest).
  [JobName.KbIndex]: { attempts: 2, backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 }, removeOnComplete: true, removeOnFail: true },
  [JobName.KbPurge]: { attempts: 3, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 }, removeOnComplete: true, removeOnFail: true },
  // A failing server is a result, not a failed job: jobs fail only when Redis does. Finished checks
  // are kept 10 minutes (longer than any round), so a second scheduler's enqueue of a round is a no-op.
  [JobName.HealthCheck]: {
    attempts: 2,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 600, count: 50_000 },
    removeOnFail: { age: 24 * HOUR_S, count: 10_000 },
  },
};
