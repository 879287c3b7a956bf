import { Semaphore } from 'redis-semaphore';
import { UnavailableError } from '../../kernel/errors.js';
import type { ProviderSlots } from '../providers/provider-slots.port.js';
import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { renewLease } from '../../kernel/redis/lease-renewal.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

/** A slot not renewed for this long (its worker was killed) is free again. */
const SLOT_EXPIRY_MS = 30_000;
const RETRY_MS = 50;

/**
 * CHAT_PROVIDER_CONCURRENCY_TOTAL: a redis-semaphore semaphore per LLM model under
 * `{P:provider-slots}`, shared by every worker process. Each slot is renewed while its call runs and
 * expires when its holder dies. A call that finds no free slot within `waitMs` fails as unavailable
 * (its turn is retried).
 */
export class RedisProviderSlots implements ProviderSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: { prefix: string; limit: number; waitMs: number; expiryMs?: number },
  ) {}

  async run<T>(model: string, task: () => Promise<T>): Promise<T> {
    const key = `{${this.options.prefix}:provider-slots}:${model}`;
    const { limit, waitMs, expiryMs = SLOT_EXPIRY_MS } = this.options;
    const semaphore = new Semaphore(this.redis, key, limit, {
      lockTimeout: expiryMs,
      acquireTimeout: waitMs,
      retryInterval: RETRY_MS,
      refreshInterval: 0,
    });
    if (!(await translateRedisError(semaphore.tryAcquire()))) {
      throw new UnavailableError(
        `every one of the ${limit} calls allowed at once to model ${model} stayed busy for ${Math.round(waitMs / 1_000)} s`,
        {
          remedy: 'Retry later, or raise CHAT_PROVIDER_CONCURRENCY_TOTAL.',
        },
      );
    }
    // A slot lost while its call runs (Redis away too long) is let go: the call finishes anyway. A
    // semaphore marked acquiredExternally refreshes only on its first tryAcquire: one per renewal.
    const renewal = renewLease(
      () =>
        new Semaphore(this.redis, key, limit, {
          identifier: semaphore.identifier,
          acquiredExternally: true,
          lockTimeout: expiryMs,
          refreshInterval: 0,
        }).tryAcquire(),
      expiryMs,
    );
    try {
      return await task();
    } finally {
      renewal.stop();
      await semaphore.release().catch(() => undefined);
    }
  }
}
