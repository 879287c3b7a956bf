import {
  JOB_POLICIES,
  REMOVED_BEFORE_RUN,
  type JobOf,
  type JobsOf,
  type ProgressOf,
  type QueueName,
  type ResultOf,
} from '../jobs/catalogue.js';
import { encodeFailure } from '../jobs/job-failure.js';
import type { JobQueue } from '../jobs/job-queue.port.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import { BullQueue } from './bullmq-queue.adapter.js';

/** The producer side of one queue of the catalogue, typed by its jobs. */
export type CatalogueQueue<Q extends QueueName> = BullQueue<JobOf<JobsOf<Q>>, ResultOf<JobsOf<Q>>, ProgressOf<JobsOf<Q>>>;

export interface OpenQueueOptions {
  /** A client whose server (or servers) and login the queue's connections copy. */
  connection: RedisClient;
  keyPrefix: string;
  logger: Logger;
  /** Read the event stream too (to wait for and watch jobs; the scheduler only adds). */
  events: boolean;
}

/** Opens a queue of the catalogue with its jobs' retry and retention policies. */
export function openQueue<Q extends QueueName>(queueName: Q, options: OpenQueueOptions): CatalogueQueue<Q> {
  const removed = REMOVED_BEFORE_RUN[queueName];
  return new BullQueue({
    ...options,
    queueName,
    jobOptions: (name) => JOB_POLICIES[name],
    ...(removed ? { removedReason: encodeFailure(removed) } : {}),
  });
}

/** The jobs named `names` of `queue`, as the JobQueue port its producers use. */
export function jobQueue<Q extends QueueName, N extends JobsOf<Q>>(queue: CatalogueQueue<Q>, ...names: N[]): JobQueue<N> {
  const named = (name: string) => (names as string[]).includes(name);
  return {
    add: (job, jobId) => queue.add(job, jobId),
    async get(jobId) {
      const job = await queue.get(jobId);
      return job && named(job.name) ? job : null;
    },
    // The outcome and events of a job id are those of the one job it names.
    waitFor: (jobId, timeoutMs, signal) => queue.waitFor(jobId, timeoutMs, signal),
    watch: (jobId, listener) => queue.watch(jobId, listener),
    stop: async (jobId) => {
      await queue.stop(jobId);
    },
    resume: (jobId) => queue.resume(jobId),
  };
}
