import type { Redis } from 'ioredis';
import { translateRedisError } from './redis-errors.js';

/** How much memory Redis uses and may use (`maxBytes` 0: no limit). */
export interface StoreMemory {
  usedBytes: number;
  maxBytes: number;
}

/** `INFO memory`, reduced to what sizing and readiness need. */
export async function readStoreMemory(redis: Redis): Promise<StoreMemory> {
  const info = await translateRedisError(redis.info('memory'));
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { usedBytes: field('used_memory'), maxBytes: field('maxmemory') };
}

/** Redis (with `noeviction`) refuses writes from here on. */
export function isStoreFull({ usedBytes, maxBytes }: StoreMemory): boolean {
  return maxBytes > 0 && usedBytes >= maxBytes;
}
