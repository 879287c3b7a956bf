import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, IdempotencyKeyReusedError, NotFoundError, RateLimitedError, ValidationError } from '../kernel/errors.js';
import type { LlmModelRecord, LlmModelView } from '../records/llm-model.js';
import type { RecordPage } from '../records/record-collection.port.js';
import type { ListQuery } from '../records/record-service.js';
import { addAndWait } from '../kernel/jobs/add-and-wait.js';
import {
  chatTurnJobId,
  ChatJobName,
  type ApprovalRequest,
  type ChatProgressLog,
  type ChatTurnData,
  type ChatTurnJob,
  type ChatTurnResult,
} from './chat.jobs.js';
import { failureError, failureMessage } from '../kernel/jobs/job-failure.js';
import type { JobOutcome, JobQueue, JobState } from '../kernel/jobs/job-queue.port.js';
import type { ApprovalStore } from './approval-store.port.js';
import type { ApprovalDecision } from './chat-tools.port.js';
import type { ConversationStore, SessionDetail, SessionSummary } from './conversation-store.port.js';
import type { RateLimiter } from './rate-limiter.port.js';
import type { TurnTextFeed, TurnTextPiece } from './turn-text.port.js';

export interface ChatRequest {
  message: string;
  session_id?: string;
  /** A model by name; the default model otherwise. */
  model?: string;
}

export interface ChatAccepted {
  status: 'accepted';
  job_id: string;
  session_id: string;
  model: string;
}

export interface ChatCompleted {
  status: 'completed';
  job_id: string;
  session_id: string;
  model: string;
  response: string;
}

export type ChatJobStatus = JobState | 'awaiting_approval';

export interface ChatJobView {
  job_id: string;
  status: ChatJobStatus;
  session_id: string;
  /** The caller's message that started the turn. */
  message: string;
  model?: string;
  response?: string;
  error?: string;
  /** With awaiting_approval: the proposed calls still undecided, and when they count as declined. */
  approvals?: ApprovalRequest[];
  approval_expires?: string;
}

/** The owner's decision on one proposed call of a paused turn. */
export interface ChatDecision {
  id: string;
  approve: boolean;
  note?: string;
}

/** One event of a turn's event stream. */
export type ChatStreamEvent =
  | { event: 'queued' | 'active'; data: { job_id: string } }
  | { event: 'tool_call'; data: { job_id: string; step: number; id: string; name: string; arguments: Record<string, unknown> } }
  | { event: 'tool_result'; data: { job_id: string; step: number; id: string; name: string; ok: boolean; content: string } }
  | { event: 'approval_required'; data: { job_id: string; step: number; approvals: ApprovalRequest[]; expires: string } }
  | {
      event: 'approval_decided';
      data: { job_id: string; step: number; id: string; name: string; approved: boolean; note?: string; decided_by: string | null };
    }
  | { event: 'delta'; data: { job_id: string } & TurnTextPiece }
  | { event: 'completed'; data: { job_id: string; session_id: string; model: string; response: string } }
  | { event: 'failed'; data: { job_id: string; error: string } };

export interface ChatStream {
  /** Resolves after the final event (completed or failed). */
  done: Promise<void>;
  close(): void;
}

/** A turn's job as added (or found again), and its outcome if it is over already. */
interface Enqueued {
  data: ChatTurnData;
  modelName: string;
  finished?: JobOutcome<ChatTurnResult>;
  /** A replayed request found its turn waiting for decisions. */
  paused?: boolean;
}

/** A model as offered to chat users: what to call it and whose it is, nothing about where or how. */
export type ChatModel = Pick<LlmModelView, 'name' | 'provider' | 'description' | 'is_default'>;

/** The most models a chat user is offered. */
const CHAT_MODELS_MAX = 1_000;

/** Finds the model a turn runs on. */
export interface ModelDirectory {
  byName(name: string): Promise<Pick<LlmModelRecord, 'id' | 'name'> | null>;
  defaultModel(): Promise<Pick<LlmModelRecord, 'id' | 'name'> | null>;
  /** Every model a turn may name, the default first. */
  all(): Promise<ChatModel[]>;
}

