import { randomUUID } from 'node:crypto';
import type { KindNamed } from '../kernel/jobs/job-kind.js';
import type { QueueDefinition } from '../kernel/jobs/queue-definition.js';
import type { IndexProgress, IndexResult, PurgeResult } from './index-runner.port.js';
import { repositorySlug } from './repository.js';

/**
 * The knowledge base's jobs, on the `index` queue: what each carries and returns, its id and its
 * retries and retention. Their handlers are in index.processor.ts; the composition's catalogue
 * lists the queue.
 */

/** Job names, `<entity>-<action>`. */
export enum KnowledgeJobName {
  Index = 'kb-index',
  Purge = 'kb-purge',
}

export interface IndexJobData {
  repository: string;
  force: boolean;
}

export interface PurgeJobData {
  repository: string;
}

/** The jobs on the `index` queue. */
export type KnowledgeJob =
  | { name: KnowledgeJobName.Index; queue: 'index'; data: IndexJobData; result: IndexResult; progress: IndexProgress }
  | { name: KnowledgeJobName.Purge; queue: 'index'; data: PurgeJobData; result: PurgeResult; progress: never };

export type IndexJob = KindNamed<KnowledgeJob, KnowledgeJobName.Index>;
export type PurgeJob = KindNamed<KnowledgeJob, KnowledgeJobName.Purge>;

/** Ids (no `:`, never all digits). */
export const knowledgeJobIds = {
  /**
   * A repository's index run: one at a time. While its job is queued or running, another request
   * joins it (the job's deduplication id; the in-process runner's run id).
   */
  indexRun: (repository: string): string => `kb-index-${repositorySlug(repository)}`,
  /** An index job, one per request that starts one. */
  indexJob: (repository: string): string => `kb-index-${repositorySlug(repository)}-${randomUUID()}`,
  /** One purge per repository at a time: a second request while one is queued or running joins it. */
  purge: (repository: string): string => `kb-purge-${repositorySlug(repository)}`,
};

/**
 * The `index` queue. A job is removed as soon as it ends, which frees its repository for the next
 * run (waiting callers get the result from the event stream). Runs are idempotent (content-hash manifest).
 */
export const INDEX_QUEUE: QueueDefinition<KnowledgeJob> = {
  name: 'index',
  policies: {
    [KnowledgeJobName.Index]: {
      attempts: 2,
      backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 },
      removeOnComplete: true,
      removeOnFail: true,
    },
    [KnowledgeJobName.Purge]: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
      removeOnComplete: true,
      removeOnFail: true,
    },
  },
};
