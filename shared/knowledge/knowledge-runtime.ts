import path from 'node:path';
import type { KnowledgeConfig } from '../config/config.js';
import { cachedEmbedder } from '../embeddings/cached-embedder.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { Logger } from '../logging/logger.js';
import type { VectorStore } from '../vector-store/vector-store.js';
import type { ChunkStore } from './chunk-store.js';
import type { IndexSettings } from './index-pipeline.js';
import type { IndexRunner } from './index-runner.js';
import { KnowledgeBase } from './knowledge-base.service.js';
import { chunkStoreResolver, InProcessIndexRunner, KnowledgeIndexer } from './knowledge-indexer.js';
import { KnowledgeLayout } from './knowledge-layout.js';
import { RepositoryList } from './repository-list.js';

export type VectorSettings = Pick<KnowledgeConfig, 'embeddingModel' | 'embeddingModelPath' | 'qdrant'>;

/** The embedder and vector store of a process (none with EMBEDDING_MODEL=none); adapters load on demand. */
export async function openDenseParts(settings: VectorSettings, dataDir: string): Promise<{ embedder?: Embedder; vectors?: VectorStore }> {
  if (settings.embeddingModel === 'none') return {};
  let vectors: VectorStore;
  if (settings.qdrant) {
    const { QdrantVectorStore } = await import('../adapters/qdrant/qdrant-vector-store.js');
    vectors = new QdrantVectorStore({ url: settings.qdrant.url, apiKey: settings.qdrant.apiKey });
  } else {
    const { LanceDbVectorStore } = await import('../adapters/lancedb/lancedb-vector-store.js');
    vectors = await LanceDbVectorStore.open(path.join(dataDir, 'vectors'));
  }
  const { TransformersEmbedder } = await import('../embeddings/transformers.adapter.js');
  const embedder = cachedEmbedder(new TransformersEmbedder({ model: settings.embeddingModel, modelPath: settings.embeddingModelPath, cacheDir: path.join(dataDir, 'models') }));
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

export interface KnowledgeParts {
  lists: RepositoryList;
  layout: KnowledgeLayout;
  store: () => Promise<ChunkStore>;
  indexer: KnowledgeIndexer;
}

/** What runs index jobs: lists, layout, Git, the chunk store (dense when a model loads) and the indexer. */
export async function buildKnowledgeParts(
  config: KnowledgeConfig,
  { dataDir, logger, embedder, vectors }: { dataDir: string; logger: Logger; embedder?: Embedder; vectors?: VectorStore },
): Promise<KnowledgeParts> {
  const { SimpleGitSource } = await import('../adapters/git/simple-git.adapter.js');
  const layout = new KnowledgeLayout(dataDir);
  const lists = new RepositoryList(layout.knowledgeDir);
  const store = chunkStoreResolver({ embedder, vectors, layout, logger });
  const indexer = new KnowledgeIndexer({
    lists,
    layout,
    git: new SimpleGitSource({ token: config.gitToken, timeoutMs: config.gitTimeoutMs }),
    store,
    settings: indexSettings(config),
    logger,
  });
  return { lists, layout, store, indexer };
}

/** The knowledge base over these parts, running index work through `runner` (in this process when left out). */
export function knowledgeBase(parts: KnowledgeParts, logger: Logger, runner?: IndexRunner): KnowledgeBase {
  return new KnowledgeBase({
    lists: parts.lists,
    layout: parts.layout,
    runner: runner ?? new InProcessIndexRunner(parts.indexer, logger),
    store: parts.store,
    logger,
  });
}
