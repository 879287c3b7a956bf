import { randomUUID } from 'node:crypto';
import type { HealthCheckReason, HealthCheckResult } from '../../health/health-check.service.js';
import type { IndexProgress, IndexResult } from '../../knowledge/index-pipeline.js';
import type { PurgeResult } from '../../knowledge/index-runner.port.js';
import { repositorySlug } from '../../knowledge/repository.js';
import type { WritePlan } from '../../write-plans/write-plan.js';
import type { JobFailure } from './job-failure.js';

/**
 * The job catalogue: every queue and job, what each job carries and returns, its id and its
 * retry and retention policy. Adding a job: a name here, its entry in JobKinds, JOB_POLICIES and an
 * id builder, a handler in its queue's processor (workers/<queue>.processor.ts) and a producer.
 */

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

// --- chat ------------------------------------------------------------------------------------

/** A chat turn job: ids and the user's text, never a secret. */
export interface ChatTurnData {
  turnId: string;
  userId: string;
  /** The asking token's id (never its key): the worker mints the turn's delegated credential from it. */
  tokenId?: string;
  sessionId: string;
  modelId: string;
  /** The session's generation when asked (see ConversationStore.clear). */
  generation: number;
  message: string;
  /** With an Idempotency-Key: a digest of the request as sent, which a replay of the key must match. */
  requestDigest?: string;
}

export interface ChatTurnResult {
  response: string;
  sessionId: string;
  model: string;
  /** False when the session was cleared while the turn ran: answered, not remembered. */
  stored: boolean;
  usage?: { input_tokens: number; output_tokens: number };
}

/** A proposed call waiting for its owner's decision, as the job's status and events show it. */
export interface ApprovalRequest {
  id: string;
  tool: string;
  /** The MCP server's name, or `built-in`. */
  server: string;
  /** The MCP server record as it was when the call was proposed (absent for built-in tools): an approved call runs only on it. */
  server_ref?: string;
  arguments: Record<string, unknown>;
  /** What the call will do (a write to the platform), planned with reads only before anyone was asked. */
  plan?: WritePlan;
  /** Errors of this turn's earlier tries at the same operation that this call no longer has. */
  fixed?: string[];
  /** Why it is asked again: what moved since an earlier approval, so nothing was written. */
  replanned?: string[];
}

/** Progress a turn reports while it runs, relayed to event-stream clients. */
export type ChatProgress =
  | { type: 'tool_call'; step: number; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; step: number; id: string; name: string; ok: boolean; content: string }
  | { type: 'approval_required'; step: number; approvals: ApprovalRequest[]; expires: string }
  | { type: 'approval_decided'; step: number; id: string; name: string; approved: boolean; note?: string; decided_by: string | null };

/**
 * Everything a turn has reported so far. Each progress update carries the whole list, so a reader
 * who connects late (an event stream opened after the first tool calls) replays what it missed.
 */
export interface ChatProgressLog {
  events: ChatProgress[];
}

/** What a stopped turn reports. */
export const TURN_STOPPED = 'the turn was stopped';

/** What the waiters of a job removed before it ran hear, per queue whose jobs can be stopped. */
export const REMOVED_BEFORE_RUN: Partial<Record<QueueName, JobFailure>> = {
  [QueueName.Chat]: { kind: 'conflict', message: `${TURN_STOPPED} before a worker took it` },
};

/** The cron slot the cleanup was scheduled for; it names the job, so two schedulers enqueue it once. */
export interface CheckpointCleanupData {
  slot: string;
}

// --- knowledge base --------------------------------------------------------------------------

export interface IndexJobData {
  repository: string;
  force: boolean;
}

export interface PurgeJobData {
  repository: string;
}

// --- MCP server health -----------------------------------------------------------------------

/** A health-check job: the server's id and why, never a secret. */
export interface HealthCheckData {
  serverId: string;
  reason: HealthCheckReason;
}

// --- the catalogue ---------------------------------------------------------------------------

