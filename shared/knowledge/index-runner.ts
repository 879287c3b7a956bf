import { repositorySlug } from './repository.js';
import type { IndexResult } from './index-pipeline.js';

export interface PurgeResult {
  repository: string;
  documents_deleted: number;
}

/**
 * Runs index and purge work for the knowledge base: in this process, or as `index` queue jobs a
 * worker runs (enqueue and wait). Both give the same results.
 */
export interface IndexRunner {
  readonly kind: 'in-process' | 'queue';
  /** Indexes one repository, or joins the run already under way for it. */
  index(name: string, options: { force: boolean }): Promise<IndexResult>;
  /** Starts indexing without waiting; resolves to the job id. */
  start(name: string, options: { force: boolean }): Promise<string>;
  /** Deletes every chunk, the manifest, the state and the clone of a repository. */
  purge(name: string): Promise<PurgeResult>;
}

/** Job ids, one per repository and kind: a second request while one is queued or running joins it. */
export const indexJobId = (name: string): string => `kb-index-${repositorySlug(name)}`;
export const purgeJobId = (name: string): string => `kb-purge-${repositorySlug(name)}`;
