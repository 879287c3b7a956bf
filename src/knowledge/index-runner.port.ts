export interface IndexProgress {
  files_done: number;
  files_total: number;
}

export interface IndexResult {
  repository: string;
  status: 'indexed' | 'unchanged';
  commit: string;
  files_total: number;
  /** Files (re-)chunked because they are new or changed. */
  files_changed: number;
  files_removed: number;
  chunks_added: number;
  chunks_updated: number;
  chunks_removed: number;
  /** Chunks of the repository in the index now. */
  documents: number;
  time_taken_ms: number;
}

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
  /** Indexes one repository, or joins the run already under way for it; `onProgress` hears that run's progress. */
  index(name: string, options: { force: boolean; onProgress?: (progress: IndexProgress) => void }): Promise<IndexResult>;
  /** Starts indexing without waiting; resolves to the job id. */
  start(name: string, options: { force: boolean }): Promise<string>;
  /** Deletes every chunk, the manifest, the state and the clone of a repository. */
  purge(name: string): Promise<PurgeResult>;
}