/** Per job: its queue, the data it carries (ids, never secret values), what it returns and reports. */
interface JobKinds {
  [JobName.ChatTurn]: { queue: QueueName.Chat; data: ChatTurnData; result: ChatTurnResult; progress: ChatProgressLog };
  [JobName.CheckpointCleanup]: { queue: QueueName.Chat; data: CheckpointCleanupData; result: { sessions: number }; progress: never };
  [JobName.KbIndex]: { queue: QueueName.Index; data: IndexJobData; result: IndexResult; progress: IndexProgress };
  [JobName.KbPurge]: { queue: QueueName.Index; data: PurgeJobData; result: PurgeResult; progress: never };
  [JobName.HealthCheck]: { queue: QueueName.Health; data: HealthCheckData; result: HealthCheckResult; progress: never };
}

export type DataOf<N extends JobName> = JobKinds[N]['data'];
export type ResultOf<N extends JobName> = JobKinds[N]['result'];
export type ProgressOf<N extends JobName> = JobKinds[N]['progress'];

/** A job as added: its name and data, one variant per name so `switch (job.name)` narrows `data`. */
export type JobOf<N extends JobName> = N extends JobName ? { name: N; data: DataOf<N> } : never;

/** The jobs of one queue. */
export type JobsOf<Q extends QueueName> = { [N in JobName]: JobKinds[N]['queue'] extends Q ? N : never }[JobName];

// --- job ids ---------------------------------------------------------------------------------

/** `20260301T101730` (no `:`). */
function compact(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-:]/g, '');
}

/**
 * Deterministic job ids (no `:`, never all digits), so a repeated enqueue is ignored while the job
 * is kept: a retried or replayed request finds the same job.
 */
export const jobIds = {
  /** One per turn (a replayed request with the same idempotency key has the same turn id). */
  chatTurn: (turnId: string): string => `chat-${turnId}`,
  /** Named by the cron slot (to the minute): any number of schedulers enqueue it once. */
  checkpointCleanup: (slot: Date): string => `checkpoint-cleanup-${slot.toISOString().slice(0, 16).replace(/[-:T]/g, '')}`,
  /** One per repository and kind: a second request while one is queued or running joins it. */
  kbIndex: (repository: string): string => `kb-index-${repositorySlug(repository)}`,
  kbPurge: (repository: string): string => `kb-purge-${repositorySlug(repository)}`,
  /**
   * A scheduled round is named by its cron slot (to the second), so every scheduler enqueues it
   * once; a new server's first check by the record's last edit, so a retried request enqueues it
   * once; a manual check by its own id, since each request asks anew.
   */
  healthScheduled: (serverId: string, slot: Date): string => `health-${serverId}-${compact(slot)}`,
  healthNew: (serverId: string, lastUpdated: string): string => `health-${serverId}-new-${compact(new Date(lastUpdated))}`,
  healthManual: (serverId: string): string => `health-${serverId}-now-${randomUUID()}`,
};

// --- retries and retention -------------------------------------------------------------------

/** Keep at most `count` finished jobs, none older than `age` seconds (`true`: remove at once). */
type Retention = boolean | { age: number; count?: number } | { count: number };

/** Retries, backoff and retention of one job name. */
export interface JobPolicy {
  attempts?: number;
  backoff?: { type: 'exponential' | 'fixed'; delay: number; jitter?: number };
  removeOnComplete?: Retention;
  removeOnFail?: Retention;
}

const HOUR_S = 3_600;

/**
 * Retries and retention per job name, in one place. Chat turns: 3 attempts with exponential
 * backoff and jitter (permanent faults end early); finished turns are kept an hour for polling.
 * Cleanups are kept a day, longer than any cron slot, so a second scheduler's enqueue of the same
 * slot is a no-op.
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
  [JobName.KbIndex]: {
    attempts: 2,
    backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 },
    removeOnComplete: true,
    removeOnFail: true,
  },
  [JobName.KbPurge]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: true,
    removeOnFail: true,
  },
  // A failing server is a result, not a failed job: jobs fail only when Redis does. Finished checks
  // are kept 10 minutes (longer than any round), so a second scheduler's enqueue of a round is a no-op.
  [JobName.HealthCheck]: {
    attempts: 2,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 600, count: 50_000 },
    removeOnFail: { age: 24 * HOUR_S, count: 10_000 },
  },
};
