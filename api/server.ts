import http from 'node:http';
import type { Redis } from 'ioredis';
import { loadKnowledgeConfig, type Config } from '../shared/config/config.js';
import type { Logger } from '../shared/logging/logger.js';
import { createMetrics, type Metrics } from '../shared/metrics/metrics.js';
import { createRecords } from '../shared/records/records.js';
import { QueueName } from '../workers/jobs.js';
import { openChatApi, openHealthApi, openKnowledgeApi, type KnowledgeApiSettings } from '../workers/queues.js';
import { createApp } from './app.js';
import { loadOpenApiDocument } from './openapi.js';

export interface ApiServerOptions {
  /** Host, port, drain timings, trusted proxies, chat and health settings: parsed once by the caller. */
  config: Config;
  redis: Redis;
  logger: Logger;
  version: string;
  /** Overrides `config.http.port` (0 picks a free port, for tests). */
  port?: number;
  /** Knowledge-base data folder and job wait; DATA_DIR and the default wait when left out. */
  knowledge?: KnowledgeApiSettings;
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
/**
 * How long an authenticated token is trusted without asking Redis again. Revocations reach every
 * instance at once over pub/sub; this only bounds the effect of a message lost in a reconnect.
 */
const TOKEN_CACHE_TTL_MS = 10_000;
/** Job states exported as queue depth. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Starts the API role on `host:port`. Redis may be down: /status says so and the API recovers with it. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { config, redis, logger } = options;
  const { keyPrefix } = config.redis;
  const { drainDelayMs, shutdownTimeoutMs } = config.http;
  const records = createRecords(redis, keyPrefix);
  const stopTokenCache = records.tokens.cachePrincipals(TOKEN_CACHE_TTL_MS);
  const stopFollowing = records.followChanges();
  let state: 'starting' | 'serving' | 'draining' = 'starting';

  // Seed whenever Redis (re)appears: it may have been empty or down at start-up.
  const seed = () =>
    records.seed().then(
      () => {
        if (state === 'starting') state = 'serving';
      },
      (error: unknown) => logger.warn('status seeding failed', { error: (error as Error).message }),
    );
  redis.on('ready', seed);
  if (redis.status === 'ready') await seed();

  const readiness = async () => {
    const redisOk =
      redis.status === 'ready' &&
      (await Promise.race([
        redis.ping().then(() => true, () => false),
        new Promise<boolean>((resolve) => setTimeout(resolve, PING_TIMEOUT_MS, false)),
      ]));
    if (state !== 'serving') return { ready: false, redis: redisOk, detail: state };
    return { ready: redisOk, redis: redisOk, ...(redisOk ? {} : { detail: 'Redis is unreachable' }) };
  };

  const metrics = options.metrics ?? createMetrics();
  metrics.onScrape('mcpServerUp', async () => {
    const { results } = await records.mcpServers.list({ limit: 10_000, offset: 0, filters: {} });
    metrics.mcpServerUp.reset();
    for (const server of results) {
      metrics.mcpServerUp.set({ server: server.name, status: server.status?.name ?? 'none' }, server.status?.name === 'Healthy' ? 1 : 0);
    }
  });

  const chatSettings = {
    waitMs: config.chat.waitMs,
    ratePerMinute: config.chat.ratePerMinute,
    checkpointTtlS: config.chat.checkpointTtlS,
    checkpointDb: config.redis.checkpointDb,
  };
  const chat = openChatApi(redis, keyPrefix, records.llmModels, chatSettings, logger);
  const health = openHealthApi(redis, keyPrefix, records.mcpServers, config.health.timeoutMs, logger);
  if (redis.status === 'ready') await Promise.all([chat.ready(), health.ready()]);
  const knowledgeSettings = options.knowledge ?? { dataDir: config.dataDir, jobWaitMs: loadKnowledgeConfig({}).jobWaitMs };
  const knowledge = openKnowledgeApi(redis, keyPrefix, knowledgeSettings, logger);
  const queues = { [QueueName.Chat]: chat, [QueueName.Health]: health, [QueueName.Index]: knowledge };
  metrics.onScrape('queueDepth', async () => {
    const depths = await Promise.all(Object.entries(queues).map(async ([queue, opened]) => [queue, await opened.counts()] as const));
    metrics.queueDepth.reset();
    for (const [queue, counts] of depths) {
      for (const state of QUEUE_STATES) metrics.queueDepth.set({ queue, state }, counts[state] ?? 0);
    }
  });
  const app = createApp({
    records,
    chat: chat.service,
    knowledge: knowledge.service,
    health: health.requests,
    readiness,
    document: loadOpenApiDocument(),
    logger,
    version: options.version,
    validateResponses: options.validateResponses,
    metrics,
    trustProxy: config.http.trustProxy,
  });
  const server = http.createServer((req, res) => {
    // While draining, answer and close: a kept-alive connection would keep bringing requests here.
    if (state === 'draining') res.shouldKeepAlive = false;
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.http.port, config.http.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  logger.info('api listening', { host: config.http.host, port });

  return {
    server,
    port,
    async close() {
      state = 'draining';
      redis.off('ready', seed);
      logger.info('api draining', { drain_delay_ms: drainDelayMs });
      await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
      // Ends event streams and answers waiting chat requests with 202, so no connection lingers.
      await chat.close();
      await health.close();
      await knowledge.close();
      stopTokenCache();
      stopFollowing();
      await closed;
      clearTimeout(cut);
      logger.info('api stopped');
    },
  };
}
