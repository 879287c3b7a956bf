import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { PersonalTokenStore } from '../personal-tokens.port.js';
import type { SealedBox } from '../../kernel/security/sealed-box.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

/** Layout: `{P:platform-tokens}:tokens` hash, user id -> JSON `{sealed, updated}` (the token sealed with PLATFORM_TOKEN_KEY). */
export class RedisPersonalTokenStore implements PersonalTokenStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly box: SealedBox,
  ) {
    this.key = `{${prefix}:platform-tokens}:tokens`;
  }

  async set(userId: string, token: string): Promise<void> {
    await translateRedisError(
      this.redis.hset(this.key, userId, JSON.stringify({ sealed: this.box.seal(token), updated: new Date().toISOString() })),
    );
  }

  async get(userId: string): Promise<string | undefined> {
    const stored = await this.read(userId);
    return stored ? this.box.open(stored.sealed) : undefined;
  }

  async describe(userId: string): Promise<{ configured: boolean; updated: string | null }> {
    const stored = await this.read(userId);
    return { configured: stored !== undefined, updated: stored?.updated ?? null };
  }

  async remove(userId: string): Promise<void> {
    await translateRedisError(this.redis.hdel(this.key, userId));
  }

  private async read(userId: string): Promise<{ sealed: string; updated: string } | undefined> {
    const value = await translateRedisError(this.redis.hget(this.key, userId));
    return value ? (JSON.parse(value) as { sealed: string; updated: string }) : undefined;
  }
}
