import { fileKnowledgeState } from './adapters/knowledge-files.adapter.js';
import { FileLocks } from './adapters/file-locks.adapter.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { RedisKnowledgeLocks } from './adapters/redis-knowledge-locks.adapter.js';
import { RedisLexicalChunks, redisKnowledgeState } from './adapters/redis-knowledge-state.adapter.js';
import type { KnowledgeConfig } from './knowledge.settings.js';
import type { Embedder } from '../embeddings/embedder.port.js';
import type { ChunkStore } from './chunk-store.port.js';
import type { IndexSettings } from './index-pipeline.js';
import type { IndexRunner } from './index-runner.port.js';
import { KnowledgeBase } from './knowledge-base.service.js';
import { chunkStoreResolver, InProcessIndexRunner, KnowledgeIndexer } from './knowledge-indexer.js';
import { KnowledgeLayout } from './knowledge-layout.js';
import type { KnowledgeState } from './knowledge-state.port.js';
import type { SharedLexicalChunks } from './lexical-chunks.port.js';
import { LexicalChunkStore } from './lexical-chunk-store.js';
import type { LexicalIndex } from './lexical-index.port.js';
import type { KnowledgeLocks } from './locks.port.js';
import { RepositoryList } from './repository-list.js';
import { officialRepositories } from './repository.js';
import { type Logger } from '../kernel/logging/logger.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { SecretValues } from './remote-access.js';
import type { RepositoryRules } from './repository-admission.js';
import { StartupError } from '../kernel/errors.js';
import type { QueueConsumer } from '../kernel/jobs/queue-consumer.js';
import { indexProcessor } from './index.processor.js';
import type { KnowledgeJob } from './knowledge.jobs.js';

/**
 * The knowledge base's wiring: where its state is shared, its parts over the process's dense parts,
 * the one `KnowledgeBase` every process builds, and its `index` queue's consumer in a worker.
 */

export function indexSettings(config: KnowledgeConfig): IndexSettings {
  return {
    maxFileBytes: config.maxFileBytes,
    maxChars: config.chunkMaxChars,
    overlapChars: config.chunkOverlapChars,
    lockWaitMs: config.jobWaitMs,
  };
}

/** What the processes of the knowledge base share: its state, its locks and (with Redis) its lexical chunks. */
export interface KnowledgeSharing {
  state: KnowledgeState;
  locks: KnowledgeLocks;
  /** Absent without Redis: this machine's lexical index is then the store itself. */
  lexicalChunks?: SharedLexicalChunks;
}

/**
 * In Redis when the process has one (every process of every machine sees the same knowledge base;
 * DATA_DIR only caches clones, model files and this machine's lexical index); otherwise files under
 * DATA_DIR, for a process on its own.
 */
export function knowledgeSharing(dataDir: string, redis?: { client: RedisClient; keyPrefix: string }): KnowledgeSharing {
  if (redis) {
    return {
      state: redisKnowledgeState(redis.client, redis.keyPrefix),
      locks: new RedisKnowledgeLocks(redis.client, redis.keyPrefix),
      lexicalChunks: new RedisLexicalChunks(redis.client, redis.keyPrefix),
    };
  }
  const layout = new KnowledgeLayout(dataDir);
  return { state: fileKnowledgeState(layout), locks: new FileLocks(layout.locksDir) };
}

/** The repository list over `sharing`: the official repositories (KB_OFFICIAL_REPOS) and the users'. */
export function repositoryLists({ state, locks }: KnowledgeSharing, config: KnowledgeConfig): RepositoryList {
  return new RepositoryList(state.repositories, locks, officialRepositories(config.officialRepositories));
}

/** What may be added by whom: OUTBOUND_ALLOW's internal destinations and KB_LOCAL_ROOTS's folders. */
export function repositoryRules(config: Pick<KnowledgeConfig, 'localRoots'>, outbound: OutboundPolicy): RepositoryRules {
  return { outbound, localRoots: config.localRoots };
}

/** What administering a knowledge base needs: its shared state, its repository list and who may add what. */
export interface KnowledgeAdministration extends KnowledgeSharing {
  lists: RepositoryList;
  rules: RepositoryRules;
}

export interface KnowledgeParts extends KnowledgeAdministration {
  layout: KnowledgeLayout;
  store: () => Promise<ChunkStore>;
  /** The lexical store, whichever `store` resolves to (a purge drops both). */
  lexical: () => Promise<ChunkStore>;
  indexer: KnowledgeIndexer;
  /** Closes this machine's lexical index, if this process opened it. */
  close(): Promise<void>;
}

