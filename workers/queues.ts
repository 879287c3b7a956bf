import { BullQueue } from '../shared/adapters/bullmq/bullmq-queue.adapter.js';
import type { RedisEndpoint } from '../shared/adapters/bullmq/bullmq-connection.js';
import type { ChatProgress, ChatTurnData, ChatTurnQueue, ChatTurnResult, JobOutcome, JobSnapshot } from '../shared/chat/chat-queue.js';
import type { Logger } from '../shared/logging/logger.js';
import type { ChatJobResult } from './chat.processor.js';
import { JOB_POLICIES, JobName, QueueName, type ChatQueueItem } from './jobs.js';

export type ChatQueue = BullQueue<ChatQueueItem, ChatJobResult, ChatProgress>;

export interface OpenQueueOptions {
  connection: RedisEndpoint;
  keyPrefix: string;
  logger: Logger;
  /** Read the event stream too (the API waits for and streams turns; the scheduler only adds). */
  events: boolean;
}

/** The producer side of the `chat` queue, with the job catalogue's retry and retention policies. */
export function openChatQueue({ connection, keyPrefix, logger, events }: OpenQueueOptions): ChatQueue {
  return new BullQueue({ queueName: QueueName.Chat, connection, keyPrefix, logger, events, jobOptions: (name) => JOB_POLICIES[name] });
}

/** The chat-turn port the API's ChatService uses: turn jobs only, typed as turns. */
export function chatTurnQueue(queue: ChatQueue): ChatTurnQueue {
  return {
    add: (jobId, data) => queue.add({ name: JobName.ChatTurn, data }, jobId),
    async get(jobId) {
      const job = await queue.get(jobId);
      return job?.name === JobName.ChatTurn ? (job as JobSnapshot<ChatTurnData, ChatTurnResult>) : null;
    },
    // Chat-turn jobs return ChatTurnResult; the union covers the queue's other job names.
    waitFor: (jobId, timeoutMs) => queue.waitFor(jobId, timeoutMs) as Promise<JobOutcome<ChatTurnResult> | null>,
    watch: (jobId, listener) => queue.watch(jobId, listener as Parameters<ChatQueue['watch']>[1]),
  };
}
