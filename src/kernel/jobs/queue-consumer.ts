import type { JobKind, JobOf } from './job-kind.js';
import type { QueueProcessor } from './queue-processor.js';

/**
 * A queue's consumer side as its component wires it (`src/<component>/<component>.wiring.ts`): the
 * processor and how many of its jobs one worker runs at once; what to do with a job that failed for
 * good, and what else to close with the worker. The worker role runs it in a queue worker.
 */
export interface QueueConsumer<J extends JobKind> {
  processor: QueueProcessor<J>;
  concurrency: number;
  failedForGood?: (job: JobOf<J>) => Promise<void>;
  close?: () => Promise<void>;
}
