import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../../logging/logger.js';

/**
 * `request`: used on request paths (API, CLI). Commands fail fast while Redis is away so callers
 * can answer 503, and the client keeps reconnecting in the background so the process recovers
 * without a restart.
 * `worker`: used by BullMQ workers, which must wait for Redis rather than fail (BullMQ requires
 * `maxRetriesPerRequest: null`).
 */
export type RedisRole = 'request' | 'worker';

export interface RedisClientOptions {
  url: string;
  role: RedisRole;
  logger: Logger;
  db?: number;
  /** Name shown by CLIENT LIST, for operators. */
  connectionName?: string;
}

/** A connection to Redis: the adapters take it, the wiring modules hand it over (only this folder imports ioredis). */
export type RedisClient = Redis;
export type { RedisOptions };

/** A bare connection to `url` (or the endpoint in `options`) with exactly these options: BullMQ's producers and tests bring their own. */
export function openRedisConnection(options: RedisOptions & { url?: string }): RedisClient {
  const { url, ...rest } = options;
  return url === undefined ? new Redis(rest) : new Redis(url, rest);
}

const RETRY_CAP_MS = 2_000;

export function createRedisClient({ url, role, logger, db, connectionName }: RedisClientOptions): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    connectionName,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, RETRY_CAP_MS),
    ...(db === undefined ? {} : { db }),
    // Auto-pipelining sends the commands of concurrent requests (or jobs) in one write: far fewer
    // syscalls under load. These clients never block, so nothing waits behind a batch.
    enableAutoPipelining: true,
    ...(role === 'request'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 2_000 }
      : { maxRetriesPerRequest: null }),
  };
  const client = new Redis(url, options);
  // Without a listener ioredis prints every failed reconnect; log the first of each outage only.
  // Before the first connection there is nothing lost yet: callers decide what an absent Redis means.
  let down = false;
  let connected = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    if (connected) logger.warn('redis connection lost', { error: error.message, role });
    else logger.debug('redis not reachable yet', { error: error.message, role });
  });
  client.on('ready', () => {
    if (down && connected) logger.info('redis connection restored', { role });
    down = false;
    connected = true;
  });
  return client;
}

/**
 * Closes a client: QUIT (pending replies first) while connected, otherwise dropped at once. A
 * client waiting for Redis (a worker's, with no limit on retries) would hold QUIT until Redis came back.
 */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}

/** Resolves when the client is ready, or rejects after `timeoutMs`. */
export async function waitForRedis(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
