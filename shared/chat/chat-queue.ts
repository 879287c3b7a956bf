import { ConflictError, DomainError, UnavailableError, UpstreamError } from '../errors.js';

/** Job ids are deterministic (a retried or replayed request finds the same job); no `:`. */
export function chatTurnJobId(turnId: string): string {
  return `chat-${turnId}`;
}

/** A chat turn job: ids and the user's text, never a secret. */
export interface ChatTurnData {
  turnId: string;
  userId: string;
  sessionId: string;
  modelId: string;
  /** The session's generation when asked (see ConversationStore.clear). */
  generation: number;
  message: string;
}

export interface ChatTurnResult {
  response: string;
  sessionId: string;
  model: string;
  /** False when the session was cleared while the turn ran: answered, not remembered. */
  stored: boolean;
  usage?: { input_tokens: number; output_tokens: number };
}

/** Progress a turn reports while it runs, relayed to event-stream clients. */
export type ChatProgress =
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; content: string };

/**
 * Everything a turn has reported so far. Each progress update carries the whole list, so a reader
 * who connects late (an event stream opened after the first tool calls) replays what it missed.
 */
export interface ChatProgressLog {
  events: ChatProgress[];
}

export type JobState = 'queued' | 'active' | 'completed' | 'failed';

export interface JobSnapshot<D, R, P = never> {
  id: string;
  state: JobState;
  data: D;
  result?: R;
  /** The job's latest progress report, if any. */
  progress?: P;
  /** The job's failure reason as stored (see encodeFailure). */
  failedReason?: string;
}

export type JobOutcome<R> = { state: 'completed'; result: R } | { state: 'failed'; failedReason: string };

export type JobEvent<R, P> =
  | { type: 'queued' }
  | { type: 'active' }
  | { type: 'progress'; data: P }
  | { type: 'completed'; result: R }
  | { type: 'failed'; failedReason: string };

/** Port: the chat queue as the API sees it. Implemented over BullMQ. */
export interface JobQueue<D, R, P> {
  /** Adds the job unless one with this id exists (then it is left alone). */
  add(jobId: string, data: D): Promise<void>;
  get(jobId: string): Promise<JobSnapshot<D, R, P> | null>;
  /**
   * Resolves when the job finishes, or with null after `timeoutMs` or when `signal` aborts. Only
   * events from now on count: call it before `add` (or before reading the job's state), so that a
   * job finishing at once is not missed.
   */
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<R> | null>;
  /** Calls `listener` for each event of this job from now on; returns the unsubscribe function. */
  watch(jobId: string, listener: (event: JobEvent<R, P>) => void): () => void;
  /**
   * Stops a job that has not finished: dropped if still queued (its waiters hear it failed),
   * otherwise its worker's signal aborts. Check it is not over first.
   */
  stop(jobId: string): Promise<void>;
}

export type ChatTurnQueue = JobQueue<ChatTurnData, ChatTurnResult, ChatProgressLog>;

/** How a failed turn is reported through the queue; the API maps the kind to a status. */
export type FailureKind = 'upstream' | 'conflict' | 'stopped' | 'unavailable' | 'internal';

/** What a stopped turn reports. */
export const TURN_STOPPED = 'the turn was stopped';

/** A chat turn failed for a reason the caller should hear about. `permanent`: retrying will not help. */
export class ChatTurnError extends DomainError {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly permanent: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The job's failure reason: JSON, so the kind survives the trip through Redis. */
export function encodeFailure(kind: FailureKind, detail: string): string {
  return JSON.stringify({ kind, detail });
}

/** The domain error a failed turn stands for. Reasons not written by us (a stalled job) are internal. */
export function failureError(failedReason: string | undefined, jobId: string): Error {
  let parsed: { kind?: FailureKind; detail?: string } = {};
  try {
    parsed = JSON.parse(failedReason ?? '') as typeof parsed;
  } catch {
    // not ours
  }
  const detail = parsed.detail ?? `the chat turn failed (job ${jobId})`;
  switch (parsed.kind) {
    case 'upstream':
      return new UpstreamError(detail);
    case 'conflict':
    case 'stopped':
      return new ConflictError(detail);
    case 'unavailable':
      return new UnavailableError(detail);
    default:
      return new Error(`chat turn ${jobId} failed: ${detail}`);
  }
}

/** The failure as shown in job status: the detail only. */
export function failureDetail(failedReason: string | undefined): string {
  try {
    const parsed = JSON.parse(failedReason ?? '') as { detail?: string };
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    // not ours
  }
  return 'the chat turn failed';
}

/** What addAndWait needs of a queue. */
export interface WaitableQueue<R> {
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<R> | null>;
}

/**
 * Adds a job with `add` and waits up to `timeoutMs` for its outcome (null: not finished in time).
 * Listening starts before the add: a job can finish before the add's reply is read (its completion
 * event comes on another connection), and would be missed otherwise. `add` may answer the outcome
 * itself (it found the job over already). A failed add stops the listening and throws.
 */
export async function addAndWait<R>(
  queue: WaitableQueue<R>,
  jobId: string,
  add: () => Promise<JobOutcome<R> | void>,
  timeoutMs: number,
): Promise<JobOutcome<R> | null> {
  const stop = new AbortController();
  const outcome = queue.waitFor(jobId, timeoutMs, stop.signal);
  try {
    return (await add()) ?? (await outcome);
  } finally {
    stop.abort();
  }
}
