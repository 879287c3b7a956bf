import { rm } from 'node:fs/promises';
import type { Embedder } from '../embeddings/embedder.port.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import type { ChunkStore } from './chunk-store.port.js';
import { DenseChunkStore } from './dense-chunk-store.js';
import type { GitSource } from './git.port.js';
import type { RemoteAccess } from './remote-access.js';
import { IndexPipeline, type IndexSettings } from './index-pipeline.js';
import type { IndexProgress, IndexResult, IndexRunner, PurgeResult } from './index-runner.port.js';
import type { KnowledgeLayout } from './knowledge-layout.js';
import type { KnowledgeState } from './knowledge-state.port.js';
import type { KnowledgeLocks } from './locks.port.js';
import { chunkCount } from './manifest.js';
import type { RepositoryList } from './repository-list.js';
import { knowledgeJobIds } from './knowledge.jobs.js';
import { repositorySlug } from './repository.js';
import { inSpan } from '../kernel/tracing/tracing.js';

/**
 * The chunk store of this process, chosen once: dense (embedder and vector store) when a model
 * loads, otherwise lexical, said once in the log.
 */
export function chunkStoreResolver({
  embedder,
  vectors,
  lexical,
  logger,
}: {
  embedder?: Embedder;
  vectors?: VectorStore;
  /** The lexical store (opened on first use). */
  lexical: () => Promise<ChunkStore>;
  logger: Logger;
}): () => Promise<ChunkStore> {
  let resolved: Promise<ChunkStore> | undefined;
  return () =>
    (resolved ??= (async () => {
      if (!embedder || !vectors) return lexical();
      try {
        return await DenseChunkStore.open(embedder, vectors);
      } catch (error) {
        logger.warn('embedding model unavailable: the knowledge base indexes and searches lexically', {
          model: embedder.model,
          error: error instanceof Error ? error.message : String(error),
        });
        return lexical();
      }
    })());
}

export interface KnowledgeIndexerDeps {
  lists: RepositoryList;
  /** Where clones go (this machine's cache). */
  layout: KnowledgeLayout;
  state: KnowledgeState;
  /** The lexical store, whose chunks go with a repository whichever store this process searches. */
  lexical: () => Promise<ChunkStore>;
  locks: KnowledgeLocks;
  git: GitSource;
  remotes: RemoteAccess;
  store: () => Promise<ChunkStore>;
  settings: IndexSettings;
  logger: Logger;
}

/** Index and purge runs of repositories on the list: what a worker's `index` jobs do. */
export class KnowledgeIndexer {
  constructor(private readonly deps: KnowledgeIndexerDeps) {}

  async index(
    name: string,
    options: { force?: boolean; signal?: AbortSignal; onProgress?: (progress: IndexProgress) => void } = {},
  ): Promise<IndexResult> {
    // An index run is a trace of its own, whoever asked for it (a job, a command, a tool).
    const attributes = { 'aiops.kb.repository': name, 'aiops.kb.force': options.force === true };
    return inSpan('kb-index', { root: true, attributes }, async (span) => {
      const repo = await this.deps.lists.get(name);
      const { git, remotes, layout, state, locks, settings, logger } = this.deps;
      const pipeline = new IndexPipeline({ git, remotes, store: await this.deps.store(), layout, state, locks, settings, logger });
      const result = await pipeline.run(repo, options);
      span.setAttributes({
        'aiops.kb.status': result.status,
        'aiops.kb.files_changed': result.files_changed,
        'aiops.kb.files_removed': result.files_removed,
        'aiops.kb.chunks_added': result.chunks_added,
        'aiops.kb.chunks_updated': result.chunks_updated,
        'aiops.kb.chunks_removed': result.chunks_removed,
        'aiops.kb.documents': result.documents,
      });
      return result;
    });
  }

  async purge(name: string): Promise<PurgeResult> {
    const { layout, state } = this.deps;
    const release = await this.deps.locks.acquire(repositorySlug(name), { waitMs: this.deps.settings.lockWaitMs });
    try {
      const manifest = await state.manifests.get(name);
      const store = await this.deps.store();
      await store.drop(name);
      const lexical = await this.deps.lexical();
      if (lexical !== store) await lexical.drop(name);
      await state.manifests.delete(name);
      await state.runs.delete(name);
      // Only this machine's clone: another machine's cache goes when its DATA_DIR is cleared.
      await rm(layout.clone(name), { recursive: true, force: true });
      this.deps.logger.info('repository purged', { repository: name, documents_deleted: chunkCount(manifest) });
      return { repository: name, documents_deleted: chunkCount(manifest) };
    } finally {
      await release();
    }
  }
}

/** Runs in this process; a second request for a repository already running joins that run. */
export class InProcessIndexRunner implements IndexRunner {
  readonly kind = 'in-process';
  private readonly running = new Map<string, Promise<IndexResult>>();

  constructor(
    private readonly indexer: KnowledgeIndexer,
    private readonly logger: Logger,
  ) {}

  index(name: string, options: { force: boolean; onProgress?: (progress: IndexProgress) => void }): Promise<IndexResult> {
    const key = name.toLowerCase();
    let run = this.running.get(key);
    if (!run) {
      run = this.indexer.index(name, options).finally(() => this.running.delete(key));
      this.running.set(key, run);
    }
    return run;
  }

  async start(name: string, options: { force: boolean }): Promise<string> {
    this.index(name, options).catch((error: unknown) =>
      this.logger.warn('background indexing failed', { repository: name, error: error instanceof Error ? error.message : String(error) }),
    );
    return knowledgeJobIds.indexRun(name);
  }

  purge(name: string): Promise<PurgeResult> {
    return this.indexer.purge(name);
  }
}
