import { randomUUID } from 'node:crypto';
import { callerCheck, type CallerCheck, type CallerDelegation } from '../tool-server/caller-check.js';
import { RedisOAuthState } from '../tool-server/adapters/redis-oauth-state.adapter.js';
import { ToolServerClients } from '../tool-server/oauth-clients.js';
import { ToolServerAuthorization } from '../tool-server/oauth-provider.js';
import type { ToolServerOAuth } from '../tool-server/oauth-routes.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import { OutboundPolicy } from '../kernel/http/outbound-policy.js';
import type { ToolDeps } from '../tool-server/tools/index.js';
import { closeRedisClient, createRedisClient, type RedisClient } from '../kernel/redis/redis-client.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { reportRedis } from './redis.js';
import { TOKEN_CACHE_TTL_MS } from '../records/auth/token.service.js';
import type { Config } from './config.js';
import { StartupError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createMetrics } from '../kernel/metrics/metrics.js';
import { EndpointIndex } from '../endpoint-search/endpoint-index.js';
import type { HttpPlatformClient } from '../platform/adapters/http-platform-client.adapter.js';
import { SELF_PLATFORM_NOTE } from '../platform/platform-check.js';
import { platformClient, platformDescription } from './platform.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import { WritePlanner } from '../write-plans/write-planner.js';
import { openKnowledgeBase } from './knowledge.js';
import { openDenseParts, type DenseParts } from '../embeddings/embeddings.wiring.js';
import { randomBytes } from 'node:crypto';
import { RedisAuditLog } from '../chat/audit/redis-audit-log.adapter.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { ConfirmTokens } from '../write-plans/confirm-tokens.js';
import type { HostState } from '../tool-server/host-state.port.js';
import { MemoryHostState } from '../tool-server/adapters/memory-host-state.adapter.js';
import { RedisHostState } from '../tool-server/adapters/redis-host-state.adapter.js';
import { WriteConfirmation } from '../tool-server/write-confirmation.js';

export interface PlatformToolServer {
  /** What every connection's tools share. */
  deps: ToolDeps;
  store?: VectorStore;
  close(): Promise<void>;
}

/**
 * The MCP role (`aiops mcp`): the platform tool server's shared parts built once from its
 * settings (platform client, embedder, vector store, endpoint index, knowledge base); the
 * transports in tool-server/ serve them.
 */
