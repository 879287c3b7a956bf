import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import type { ToolVersionStore } from '../tool-versions.port.js';

/** Layout: `{P:mcp}:tool-versions` hash, server id -> counter. */
export class RedisToolVersionStore implements ToolVersionStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = `{${prefix}:mcp}:tool-versions`;
  }

  async get(serverIds: string[]): Promise<Map<string, number>> {
    if (serverIds.length === 0) return new Map();
    const values = await translateRedisError(this.redis.hmget(this.key, ...serverIds));
    return new Map(serverIds.map((id, index) => [id, Number(values[index] ?? 0)]));
  }

  async bump(serverId: string): Promise<void> {
    await translateRedisError(this.redis.hincrby(this.key, serverId, 1));
  }

  async forget(serverId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.key, serverId));
  }
}
