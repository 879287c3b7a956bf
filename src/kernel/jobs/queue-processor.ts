import type { JobName, JobsOf, ProgressOf, QueueName, ResultOf, JobOf } from './catalogue.js';
import { JobParkedError, type JobFailedError } from './job-failure.js';
import type { JobContext, JobContextOf } from './job-queue.port.js';

/** A job of queue Q as its processor sees it. */
export type QueueJob<Q extends QueueName> = JobContext<JobOf<JobsOf<Q>>, ProgressOf<JobsOf<Q>>>;

/** The consumer side of queue Q: runs each of its jobs. */
export type QueueProcessor<Q extends QueueName> = (job: QueueJob<Q>) => Promise<ResultOf<JobsOf<Q>>>;

/** One handler per job name of queue Q: a job added to the catalogue without one does not compile. */
export type QueueHandlers<Q extends QueueName> = { [N in JobsOf<Q>]: (job: JobContextOf<N>) => Promise<ResultOf<N>> };

/**
 * The processor of queue Q: each job goes to the handler of its name; what a handler throws
 * becomes the job's failure through `asFailure` (see job-failure.ts), so it crosses the queue
 * (a parked job's JobParkedError passes as it is).
 */
export function queueProcessor<Q extends QueueName>(
  handlers: QueueHandlers<Q>,
  asFailure: (error: unknown, job: QueueJob<Q>) => JobFailedError,
): QueueProcessor<Q> {
  return async (job) => {
    const handler = handlers[job.name as JobsOf<Q>] as unknown as (job: QueueJob<Q>) => Promise<ResultOf<JobName>>;
    try {
      return (await handler(job)) as ResultOf<JobsOf<Q>>;
    } catch (error) {
      if (error instanceof JobParkedError) throw error;
      throw asFailure(error, job);
    }
  };
}
