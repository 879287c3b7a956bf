import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';
import type { KnowledgeIndexer } from './knowledge-indexer.js';
import { KnowledgeJobName, type KnowledgeJob } from './knowledge.jobs.js';

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
export function indexProcessor(deps: IndexProcessorDependencies): QueueProcessor<KnowledgeJob> {
  return queueProcessor<KnowledgeJob>(
    {
      [KnowledgeJobName.Index]: (job) => {
        // Reported at most every PROGRESS_EVERY_MS, and at the end: whoever waits for the job hears it (QueuedIndexRunner).
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
      [KnowledgeJobName.Purge]: (job) => deps.indexer.purge(job.data.repository),
    },
    asJobFailure,
  );
}
