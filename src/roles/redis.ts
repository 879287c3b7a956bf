import path from 'node:path';
import which from 'which';
import { closeRedisClient, createRedisClient, waitForRedis, type RedisClient, type RedisRole } from '../kernel/redis/redis-client.js';
import { startRedisProcess, type RedisProcess } from '../kernel/redis/redis-process.js';
import type { RedisTopology } from '../kernel/config/config.js';
import type { Config } from './config.js';
import { StartupError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';

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

/** Where Redis is, for messages and logs: never a user name or password. */
export function describeRedis(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'single':
      return redactUrl(topology.url);
    case 'sentinel':
      return `the primary "${topology.name}" of the Sentinels at ${topology.sentinels.map(({ host, port }) => `${host}:${port}`).join(',')}`;
    case 'cluster':
      return `the Redis Cluster at ${topology.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;
  }
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}

/** What a role logs once it uses a Redis (never a user name or password): the setting that names it, or the default address. */
export function usingRedis({ topology, configured }: Config['redis']): string {
  if (!configured) return 'using the Redis at the default address (REDIS_URL is unset)';
  return `using the Redis at ${{ single: 'REDIS_URL', sentinel: 'REDIS_SENTINELS', cluster: 'REDIS_CLUSTER_NODES' }[topology.kind]}`;
}

/**
 * For a role that carries on while Redis is away (API, workers): says which Redis it
 * uses once `client` is ready, or warns that it is unreachable and what the role does meanwhile
 * (`meanwhile`), then says so again when it is reached. The client reconnects either way.
 */
export async function reportRedis(client: RedisClient, redis: Config['redis'], logger: Logger, meanwhile: string): Promise<void> {
  const { topology } = redis;
  const where = describeRedis(topology);
  try {
    // A single server that refuses the connection is not there: say so at once.
    await waitForRedis(client, CONNECT_WAIT_MS, { refusedIsFinal: topology.kind === 'single' });
  } catch {
    logger.warn(`redis unreachable at start-up; ${meanwhile} until it is back`, { redis: where });
    client.once('ready', () => logger.info(usingRedis(redis), { redis: where }));
    return;
  }
  logger.info(usingRedis(redis), { redis: where });
}

export interface RedisConnection {
  client: RedisClient;
  /** The private server started for this process, if any. */
  embedded?: RedisProcess;
  close(): Promise<void>;
}

/**
 * Connects to Redis (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES). `require`: fail with a one-line message when unreachable (admin
 * commands); `tolerate`: carry on and let the client reconnect (API, workers); `embed`: start a
 * private redis-server on REDIS_URL's loopback address, data under DATA_DIR (the all-in-one default).
 */
export async function connectRedis(
  config: Pick<Config, 'redis' | 'dataDir'>,
  logger: Logger,
  { role, whenUnreachable }: { role: RedisRole; whenUnreachable: 'require' | 'tolerate' | 'embed' },
): Promise<RedisConnection> {
  let embedded: RedisProcess | undefined;
  const { topology } = config.redis;
  const where = describeRedis(topology);
  let client = createRedisClient({ topology, role, logger, connectionName: `aiops-${role}` });
  if (whenUnreachable === 'tolerate') {
    await reportRedis(client, config.redis, logger, 'serving 503');
    return { client, close: () => closeRedisClient(client) };
  }
  try {
    // A single server that refuses the connection is not there: say so, or start one, at once.
    await waitForRedis(client, CONNECT_WAIT_MS, { refusedIsFinal: topology.kind === 'single' });
  } catch {
    const url = topology.kind === 'single' ? new URL(topology.url) : undefined;
    const canEmbed =
      whenUnreachable === 'embed' &&
      url !== undefined &&
      isLoopback(url.hostname) &&
      which.sync('redis-server', { nothrow: true }) !== null;
    if (!canEmbed || !url) {
      client.disconnect();
      throw new StartupError(
        `cannot reach Redis at ${where}: start Redis (Debian: apt-get install redis-server), or set REDIS_URL` +
          (whenUnreachable === 'require' ? ', or run `aiops start` first, which runs a private Redis' : ''),
      );
    } else {
      client.disconnect();
      embedded = await startRedisProcess({ dir: path.join(config.dataDir, 'redis'), port: Number(url.port || 6379) });
      client = createRedisClient({ topology, role, logger, connectionName: `aiops-${role}` });
      await waitForRedis(client, CONNECT_WAIT_MS);
    }
  }
  // Which Redis holds the records: a server already running at REDIS_URL is used as it is.
  logger.info(embedded ? 'using the private redis-server started for this process' : usingRedis(config.redis), {
    redis: where,
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
