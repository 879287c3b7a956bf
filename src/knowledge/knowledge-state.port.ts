import type { IndexState } from './index-state.js';
import type { Manifest } from './manifest.js';
import type { Repository } from './repository.js';

/** JSON documents by name: a repository's name, or `USER_REPOSITORIES` for the user list. */
export interface DocumentCollection<T> {
  /** The document, or undefined when there is none. */
  get(name: string): Promise<T | undefined>;
  /** Every document by name, read at once (one round trip to a shared store). */
  all(): Promise<Map<string, T>>;
  /** Replaces the document whole (readers see the old one or the new one, never half). */
  put(name: string, value: T): Promise<void>;
  delete(name: string): Promise<void>;
}

/** The name of the one document of `KnowledgeState.repositories`. */
export const USER_REPOSITORIES = 'user';

export interface UserRepositories {
  repositories: Repository[];
}

/**
 * Port: what every process of the knowledge base must see alike, whichever machine it runs on:
 * the user repository list, each repository's last or current run, and each repository's
 * manifest. In Redis when the service has one (any worker indexes, any API or tool server reports
 * and searches); in files under DATA_DIR for a process on its own.
 */
export interface KnowledgeState {
  repositories: DocumentCollection<UserRepositories>;
  runs: DocumentCollection<IndexState>;
  manifests: DocumentCollection<Manifest>;
}
