import http from 'node:http';
import type { Redis } from 'ioredis';
import { loadConfig, loadKnowledgeConfig, type Config } from '../shared/config/config.js';
import type { Logger } from '../shared/logging/logger.js';
import { createMetrics, type Metrics } from '../shared/metrics/metrics.js';
import { createRecords } from '../shared/records/records.js';
import { openChatApi, openHealthApi, openKnowledgeApi, type ChatApiSettings, type KnowledgeApiSettings } from '../workers/queues.js';
import { createApp } from './app.js';
import { loadOpenApiDocument } from './openapi.js';

export interface ApiServerOptions {
  redis: Redis;
  keyPrefix: string;
  host: string;
  port: number;
  logger: Logger;
  version: string;
  validateResponses?: boolean;
  /** Chat wait, rate limit and checkpoint settings; the built-in defaults when left out (tests). */
  chat?: ChatApiSettings;
  /** Knowledge-base data folder and job wait; DATA_DIR and KB_JOB_WAIT_S when left out. */
  knowledge?: KnowledgeApiSettings;
  /** HEALTH_TIMEOUT_MS, which bounds how long a manual health check is waited for; the default when left out. */
  healthTimeoutMs?: number;
  /** Where metrics are recorded; a fresh registry when left out. */
  metrics?: Metrics;
  trustProxy?: string[];
  /**
   * On close, how long /status answers 503 while requests are still served, so a load balancer
   * notices (one failed check) and stops sending new ones before connections close.
   */
  drainDelayMs?: number;
  /** On close, how long in-flight requests may take before their connections are cut. */
  shutdownTimeoutMs?: number;
}

/** The chat settings of a configuration. */
export function chatApiSettings({ chat, redis }: Config): ChatApiSettings {
  return { waitMs: chat.waitMs, ratePerMinute: chat.ratePerMinute, checkpointTtlS: chat.checkpointTtlS, checkpointDb: redis.checkpointDb };
}

export interface ApiServer {
  server: http.Server;
  /** The bound port (useful with port 0). */
  port: number;
  /** Drains: /status turns 503, then new connections stop and in-flight requests finish. */
  close(): Promise<void>;
}

const PING_TIMEOUT_MS = 1_000;

/** Starts the API role on `host:port`. Redis may be down: /status says so and the API recovers with it. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { redis, logger, drainDelayMs = 0, shutdownTimeoutMs = 10_000 } = options;
  const records = createRecords(redis, options.keyPrefix);
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

  const chat = openChatApi(redis, options.keyPrefix, records.llmModels, options.chat ?? chatApiSettings(loadConfig({})), logger);
  const health = openHealthApi(redis, options.keyPrefix, records.mcpServers, options.healthTimeoutMs ?? loadConfig({}).health.timeoutMs, logger);
  if (redis.status === 'ready') await Promise.all([chat.ready(), health.ready()]);
  const knowledge = openKnowledgeApi(redis, options.keyPrefix, options.knowledge ?? { dataDir: loadConfig().dataDir, jobWaitMs: loadKnowledgeConfig().jobWaitMs }, logger);
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
    trustProxy: options.trustProxy,
  });
  const server = http.createServer((req, res) => {
    // While draining, answer and close: a kept-alive connection would keep bringing requests here.
    if (state === 'draining') res.shouldKeepAlive = false;
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger.info('api listening', { host: options.host, port });

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
      await closed;
      clearTimeout(cut);
      logger.info('api stopped');
    },
  };
}
