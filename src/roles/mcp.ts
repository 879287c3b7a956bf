import { loadOpenApiDocument } from '../api/openapi.js';
import { randomUUID } from 'node:crypto';
import { callerCheck, type CallerCheck, type CallerDelegation } from '../tool-server/caller-check.js';
import type { ToolDeps } from '../tool-server/tools/index.js';
import { closeRedisClient, createRedisClient, type RedisClient } from '../kernel/redis/redis-client.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { TOKEN_CACHE_TTL_MS } from '../records/auth/token.service.js';
import type { Config } from '../kernel/config/config.js';
import { StartupError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createMetrics } from '../kernel/metrics/metrics.js';
import { EndpointIndex } from '../endpoint-search/endpoint-index.js';
import { HttpPlatformClient } from '../platform/adapters/http-platform-client.adapter.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { WritePlanner } from '../write-plans/write-planner.js';
import { openDenseParts, openKnowledgeBase, type DenseParts } from './knowledge.js';

/** Largest OpenAPI description accepted (Nautobot 2.x serves about 18 MB). */
const MAX_DESCRIPTION_BYTES = 64 * 1024 * 1024;

export interface PlatformToolServer {
  /** What every connection's tools share. */
  deps: ToolDeps;
  store?: VectorStore;
  close(): Promise<void>;
}

/**
 * The MCP role (`aiops mcp`): the platform tool server's shared parts built once from its
 * settings (platform client, embedder, vector store, endpoint index, knowledge base); the
 * transports in mcp/ serve them.
 */
export async function buildPlatformToolServer(
  config: Pick<Config, 'platform' | 'vectors' | 'knowledge' | 'redis' | 'dataDir' | 'security'>,
  logger: Logger,
  {
    redis,
    dense: given,
  }: {
    /** The process's Redis client, when it has one (a worker): the knowledge base is then the service's, in that Redis. */
    redis?: RedisClient;
    /** The process's embedder and vector store, when it has them open already (a worker that also indexes): left open. */
    dense?: DenseParts;
  } = {},
): Promise<PlatformToolServer> {
  const { platform, vectors } = config;
  if (platform.telemetryApiKey !== 'disable') logger.info('TELEMETRY_API_KEY is set, but this server never sends telemetry');
  const client: HttpPlatformClient = new HttpPlatformClient({
    baseUrl: platform.url,
    token: platform.token,
    verifyTls: platform.verifyTls,
    timeoutMs: platform.timeoutMs,
    maxResponseBytes: platform.maxResponseBytes,
    readOnly: platform.readOnly,
    missingCredential: platform.isSelf
      ? "set PLATFORM_TOKEN to an API token of this service, or call `aiops mcp --http` with a user's own API token"
      : 'set PLATFORM_TOKEN to a token of the platform PLATFORM_ENV selects',
    // Request spans are named by the description's operations (the index below, once built).
    pathTemplate: (method, path): string | undefined => index.pathTemplate(method, path),
  });
  // Adapters load on demand: a lexical-only server never pays for the model runtime or the store.
  const owned = given ? undefined : await openDenseParts(vectors, config.dataDir);
  const dense = given ?? owned ?? {};
  const { vectors: store, embedder } = dense;
  const index: EndpointIndex = new EndpointIndex({
    // This service's own description ships with its code (and is served as is): read in process, it
    // needs no PLATFORM_TOKEN, which the tool server may not have when the platform is itself.
    fetchDescription: platform.isSelf
      ? async () => loadOpenApiDocument()
      : () => client.fetchJson(platform.specPath, MAX_DESCRIPTION_BYTES),
    platform: platform.url,
    ...(store && embedder ? { dense: { embedder, store } } : {}),
    logger,
  });
  // Knowledge base: same embedder and store; state in Redis and index work as `index` jobs when Redis is configured.
  const { knowledge: kb, close: closeKnowledge } = await openKnowledgeBase(config, logger, { dense, redis, redisUnreachable: 'tolerate' });
  logger.info('platform tool server configured', {
    platform: platform.url,
    env: platform.env,
    readOnly: platform.readOnly,
    vectorStore: store?.kind ?? 'none',
    embeddingModel: vectors.embeddingModelPath ?? vectors.embeddingModel,
    knowledgeRuns: kb.runnerKind,
  });
  return {
    deps: {
      index,
      client,
      planner: new WritePlanner({ operations: () => index.operations(platform.indexWaitMs), maxObjects: platform.writeMaxObjects }),
      knowledge: kb,
      // The transports say who calls: stdio the operator, HTTP each caller; nobody else names secrets.
      writer: { superuser: false },
      logger,
      toolPrefix: platform.toolPrefix,
      defaultResults: platform.defaultResults,
      answerBudgetChars: platform.answerBudgetChars,
      indexWaitMs: platform.indexWaitMs,
      secrets: [platform.token, config.knowledge.gitToken].filter((secret): secret is string => Boolean(secret)),
      metrics: createMetrics(),
    },
    store,
    close: async () => {
      await closeKnowledge();
      await owned?.vectors?.close();
    },
  };
}

/** How long a call's delegated key may live at most; it is ended when the call's answer is out. */
const CALL_DELEGATION_TTL_MS = 15 * 60_000;

/**
 * Who may call `aiops mcp --http`: the MCP_HTTP_TOKEN holder, and, when the tool server shares this
 * service's Redis, users whose API token carries ai_ops.use_toolserver. Neither configured: no start.
 * With the service as its own platform, a user's calls act with that user's rights (`delegate`).
 */
export function toolServerCallers(
  { platform, redis }: Pick<Config, 'platform' | 'redis'>,
  logger: Logger,
): { callers: CallerCheck; delegate?: CallerDelegation; close(): Promise<void> } {
  const staticToken = platform.httpToken;
  if (!redis.configured) {
    if (!staticToken) {
      throw new StartupError(
        'aiops mcp --http authenticates every caller: set MCP_HTTP_TOKEN (a bearer token of 16 or more characters), or REDIS_URL to accept API tokens of this service that carry ai_ops.use_toolserver',
      );
    }
    return { callers: callerCheck({ staticToken }), close: async () => {} };
  }
  const client = createRedisClient({ topology: redis.topology, role: 'request', logger, connectionName: 'aiops-mcp-auth' });
  const tokens = createRecords(client, redis.keyPrefix, undefined, redis.replicaWait).tokens;
  const stopCache = tokens.cachePrincipals(TOKEN_CACHE_TTL_MS);
  const delegate: CallerDelegation = async (caller) => {
    const workId = `tool server call ${randomUUID()}`;
    const delegated = await tokens.delegate(caller.tokenId, {
      ttlMs: CALL_DELEGATION_TTL_MS,
      description: `${workId} (delegated)`,
      workId,
      firstAttempt: true,
    });
    return { key: delegated.key, revoke: () => delegated.revoke() };
  };
  return {
    callers: callerCheck({ staticToken, tokens }),
    ...(platform.isSelf ? { delegate } : {}),
    close: async () => {
      stopCache();
      await closeRedisClient(client);
    },
  };
}
