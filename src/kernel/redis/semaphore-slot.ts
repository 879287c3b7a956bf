import { Semaphore } from 'redis-semaphore';
import { renewLease } from './lease-renewal.js';
import type { RedisClient } from './redis-client.js';
import { translateRedisError } from './redis-errors.js';

/** One slot of a semaphore in Redis, renewed while held. */
export interface HeldSlot {
  release(): Promise<void>;
}

export interface SlotRequest {
  /** Slots under the key. */
  limit: number;
  /** A slot not renewed for this long (its holder was killed) is free again; 30 s by default. */
  expiryMs?: number;
  /** How long to wait for a free slot; 0: one try. */
  waitMs: number;
}

const SLOT_EXPIRY_MS = 30_000;
const RETRY_MS = 50;

/**
 * Takes one of `limit` slots of the redis-semaphore semaphore at `key` (shared by every process on
 * this Redis) and renews it every third of `expiryMs` until released; null when none was free.
 * A slot lost while held (Redis away too long) is let go: the holder's work goes on.
 */
export async function takeSemaphoreSlot(
  redis: RedisClient,
  key: string,
  { limit, expiryMs = SLOT_EXPIRY_MS, waitMs }: SlotRequest,
): Promise<HeldSlot | null> {
  const once = waitMs <= 0;
  const semaphore = new Semaphore(redis, key, limit, {
    lockTimeout: expiryMs,
    // redis-semaphore bounds the attempts by time and by count: a wait of 0 is one attempt.
    acquireTimeout: once ? 60_000 : waitMs,
    acquireAttemptsLimit: once ? 1 : Infinity,
    retryInterval: once ? 0 : RETRY_MS,
    refreshInterval: 0,
  });
  if (!(await translateRedisError(semaphore.tryAcquire()))) return null;
  // A semaphore marked acquiredExternally refreshes only on its first tryAcquire: one per renewal.
  const renewal = renewLease(
    () =>
      new Semaphore(redis, key, limit, {
        identifier: semaphore.identifier,
        acquiredExternally: true,
        lockTimeout: expiryMs,
        refreshInterval: 0,
      }).tryAcquire(),
    expiryMs,
  );
  return {
    async release() {
      renewal.stop();
      await semaphore.release().catch(() => undefined);
    },
  };
}
