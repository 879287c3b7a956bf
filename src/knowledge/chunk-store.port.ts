import type { FileType } from './chunkers.js';

/** One stored chunk: the payload every search result is built from. */
export interface KnowledgeChunk {
  repository: string;
  file_path: string;
  file_type: FileType;
  start_line: number;
  end_line: number;
  commit: string;
  last_updated: string;
  content: string;
}

export interface ChunkToStore {
  id: string;
  chunk: KnowledgeChunk;
  /** What is embedded: path and heading or definition context, then the content. */
  text: string;
}

export interface ScoredChunk {
  id: string;
  chunk: KnowledgeChunk;
  /** 0..1: a cosine similarity (dense) or the share of the query's weight matched (lexical). */
  score: number;
}

/** Changes to one repository's chunks; nothing is promised to be visible before commit(). */
export interface ChunkWriter {
  upsert(chunks: ChunkToStore[]): Promise<void>;
  delete(ids: string[]): Promise<void>;
  /** Every id stored for the repository (used to clean up after a crashed run). */
  ids(): Promise<string[]>;
  /** Resolves to the version searches must catch up to (the lexical store's, shared by machines), if the store has one. */
  commit(): Promise<string | undefined>;
}

/** A repository to search, with the version of its chunks its last run left (see ChunkWriter.commit). */
export interface SearchedRepository {
  name: string;
  version?: string;
}

/**
 * Port for where chunks live: vectors in the vector store (dense, one collection per repository),
 * or a full-text index searched with BM25 when no embedding model can be loaded (lexical).
 */
export interface ChunkStore {
  readonly mode: 'dense' | 'lexical';
  /** Identifies the store, model and dimension; recorded in manifests. */
  readonly key: string;
  writer(repository: string): Promise<ChunkWriter>;
  /** Deletes every chunk of the repository. */
  drop(repository: string): Promise<void>;
  /** The chunks of `repository` with these ids, in the order of `ids`; an id not stored is left out. */
  read(repository: string, ids: string[]): Promise<KnowledgeChunk[]>;
  /** Best chunks of these repositories for the query, best first. */
  search(repositories: SearchedRepository[], query: string, limit: number): Promise<ScoredChunk[]>;
  /**
   * A store that keeps a copy on each machine lets go of the repositories not in `present` (those
   * with a run state): one removed on another machine would otherwise stay on this one's disk.
   */
  prune?(present: ReadonlySet<string>): Promise<void>;
}

/** `found` (read by id, in any order) in the order of `ids`, as `read` answers; ids not found are left out. */
export function inOrder<T extends { id: string }>(ids: string[], found: T[], chunkOf: (item: T) => KnowledgeChunk): KnowledgeChunk[] {
  const byId = new Map(found.map((item) => [item.id, chunkOf(item)]));
  return ids.flatMap((id) => {
    const chunk = byId.get(id);
    return chunk ? [chunk] : [];
  });
}
