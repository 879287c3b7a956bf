import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { RateLimiter } from '../rate-limiter.port.js';

/**
 * A fixed window per key, counted in RedisClient (one atomic script per action), so every API instance
 * shares each user's budget. Answers 0, or the milliseconds until the window resets.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: RedisClient, options: { prefix: string; name: string; limit: number; windowMs: number }) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${options.prefix}:ratelimit:${options.name}`,
      points: options.limit,
      duration: Math.ceil(options.windowMs / 1_000),
    });
  }

  async consume(key: string): Promise<number> {
    try {
      // A key of its own hash tag: the counter may live on any node of a cluster.
      await translateRedisError(this.limiter.consume(`{${key}}`));
      return 0;
    } catch (outcome) {
      // The library rejects with its result object when the budget is spent, with an Error otherwise.
      if (outcome instanceof RateLimiterRes) return Math.max(1, outcome.msBeforeNext);
      throw outcome;
    }
  }
}
