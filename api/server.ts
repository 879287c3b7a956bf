import http from 'node:http';
import type { Redis } from 'ioredis';
import { loadConfig } from '../shared/config/config.js';
import type { Logger } from '../shared/logging/logger.js';
import { createRecords } from '../shared/records/records.js';
import { openChatApi, type ChatApiSettings } from '../workers/queues.js';
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
  /** Chat wait, rate limit and checkpoint settings; the configuration's defaults when left out. */
  chat?: ChatApiSettings;
}

/** The configuration's defaults for the chat settings. */
function defaultChatSettings(): ChatApiSettings {
  const { chat, redis } = loadConfig({});
  return { waitMs: chat.waitMs, ratePerMinute: chat.ratePerMinute, checkpointTtlS: chat.checkpointTtlS, checkpointDb: redis.checkpointDb };
}

export interface ApiServer {
  server: http.Server;
  /** The bound port (useful with port 0). */
  port: number;
  /** Stops taking connections and waits for in-flight requests. */
  close(): Promise<void>;
}

const PING_TIMEOUT_MS = 1_000;

/** Starts the API role on `host:port`. Redis may be down: /status says so and the API recovers with it. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { redis, logger } = options;
  const records = createRecords(redis, options.keyPrefix);
  let draining = false;

  // Seed whenever Redis (re)appears: it may have been empty or down at start-up.
  const seed = () =>
    records.seed().catch((error: unknown) => logger.warn('status seeding failed', { error: (error as Error).message }));
  redis.on('ready', seed);
  if (redis.status === 'ready') await seed();

  const readiness = async () => {
    const redisOk =
      redis.status === 'ready' &&
      (await Promise.race([
        redis.ping().then(() => true, () => false),
        new Promise<boolean>((resolve) => setTimeout(resolve, PING_TIMEOUT_MS, false)),
      ]));
    if (draining) return { ready: false, redis: redisOk, detail: 'draining' };
    return { ready: redisOk, redis: redisOk, ...(redisOk ? {} : { detail: 'Redis is unreachable' }) };
  };

  const chat = openChatApi(redis, options.keyPrefix, records.llmModels, options.chat ?? defaultChatSettings(), logger);
  if (redis.status === 'ready') await chat.ready();
  const app = createApp({
    records,
    chat: chat.service,
    readiness,
    document: loadOpenApiDocument(),
    logger,
    version: options.version,
    validateResponses: options.validateResponses,
  });
  const server = http.createServer(app);
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
      draining = true;
      redis.off('ready', seed);
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // Ends event streams and answers waiting chat requests with 202, so no connection lingers.
      await chat.close();
      await closed;
    },
  };
}
