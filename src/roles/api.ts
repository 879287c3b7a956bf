import { type RedisClient } from '../kernel/redis/redis-client.js';
import type http from 'node:http';
import { createApp, type Readiness } from './api-app.js';
import { pageUrls } from '../api/web.router.js';
import { listen } from '../api/http-server.js';
import { loadOpenApiDocument } from '../api/openapi.js';
import { linkOrigins } from '../api/list-page.js';
import { jobQueue, type OpenQueueOptions } from '../kernel/bullmq/job-queue.adapter.js';
import type { Config } from './config.js';
import { KnowledgeJobName } from '../knowledge/knowledge.jobs.js';
import { QueuedIndexRunner } from '../knowledge/queued-index-runner.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createMetrics, type Metrics } from '../kernel/metrics/metrics.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { RedisPersonalTokenStore } from '../platform/adapters/redis-personal-tokens.adapter.js';
import { platformCheck } from './platform.js';
import { SealedBox } from '../kernel/security/sealed-box.js';
import { mcpOAuthSettings } from './mcp-oauth.js';
import { McpConnectionsService } from '../mcp-client/mcp-connections.service.js';
import { SdkMcpConnector } from '../mcp-client/adapters/sdk-connector.adapter.js';
import { clientMetadataDocument } from '../mcp-client/adapters/sdk-oauth.adapter.js';
import { SecretResolver } from '../records/secret-resolver.js';
import { outboundFetch } from '../kernel/http/outbound-fetch.js';
import { writeRules } from '../records/record-write-rules.js';
import { acceptsWrites, isStoreFull, readStoreMemory } from '../kernel/redis/redis-memory.js';
import { readRedisVersion } from '../kernel/redis/redis-server-version.js';
import { TOKEN_CACHE_TTL_MS } from '../records/auth/token.service.js';
import { openQueue, QueueName } from './job-catalogue.js';
import { chatApi } from '../chat/chat.wiring.js';
import { healthApi } from '../health/health.wiring.js';
import { knowledgeBase, knowledgeSharing, repositoryLists, repositoryRules } from '../knowledge/knowledge.wiring.js';

export interface ApiServerOptions {
  /** Parsed once by the caller. */
  config: Pick<
    Config,
    | 'redis'
    | 'chat'
    | 'health'
    | 'http'
    | 'dataDir'
    | 'knowledge'
    | 'security'
    | 'audit'
    | 'usage'
    | 'platform'
    | 'tracing'
    | 'agent'
    | 'mcp'
  >;
  redis: RedisClient;
  logger: Logger;
  version: string;
  /** Overrides `config.http.port` (0 picks a free port, for tests). */
  port?: number;
  /** Where metrics are recorded; a fresh registry when left out. */
  metrics?: Metrics;
  /** Check every response against the OpenAPI document too (tests). */
  validateResponses?: boolean;
}

export interface ApiServer {
  server: http.Server;
  /** The bound port (useful with port 0). */
  port: number;
  /** Drains: /status turns 503, then new connections stop and in-flight requests finish. */
  close(): Promise<void>;
}

const PING_TIMEOUT_MS = 1_000;

