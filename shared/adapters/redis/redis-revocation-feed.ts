import type { Redis } from 'ioredis';
import type { RevocationFeed, RevocationListener } from '../../auth/principal-cache.js';
import { translateRedisError } from './redis-errors.js';

/** Token revocations over Redis pub/sub, on one channel per key prefix. */
export class RedisRevocationFeed implements RevocationFeed {
  private readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.channel = `${prefix}:token-revoked`;
  }

  async publish(keyHash: string): Promise<void> {
    await translateRedisError(this.redis.publish(this.channel, keyHash));
  }

  subscribe(listener: RevocationListener): () => void {
    // A subscribed connection can do nothing else, so it is a connection of its own. It keeps
    // reconnecting and re-subscribing by itself; every reconnect may have missed messages.
    const subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
    subscriber.on('error', () => {
      // The main client reports outages.
    });
    subscriber.on('message', (channel: string, keyHash: string) => {
      if (channel === this.channel) listener.revoked(keyHash);
    });
    subscriber.on('close', () => listener.lost());
    let subscribed = false;
    subscriber.on('ready', () => {
      if (subscribed) listener.live();
    });
    subscriber.subscribe(this.channel).then(
      () => {
        subscribed = true;
        listener.live();
      },
      () => listener.lost(),
    );
    return () => subscriber.disconnect();
  }
}
