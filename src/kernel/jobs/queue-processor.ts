import { JobParkedError, type JobFailedError } from './job-failure.js';
import type { JobKind, KindNamed } from './job-kind.js';
import type { JobContext } from './job-queue.port.js';

/** The consumer side of a queue whose jobs are J: runs each of them. */
export type QueueProcessor<J extends JobKind> = (job: JobContext<J>) => Promise<J['result']>;

/** One handler per job name of J: a job declared without one does not compile. */
export type QueueHandlers<J extends JobKind> = {
  [N in J['name']]: (job: JobContext<KindNamed<J, N>>) => Promise<KindNamed<J, N>['result']>;
};

/**
 * The processor of a queue whose jobs are J: each job goes to the handler of its name; what a
 * handler throws becomes the job's failure through `asFailure` (see job-failure.ts), so it crosses
 * the queue (a parked job's JobParkedError passes as it is).
 */
export function queueProcessor<J extends JobKind>(
  handlers: QueueHandlers<J>,
  asFailure: (error: unknown, job: JobContext<J>) => JobFailedError,
): QueueProcessor<J> {
  return async (job) => {
    const handler = handlers[job.name as J['name']] as unknown as QueueProcessor<J>;
    try {
      return await handler(job);
    } catch (error) {
      if (error instanceof JobParkedError) throw error;
      throw asFailure(error, job);
    }
  };
}
