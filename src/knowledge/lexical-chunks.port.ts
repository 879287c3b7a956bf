import type { KnowledgeChunk } from './chunk-store.port.js';

/** A chunk as the lexical store keeps it: its payload and the words BM25 counts (knowledgeTerms of its text, space-separated). */
export interface StoredChunk {
  id: string;
  chunk: KnowledgeChunk;
  terms: string;
}

/** Part of a change to one repository's chunks: chunks written (new or replacing the same id) and ids deleted. */
export interface ChunkBatch {
  upsert: StoredChunk[];
  delete: string[];
}

/** What a reader holding one version of a repository's chunks needs to hold the current one. */
export interface ChunkChanges {
  /** The version the batches bring the reader to; undefined: nothing is stored (the reader drops what it holds). */
  version: string | undefined;
  /** The batches hold every chunk: the reader replaces what it held (it held another lineage, or fell too far behind). */
  complete: boolean;
  batches: AsyncIterable<ChunkBatch>;
}

/**
 * Port: the lexical chunks every machine shares (in Redis), one set per repository, each change
 * giving the repository a new version. The machines' own lexical indexes catch up from here: with
 * the chunks that changed since the version they hold, or with all of them.
 */
export interface SharedLexicalChunks {
  /** Writes chunks of a change under way; readers take them in once `commit` gives the change its version. */
  put(repository: string, chunks: StoredChunk[]): Promise<void>;
  /**
   * Deletes `deleted` and gives the change (with the chunks `put` wrote, ids `upserted`) its version,
   * which it returns. One writer per repository at a time (the index run's lock).
   */
  commit(repository: string, change: { upserted: string[]; deleted: string[] }): Promise<string>;
  /** What changed since version `since` (undefined: the reader holds nothing). */
  changes(repository: string, since: string | undefined): Promise<ChunkChanges>;
  ids(repository: string): Promise<string[]>;
  /** The committed or put chunks of `repository` with these ids, in no particular order; ids not stored are left out. */
  read(repository: string, ids: string[]): Promise<StoredChunk[]>;
  drop(repository: string): Promise<void>;
}