/** The model directory over the LLM model records (the default model is listed first). */
export function modelDirectory(models: {
  getByName(name: string): Promise<LlmModelRecord | null>;
  list(query: ListQuery): Promise<RecordPage<LlmModelView>>;
}): ModelDirectory {
  return {
    byName: (name) => models.getByName(name),
    async defaultModel() {
      const [first] = (await models.list({ limit: 1, offset: 0, filters: {} })).results;
      return first?.is_default ? first : null;
    },
    async all() {
      const { results } = await models.list({ limit: CHAT_MODELS_MAX, offset: 0, filters: {} });
      return results.map(({ name, provider, description, is_default }) => ({ name, provider, description, is_default }));
    },
  };
}

/** Port: the chat turns on the `chat` queue. */
export type ChatTurnQueue = JobQueue<ChatTurnJob>;

export interface ChatServiceDependencies {
  models: ModelDirectory;
  /** The text of running turns, streamed as `delta` events; without it streams carry no text until `completed`. */
  text?: Pick<TurnTextFeed, 'follow'>;
  queue: ChatTurnQueue;
  conversations: ConversationStore;
  /** The approval rounds of paused turns. */
  approvals: Pick<ApprovalStore, 'get' | 'decide' | 'waiting'>;
  now?: () => number;
  limiter: RateLimiter;
  /** Turns per minute per user, for the 429 message. */
  ratePerMinute: number;
  /** How long a synchronous request waits for its turn before answering 202. */
  waitMs: number;
}

/** What a replayed request must repeat: the fields of the first one, as sent. */
function digestOf({ message, session_id, model }: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([message, session_id ?? null, model ?? null]))
    .digest('hex');
}

/** A turn's error when its failure reason is not one of ours (a stalled job). */
const TURN_FAILED = 'the chat turn failed';

const NO_MODEL =
  'No LLM model is configured for chat. Create one and make it the default: POST /api/plugins/ai-ops/llm-models/ ' +
  'with {"name": "llama3.1", "provider": "ollama", "is_default": true} (and "model_secret_key" naming a secret for providers that need a key), ' +
  'or name an existing model in "model".';

/** Models exist, but the turn names none and none is the default (a superuser makes one the default). */
function noDefaultModel(names: string[]): string {
  const shown = names
    .slice(0, 10)
    .map((name) => `'${name}'`)
    .join(', ');
  return (
    `No LLM model is the default. Name one in "model" (${shown}${names.length > 10 ? ', ...' : ''}), ` +
    'or make one the default: PATCH /api/plugins/ai-ops/llm-models/{id}/ with {"is_default": true}.'
  );
}

/**
 * The chat as the API offers it: every turn is a job on the `chat` queue, answered synchronously
 * when it finishes in time, otherwise polled or streamed. Every read is scoped to the caller:
 * another user's job or session is not found.
 */
export class ChatService {
  private readonly streams = new Set<ChatStream>();

  constructor(private readonly deps: ChatServiceDependencies) {}

