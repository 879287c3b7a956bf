import path from 'node:path';
import { jobQueue } from '../kernel/bullmq/job-queue.adapter.js';
import { FileLexicalChunks, fileKnowledgeState } from '../knowledge/adapters/knowledge-files.adapter.js';
import { FileLocks } from '../knowledge/adapters/file-locks.adapter.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { RedisKnowledgeLocks } from '../knowledge/adapters/redis-knowledge-locks.adapter.js';
import { RedisLexicalChunks, redisKnowledgeState } from '../knowledge/adapters/redis-knowledge-state.adapter.js';
import type { Config, KnowledgeConfig, VectorConfig } from '../kernel/config/config.js';
import { cachedEmbedder } from '../embeddings/cached-embedder.js';
import type { Embedder } from '../embeddings/embedder.port.js';
import type { ChunkStore } from '../knowledge/chunk-store.port.js';
import type { IndexSettings } from '../knowledge/index-pipeline.js';
import type { IndexRunner } from '../knowledge/index-runner.port.js';
import { KnowledgeBase } from '../knowledge/knowledge-base.service.js';
import { chunkStoreResolver, InProcessIndexRunner, KnowledgeIndexer } from '../knowledge/knowledge-indexer.js';
import { KnowledgeLayout } from '../knowledge/knowledge-layout.js';
import { KnowledgeJobName } from '../knowledge/knowledge.jobs.js';
import type { KnowledgeState } from '../knowledge/knowledge-state.port.js';
import type { LexicalChunks } from '../knowledge/lexical-chunks.port.js';
import type { KnowledgeLocks } from '../knowledge/locks.port.js';
import { QueuedIndexRunner } from '../knowledge/queued-index-runner.js';
import { RepositoryList } from '../knowledge/repository-list.js';
import { officialRepositories } from '../knowledge/repository.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { openQueue, QueueName } from './job-catalogue.js';
import { connectRedis } from './redis.js';

/** The embedder and vector store of a process (none with EMBEDDING_MODEL=none). */
export interface DenseParts {
  embedder?: Embedder;
  vectors?: VectorStore;
}

/** Opens the dense parts; their adapters load on demand, so a lexical-only process never pays for them. */
export async function openDenseParts(settings: VectorConfig, dataDir: string): Promise<DenseParts> {
  if (settings.embeddingModel === 'none') return {};
  let vectors: VectorStore;
  if (settings.qdrant) {
    const { QdrantVectorStore } = await import('../embeddings/adapters/qdrant-vector-store.adapter.js');
    vectors = new QdrantVectorStore({ url: settings.qdrant.url, apiKey: settings.qdrant.apiKey });
  } else {
    const { LanceDbVectorStore } = await import('../embeddings/adapters/lancedb-vector-store.adapter.js');
    vectors = await LanceDbVectorStore.open(path.join(dataDir, 'vectors'));
  }
  const { TransformersEmbedder } = await import('../embeddings/adapters/transformers-embedder.adapter.js');
  const embedder = cachedEmbedder(
    new TransformersEmbedder({
      model: settings.embeddingModel,
      modelPath: settings.embeddingModelPath,
      cacheDir: path.join(dataDir, 'models'),
    }),
  );
  return { embedder, vectors };
}

export function indexSettings(config: KnowledgeConfig): IndexSettings {
  return {
    gitBaseUrl: config.gitBaseUrl,
    maxFileBytes: config.maxFileBytes,
    maxChars: config.chunkMaxChars,
    overlapChars: config.chunkOverlapChars,
    lockWaitMs: config.jobWaitMs,
  };
}

/** What the processes of the knowledge base share: its state, its locks and its lexical chunks. */
export interface KnowledgeSharing {
  state: KnowledgeState;
  locks: KnowledgeLocks;
  lexicalChunks: LexicalChunks;
}

/**
 * In Redis when the process has one (every process of every machine sees the same knowledge base;
 * DATA_DIR only caches clones and model files); otherwise files under DATA_DIR, for a process on its own.
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
  return { state: fileKnowledgeState(layout), locks: new FileLocks(layout.locksDir), lexicalChunks: new FileLexicalChunks(layout) };
}

/** The repository list over `sharing`: the official repositories (KB_OFFICIAL_REPOS) and the users'. */
export function repositoryLists({ state, locks }: KnowledgeSharing, config: KnowledgeConfig): RepositoryList {
  return new RepositoryList(state.repositories, locks, officialRepositories(config.officialRepositories));
}

