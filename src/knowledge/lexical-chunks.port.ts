import type { KnowledgeChunk } from './chunk-store.port.js';

/** A chunk as the lexical store keeps it: its payload and the text BM25 indexes. */
export interface StoredChunk {
  id: string;
  chunk: KnowledgeChunk;
  text: string;
}

/**
 * Port: where the chunks of the lexical knowledge base live, one set per repository. Every
 * process that searches builds its BM25 index from them and builds it again when the
 * repository's version changes.
 */
export interface LexicalChunks {
  /** For each repository, a token that changes with every `apply` and `drop` (undefined: nothing stored). */
  versions(repositories: string[]): Promise<Array<string | undefined>>;
  load(repository: string): Promise<StoredChunk[]>;
  ids(repository: string): Promise<string[]>;
  /** Writes and deletes in one step and gives the repository a new version. */
  apply(repository: string, changes: { upsert: StoredChunk[]; delete: string[] }): Promise<void>;
  drop(repository: string): Promise<void>;
}
