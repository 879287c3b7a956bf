import type { RedisClient, RedisOptions } from '../redis/redis-client.js';

/** Where Redis is and how to log in: what BullMQ needs to open its own connections. */
export type RedisEndpoint = Pick<RedisOptions, 'host' | 'port' | 'username' | 'password' | 'db' | 'tls' | 'family'>;

/**
 * BullMQ key prefix: one hash tag for every queue key, so the same code runs on Redis Cluster
 * (BullMQ's scripts touch several keys of a queue at once).
 */
export function queuePrefix(keyPrefix: string): string {
  return `{${keyPrefix}}`;
}

/** Where a queue's producers tell its workers to stop a running job (pub/sub; the message is the job id). */
export function stopChannel(keyPrefix: string, queueName: string): string {
  return `${queuePrefix(keyPrefix)}:${queueName}:stop`;
}

export function endpointFromUrl(url: string): RedisEndpoint {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    db: Number(parsed.pathname.slice(1) || 0),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** The endpoint an existing client talks to. */
export function endpointOf(client: RedisClient): RedisEndpoint {
  const { host, port, username, password, db, tls, family } = client.options;
  return { host, port, username, password, db, tls, family };
}

/**
 * `producer`: queues used on request paths fail fast while Redis is away (no offline queue), so
 * the API answers 503. `worker`: workers and event readers wait for Redis (BullMQ requires
 * maxRetriesPerRequest null on blocking connections).
 */
export function bullConnection(endpoint: RedisEndpoint, role: 'producer' | 'worker'): RedisOptions {
  return { ...endpoint, ...(role === 'producer' ? { enableOfflineQueue: false } : { maxRetriesPerRequest: null }) };
}
