import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { createRedisClient, waitForRedis, type RedisRole } from '../shared/adapters/redis/redis-client.js';
import { startRedisProcess, type RedisProcess } from '../shared/adapters/redis/redis-process.js';
import type { Config } from '../shared/config/config.js';
import { StartupError } from '../shared/errors.js';
import type { Logger } from '../shared/logging/logger.js';
import { findExecutable } from '../shared/find-executable.js';
import { packagePath } from '../shared/package-root.js';

const CONNECT_WAIT_MS = 2_000;

export const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

/** The Redis URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}

export interface RedisConnection {
  client: Redis;
  /** The private server started for this process, if any. */
  embedded?: RedisProcess;
  close(): Promise<void>;
}

/**
 * Connects to `REDIS_URL`. `require`: fail with a one-line message when unreachable (admin
 * commands); `tolerate`: carry on and let the client reconnect (API, workers); `embed`: start a
 * private redis-server on that loopback address, data under DATA_DIR (the all-in-one default).
 */
export async function connectRedis(
  config: Config,
  logger: Logger,
  { role, whenUnreachable }: { role: RedisRole; whenUnreachable: 'require' | 'tolerate' | 'embed' },
): Promise<RedisConnection> {
  let embedded: RedisProcess | undefined;
  let client = createRedisClient({ url: config.redis.url, role, logger, connectionName: `aiops-${role}` });
  try {
    await waitForRedis(client, CONNECT_WAIT_MS);
  } catch {
    const url = new URL(config.redis.url);
    const canEmbed = whenUnreachable === 'embed' && isLoopback(url.hostname) && findExecutable('redis-server') !== undefined;
    if (whenUnreachable === 'tolerate') {
      logger.warn('redis unreachable at start-up; serving 503 until it is back', { redis: redactUrl(config.redis.url) });
    } else if (!canEmbed) {
      client.disconnect();
      throw new StartupError(
        `cannot reach Redis at ${redactUrl(config.redis.url)}: start Redis (Debian: apt-get install redis-server), or set REDIS_URL` +
          (whenUnreachable === 'require' ? ', or run `aiops start` first, which runs a private Redis' : ''),
      );
    } else {
      client.disconnect();
      embedded = await startRedisProcess({ dir: path.join(config.dataDir, 'redis'), port: Number(url.port || 6379) });
      logger.info('started a private redis-server', { port: embedded.port, dir: path.join(config.dataDir, 'redis') });
      client = createRedisClient({ url: config.redis.url, role, logger, connectionName: `aiops-${role}` });
      await waitForRedis(client, CONNECT_WAIT_MS);
    }
  }
  return {
    client,
    embedded,
    async close() {
      await client.quit().catch(() => client.disconnect());
      await embedded?.stop();
    },
  };
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      logger.info('shutting down', { signal });
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
