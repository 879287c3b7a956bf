import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { jobQueue } from '../kernel/bullmq/job-queue.adapter.js';
import { fileKnowledgeState } from '../knowledge/adapters/knowledge-files.adapter.js';
import { FileLocks } from '../knowledge/adapters/file-locks.adapter.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { RedisKnowledgeLocks } from '../knowledge/adapters/redis-knowledge-locks.adapter.js';
import { RedisLexicalChunks, redisKnowledgeState } from '../knowledge/adapters/redis-knowledge-state.adapter.js';
import type { VectorConfig } from '../embeddings/embeddings.settings.js';
import type { KnowledgeConfig } from '../knowledge/knowledge.settings.js';
import type { Config } from './config.js';
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
import type { SharedLexicalChunks } from '../knowledge/lexical-chunks.port.js';
import { LexicalChunkStore } from '../knowledge/lexical-chunk-store.js';
import type { LexicalIndex } from '../knowledge/lexical-index.port.js';
import type { KnowledgeLocks } from '../knowledge/locks.port.js';
import { QueuedIndexRunner } from '../knowledge/queued-index-runner.js';
import { RepositoryList } from '../knowledge/repository-list.js';
import { officialRepositories } from '../knowledge/repository.js';
import { silentLogger, type Logger } from '../kernel/logging/logger.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { openQueue, QueueName } from './job-catalogue.js';
import { connectRedis, describeRedis } from './redis.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { SecretValues } from '../knowledge/remote-access.js';
import type { RepositoryRules } from '../knowledge/repository-admission.js';

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
  if (!indexing) throw new Error('a knowledge base needs an index runner or an indexer');
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

/** Which knowledge base a command of its own works on, and that in words for its stderr. */
export interface KnowledgeLocation<C> {
  /** The configuration to open it with (see openKnowledgeBase). */
  config: C;
  /** `the service's, in the Redis at ...` or `this machine's own, in DATA_DIR/knowledge ...`. */
  description: string;
  /** Whether it is the service's (in Redis) rather than one of this machine's files. */
  shared: boolean;
}

/**
 * Where `aiops kb` and `aiops mcp` find the knowledge base, both alike: in the Redis REDIS_URL (or
 * REDIS_SENTINELS, REDIS_CLUSTER_NODES) names; with none set, in the Redis at the default address
 * when one answers there, as the service (`aiops start`) keeps it; otherwise in files under
 * DATA_DIR of this machine. The description never carries a Redis user name or password.
 */
export async function locateKnowledgeBase<C extends Pick<Config, 'redis' | 'dataDir'>>(config: C): Promise<KnowledgeLocation<C>> {
  const where = describeRedis(config.redis.topology);
  const jobs = "index work runs as jobs of the service's workers";
  if (config.redis.configured) return { config, shared: true, description: `the service's, in the Redis at ${where}; ${jobs}` };
  try {
    await (await connectRedis(config, silentLogger(), { role: 'request', whenUnreachable: 'require' })).close();
    return {
      config: { ...config, redis: { ...config.redis, configured: true } },
      shared: true,
      description: `the service's, in the Redis at ${where} (REDIS_URL is unset: the default address); ${jobs}`,
    };
  } catch {
    return {
      config,
      shared: false,
      description:
        `this machine's own, in ${path.join(config.dataDir, 'knowledge')}, not the service's: REDIS_URL is unset and no Redis answers ` +
        `at the default address ${where}; index work runs in this process`,
    };
  }
}

/** How long closing the knowledge base waits for its index queue to finish starting. */
const QUEUE_SETTLE_MS = 2_000;

/**
 * The knowledge base of a process that searches and administers it (the tool server, the chat
 * workers' built-in tools, `aiops kb`): with Redis (`redis`, the process's own client, or
 * REDIS_URL when configured) its state is in Redis and index work runs as `index` jobs; otherwise
 * both stay in this process and DATA_DIR. `dense`: the process's embedder and store when it has
 * them open already (they are then left open). `redisUnreachable`: what a Redis at REDIS_URL that
 * does not answer at start means (see connectRedis).
 */
export async function openKnowledgeBase(
  config: Pick<Config, 'redis' | 'knowledge' | 'vectors' | 'dataDir' | 'security'>,
  logger: Logger,
  { dense, redis: client, redisUnreachable }: { dense?: DenseParts; redis?: RedisClient; redisUnreachable: 'require' | 'tolerate' },
): Promise<{ knowledge: KnowledgeBase; close: () => Promise<void> }> {
  const { redis } = config;
  const connection =
    !client && redis.configured ? await connectRedis(config, logger, { role: 'request', whenUnreachable: redisUnreachable }) : undefined;
  const shared = client ?? connection?.client;
  const owned = dense ? undefined : await openDenseParts(config.vectors, config.dataDir);
  const sharing = knowledgeSharing(config.dataDir, shared && { client: shared, keyPrefix: redis.keyPrefix });
  const parts = await buildKnowledgeParts(config.knowledge, {
    dataDir: config.dataDir,
    logger,
    ...(dense ?? owned),
    sharing,
    outbound: OutboundPolicy.fromList(config.security.outboundAllow),
  });
  const queue = shared ? openQueue(QueueName.Index, { connection: shared, keyPrefix: redis.keyPrefix, logger, events: true }) : undefined;
  const runner = queue
    ? new QueuedIndexRunner(jobQueue(queue, KnowledgeJobName.Index, KnowledgeJobName.Purge), config.knowledge.jobWaitMs)
    : undefined;
  return {
    knowledge: knowledgeBase(parts, logger, runner),
    async close() {
      // A queue closed while it is still starting (`aiops kb status` answers within milliseconds)
      // reports its own start-up commands as errors; it settles first, for a moment at most (a
      // Redis gone meanwhile would never let it).
      if (queue) await Promise.race([queue.ready().catch(() => undefined), delay(QUEUE_SETTLE_MS, undefined, { ref: false })]);
      await queue?.close();
      await parts.close();
      await owned?.vectors?.close();
      await connection?.close();
    },
  };
}
