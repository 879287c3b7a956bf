import { encodeFailure } from '../jobs/job-failure.js';
import type { JobKind, KindNamed } from '../jobs/job-kind.js';
import type { JobQueue } from '../jobs/job-queue.port.js';
import type { QueueDefinition } from '../jobs/queue-definition.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import { BullQueue } from './bullmq-queue.adapter.js';

export interface OpenQueueOptions {
  /** A client whose server (or servers) and login the queue's connections copy. */
  connection: RedisClient;
  keyPrefix: string;
  logger: Logger;
  /** Read the event stream too (to wait for and watch jobs; a worker's own queue only adds and schedules). */
  events: boolean;
  /** Commands wait while Redis is away instead of failing at once (a worker's own queue). */
  waitForRedis?: boolean;
}

/** Opens the queue `definition` describes, with its jobs' retry and retention policies. */
export function openDefinedQueue<J extends JobKind>(definition: QueueDefinition<J>, options: OpenQueueOptions): BullQueue<J> {
  const { removedBeforeRun } = definition;
  return new BullQueue<J>({
    ...options,
    queueName: definition.name,
    jobOptions: (name) => definition.policies[name],
    ...(removedBeforeRun ? { removedReason: encodeFailure(removedBeforeRun) } : {}),
  });
}

/** The jobs named `names` of `queue`, as the JobQueue port its producers use. */
export function jobQueue<J extends JobKind, N extends J['name']>(queue: BullQueue<J>, ...names: N[]): JobQueue<KindNamed<J, N>> {
  const named = (name: string) => (names as string[]).includes(name);
  return {
    add: (job, jobId) => queue.add(job, jobId),
    addDeduplicated: (job, jobId, deduplicationId) => queue.addDeduplicated(job, jobId, deduplicationId),
    async get(jobId) {
      const job = await queue.get(jobId);
      return job && named(job.name) ? job : null;
    },
    // The outcome and events of a job id are those of the one job it names.
    waitFor: (jobId, timeoutMs, signal) => queue.waitFor(jobId, timeoutMs, signal),
    watch: (jobId, listener) => queue.watch(jobId, listener),
    watchOutcomes: (listener) => queue.watchOutcomes(listener),
    stop: async (jobId) => {
      await queue.stop(jobId);
    },
    resume: (jobId) => queue.resume(jobId),
  };
}