/** A host a browser on this machine can open: the loopback address for "every address" binds. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
/** Job states exported as queue depth. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * The API role (`aiops api`): records, and the producers of chat turns, health checks and index
 * jobs, built once on the API's Redis client and handed to the HTTP app. Redis may be down at
 * start: /status says so and the API recovers with it.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { config, redis, logger } = options;
  const { keyPrefix } = config.redis;
  const { replicaWait } = config.redis;
  const rules = writeRules(config.security);
  // The knowledge base's administration: lists and status in Redis; index and purge work runs in the index workers.
  const kb = knowledgeSharing(config.dataDir, { client: redis, keyPrefix });
  const repositories = repositoryLists(kb, config.knowledge);
  // A repository sends the secret of its name, as models and servers do: that name is kept as theirs are.
  const repositoriesNaming = async (secret: string) =>
    (await repositories.list()).filter((repo) => repo.secret === secret).map((repo) => `knowledge-base repository ${repo.name}`);
  const records = createRecords(redis, keyPrefix, rules, replicaWait, repositoriesNaming);
  const stopTokenCache = records.tokens.cachePrincipals(TOKEN_CACHE_TTL_MS);
  const stopFollowing = records.followChanges();
  let seeded = false;

  // Seed whenever Redis (re)appears: it may have been empty or down at start-up.
  const seed = () =>
    records.seed().then(
      () => {
        seeded = true;
      },
      (error: unknown) => logger.warn('status seeding failed', { error: (error as Error).message }),
    );
  const reseed = () => void seed();
  redis.on('ready', reseed);
  if (redis.status === 'ready') await seed();

  // Producers fail fast while Redis is away (the API answers 503); they read the event streams to wait for jobs.
  const queueOptions: OpenQueueOptions = { connection: redis, keyPrefix, logger, events: true };
  const queues = {
    [QueueName.Chat]: openQueue(QueueName.Chat, queueOptions),
    [QueueName.Health]: openQueue(QueueName.Health, queueOptions),
    [QueueName.Index]: openQueue(QueueName.Index, queueOptions),
  };

  const chat = chatApi({ config, redis, records, queue: queues[QueueName.Chat] });
  const health = healthApi({ config, redis, records, queue: queues[QueueName.Health] });
  const knowledge = knowledgeBase(
    { ...kb, lists: repositories, rules: repositoryRules(config.knowledge, rules.outbound) },
    logger,
    new QueuedIndexRunner(jobQueue(queues[QueueName.Index], KnowledgeJobName.Index, KnowledgeJobName.Purge), config.knowledge.jobWaitMs),
  );
  if (redis.status === 'ready') await Promise.all([queues[QueueName.Chat].ready(), queues[QueueName.Health].ready()]);

  const metrics = options.metrics ?? createMetrics();
  metrics.onScrape('mcpServerUp', async () => {
    const { results } = await records.mcpServers.list({ limit: 10_000, offset: 0, filters: {} });
    metrics.mcpServerUp.reset();
    for (const server of results) {
      metrics.mcpServerUp.set({ server: server.name, status: server.status?.name ?? 'none' }, server.status?.name === 'Healthy' ? 1 : 0);
    }
  });
  metrics.onScrape('queueDepth', async () => {
    const depths = await Promise.all(Object.entries(queues).map(async ([queue, opened]) => [queue, await opened.counts()] as const));
    metrics.queueDepth.reset();
    for (const [queue, counts] of depths) {
      for (const state of QUEUE_STATES) metrics.queueDepth.set({ queue, state }, counts[state] ?? 0);
    }
  });

  metrics.onScrape('redisMemory', async () => {
    const memory = await readStoreMemory(redis);
    metrics.redisMemory.set({ kind: 'used' }, memory.usedBytes);
    metrics.redisMemory.set({ kind: 'max' }, memory.maxBytes);
  });

  const readiness = async (): Promise<Readiness> => {
    const withinPing = <T>(check: Promise<T>, fallback: T) =>
      Promise.race([check.catch(() => fallback), new Promise<T>((resolve) => setTimeout(resolve, PING_TIMEOUT_MS, fallback))]);
    const redisOk =
      redis.status === 'ready' &&
      (await withinPing(
        redis.ping().then(() => true),
        false,
      ));
    const state = http.draining ? 'draining' : seeded ? 'serving' : 'starting';
    if (state !== 'serving') return { ready: false, redis: redisOk ? 'ok' : 'unreachable', detail: state };
    if (!redisOk) return { ready: false, redis: 'unreachable', detail: 'Redis is unreachable' };
    // Reads still work when Redis is full, so the instance stays in rotation; /status says why writes fail.
    const memory = await withinPing(readStoreMemory(redis), undefined);
    if (memory && isStoreFull(memory)) {
      return {
        ready: true,
        redis: 'full',
        detail: `Redis is full (${memory.usedBytes} bytes used, maxmemory ${memory.maxBytes}): writes are refused until memory is freed or maxmemory is raised`,
      };
    }
    // A primary demoted by a failover answers reads but no writes until the client finds the new one.
    if (!(await withinPing(acceptsWrites(redis, `${keyPrefix}:status-probe`), false))) {
      return { ready: false, redis: 'read-only', detail: 'Redis takes no writes (a failover is under way): retry shortly' };
    }
    return { ready: true, redis: 'ok' };
  };
  const oauth = mcpOAuthSettings(config, redis, rules.outbound);
  const clientMetadata = oauth && clientMetadataDocument(oauth);
  const app = createApp({
    records,
    chat: chat.services,
    ...(oauth
      ? {
          mcpConnections: new McpConnectionsService({
            servers: records.collections.mcpServers,
            secrets: new SecretResolver(records.secrets),
            signIn: new SdkMcpConnector({
              clientName: 'aiops',
              clientVersion: options.version,
              outbound: outboundFetch(rules.outbound),
              oauth,
            }),
            store: oauth.store,
            connectTimeoutMs: config.mcp.connectTimeoutMs,
            ...(clientMetadata ? { clientMetadata } : {}),
          }),
        }
      : {}),
    knowledge,
    health,
    auditLog: chat.auditLog,
    usage: chat.usage,
    ...(config.platform.personalTokenKey
      ? { personalTokens: new RedisPersonalTokenStore(redis, keyPrefix, new SealedBox(config.platform.personalTokenKey)) }
      : {}),
    platformCheck: platformCheck(config.platform),
    readiness,
    document: loadOpenApiDocument(),
    logger,
    version: options.version,
    validateResponses: options.validateResponses,
    metrics,
    trustProxy: config.http.trustProxy,
    trustedPropagation: config.tracing.trustedPropagation,
    links: linkOrigins(config.http.publicUrl, config.http.host, config.http.allowedHosts),
    maxPageSize: config.http.maxPageSize,
    statusReadings: async () => ({
      redisVersion: await readRedisVersion(redis).catch(() => null),
      workers: Object.fromEntries(
        await Promise.all(Object.entries(queues).map(async ([name, queue]): Promise<[string, number]> => [name, await queue.workers()])),
      ),
    }),
  });
  const http = await listen(app, { ...config.http, port: options.port ?? config.http.port, logger });
  logger.info('web pages', pageUrls(`http://${reachableHost(config.http.host)}:${http.port}`));

  return {
    server: http.server,
    port: http.port,
    async close() {
      redis.off('ready', reseed);
      await http.close(async () => {
        // Ends event streams and answers waiting chat requests with 202, so no connection lingers.
        chat.close();
        for (const queue of Object.values(queues)) await queue.close();
        stopTokenCache();
        stopFollowing();
      });
    },
  };
}