  /** `tokenId`: the asking token, whose rights the agent's calls on this service's API carry. */
  async send(
    userId: string,
    request: ChatRequest,
    options: { wait: boolean; idempotencyKey?: string; tokenId?: string },
  ): Promise<ChatAccepted | ChatCompleted> {
    const retryAfterMs = await this.deps.limiter.consume(userId);
    if (retryAfterMs > 0) {
      const seconds = Math.ceil(retryAfterMs / 1_000);
      throw new RateLimitedError(`Chat rate limit reached (${this.deps.ratePerMinute} turns per minute); retry in ${seconds} s.`, seconds);
    }
    const turnId = options.idempotencyKey
      ? createHash('sha256').update(`${userId}\n${options.idempotencyKey}`).digest('hex').slice(0, 32)
      : randomUUID();
    const jobId = chatTurnJobId(turnId);
    const enqueue = () => this.enqueue({ userId, tokenId: options.tokenId }, turnId, jobId, request, options.idempotencyKey !== undefined);
    const accepted = ({ data, modelName }: Enqueued): ChatAccepted => ({
      status: 'accepted',
      job_id: jobId,
      session_id: data.sessionId,
      model: modelName,
    });
    if (!options.wait) return accepted(await enqueue());
    let turn!: Enqueued;
    // A turn that pauses for its owner's decisions is answered 202 at once.
    const paused = new AbortController();
    const unwatch = this.deps.queue.watch(jobId, (event) => {
      if (event.type === 'progress' && event.data.events.at(-1)?.type === 'approval_required') paused.abort();
    });
    const outcome = await addAndWait(
      this.deps.queue,
      jobId,
      async () => {
        turn = await enqueue();
        if (turn.paused) paused.abort();
        return turn.finished;
      },
      this.deps.waitMs,
      paused.signal,
    ).finally(unwatch);
    if (!outcome) return accepted(turn);
    if (outcome.state === 'failed') throw failureError(outcome.failedReason, `chat turn ${jobId}`);
    return {
      status: 'completed',
      job_id: jobId,
      session_id: turn.data.sessionId,
      model: outcome.result.model,
      response: outcome.result.response,
    };
  }

  /**
   * Adds the turn's job, or finds the one a request with the same idempotency key added (and its
   * outcome, if it is over).
   */
  private async enqueue(
    { userId, tokenId }: { userId: string; tokenId?: string },
    turnId: string,
    jobId: string,
    request: ChatRequest,
    replayable: boolean,
  ): Promise<Enqueued> {
    const requestDigest = replayable ? digestOf(request) : undefined;
    const replayed = replayable ? await this.deps.queue.get(jobId) : null;
    if (replayed) {
      // Turns asked before digests were kept carry none: nothing to compare them with.
      if (replayed.data.requestDigest !== undefined && replayed.data.requestDigest !== requestDigest) {
        throw new IdempotencyKeyReusedError(
          'This Idempotency-Key was already used for a different request (message, session_id or model); send a new key for a new question.',
        );
      }
      const finished: JobOutcome<ChatTurnResult> | undefined =
        replayed.state === 'completed'
          ? { state: 'completed', result: replayed.result! }
          : replayed.state === 'failed'
            ? { state: 'failed', failedReason: replayed.failedReason ?? '' }
            : undefined;
      const paused = replayed.state === 'queued' && (await this.waitingCalls(replayed.data.turnId)) !== null;
      return { data: replayed.data, modelName: replayed.result?.model ?? request.model ?? '', finished, paused };
    }
    const model = await this.resolveModel(request.model);
    const sessionId = request.session_id ?? randomUUID();
    const data: ChatTurnData = {
      turnId,
      userId,
      ...(tokenId ? { tokenId } : {}),
      sessionId,
      modelId: model.id,
      generation: await this.deps.conversations.generation(userId, sessionId),
      message: request.message,
      ...(requestDigest ? { requestDigest } : {}),
    };
    await this.deps.queue.add({ name: ChatJobName.Turn, data }, jobId);
    return { data, modelName: model.name };
  }

