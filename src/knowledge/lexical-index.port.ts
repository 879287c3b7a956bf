import type { KnowledgeChunk } from './chunk-store.port.js';
import type { ChunkChanges, StoredChunk } from './lexical-chunks.port.js';

/** Counts over every chunk of the index that BM25 weighs words with. */
export interface TermStatistics {
  /** Chunks. */
  chunks: number;
  /** Words of all chunks together (their average is the length a chunk is compared with). */
  words: number;
  /** For each word asked about, the chunks that hold it (absent: none). */
  chunksWith: Map<string, number>;
}

/** A chunk that holds at least one of the words searched for. */
export interface LexicalCandidate {
  id: string;
  chunk: KnowledgeChunk;
  /** Its words, space-separated, as stored. */
  terms: string;
}

/** A change of one repository written here, its chunks streamed in; nothing of it is searched before commit. */
export interface LexicalChange {
  add(chunks: StoredChunk[]): Promise<void>;
  delete(ids: string[]): void;
  commit(): Promise<void>;
}

/**
 * Port: this machine's full-text index of lexical chunks, shared by its processes (one writes at a
 * time) and kept on disk, so that no process holds the chunks in memory. With a shared store it is
 * a copy that each search brings up to the version the run states name; without one it is the
 * store itself.
 */
export interface LexicalIndex {
  /** The version of the shared store's chunks of `repository` it holds (undefined: none). */
  version(repository: string): Promise<string | undefined>;
  /**
   * Brings `repository` to `version` with the changes `since` returns for the version held, unless
   * another process of the machine did so meanwhile.
   */
  catchUp(repository: string, version: string, since: (held: string | undefined) => Promise<ChunkChanges>): Promise<void>;
  /** A change made here, for an index that is the store itself. */
  change(repository: string): Promise<LexicalChange>;
  ids(repository: string): Promise<string[]>;
  /** The newest copy of each chunk of `repository` with these ids, in no particular order; ids not held are left out. */
  read(repository: string, ids: string[]): Promise<StoredChunk[]>;
  /** The repositories it holds chunks of. */
  held(): Promise<string[]>;
  drop(repository: string): Promise<void>;
  /**
   * Chunks of `repositories` that hold any of `terms`, those BM25 ranks first (one copy of each id,
   * the newest), with the statistics of those terms over the whole index: about `wanted.candidates`
   * in all, and at least the best `wanted.results` of each part of the index (the chunks that
   * answer may all be in one part, the one a recent change wrote).
   */
  candidates(
    repositories: string[],
    terms: string[],
    wanted: { results: number; candidates: number },
  ): Promise<{ statistics: TermStatistics; candidates: LexicalCandidate[] }>;
  close(): Promise<void>;
}
