import { primaries, type RedisClient } from './redis-client.js';
import { translateRedisError } from './redis-errors.js';

/** The Redis version (`INFO server`) of the first primary known, null when none is yet. */
export async function readRedisVersion(redis: RedisClient): Promise<string | null> {
  const [node] = primaries(redis);
  if (!node) return null;
  const info = await translateRedisError(node.info('server'));
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? null;
}
