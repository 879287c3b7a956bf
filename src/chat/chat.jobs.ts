import type { Schemas } from '../api/openapi-types.js';
import type { WritePlan } from '../write-plans/write-plan.js';
import type { KindNamed } from '../kernel/jobs/job-kind.js';
import type { PeriodicJob } from '../kernel/jobs/periodic-job.js';
import type { QueueDefinition } from '../kernel/jobs/queue-definition.js';
import type { TraceCarrier } from '../kernel/tracing/tracing.js';

/**
 * Chat's jobs, on the `chat` queue: what each carries and returns, its id and its retries and
 * retention. Their handlers are in chat.processor.ts; the composition's catalogue lists the queue.
 */

/** Job names, `<entity>-<action>`. */
export enum ChatJobName {
  Turn = 'chat-turn',
  // The name is the one schedulers were stored under before sessions had their word: kept, so an upgrade adds no second schedule.
  SessionCleanup = 'checkpoint-cleanup',
}

/** A chat turn job: ids and the user's text, never a secret. */
export interface ChatTurnData {
  turnId: string;
  userId: string;
  /** The asking token's id (never its key): the worker mints the turn's delegated credential from it. */
  tokenId?: string;
  sessionId: string;
  modelId: string;
  /** The session's generation when asked (see SessionStore.clear). */
  generation: number;
  message: string;
  /** With an Idempotency-Key: a digest of the request as sent, which a replay of the key must match. */
  requestDigest?: string;
  /** The asking request's trace context (W3C fields), when traced: the worker's spans join its trace. */
  trace?: TraceCarrier;
  /** When it was asked (ms since the epoch): its time in the queue is a span of the trace. */
  askedAt?: number;
}

export interface ChatTurnResult {
  response: string;
  sessionId: string;
  model: string;
  /** False when the session was cleared while the turn ran: answered, not remembered. */
  stored: boolean;
  usage?: { input_tokens: number; output_tokens: number };
}

/** A proposed call waiting for its owner's decision, as the job's status and events show it; its plan as the planner types it. */
export type ApprovalRequest = Omit<Schemas['ChatApproval'], 'plan'> & { plan?: WritePlan };

/** A question an MCP server put to the turn's user during a tool call (`elicitation/create`), as the job's view and events show it, before its status. */
export type ElicitationRequest = Omit<Schemas['ChatElicitation'], 'status'>;

/** Progress a turn reports while it runs, relayed to event-stream clients. */
export type ChatProgress =
  | { type: 'tool_call'; step: number; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; step: number; id: string; name: string; ok: boolean; content: string }
  | { type: 'approval_required'; step: number; approvals: ApprovalRequest[]; expires: string }
  | { type: 'approval_decided'; step: number; id: string; name: string; approved: boolean; note?: string; decided_by: string | null }
  | { type: 'tool_progress'; step: number; id: string; name: string; progress: number; total?: number; message?: string }
  | { type: 'elicitation_required'; step: number; elicitation: ElicitationRequest }
  | {
      type: 'elicitation_answered';
      step: number;
      id: string;
      call_id: string;
      action: 'accept' | 'decline' | 'cancel';
      answered_by: string | null;
    }
  | ({ type: 'connect_required' } & ConnectRequired);

/** An OAuth server a turn went on without: its user has not connected their account to it. */
export type ConnectRequired = Schemas['McpConnectRequired'];

/**
 * Everything a turn has reported so far. Each progress update carries the whole list, so a reader
 * who connects late (an event stream opened after the first tool calls) replays what it missed.
 */
export interface ChatProgressLog {
  events: ChatProgress[];
}

/** What a stopped turn reports. */
export const TURN_STOPPED = 'the turn was stopped';

/** The jobs on the `chat` queue. The cleanup is periodic (`chatPeriodicJobs`) and carries nothing. */
export type ChatJob =
  | { name: ChatJobName.Turn; queue: 'chat'; data: ChatTurnData; result: ChatTurnResult; progress: ChatProgressLog }
  | { name: ChatJobName.SessionCleanup; queue: 'chat'; data: Record<string, never>; result: { sessions: number }; progress: never };

export type ChatTurnJob = KindNamed<ChatJob, ChatJobName.Turn>;

/** The `chat` queue's periodic jobs, each at the times its cron setting gives. */
export function chatPeriodicJobs(settings: { cleanupCron: string }): PeriodicJob<ChatJob>[] {
  return [{ job: { name: ChatJobName.SessionCleanup, data: {} }, setting: 'SESSION_CLEANUP_CRON', pattern: settings.cleanupCron }];
}

/** One job per turn (a replayed request with the same idempotency key has the same turn id), so a repeated add is ignored. */
export function chatTurnJobId(turnId: string): string {
  return `chat-${turnId}`;
}

const HOUR_S = 3_600;

/**
 * The `chat` queue. Turns: 3 attempts with exponential backoff and jitter (permanent faults end
 * early); finished turns are kept an hour for polling. Cleanups are kept a day. The waiters of a
 * turn stopped before a worker took it hear that it was stopped.
 */
export const CHAT_QUEUE: QueueDefinition<ChatJob> = {
  name: 'chat',
  policies: {
    [ChatJobName.Turn]: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
      removeOnComplete: { age: HOUR_S, count: 10_000 },
      removeOnFail: { age: 24 * HOUR_S, count: 10_000 },
    },
    [ChatJobName.SessionCleanup]: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 30_000, jitter: 0.5 },
      removeOnComplete: { age: 24 * HOUR_S, count: 1_000 },
      removeOnFail: { age: 7 * 24 * HOUR_S, count: 1_000 },
    },
  },
  removedBeforeRun: { kind: 'conflict', message: `${TURN_STOPPED} before a worker took it` },
};
