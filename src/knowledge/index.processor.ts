import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { JobName, type QueueName } from '../kernel/jobs/catalogue.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';
import type { KnowledgeIndexer } from './knowledge-indexer.js';

export interface IndexProcessorDependencies {
  indexer: Pick<KnowledgeIndexer, 'index' | 'purge'>;
}

const PROGRESS_EVERY_MS = 500;

/**
 * Domain errors cross the queue as they are; Git and store failures as upstream ones. A repository
 * that is not on the list or a bad name cannot be fixed by retrying; Git and store failures are retried.
 */
function asJobFailure(error: unknown): JobFailedError {
  const permanent = error instanceof NotFoundError || error instanceof ValidationError || error instanceof ConflictError;
  return new JobFailedError(
    failureOf(error) ?? { kind: 'upstream', message: error instanceof Error ? error.message : String(error) },
    permanent,
  );
}

/** The processor of the `index` queue: clone-and-embed runs and purges, one handler per job name. */
export function indexProcessor(deps: IndexProcessorDependencies): QueueProcessor<QueueName.Index> {
  return queueProcessor<QueueName.Index>(
    {
      [JobName.KbIndex]: (job) => {
        let last = 0;
        return deps.indexer.index(job.data.repository, {
          force: job.data.force,
          signal: job.signal,
          onProgress: (progress) => {
            if (Date.now() - last < PROGRESS_EVERY_MS && progress.files_done < progress.files_total) return;
            last = Date.now();
            job.progress(progress).catch(() => undefined);
          },
        });
      },
      [JobName.KbPurge]: (job) => deps.indexer.purge(job.data.repository),
    },
    asJobFailure,
  );
}
