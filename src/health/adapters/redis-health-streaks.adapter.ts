import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { UnavailableError } from '../../kernel/errors.js';
import type { Streak } from '../health-policy.js';
import type { HealthStreakStore } from '../health-streaks.port.js';

/** Layout: `{P:mcp}:health-streaks` hash, `<server id>.pass` and `<server id>.fail` -> consecutive counts. */
export class RedisHealthStreakStore implements HealthStreakStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = `{${prefix}:mcp}:health-streaks`;
  }

  async record(serverId: string, passed: boolean): Promise<Streak> {
    const [grown, reset] = passed ? [`${serverId}.pass`, `${serverId}.fail`] : [`${serverId}.fail`, `${serverId}.pass`];
    const results = await translateRedisError(this.redis.multi().hincrby(this.key, grown, 1).hset(this.key, reset, 0).exec());
    const [error, count] = results?.[0] ?? [new UnavailableError('health streak transaction was discarded'), 0];
    if (error) throw error;
    return passed ? { passes: Number(count), fails: 0 } : { passes: 0, fails: Number(count) };
  }

  async forget(serverId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.key, `${serverId}.pass`, `${serverId}.fail`));
  }
}