export async function buildPlatformToolServer(
  config: Pick<Config, 'platform' | 'toolServer' | 'writePlans' | 'vectors' | 'knowledge' | 'redis' | 'dataDir' | 'security'>,
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
  const { platform, toolServer, vectors } = config;
  if (toolServer.telemetryApiKey !== 'disable') logger.info('TELEMETRY_API_KEY is set, but this server never sends telemetry');
  // Request spans are named by the description's operations (the index below, once built).
  const client: HttpPlatformClient = platformClient(platform, {
    pathTemplate: (method, path): string | undefined => index.pathTemplate(method, path),
  });
  // Adapters load on demand: a lexical-only server never pays for the model runtime or the store.
  const owned = given ? undefined : await openDenseParts(vectors, config.dataDir);
  const dense = given ?? owned ?? {};
  const { vectors: store, embedder } = dense;
  const index: EndpointIndex = new EndpointIndex({
    fetchDescription: platformDescription(platform, client).fetch,
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
      planner: new WritePlanner({ operations: () => index.operations(toolServer.indexWaitMs), maxObjects: config.writePlans.maxObjects }),
      knowledge: kb,
      // The transports say who calls: stdio the operator, HTTP each caller; nobody else names secrets.
      writer: { superuser: false },
      logger,
      toolPrefix: toolServer.toolPrefix,
      ...(platform.isSelf ? { selfPlatformNote: SELF_PLATFORM_NOTE } : {}),
      defaultResults: toolServer.defaultResults,
      answerBudgetChars: toolServer.answerBudgetChars,
      indexWaitMs: toolServer.indexWaitMs,
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

/** MCP_PUBLIC_URL as the issuer: an origin, https unless loopback (the SDK's rule for issuers). */
function issuerOf(publicUrl: string): URL {
  const issuer = new URL(`${publicUrl}/`);
  if (issuer.pathname !== '/' || issuer.search || issuer.hash) {
    throw new StartupError(`MCP_PUBLIC_URL is the tool server's origin (scheme, host, port), without a path: got ${publicUrl}`);
  }
  if (issuer.protocol !== 'https:' && !['localhost', '127.0.0.1'].includes(issuer.hostname)) {
    throw new StartupError(`MCP_PUBLIC_URL must be https (hosts sign in there), unless it is loopback: got ${publicUrl}`);
  }
  return issuer;
}

/**
 * Who may call `aiops mcp --http`: the MCP_HTTP_TOKEN holder, and, when the tool server shares this
 * service's Redis, users whose API token carries ai_ops.use_toolserver, and (with MCP_PUBLIC_URL)
 * hosts they signed in by OAuth. Neither configured: no start. With the service as its own platform,
 * a user's calls act with that user's rights (`delegate`).
 */
export function toolServerCallers(
  { platform, toolServer, redis, security }: Pick<Config, 'platform' | 'toolServer' | 'redis' | 'security'>,
  logger: Logger,
): {
  callers: CallerCheck;
  oauth?: ToolServerOAuth;
  delegate?: CallerDelegation;
  /** Settles once the token store's Redis is reached, or said to be unreachable: callers are checked there. */
  ready: Promise<void>;
  close(): Promise<void>;
} {
  const staticToken = toolServer.httpToken;
  if (toolServer.publicUrl && !redis.configured) {
    throw new StartupError(
      "MCP_PUBLIC_URL makes the tool server an OAuth authorization server for this service's users: set REDIS_URL too",
    );
  }
  if (!redis.configured) {
    if (!staticToken) {
      throw new StartupError(
        'aiops mcp --http authenticates every caller: set MCP_HTTP_TOKEN (a bearer token of 16 or more characters), or REDIS_URL to accept API tokens of this service that carry ai_ops.use_toolserver',
      );
    }
    return { callers: callerCheck({ staticToken }), ready: Promise.resolve(), close: async () => {} };
  }
  const client = createRedisClient({ topology: redis.topology, role: 'request', logger, connectionName: 'aiops-mcp-auth' });
  const tokens = createRecords(client, redis.keyPrefix, undefined, redis.replicaWait).tokens;
  const stopCache = tokens.cachePrincipals(TOKEN_CACHE_TTL_MS);
  const issuer = toolServer.publicUrl ? issuerOf(toolServer.publicUrl) : undefined;
  const oauth = issuer && toolServerOAuth(issuer, tokens, new RedisOAuthState(client, redis.keyPrefix), security.outboundAllow, logger);
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
    callers: callerCheck({ staticToken, tokens, ...(oauth ? { resource: oauth.resource.href } : {}) }),
    ...(oauth ? { oauth } : {}),
    ...(platform.isSelf ? { delegate } : {}),
    ready: reportRedis(client, redis, logger, 'callers with an API token or a sign-in are answered 503'),
    close: async () => {
      stopCache();
      await closeRedisClient(client);
    },
  };
}

/** The authorization server at `issuer`; client metadata documents are fetched as any untrusted destination (OUTBOUND_ALLOW). */
function toolServerOAuth(
  issuer: URL,
  tokens: ConstructorParameters<typeof ToolServerAuthorization>[2],
  state: RedisOAuthState,
  outboundAllow: string[],
  logger: Logger,
): ToolServerOAuth {
  const resource = new URL('mcp', issuer);
  const clients = new ToolServerClients(state, outboundFetch(OutboundPolicy.fromList(outboundAllow))(false), logger);
  return { provider: new ToolServerAuthorization(clients, state, tokens, resource), issuer, resource };
}

/** How the tool server's writes are confirmed (both transports), and the state its instances share. */
export interface ToolServerWrites {
  gate: WriteConfirmation;
  state: HostState;
  ttlMs: number;
  close(): Promise<void>;
}

/**
 * The write confirmation of `aiops mcp` (TOOLSERVER_WRITE_CONFIRM). With the service's Redis
 * (REDIS_URL or Sentinel/Cluster settings) its state is shared by every instance and each write is
 * in the audit log; without, it is kept in process (one instance) and writes are logged. Confirm
 * tokens are sealed with PLATFORM_TOKEN_KEY, or a key of this process only when it is not set.
 */
export function openToolServerWrites(
  config: Pick<Config, 'platform' | 'toolServer' | 'redis' | 'audit'>,
  { planner, secrets }: Pick<ToolDeps, 'planner' | 'secrets'>,
  logger: Logger,
): ToolServerWrites {
  const { writeConfirm: mode, confirmTtlMs: ttlMs } = config.toolServer;
  const { personalTokenKey } = config.platform;
  if (!personalTokenKey && config.redis.configured) {
    logger.warn(
      'confirm tokens are sealed with a key of this process only: set PLATFORM_TOKEN_KEY so that every tool server instance accepts them',
    );
  }
  const tokens = new ConfirmTokens(new SealedBox(personalTokenKey ?? randomBytes(32).toString('base64url')));
  const redis = config.redis.configured
    ? createRedisClient({ topology: config.redis.topology, role: 'request', logger, connectionName: 'aiops-mcp-writes' })
    : undefined;
  const state = redis ? new RedisHostState(redis, config.redis.keyPrefix) : new MemoryHostState();
  const audit = redis ? new RedisAuditLog(redis, { prefix: config.redis.keyPrefix, retentionMs: config.audit.retentionMs }) : undefined;
  if (mode === 'none') logger.warn('TOOLSERVER_WRITE_CONFIRM=none: writes are sent unconfirmed over stdio and for superusers over HTTP');
  return {
    gate: new WriteConfirmation({ mode, planner, tokens, state, ttlMs, ...(audit ? { audit } : {}), logger, secrets }),
    state,
    ttlMs,
    close: async () => {
      if (redis) await closeRedisClient(redis);
    },
  };
}