  async job(userId: string, jobId: string): Promise<ChatJobView> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.data.userId !== userId) throw this.jobNotFound();
    const waiting = job.state === 'queued' ? await this.waitingCalls(job.data.turnId) : null;
    return {
      job_id: job.id,
      status: waiting ? 'awaiting_approval' : job.state,
      session_id: job.data.sessionId,
      message: job.data.message,
      ...(waiting ?? {}),
      ...(job.result ? { model: job.result.model, response: job.result.response } : {}),
      ...(job.state === 'failed' ? { error: failureMessage(job.failedReason, TURN_FAILED) } : {}),
    };
  }

  /** The caller's turns that wait for their decisions (of `sessionId` only, when given), the latest first. */
  async awaitingApproval(userId: string, sessionId?: string): Promise<ChatJobView[]> {
    const turnIds = await this.deps.approvals.waiting(userId, this.deps.now?.() ?? Date.now());
    const jobs = await Promise.all(
      turnIds.map((turnId) =>
        this.job(userId, chatTurnJobId(turnId)).catch((error: unknown) => {
          // Stopped (dropped) while its round was still listed.
          if (error instanceof NotFoundError) return null;
          throw error;
        }),
      ),
    );
    return jobs.filter(
      (job): job is ChatJobView => job?.status === 'awaiting_approval' && (sessionId === undefined || job.session_id === sessionId),
    );
  }

  /**
   * Records the owner's decisions on a paused turn's proposed calls; once every call is decided
   * the turn goes on. Another user's turn is not found; a turn not waiting is a conflict.
   */
  async decide(
    userId: string,
    jobId: string,
    decisions: ChatDecision[],
  ): Promise<{ job_id: string; status: 'awaiting_approval' | 'queued' }> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.data.userId !== userId) throw this.jobNotFound();
    const ids = decisions.map((decision) => decision.id);
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) throw ValidationError.field('decisions', `The call '${repeated}' is decided twice.`);
    const decidedAt = new Date(this.deps.now?.() ?? Date.now()).toISOString();
    const byId: Record<string, ApprovalDecision> = Object.fromEntries(
      decisions.map(({ id, approve, note }) => [
        id,
        { approved: approve, ...(note?.trim() ? { note: note.trim() } : {}), decided_by: userId, decided_at: decidedAt },
      ]),
    );
    const recorded = await this.deps.approvals.decide(job.data.turnId, byId);
    if (recorded.outcome === 'not_waiting') throw this.notWaiting(job.state);
    if (recorded.outcome === 'unknown')
      throw ValidationError.field(
        'decisions',
        `No proposed call of this turn waits under the id ${recorded.ids.map((id) => `'${id}'`).join(', ')}.`,
      );
    if (!recorded.complete) return { job_id: jobId, status: 'awaiting_approval' };
    await this.deps.queue.resume(jobId);
    return { job_id: jobId, status: 'queued' };
  }

  /** A paused turn's undecided calls, or null when it does not wait for decisions. */
  private async waitingCalls(turnId: string): Promise<Pick<ChatJobView, 'approvals' | 'approval_expires'> | null> {
    const round = await this.deps.approvals.get(turnId);
    if (!round || round.closed) return null;
    const approvals = round.paused.pending.filter((call) => !round.decisions[call.id]);
    return approvals.length > 0 ? { approvals, approval_expires: new Date(round.expiresAt).toISOString() } : null;
  }

  private notWaiting(state: JobState): ConflictError {
    return new ConflictError(`The turn is not waiting for decisions (${state}).`);
  }

  /** Stops one of the user's turns that has not finished (see JobQueue.stop). */
  async stop(userId: string, jobId: string): Promise<void> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.data.userId !== userId) throw this.jobNotFound();
    if (job.state === 'completed' || job.state === 'failed')
      throw new ConflictError(`The turn is over already (${job.state}); there is nothing to stop.`);
    await this.deps.queue.stop(jobId);
  }

  /** Streams a turn's events to `emit`, starting with its current state; ends after completed or failed. */
  async stream(userId: string, jobId: string, emit: (event: ChatStreamEvent) => void): Promise<ChatStream> {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let started = false;
    let finished = false;
    /** Progress events already sent: every update carries the whole log, only the rest is new. */
    let reported = 0;
    let stopText = () => {};
    const stopListening = () => {
      unsubscribe();
      stopText();
    };
    const sendProgress = (log: ChatProgressLog) => {
      for (const progress of log.events.slice(reported))
        send({ event: progress.type, data: { job_id: jobId, ...progress } } as ChatStreamEvent);
      reported = Math.max(reported, log.events.length);
    };
    const send = (event: ChatStreamEvent) => {
      if (finished) return;
      started = true;
      if (event.event === 'completed' || event.event === 'failed') {
        finished = true;
        stopListening();
        finish();
      }
      emit(event);
    };
    const unsubscribe = this.deps.queue.watch(jobId, (event) => {
      switch (event.type) {
        case 'queued':
        case 'active':
          return send({ event: event.type, data: { job_id: jobId } });
        case 'progress':
          return sendProgress(event.data);
        case 'completed':
          return send({
            event: 'completed',
            data: { job_id: jobId, session_id: event.result.sessionId, model: event.result.model, response: event.result.response },
          });
        case 'failed':
          return send({ event: 'failed', data: { job_id: jobId, error: failureMessage(event.failedReason, TURN_FAILED) } });
      }
    });
    const job = await this.deps.queue.get(jobId).catch((error: unknown) => {
      unsubscribe();
      throw error;
    });
    if (!job || job.data.userId !== userId) {
      unsubscribe();
      throw this.jobNotFound();
    }
    if (!started && job.state !== 'completed' && job.state !== 'failed') {
      send({ event: job.state === 'active' ? 'active' : 'queued', data: { job_id: jobId } });
    }
    // The text written so far, then as it comes; before a finished turn's outcome.
    if (this.deps.text) {
      stopText = await this.deps.text
        .follow(jobId, (piece) => send({ event: 'delta', data: { job_id: jobId, ...piece } }))
        .catch((error: unknown) => {
          unsubscribe();
          throw error;
        });
      if (finished) stopText();
    }
    // What the turn reported before this stream opened.
    if (job.progress) sendProgress(job.progress);
    if (job.state === 'completed' && job.result) {
      send({
        event: 'completed',
        data: { job_id: jobId, session_id: job.data.sessionId, model: job.result.model, response: job.result.response },
      });
    } else if (job.state === 'failed') {
      send({ event: 'failed', data: { job_id: jobId, error: failureMessage(job.failedReason, TURN_FAILED) } });
    }
    const stream: ChatStream = {
      done,
      close: () => {
        finished = true;
        stopListening();
        finish();
      },
    };
    this.streams.add(stream);
    void done.then(() => this.streams.delete(stream));
    return stream;
  }

  /** Ends every open event stream (shutdown). */
  closeStreams(): void {
    for (const stream of this.streams) stream.close();
  }

  sessions(userId: string, offset: number, limit: number): Promise<{ count: number; results: SessionSummary[] }> {
    return this.deps.conversations.list(userId, offset, limit);
  }

  /** The models a turn may name, for anyone who may chat. */
  models(): Promise<ChatModel[]> {
    return this.deps.models.all();
  }

  async rename(userId: string, sessionId: string, title: string): Promise<SessionSummary> {
    const session = await this.deps.conversations.rename(userId, sessionId, title.trim());
    if (!session) throw this.sessionNotFound();
    return session;
  }

  async session(userId: string, sessionId: string): Promise<SessionDetail> {
    const session = await this.deps.conversations.get(userId, sessionId);
    if (!session) throw this.sessionNotFound();
    return session;
  }

  /** Deletes the session's messages for good; turns still running for it are answered but not stored. */
  async clear(userId: string, sessionId: string): Promise<void> {
    if (!(await this.deps.conversations.clear(userId, sessionId))) throw this.sessionNotFound();
  }

  private async resolveModel(name: string | undefined): Promise<Pick<LlmModelRecord, 'id' | 'name'>> {
    if (name !== undefined) {
      const model = await this.deps.models.byName(name);
      if (!model) throw ValidationError.field('model', `No LLM model is named '${name}'.`);
      return model;
    }
    const model = await this.deps.models.defaultModel();
    if (model) return model;
    const names = (await this.deps.models.all()).map((candidate) => candidate.name);
    throw new ConflictError(names.length > 0 ? noDefaultModel(names) : NO_MODEL);
  }

  private jobNotFound(): NotFoundError {
    return new NotFoundError('No chat job matches the given id.');
  }

  private sessionNotFound(): NotFoundError {
    return new NotFoundError('No chat session matches the given id.');
  }
}
