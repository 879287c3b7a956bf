import { UnrecoverableError, type JobContext } from '../shared/adapters/bullmq/bullmq-worker.adapter.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { IndexProgress, IndexResult } from '../shared/knowledge/index-pipeline.js';
import type { PurgeResult } from '../shared/knowledge/index-runner.js';
import type { KnowledgeIndexer } from '../shared/knowledge/knowledge-indexer.js';
import { JobName, type IndexQueueItem, type JobOf } from './jobs.js';

export type IndexJob = JobContext<IndexQueueItem, IndexProgress>;
export type IndexJobResult = IndexResult | PurgeResult;

export interface IndexProcessorDependencies {
  indexer: Pick<KnowledgeIndexer, 'index' | 'purge'>;
}

type Handlers = { [N in IndexQueueItem['name']]: (job: JobContext<JobOf<N>, IndexProgress>) => Promise<IndexJobResult> };

const PROGRESS_EVERY_MS = 500;

/**
 * The failure reason is `<ErrorClass>: <message>` (failureOf reads it back). A repository that is
 * not on the list or a bad name cannot be fixed by retrying; Git and store failures are retried.
 */
function asJobFailure(error: unknown): Error {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`;
  const permanent = error instanceof NotFoundError || error instanceof ValidationError || error instanceof ConflictError;
  return permanent ? new UnrecoverableError(reason) : new Error(reason);
}

/** The processor of the `index` queue: clone-and-embed runs and purges, one handler per job name. */
export function indexProcessor(deps: IndexProcessorDependencies): (job: IndexJob) => Promise<IndexJobResult> {
  const handlers: Handlers = {
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
  };
  return async (job) => {
    try {
      return await (handlers[job.name] as (job: IndexJob) => Promise<IndexJobResult>)(job);
    } catch (error) {
      throw asJobFailure(error);
    }
  };
}
