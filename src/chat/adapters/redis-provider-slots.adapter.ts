import { UnavailableError } from '../../kernel/errors.js';
import type { ProviderSlots } from '../providers/provider-slots.port.js';
import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { takeSemaphoreSlot } from '../../kernel/redis/semaphore-slot.js';

/**
 * CHAT_PROVIDER_CONCURRENCY_TOTAL: a redis-semaphore semaphore per LLM model under
 * `{P:provider-slots}`, shared by every worker process. Each slot is renewed while its call runs and
 * expires when its holder dies (30 s after its last renewal). A call that finds no free slot within
 * `waitMs` fails as unavailable (its turn is retried).
 */
export class RedisProviderSlots implements ProviderSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: { prefix: string; limit: number; waitMs: number; expiryMs?: number },
  ) {}

  async run<T>(model: string, task: () => Promise<T>): Promise<T> {
    const { limit, waitMs, expiryMs } = this.options;
    const slot = await takeSemaphoreSlot(this.redis, `{${this.options.prefix}:provider-slots}:${model}`, {
      limit,
      waitMs,
      ...(expiryMs ? { expiryMs } : {}),
    });
    if (!slot) {
      throw new UnavailableError(
        `every one of the ${limit} calls allowed at once to model ${model} stayed busy for ${Math.round(waitMs / 1_000)} s`,
        {
          remedy: 'Retry later, or raise CHAT_PROVIDER_CONCURRENCY_TOTAL.',
        },
      );
    }
    try {
      return await task();
    } finally {
      await slot.release();
    }
  }
}
