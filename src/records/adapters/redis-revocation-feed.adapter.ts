import type { RedisClient } from '../../kernel/redis/redis-client.js';
import type { RevocationFeed, RevocationListener } from '../auth/revocation-feed.port.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';
import { subscribeToChannel } from '../../kernel/redis/redis-subscription.js';

/** Token revocations over RedisClient pub/sub, on one channel per key prefix. */
export class RedisRevocationFeed implements RevocationFeed {
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = `${prefix}:token-revoked`;
  }

  async publish(keyHash: string): Promise<void> {
    await translateRedisError(this.redis.publish(this.channel, keyHash));
  }

  subscribe(listener: RevocationListener): () => void {
    return subscribeToChannel(this.redis, this.channel, {
      message: (keyHash) => listener.revoked(keyHash),
      live: () => listener.live(),
      lost: () => listener.lost(),
    });
  }
}
