import path from 'node:path';
import which from 'which';
import { closeRedisClient, createRedisClient, waitForRedis, type RedisClient, type RedisRole } from '../shared/adapters/redis/redis-client.js';
import { startRedisProcess, type RedisProcess } from '../shared/adapters/redis/redis-process.js';
import type { Config } from '../shared/config/config.js';
import { StartupError } from '../shared/errors.js';
import type { Logger } from '../shared/logging/logger.js';

const CONNECT_WAIT_MS = 2_000;

/** The Redis URL without its credentials (user name and password become `***`), for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username) parsed.username = '***';
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
  client: RedisClient;
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
  config: Pick<Config, 'redis' | 'dataDir'>,
  logger: Logger,
  { role, whenUnreachable }: { role: RedisRole; whenUnreachable: 'require' | 'tolerate' | 'embed' },
): Promise<RedisConnection> {
  let embedded: RedisProcess | undefined;
  let client = createRedisClient({ url: config.redis.url, role, logger, connectionName: `aiops-${role}` });
  try {
    await waitForRedis(client, CONNECT_WAIT_MS);
  } catch {
    const url = new URL(config.redis.url);
    const canEmbed = whenUnreachable === 'embed' && isLoopback(url.hostname) && which.sync('redis-server', { nothrow: true }) !== null;
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
      client = createRedisClient({ url: config.redis.url, role, logger, connectionName: `aiops-${role}` });
      await waitForRedis(client, CONNECT_WAIT_MS);
    }
  }
  // Which Redis holds the records: a server already running at REDIS_URL is used as it is.
  logger.info(embedded ? 'using the private redis-server started for this process' : 'using the Redis at REDIS_URL', {
    redis: redactUrl(config.redis.url),
    ...(embedded ? { dir: path.join(config.dataDir, 'redis') } : {}),
  });
  return {
    client,
    embedded,
    async close() {
      await closeRedisClient(client);
      if (embedded) {
        await embedded.stop();
        logger.info('private redis-server stopped', { port: embedded.port });
      }
    },
  };
}