/** The lexical store over this machine's index in `dir` (opened on first use) and, with Redis, the shared chunks. */
function lexicalStore(dir: string, shared?: SharedLexicalChunks): { store: () => Promise<ChunkStore>; close(): Promise<void> } {
  let index: Promise<LexicalIndex> | undefined;
  let store: Promise<ChunkStore> | undefined;
  return {
    store: () =>
      (store ??= (async () => {
        const { LanceDbLexicalIndex } = await import('../knowledge/adapters/lancedb-lexical-index.adapter.js');
        index = LanceDbLexicalIndex.open(dir);
        return new LexicalChunkStore(await index, shared);
      })()),
    async close() {
      await (await index?.catch(() => undefined))?.close();
    },
  };
}

/**
 * What runs index jobs: lists, layout, Git, the chunk store (dense when a model loads) and the
 * indexer, over `sharing` (files under `dataDir` when left out). `secrets`: the records' secrets,
 * for repositories that name one (a worker's); `outbound`: OUTBOUND_ALLOW (none when left out).
 */
export async function buildKnowledgeParts(
  config: KnowledgeConfig,
  {
    dataDir,
    logger,
    embedder,
    vectors,
    sharing = knowledgeSharing(dataDir),
    secrets,
    outbound = OutboundPolicy.fromList([]),
  }: {
    dataDir: string;
    logger: Logger;
    embedder?: Embedder;
    vectors?: VectorStore;
    sharing?: KnowledgeSharing;
    secrets?: SecretValues;
    outbound?: OutboundPolicy;
  },
): Promise<KnowledgeParts> {
  const { SimpleGitSource } = await import('../knowledge/adapters/simple-git.adapter.js');
  const layout = new KnowledgeLayout(dataDir);
  const { state, locks } = sharing;
  const lists = repositoryLists(sharing, config);
  const lexical = lexicalStore(layout.lexicalIndexDir, sharing.lexicalChunks);
  const store = chunkStoreResolver({ embedder, vectors, lexical: lexical.store, logger });
  const indexer = new KnowledgeIndexer({
    lists,
    layout,
    state,
    lexical: lexical.store,
    locks,
    git: new SimpleGitSource({ timeoutMs: config.gitTimeoutMs }),
    remotes: { baseUrl: config.gitBaseUrl, baseToken: config.gitToken, secrets, outbound, localRoots: config.localRoots },
    store,
    settings: indexSettings(config),
    logger,
  });
  return {
    ...sharing,
    lists,
    layout,
    store,
    indexer,
    rules: repositoryRules(config, outbound),
    lexical: lexical.store,
    close: () => lexical.close(),
  };
}

/**
 * The knowledge base over these parts, the one wiring of every process: index work runs through
 * `runner`, or in this process with the parts' indexer; searches read the parts' chunk store (the
 * API, which only administers it, has none).
 */
export function knowledgeBase(parts: KnowledgeParts, logger: Logger, runner?: IndexRunner): KnowledgeBase;
export function knowledgeBase(parts: KnowledgeAdministration, logger: Logger, runner: IndexRunner): KnowledgeBase;
export function knowledgeBase(
  parts: KnowledgeAdministration & Partial<Pick<KnowledgeParts, 'indexer' | 'store'>>,
  logger: Logger,
  runner?: IndexRunner,
): KnowledgeBase {
  const indexing = runner ?? (parts.indexer && new InProcessIndexRunner(parts.indexer, logger));
  if (!indexing) throw new StartupError('a knowledge base needs an index runner or an indexer');
  return new KnowledgeBase({
    lists: parts.lists,
    runs: parts.state.runs,
    manifests: parts.state.manifests,
    locks: parts.locks,
    runner: indexing,
    ...(parts.store ? { store: parts.store } : {}),
    rules: parts.rules,
    logger,
  });
}

/** The `index` queue's consumer: clone, chunk and index repositories into the knowledge base shared in Redis. */
export function indexQueue(deps: {
  config: { knowledge: KnowledgeConfig };
  /** The knowledge base's indexer, built by the role as every process builds it. */
  indexer: KnowledgeIndexer;
  /** Closes what the indexer holds. */
  close: () => Promise<void>;
}): QueueConsumer<KnowledgeJob> {
  return { processor: indexProcessor({ indexer: deps.indexer }), concurrency: deps.config.knowledge.indexConcurrency, close: deps.close };
}
