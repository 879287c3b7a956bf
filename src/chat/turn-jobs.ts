import { NotFoundError } from '../kernel/errors.js';
import type { Schemas } from '../api/openapi-types.js';
import type { ChatProgressLog, ChatTurnData, ChatTurnJob, ChatTurnResult, ConnectRequired } from './chat.jobs.js';
import type { ElicitationStore, StoredElicitation } from './elicitation-store.port.js';
import { failureMessage } from '../kernel/jobs/job-failure.js';
import type { JobQueue, JobSnapshot } from '../kernel/jobs/job-queue.port.js';
import type { ApprovalStore } from './approval-store.port.js';
import { carriedTraceId } from '../kernel/tracing/tracing.js';

/*
 * A chat turn as its job on the `chat` queue, as the chat's services read it: every read is scoped
 * to the caller, so another user's turn is not found.
 */

/** Port: the chat turns on the `chat` queue. */
export type ChatTurnQueue = JobQueue<ChatTurnJob>;

type ChatTurnSnapshot = JobSnapshot<ChatTurnData, ChatTurnResult, ChatProgressLog>;

/** A turn as the API shows it (its job's status, the calls and questions waiting, the servers left out). */
export type ChatJobView = Schemas['ChatJob'];

/** A server's question as the job's view shows it: `pending` until answered, `cancel` once its wait ran out unanswered. */
export type ElicitationView = Schemas['ChatElicitation'];

function elicitationView({ request, expiresAt, answer }: StoredElicitation, now: number): ElicitationView {
  return { ...request, status: answer?.action ?? (expiresAt <= now ? 'cancel' : 'pending') };
}

/** A failed turn's error as its client reads it; a reason not of ours (a stalled job) reads as a plain failure. */
export function turnError(failedReason: string | undefined): string {
  return failureMessage(failedReason, 'the chat turn failed');
}

/** The caller's turn; another user's is not found, like one that does not exist. */
export async function ownedTurn(queue: Pick<ChatTurnQueue, 'get'>, userId: string, jobId: string): Promise<ChatTurnSnapshot> {
  const job = await queue.get(jobId);
  if (!job || job.data.userId !== userId) throw new NotFoundError('No chat job matches the given id.');
  return job;
}

/**
 * A paused turn's undecided calls, or null when it does not wait for decisions: none proposed, or
 * its wait ran out at `now` (its undecided calls count as declined and a decision is refused; the
 * turn waits for a worker to go on, not for its owner).
 */
export async function waitingCalls(
  approvals: Pick<ApprovalStore, 'get'>,
  turnId: string,
  now: number,
): Promise<Pick<ChatJobView, 'approvals' | 'approval_expires'> | null> {
  const round = await approvals.get(turnId);
  if (!round || round.closed || round.expiresAt <= now) return null;
  // Own properties only: a call id is the model's to choose, `constructor` and `__proto__` included.
  const undecided = round.paused.pending.filter((call) => !Object.hasOwn(round.decisions, call.id));
  return undecided.length > 0 ? { approvals: undecided, approval_expires: new Date(round.expiresAt).toISOString() } : null;
}

/** The caller's turn as it stands: a queued turn whose calls wait for decisions is awaiting_approval. */
export async function turnView(
  {
    queue,
    approvals,
    elicitations,
    now = Date.now,
  }: {
    queue: Pick<ChatTurnQueue, 'get'>;
    approvals: Pick<ApprovalStore, 'get'>;
    elicitations?: Pick<ElicitationStore, 'list'>;
    now?: () => number;
  },
  userId: string,
  jobId: string,
): Promise<ChatJobView> {
  const job = await ownedTurn(queue, userId, jobId);
  const waiting = job.state === 'queued' ? await waitingCalls(approvals, job.data.turnId, now()) : null;
  const asked = (await elicitations?.list(job.data.turnId)) ?? [];
  const traceId = carriedTraceId(job.data.trace);
  const connect = connectRequired(job.progress);
  return {
    job_id: job.id,
    status: waiting ? 'awaiting_approval' : job.state,
    session_id: job.data.sessionId,
    message: job.data.message,
    ...(waiting ?? {}),
    ...(job.result ? { model: job.result.model, response: job.result.response } : {}),
    ...(job.state === 'failed' ? { error: turnError(job.failedReason) } : {}),
    ...(traceId ? { trace_id: traceId } : {}),
    ...(asked.length > 0 ? { elicitations: asked.map((question) => elicitationView(question, now())) } : {}),
    ...(connect.length > 0 ? { connect_required: connect } : {}),
  };
}

/** Each server a turn reported it could not reach for want of its user's connection, the latest sign-in URL of each. */
function connectRequired(progress: ChatProgressLog | undefined): ConnectRequired[] {
  const byServer = new Map<string, ConnectRequired>();
  for (const event of progress?.events ?? []) {
    if (event.type === 'connect_required')
      byServer.set(event.server_id, { server: event.server, server_id: event.server_id, authorization_url: event.authorization_url });
  }
  return [...byServer.values()];
}
