import type { JobFailure } from './job-failure.js';
import type { JobKind } from './job-kind.js';

/** Keep at most `count` finished jobs, none older than `age` seconds (`true`: remove at once). */
type Retention = boolean | { age: number; count?: number } | { count: number };

/** Retries, backoff and retention of one job name. */
export interface JobPolicy {
  attempts?: number;
  backoff?: { type: 'exponential' | 'fixed'; delay: number; jitter?: number };
  removeOnComplete?: Retention;
  removeOnFail?: Retention;
}

/**
 * A queue as the component whose jobs go on it defines it: its name and each job's retries and
 * retention, in one place. `removedBeforeRun`: what the waiters of a job removed before it ran hear
 * (for a queue whose jobs can be stopped); without it they stop waiting and hear nothing.
 */
export interface QueueDefinition<J extends JobKind> {
  name: J['queue'];
  policies: Record<J['name'], JobPolicy>;
  removedBeforeRun?: JobFailure;
}
