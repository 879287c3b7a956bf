import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTopology } from '../config/config.js';
import { UnavailableError } from '../errors.js';
import type { Logger } from '../logging/logger.js';

/**
 * `request`: used on request paths (API, CLI). Commands fail fast while Redis is away so callers
 * can answer 503, and the client keeps reconnecting in the background so the process recovers
 * without a restart.
 * `worker`: used by BullMQ workers, which must wait for Redis rather than fail (BullMQ requires
 * `maxRetriesPerRequest: null`).
 */
export type RedisRole = 'request' | 'worker';

/** Where Redis is: its topology, or the URL of a single server. */
export type RedisTarget = RedisTopology | string;

export interface RedisClientOptions {
  topology: RedisTarget;
  role: RedisRole;
  logger: Logger;
  /** Database number (a cluster has database 0 only: ignored there). */
  db?: number;
  /** Name shown by CLIENT LIST, for operators. */
  connectionName?: string;
}

/**
 * A connection to Redis: one server (directly or through Sentinel) or a cluster. The adapters take
 * it, the wiring modules hand it over (only this folder imports ioredis).
 */
export type RedisClient = Redis | Cluster;
/** A connection to one server (tests and benchmarks that start their own). */
export type RedisServerClient = Redis;
export type { RedisOptions };

function topologyOf(target: RedisTarget): RedisTopology {
  return typeof target === 'string' ? { kind: 'single', url: target } : target;
}

/**
 * `url` without a database number (its path `/N` or `?db=N`). ioredis lets the URL's number win
 * over the `db` option, yet a URL's number is the records' database: a client of another purpose
 * (the sessions') names its own.
 */
function withoutDatabase(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = '';
  parsed.searchParams.delete('db');
  return parsed.toString();
}

/**
 * After a failover the old primary answers writes with READONLY until the client finds the new
 * one: reconnect (Sentinel names the new primary) and send the command again.
 */
function reconnectOnReadOnly(error: Error): 2 | false {
  return /^READONLY\b/.test(error.message) ? 2 : false;
}

/** What ioredis keeps of its failover detector: one subscribed client per Sentinel. */
interface WithFailoverDetector {
  connector?: { failoverDetector?: { sentinels?: Array<{ client?: Redis }> } };
}

/**
 * ioredis opens its failover detector's client to each Sentinel with no error listener (its issues
 * 1600 and 1829), so a Sentinel that goes away prints an unhandled error to stderr at every retry,
 * outside our logs. The main client reports an outage that matters; a Sentinel of the detector is
 * retried by ioredis on its own.
 */
function quietFailoverDetector(client: Redis): void {
  for (const sentinel of (client as unknown as WithFailoverDetector).connector?.failoverDetector?.sentinels ?? []) {
    if (sentinel.client && sentinel.client.listenerCount('error') === 0) sentinel.client.on('error', () => {});
  }
}

/** A cluster takes some options itself and hands the rest to the connection of each node; it has only database 0. */
function clusterOptions(options: RedisOptions): ClusterOptions {
  const {
    enableOfflineQueue,
    lazyConnect,
    enableAutoPipelining,
    retryStrategy,
    db: _db,
    sentinels: _sentinels,
    host: _host,
    port: _port,
    ...node
  } = options;
  return {
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
    ...(retryStrategy ? { clusterRetryStrategy: (attempt: number) => retryStrategy(attempt) } : {}),
    redisOptions: node,
  };
}

/** A bare connection to `target` with exactly these options (plus the topology's own): tests and templates bring their own. */
export function openRedisConnection(url: string, options?: RedisOptions): RedisServerClient;
export function openRedisConnection(target: RedisTarget, options?: RedisOptions): RedisClient;
export function openRedisConnection(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  const topology = topologyOf(target);
  switch (topology.kind) {
    case 'single':
      return new Redis(options.db === undefined ? topology.url : withoutDatabase(topology.url), options);
    case 'sentinel': {
      const { sentinels, name, sentinelPassword, username, password } = topology;
      const client = new Redis({
        ...options,
        sentinels,
        name,
        ...(sentinelPassword ? { sentinelPassword } : {}),
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        // Hear the Sentinels' +switch-master at once rather than at the next failed command.
        failoverDetector: true,
        reconnectOnError: reconnectOnReadOnly,
      });
      // ioredis makes a new failover detector as each connection to the primary opens, just before `connect`.
      client.on('connect', () => quietFailoverDetector(client));
      return client;
    }
    case 'cluster': {
      const { nodes, username, password } = topology;
      const cluster = clusterOptions({ ...options, ...(username ? { username } : {}), ...(password ? { password } : {}) });
      return new Cluster(nodes, cluster);
    }
  }
}

/** Another connection like `client` (same server or servers, same login), with `overrides`. */
export function duplicateClient(client: RedisClient, overrides: RedisOptions): RedisClient {
  if (client instanceof Redis) return client.duplicate(overrides);
  const { redisOptions, ...own } = client.options;
  const extra = clusterOptions(overrides);
  return client.duplicate([], { ...own, ...extra, redisOptions: { ...redisOptions, ...extra.redisOptions } });
}

export function isClustered(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/** The masters of a cluster, or the one server: where a scan over every key must look. */
export function primaries(client: RedisClient): Redis[] {
  return isClustered(client) ? client.nodes('master') : [client];
}

const RETRY_CAP_MS = 2_000;

export function createRedisClient({ topology, role, logger, db, connectionName }: RedisClientOptions): RedisClient {
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
  const client = openRedisConnection(topology, options);
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
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}

/**
 * Resolves when the client is ready, or rejects after `timeoutMs`; with `refusedIsFinal`, at the
 * first refused connection instead (nothing listens at the address, so waiting cannot help).
 */
export async function waitForRedis(
  client: RedisClient,
  timeoutMs: number,
  { refusedIsFinal = false }: { refusedIsFinal?: boolean } = {},
): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => settle(new UnavailableError(`redis not ready after ${timeoutMs} ms`)), timeoutMs);
    const onReady = () => settle();
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') settle(new UnavailableError('redis refused the connection'));
    };
    client.once('ready', onReady);
    if (refusedIsFinal) client.on('error', onError);
  });
}
