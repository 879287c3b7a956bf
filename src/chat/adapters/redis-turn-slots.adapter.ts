import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { takeSemaphoreSlot, type HeldSlot } from '../../kernel/redis/semaphore-slot.js';
import type { TurnSlots } from '../turn-slots.port.js';

/**
 * CHAT_USER_MAX_TURNS: a redis-semaphore semaphore per user under `{P:turn-slots}`, shared by every
 * worker process, one try per take. Each slot is renewed while its turn runs and expires when its
 * holder dies (30 s after its last renewal).
 */
export class RedisTurnSlots implements TurnSlots {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: { prefix: string; limit: number; expiryMs?: number },
  ) {}

  take(userId: string): Promise<HeldSlot | null> {
    const { prefix, limit, expiryMs } = this.options;
    return takeSemaphoreSlot(this.redis, `{${prefix}:turn-slots}:${userId}`, { limit, waitMs: 0, ...(expiryMs ? { expiryMs } : {}) });
  }
}
