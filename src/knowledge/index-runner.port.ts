import type { IndexProgress, IndexResult } from './index-pipeline.js';

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
  /** Indexes one repository, or joins the run already under way for it (`onProgress`: runs in this process only). */
  index(name: string, options: { force: boolean; onProgress?: (progress: IndexProgress) => void }): Promise<IndexResult>;
  /** Starts indexing without waiting; resolves to the job id. */
  start(name: string, options: { force: boolean }): Promise<string>;
  /** Deletes every chunk, the manifest, the state and the clone of a repository. */
  purge(name: string): Promise<PurgeResult>;
}
