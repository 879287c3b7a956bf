import path from 'node:path';
import type { PlatformConfig } from '../shared/config/config.js';
import { cachedEmbedder } from '../shared/embeddings/cached-embedder.js';
import type { Logger } from '../shared/logging/logger.js';
import { EndpointIndex } from '../shared/platform/endpoint-index.js';
import { PlatformClient } from '../shared/platform/platform-client.js';
import type { VectorStore } from '../shared/vector-store/vector-store.js';
import type { ToolDeps } from './tools/index.js';

/** Largest OpenAPI description accepted (Nautobot 2.x serves about 18 MB). */
const MAX_DESCRIPTION_BYTES = 64 * 1024 * 1024;

export interface McpRuntime {
  deps: ToolDeps;
  store?: VectorStore;
  close(): Promise<void>;
}

async function openVectorStore(config: PlatformConfig, dataDir: string): Promise<VectorStore | undefined> {
  if (config.embeddingModel === 'none') return undefined;
  if (config.qdrant) {
    const { QdrantVectorStore } = await import('../shared/adapters/qdrant/qdrant-vector-store.js');
    return new QdrantVectorStore({ url: config.qdrant.url, apiKey: config.qdrant.apiKey });
  }
  const { LanceDbVectorStore } = await import('../shared/adapters/lancedb/lancedb-vector-store.js');
  return LanceDbVectorStore.open(path.join(dataDir, 'vectors'));
}

/** Builds the tool server's shared parts from its settings: client, embedder, vector store, index. */
export async function buildMcpRuntime(config: PlatformConfig, { dataDir, logger }: { dataDir: string; logger: Logger }): Promise<McpRuntime> {
  if (config.telemetryApiKey !== 'disable') logger.info('TELEMETRY_API_KEY is set, but this server never sends telemetry');
  const client = new PlatformClient({
    baseUrl: config.url,
    token: config.token,
    verifyTls: config.verifyTls,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    readOnly: config.readOnly,
  });
  // Adapters load on demand: a lexical-only server never pays for the model runtime or the store.
  const store = await openVectorStore(config, dataDir);
  const embedder = store
    ? cachedEmbedder(
        new (await import('../shared/embeddings/transformers.adapter.js')).TransformersEmbedder({
          model: config.embeddingModel,
          modelPath: config.embeddingModelPath,
          cacheDir: path.join(dataDir, 'models'),
        }),
      )
    : undefined;
  const index = new EndpointIndex({
    fetchDescription: () => client.fetchJson(config.specPath, MAX_DESCRIPTION_BYTES),
    platform: config.url,
    ...(store && embedder ? { dense: { embedder, store } } : {}),
    logger,
  });
  logger.info('platform tool server configured', {
    platform: config.url,
    env: config.env,
    readOnly: config.readOnly,
    vectorStore: store?.kind ?? 'none',
    embeddingModel: config.embeddingModelPath ?? config.embeddingModel,
  });
  return {
    deps: {
      index,
      client,
      logger,
      toolPrefix: config.toolPrefix,
      defaultResults: config.defaultResults,
      indexWaitMs: config.indexWaitMs,
      secrets: config.token ? [config.token] : [],
    },
    store,
    close: async () => {
      await store?.close();
    },
  };
}
