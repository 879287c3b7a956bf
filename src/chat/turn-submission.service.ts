import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, IdempotencyKeyReusedError, RateLimitedError, ValidationError } from '../kernel/errors.js';
import { addAndWait } from '../kernel/jobs/add-and-wait.js';
import { chatTurnJobId, ChatJobName, type ChatTurnData, type ChatTurnResult } from './chat.jobs.js';
import { failureError } from '../kernel/jobs/job-failure.js';
import type { JobOutcome } from '../kernel/jobs/job-queue.port.js';
import type { ApprovalStore } from './approval-store.port.js';
import type { SessionStore } from './session-store.port.js';
import type { ModelDirectory, TurnModel } from './model-directory.js';
import type { TokenBudget } from './usage/token-budget.js';
import type { RateLimiter } from './rate-limiter.port.js';
import { ownedTurn, waitingCalls, type ChatTurnQueue } from './turn-jobs.js';
import { traceCarrier } from '../kernel/tracing/tracing.js';

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

/** A turn's job as added (or found again), and its outcome if it is over already. */
interface Enqueued {
  data: ChatTurnData;
  modelName: string;
  finished?: JobOutcome<ChatTurnResult>;
  /** A replayed request found its turn waiting for decisions. */
  paused?: boolean;
}

export interface TurnSubmissionDependencies {
  models: ModelDirectory;
  queue: Pick<ChatTurnQueue, 'add' | 'get' | 'waitFor' | 'watch' | 'stop'>;
  /** The session's generation, which a turn carries so that a clear since it was asked keeps it from being stored. */
  sessions: Pick<SessionStore, 'generation'>;
  /** Where a replayed request finds its turn waiting for decisions. */
  approvals: Pick<ApprovalStore, 'get' | 'close'>;
  limiter: RateLimiter;
  /** Refuses turns of users whose daily token budget is spent; none: no budget. */
  budget?: Pick<TokenBudget, 'admit'>;
  /** Turns per minute per user, for the 429 message. */
  ratePerMinute: number;
  /** How long a synchronous request waits for its turn before answering 202. */
  waitMs: number;
  /** The clock a wait for decisions runs out by. */
  now?: () => number;
}

/** The asking request's trace context and time, when it is traced. */
function tracedAsk(): Pick<ChatTurnData, 'trace' | 'askedAt'> {
  const trace = traceCarrier();
  return Object.keys(trace).length > 0 ? { trace, askedAt: Date.now() } : {};
}

/** What a replayed request must repeat: the fields of the first one, as sent. */
function digestOf({ message, session_id, model }: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([message, session_id ?? null, model ?? null]))
    .digest('hex');
}

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
 * Asking the chat: every turn is a job on the `chat` queue, answered synchronously when it finishes
 * in time, otherwise accepted for the client to poll or stream. A request repeating an
 * Idempotency-Key joins the turn the first one started.
 */
export class TurnSubmissionService {
  constructor(private readonly deps: TurnSubmissionDependencies) {}

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
   * Stops one of the user's turns that has not finished (see JobQueue.stop). A turn awaiting
   * approval takes no more decisions; a worker ends it as stopped.
   */
  async stop(userId: string, jobId: string): Promise<void> {
    const job = await ownedTurn(this.deps.queue, userId, jobId);
    if (job.state === 'completed' || job.state === 'failed')
      throw new ConflictError(`The turn is over already (${job.state}); there is nothing to stop.`);
    if (job.state === 'queued') await this.deps.approvals.close(job.data.turnId);
    await this.deps.queue.stop(jobId);
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
      const paused =
        replayed.state === 'queued' &&
        (await waitingCalls(this.deps.approvals, replayed.data.turnId, (this.deps.now ?? Date.now)())) !== null;
      return { data: replayed.data, modelName: replayed.result?.model ?? request.model ?? '', finished, paused };
    }
    const model = await this.resolveModel(request.model);
    // Held until the worker holds the turn's first step in its stead (or the hold lapses).
    await this.deps.budget?.admit(userId, model, { turnId, promptChars: request.message.length + model.system_prompt.length });
    const sessionId = request.session_id ?? randomUUID();
    const data: ChatTurnData = {
      turnId,
      userId,
      ...(tokenId ? { tokenId } : {}),
      sessionId,
      modelId: model.id,
      // A session this turn starts was never cleared: its generation is the first.
      generation: request.session_id === undefined ? 0 : await this.deps.sessions.generation(userId, sessionId),
      message: request.message,
      ...(requestDigest ? { requestDigest } : {}),
      ...tracedAsk(),
    };
    await this.deps.queue.add({ name: ChatJobName.Turn, data }, jobId);
    return { data, modelName: model.name };
  }

  private async resolveModel(name: string | undefined): Promise<TurnModel> {
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
}
