import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { translateRedisError } from '../adapters/redis/redis-errors.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Sliding-window log: the times of the actions in the last window, in a sorted set per key.
 * Redis's clock decides, so every API instance agrees. Answers 0 or the wait in milliseconds.
 */
const CONSUME = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)`;

type ScriptedRedis = Redis & { aiopsRateConsume(key: string, limit: string, windowMs: string, member: string): Promise<number> };

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly options: { prefix: string; name: string; limit: number; windowMs: number },
  ) {
    if (!('aiopsRateConsume' in redis)) redis.defineCommand('aiopsRateConsume', { numberOfKeys: 1, lua: CONSUME });
    this.redis = redis as ScriptedRedis;
  }

  consume(key: string): Promise<number> {
    const { prefix, name, limit, windowMs } = this.options;
    return translateRedisError(this.redis.aiopsRateConsume(`{${prefix}:ratelimit:${name}:${key}}`, String(limit), String(windowMs), randomUUID()));
  }
}
