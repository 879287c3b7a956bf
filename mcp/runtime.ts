import { endpointFromUrl } from '../shared/adapters/bullmq/bullmq-connection.js';
import { loadKnowledgeConfig, type KnowledgeConfig, type PlatformConfig } from '../shared/config/config.js';
import { buildKnowledgeParts, knowledgeBase, openDenseParts } from '../shared/knowledge/knowledge-runtime.js';
import { QueuedIndexRunner } from '../shared/knowledge/queued-index-runner.js';
import { createMetrics } from '../shared/metrics/metrics.js';
import type { Logger } from '../shared/logging/logger.js';
import { EndpointIndex } from '../shared/platform/endpoint-index.js';
import { PlatformClient } from '../shared/platform/platform-client.js';
import type { VectorStore } from '../shared/vector-store/vector-store.js';
import { indexJobQueue, openIndexQueue } from '../workers/queues.js';
import type { ToolDeps } from './tools/index.js';

/** Largest OpenAPI description accepted (Nautobot 2.x serves about 18 MB). */
const MAX_DESCRIPTION_BYTES = 64 * 1024 * 1024;

export interface McpRuntime {
  deps: ToolDeps;
  store?: VectorStore;
  close(): Promise<void>;
}

/** Builds the tool server's shared parts from its settings: client, embedder, vector store, index. */
export async function buildMcpRuntime(
  config: PlatformConfig,
  { dataDir, logger, knowledge = loadKnowledgeConfig() }: { dataDir: string; logger: Logger; knowledge?: KnowledgeConfig },
): Promise<McpRuntime> {
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
  const { vectors: store, embedder } = await openDenseParts(config, dataDir);
  const index = new EndpointIndex({
    fetchDescription: () => client.fetchJson(config.specPath, MAX_DESCRIPTION_BYTES),
    platform: config.url,
    ...(store && embedder ? { dense: { embedder, store } } : {}),
    logger,
  });
  // Knowledge base: same embedder and store; index work as `index` jobs when Redis is configured.
  const parts = await buildKnowledgeParts(knowledge, { dataDir, logger, embedder, vectors: store });
  const indexQueue = knowledge.queue
    ? openIndexQueue({ connection: endpointFromUrl(knowledge.queue.redisUrl), keyPrefix: knowledge.queue.keyPrefix, logger, events: true })
    : undefined;
  const kb = knowledgeBase(parts, logger, indexQueue ? new QueuedIndexRunner(indexJobQueue(indexQueue), knowledge.jobWaitMs) : undefined);
  logger.info('platform tool server configured', {
    platform: config.url,
    env: config.env,
    readOnly: config.readOnly,
    vectorStore: store?.kind ?? 'none',
    embeddingModel: config.embeddingModelPath ?? config.embeddingModel,
    knowledgeRuns: kb.runnerKind,
  });
  return {
    deps: {
      index,
      client,
      knowledge: kb,
      logger,
      toolPrefix: config.toolPrefix,
      defaultResults: config.defaultResults,
      indexWaitMs: config.indexWaitMs,
      secrets: [config.token, knowledge.gitToken].filter((secret): secret is string => Boolean(secret)),
      metrics: createMetrics(),
    },
    store,
    close: async () => {
      await indexQueue?.close();
      await store?.close();
    },
  };
}