/** What administering a knowledge base needs: its shared state and its repository list. */
export interface KnowledgeAdministration extends KnowledgeSharing {
  lists: RepositoryList;
}

export interface KnowledgeParts extends KnowledgeAdministration {
  layout: KnowledgeLayout;
  store: () => Promise<ChunkStore>;
  indexer: KnowledgeIndexer;
}

/**
 * What runs index jobs: lists, layout, Git, the chunk store (dense when a model loads) and the
 * indexer, over `sharing` (files under `dataDir` when left out).
 */
export async function buildKnowledgeParts(
  config: KnowledgeConfig,
  {
    dataDir,
    logger,
    embedder,
    vectors,
    sharing = knowledgeSharing(dataDir),
  }: { dataDir: string; logger: Logger; embedder?: Embedder; vectors?: VectorStore; sharing?: KnowledgeSharing },
): Promise<KnowledgeParts> {
  const { SimpleGitSource } = await import('../knowledge/adapters/simple-git.adapter.js');
  const layout = new KnowledgeLayout(dataDir);
  const { state, locks, lexicalChunks } = sharing;
  const lists = repositoryLists(sharing, config);
  const store = chunkStoreResolver({ embedder, vectors, lexicalChunks, logger });
  const indexer = new KnowledgeIndexer({
    lists,
    layout,
    state,
    lexicalChunks,
    locks,
    git: new SimpleGitSource({ token: config.gitToken, timeoutMs: config.gitTimeoutMs }),
    store,
    settings: indexSettings(config),
    logger,
  });
  return { ...sharing, lists, layout, store, indexer };
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
  if (!indexing) throw new Error('a knowledge base needs an index runner or an indexer');
  return new KnowledgeBase({
    lists: parts.lists,
    runs: parts.state.runs,
    locks: parts.locks,
    runner: indexing,
    ...(parts.store ? { store: parts.store } : {}),
    logger,
  });
}

/**
 * The knowledge base of a process that searches and administers it (the tool server, the chat
 * workers' built-in tools, `aiops kb`): with Redis (`redis`, the process's own client, or
 * REDIS_URL when configured) its state is in Redis and index work runs as `index` jobs; otherwise
 * both stay in this process and DATA_DIR. `dense`: the process's embedder and store when it has
 * them open already (they are then left open). `redisUnreachable`: what a Redis at REDIS_URL that
 * does not answer at start means (see connectRedis).
 */
export async function openKnowledgeBase(
  config: Pick<Config, 'redis' | 'knowledge' | 'vectors' | 'dataDir'>,
  logger: Logger,
  { dense, redis: client, redisUnreachable }: { dense?: DenseParts; redis?: RedisClient; redisUnreachable: 'require' | 'tolerate' },
): Promise<{ knowledge: KnowledgeBase; close: () => Promise<void> }> {
  const { redis } = config;
  const connection =
    !client && redis.configured ? await connectRedis(config, logger, { role: 'request', whenUnreachable: redisUnreachable }) : undefined;
  const shared = client ?? connection?.client;
  const owned = dense ? undefined : await openDenseParts(config.vectors, config.dataDir);
  const sharing = knowledgeSharing(config.dataDir, shared && { client: shared, keyPrefix: redis.keyPrefix });
  const parts = await buildKnowledgeParts(config.knowledge, { dataDir: config.dataDir, logger, ...(dense ?? owned), sharing });
  const queue = shared ? openQueue(QueueName.Index, { connection: shared, keyPrefix: redis.keyPrefix, logger, events: true }) : undefined;
  const runner = queue
    ? new QueuedIndexRunner(jobQueue(queue, KnowledgeJobName.Index, KnowledgeJobName.Purge), config.knowledge.jobWaitMs)
    : undefined;
  return {
    knowledge: knowledgeBase(parts, logger, runner),
    async close() {
      await queue?.close();
      await owned?.vectors?.close();
      await connection?.close();
    },
  };
}
