import { Semaphore } from 'redis-semaphore';
import { UnavailableError } from '../../errors.js';
import type { ProviderSlots } from '../../providers/provider-slots.port.js';
import type { RedisClient } from './redis-client.js';
import { translateRedisError } from './redis-errors.js';

/** A slot not renewed for this long (its worker was killed) is free again. */
const SLOT_EXPIRY_MS = 30_000;
const RETRY_MS = 50;

/**
 * CHAT_PROVIDER_CONCURRENCY_TOTAL: a redis-semaphore semaphore per provider kind under
 * `{P:provider-slots}`, shared by every worker process. Each slot is renewed while its call runs and
 * expires when its holder dies. A call that finds no free slot within `waitMs` fails as unavailable
 * (its turn is retried).
 */
export class RedisProviderSlots implements ProviderSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: { prefix: string; limit: number; waitMs: number },
  ) {}

  async run<T>(kind: string, task: () => Promise<T>): Promise<T> {
    const semaphore = new Semaphore(this.redis, `{${this.options.prefix}:provider-slots}:${kind}`, this.options.limit, {
      lockTimeout: SLOT_EXPIRY_MS,
      acquireTimeout: this.options.waitMs,
      retryInterval: RETRY_MS,
      // A slot lost while its call runs (Redis away too long) is let go: the call finishes anyway.
      onLockLost: () => undefined,
    });
    if (!(await translateRedisError(semaphore.tryAcquire()))) {
      throw new UnavailableError(`every one of the ${this.options.limit} calls allowed at once to ${kind} stayed busy for ${Math.round(this.options.waitMs / 1_000)} s`, {
        remedy: 'Retry later, or raise CHAT_PROVIDER_CONCURRENCY_TOTAL.',
      });
    }
    try {
      return await task();
    } finally {
      await semaphore.release().catch(() => undefined);
    }
  }
}
