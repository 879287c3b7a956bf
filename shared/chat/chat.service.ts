import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../errors.js';
import type { LlmModelRecord, LlmModelView } from '../records/llm-model.js';
import type { RecordPage } from '../records/record-collection.js';
import type { ListQuery } from '../records/record-service.js';
import {
  chatTurnJobId,
  failureDetail,
  failureError,
  addAndWait,
  type ChatProgressLog,
  type ChatTurnData,
  type ChatTurnQueue,
  type ChatTurnResult,
  type JobOutcome,
  type JobState,
} from './chat-queue.js';
import type { ConversationStore, SessionDetail, SessionSummary } from './conversation.js';
import type { RateLimiter } from './rate-limiter.js';

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

export interface ChatJobView {
  job_id: string;
  status: JobState;
  session_id: string;
  model?: string;
  response?: string;
  error?: string;
}

/** One event of a turn's event stream. */
export type ChatStreamEvent =
  | { event: 'queued' | 'active'; data: { job_id: string } }
  | { event: 'tool_call'; data: { job_id: string; id: string; name: string; arguments: Record<string, unknown> } }
  | { event: 'tool_result'; data: { job_id: string; id: string; name: string; ok: boolean; content: string } }
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
}

/** Finds the model a turn runs on. */
export interface ModelDirectory {
  byName(name: string): Promise<Pick<LlmModelRecord, 'id' | 'name'> | null>;
  defaultModel(): Promise<Pick<LlmModelRecord, 'id' | 'name'> | null>;
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
  };
}

export interface ChatServiceDependencies {
  models: ModelDirectory;
  queue: ChatTurnQueue;
  conversations: ConversationStore;
  limiter: RateLimiter;
  /** Turns per minute per user, for the 429 message. */
  ratePerMinute: number;
  /** How long a synchronous request waits for its turn before answering 202. */
  waitMs: number;
}

const NO_MODEL =
  'No LLM model is configured for chat. Create one and make it the default: POST /api/plugins/ai-ops/llm-models/ ' +
  'with {"name": "llama3.1", "provider": "ollama", "is_default": true} (and "model_secret_key" naming a secret for providers that need a key), ' +
  'or name an existing model in "model".';

/**
 * The chat as the API offers it: every turn is a job on the `chat` queue, answered synchronously
 * when it finishes in time, otherwise polled or streamed. Every read is scoped to the caller:
 * another user's job or session is not found.
 */
export class ChatService {
  private readonly streams = new Set<ChatStream>();

  constructor(private readonly deps: ChatServiceDependencies) {}

  async send(userId: string, request: ChatRequest, options: { wait: boolean; idempotencyKey?: string }): Promise<ChatAccepted | ChatCompleted> {
    const retryAfterMs = await this.deps.limiter.consume(userId);
    if (retryAfterMs > 0) {
      const seconds = Math.ceil(retryAfterMs / 1_000);
      throw new RateLimitedError(`Chat rate limit reached (${this.deps.ratePerMinute} turns per minute); retry in ${seconds} s.`, seconds);
    }
    const turnId = options.idempotencyKey
      ? createHash('sha256').update(`${userId}\n${options.idempotencyKey}`).digest('hex').slice(0, 32)
      : randomUUID();
    const jobId = chatTurnJobId(turnId);
    const enqueue = () => this.enqueue(userId, turnId, jobId, request, options.idempotencyKey !== undefined);
    const accepted = ({ data, modelName }: Enqueued): ChatAccepted => ({ status: 'accepted', job_id: jobId, session_id: data.sessionId, model: modelName });
    if (!options.wait) return accepted(await enqueue());
    let turn!: Enqueued;
    const outcome = await addAndWait(
      this.deps.queue,
      jobId,
      async () => {
        turn = await enqueue();
        return turn.finished;
      },
      this.deps.waitMs,
    );
    if (!outcome) return accepted(turn);
    if (outcome.state === 'failed') throw failureError(outcome.failedReason, jobId);
    return { status: 'completed', job_id: jobId, session_id: turn.data.sessionId, model: outcome.result.model, response: outcome.result.response };
  }

  /**
   * Adds the turn's job, or finds the one a request with the same idempotency key added (and its
   * outcome, if it is over).
   */
  private async enqueue(
    userId: string,
    turnId: string,
    jobId: string,
    request: ChatRequest,
    replayable: boolean,
  ): Promise<Enqueued> {
    const replayed = replayable ? await this.deps.queue.get(jobId) : null;
    if (replayed) {
      const finished: JobOutcome<ChatTurnResult> | undefined =
        replayed.state === 'completed' ? { state: 'completed', result: replayed.result! } : replayed.state === 'failed' ? { state: 'failed', failedReason: replayed.failedReason ?? '' } : undefined;
      return { data: replayed.data, modelName: replayed.result?.model ?? request.model ?? '', finished };
    }
    const model = await this.resolveModel(request.model);
    const sessionId = request.session_id ?? randomUUID();
    const data: ChatTurnData = { turnId, userId, sessionId, modelId: model.id, generation: await this.deps.conversations.generation(userId, sessionId), message: request.message };
    await this.deps.queue.add(jobId, data);
    return { data, modelName: model.name };
  }

  async job(userId: string, jobId: string): Promise<ChatJobView> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.data.userId !== userId) throw this.jobNotFound();
    return {
      job_id: job.id,
      status: job.state,
      session_id: job.data.sessionId,
      ...(job.result ? { model: job.result.model, response: job.result.response } : {}),
      ...(job.state === 'failed' ? { error: failureDetail(job.failedReason) } : {}),
    };
  }

  /** Stops one of the user's turns that has not finished (see JobQueue.stop). */
  async stop(userId: string, jobId: string): Promise<void> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.data.userId !== userId) throw this.jobNotFound();
    if (job.state === 'completed' || job.state === 'failed') throw new ConflictError(`The turn is over already (${job.state}); there is nothing to stop.`);
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
    const sendProgress = (log: ChatProgressLog) => {
      for (const progress of log.events.slice(reported)) send({ event: progress.type, data: { job_id: jobId, ...progress } } as ChatStreamEvent);
      reported = Math.max(reported, log.events.length);
    };
    const send = (event: ChatStreamEvent) => {
      if (finished) return;
      started = true;
      if (event.event === 'completed' || event.event === 'failed') {
        finished = true;
        unsubscribe();
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
          return send({ event: 'completed', data: { job_id: jobId, session_id: event.result.sessionId, model: event.result.model, response: event.result.response } });
        case 'failed':
          return send({ event: 'failed', data: { job_id: jobId, error: failureDetail(event.failedReason) } });
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
    // What the turn reported before this stream opened.
    if (job.progress) sendProgress(job.progress);
    if (job.state === 'completed' && job.result) {
      send({ event: 'completed', data: { job_id: jobId, session_id: job.data.sessionId, model: job.result.model, response: job.result.response } });
    } else if (job.state === 'failed') {
      send({ event: 'failed', data: { job_id: jobId, error: failureDetail(job.failedReason) } });
    }
    const stream: ChatStream = {
      done,
      close: () => {
        finished = true;
        unsubscribe();
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
    if (!model) throw new ConflictError(NO_MODEL);
    return model;
  }

  private jobNotFound(): NotFoundError {
    return new NotFoundError('No chat job matches the given id.');
  }

  private sessionNotFound(): NotFoundError {
    return new NotFoundError('No chat session matches the given id.');
  }
}
