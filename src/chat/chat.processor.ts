import type { ChatTurnRunner } from './chat-turn.js';
import { ChatTurnError } from './chat-turn.js';
import type { SessionStore } from './session-store.port.js';
import { TurnTextWriter } from './turn-text-writer.js';
import type { TurnTextFeed } from './turn-text.port.js';
import { RateLimitedError, UnavailableError } from '../kernel/errors.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import type { JobContext } from '../kernel/jobs/job-queue.port.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';
import { ChatJobName, type ChatJob, type ChatProgress } from './chat.jobs.js';
import { carriedContext, inSpan, pastSpan } from '../kernel/tracing/tracing.js';

export interface ChatProcessorDependencies {
  turns: Pick<ChatTurnRunner, 'run'>;
  sessions: Pick<SessionStore, 'removeExpired'>;
  /** Where turns publish their text as the model writes it; none: answers come whole. */
  text?: { feed: Pick<TurnTextFeed, 'append'>; intervalMs: number };
}

/**
 * Domain failures become the job's failure (the API maps its kind to a status): permanent ones
 * end the job now, the others are retried with backoff.
 */
function asJobFailure(error: unknown, job: JobContext<ChatJob>): JobFailedError {
  if (error instanceof ChatTurnError) return new JobFailedError({ kind: error.kind, message: error.message }, error.permanent);
  if (error instanceof UnavailableError) return new JobFailedError({ kind: 'unavailable', message: error.message }, false);
  // A spent budget ends the turn now, answered as the API answers it: 429 with Retry-After.
  if (error instanceof RateLimitedError) return new JobFailedError(failureOf(error)!, true);
  job.logger.error('chat job failed unexpectedly', {
    error: error instanceof Error ? error.message : String(error),
    stack: (error as Error)?.stack,
  });
  return new JobFailedError({ kind: 'internal', message: `internal error in the chat worker (job ${job.id})` }, false);
}

/** The processor of the `chat` queue: one handler per job name (a missing one does not compile). */
export function chatProcessor(deps: ChatProcessorDependencies): QueueProcessor<ChatJob> {
  return queueProcessor<ChatJob>(
    {
      [ChatJobName.Turn]: (job) => {
        // Every report carries the turn's whole log, so a late event-stream reader can replay it.
        const log: ChatProgress[] = [...(job.previousProgress?.events ?? [])];
        const report = (progress: ChatProgress) => {
          log.push(progress);
          return job.progress({ events: [...log] });
        };
        const { text } = deps;
        // The turn joins the asking request's trace; its first attempt's wait in the queue is a span of it.
        const parent = carriedContext(job.data.trace);
        const attributes = { 'aiops.job.id': job.id, 'aiops.job.attempts_made': job.attemptsMade };
        if (job.data.askedAt && job.attemptsMade === 0 && !job.previousProgress)
          pastSpan('chat-turn queued', job.data.askedAt, attributes, parent);
        return inSpan('chat-turn', { parent, attributes }, () =>
          deps.turns.run(job.data, {
            signal: job.signal,
            ...(job.firstRun ? { firstRun: true } : {}),
            report,
            park: (untilMs, wakeIf) => job.park(untilMs, wakeIf),
            ...(text ? { text: new TurnTextWriter(text.feed, job.id, text.intervalMs) } : {}),
          }),
        );
      },
      [ChatJobName.SessionCleanup]: async (job) => {
        const removed = await deps.sessions.removeExpired();
        job.logger.info('expired chat sessions removed', { slot: job.slot?.toISOString(), sessions: removed.sessions });
        return removed;
      },
    },
    asJobFailure,
  );
}
