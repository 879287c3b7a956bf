import { UnrecoverableError, type JobContext } from '../shared/adapters/bullmq/bullmq-worker.adapter.js';
import { ChatTurnError, encodeFailure, type ChatProgress, type ChatProgressLog, type ChatTurnResult } from '../shared/chat/chat-queue.js';
import type { ChatTurnRunner } from '../shared/chat/chat-turn.js';
import type { ConversationStore } from '../shared/chat/conversation.js';
import { UnavailableError } from '../shared/errors.js';
import { JobName, type ChatQueueItem, type JobOf } from './jobs.js';

export type ChatJob = JobContext<ChatQueueItem, ChatProgressLog>;
export type ChatJobResult = ChatTurnResult | { sessions: number };

export interface ChatProcessorDependencies {
  turns: Pick<ChatTurnRunner, 'run'>;
  conversations: Pick<ConversationStore, 'removeExpired'>;
}

type Handlers = { [N in ChatQueueItem['name']]: (job: JobContext<JobOf<N>, ChatProgressLog>) => Promise<ChatJobResult> };

/**
 * Domain failures become the job's failure reason (JSON with a kind the API maps to a status):
 * permanent ones end the job now (UnrecoverableError), the others are retried with backoff.
 */
function asJobFailure(error: unknown, job: ChatJob): Error {
  if (error instanceof ChatTurnError) {
    const reason = encodeFailure(error.kind, error.message);
    return error.permanent ? new UnrecoverableError(reason) : new Error(reason);
  }
  if (error instanceof UnavailableError) return new Error(encodeFailure('unavailable', error.message));
  job.logger.error('chat job failed unexpectedly', { error: error instanceof Error ? error.message : String(error), stack: (error as Error)?.stack });
  return new Error(encodeFailure('internal', `internal error in the chat worker (job ${job.id})`));
}

/** The processor of the `chat` queue: one handler per job name (a missing one does not compile). */
export function chatProcessor(deps: ChatProcessorDependencies): (job: ChatJob) => Promise<ChatJobResult> {
  const handlers: Handlers = {
    [JobName.ChatTurn]: (job) => {
      // Every report carries the turn's whole log, so a late event-stream reader can replay it.
      const log: ChatProgress[] = [];
      const report = (progress: ChatProgress) => {
        log.push(progress);
        return job.progress({ events: [...log] });
      };
      return deps.turns.run(job.data, { signal: job.signal, report });
    },
    [JobName.CheckpointCleanup]: async (job) => {
      const removed = await deps.conversations.removeExpired();
      job.logger.info('expired chat sessions removed', { slot: job.data.slot, sessions: removed.sessions });
      return removed;
    },
  };
  return async (job) => {
    try {
      return await (handlers[job.name] as (job: ChatJob) => Promise<ChatJobResult>)(job);
    } catch (error) {
      throw asJobFailure(error, job);
    }
  };
}
