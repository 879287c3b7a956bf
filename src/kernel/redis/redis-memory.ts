import { UnavailableError } from '../errors.js';
import { primaries, type RedisClient } from './redis-client.js';
import { translateRedisError } from './redis-errors.js';

/** How much memory Redis uses and may use (`maxBytes` 0: no limit). */
export interface StoreMemory {
  usedBytes: number;
  maxBytes: number;
}

function fullness({ usedBytes, maxBytes }: StoreMemory): number {
  return maxBytes > 0 ? usedBytes / maxBytes : 0;
}

/** `INFO memory`, reduced to what sizing and readiness need: of the fullest primary on a cluster (it refuses writes first). */
export async function readStoreMemory(redis: RedisClient): Promise<StoreMemory> {
  const nodes = primaries(redis);
  if (nodes.length === 0) throw new UnavailableError('the store (Redis) is unreachable: no primary is known yet');
  const readings = await Promise.all(
    nodes.map(async (node) => {
      const info = await translateRedisError(node.info('memory'));
      const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
      return { usedBytes: field('used_memory'), maxBytes: field('maxmemory') };
    }),
  );
  return readings.reduce((fullest, reading) => (fullness(reading) > fullness(fullest) ? reading : fullest));
}

/** Redis (with `noeviction`) refuses writes from here on. */
export function isStoreFull({ usedBytes, maxBytes }: StoreMemory): boolean {
  return maxBytes > 0 && usedBytes >= maxBytes;
}

/**
 * Whether the store takes a write now (a short-lived key): a replica does not (a primary demoted
 * by a failover, before the client has moved to the new one), nor a cluster that lost a slot's
 * primary.
 */
export async function acceptsWrites(redis: RedisClient, key: string): Promise<boolean> {
  return redis.set(key, '1', 'PX', 10_000).then(
    () => true,
    () => false,
  );
}
