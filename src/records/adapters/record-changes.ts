import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { subscribeToChannel } from '../../kernel/redis/redis-subscription.js';

/** Every record write publishes its collection's name here, from inside the write's script. */
export function recordChangesChannel(prefix: string): string {
  return `${prefix}:records-changed`;
}

/**
 * What this process has heard of record writes, collection by collection. A cached listing read
 * under a stamp stays valid while the stamp is unchanged: no write has been heard since. While the
 * subscription is down nothing is heard, so there is no stamp and readers check the store.
 */
export class RecordChanges {
  private listening = false;
  /** Raised each time the subscription comes back: stamps from before may have missed writes. */
  private generation = 0;
  private readonly writes = new Map<string, number>();

  stamp(collection: string): string | undefined {
    return this.listening ? `${this.generation}:${this.writes.get(collection) ?? 0}` : undefined;
  }

  changed(collection: string): void {
    this.writes.set(collection, (this.writes.get(collection) ?? 0) + 1);
  }

  /** Hears the writes of every process (through `redis`'s server) until the returned stop. */
  listen(redis: RedisClient, prefix: string): () => void {
    return subscribeToChannel(redis, recordChangesChannel(prefix), {
      message: (collection) => this.changed(collection),
      live: () => {
        this.generation++;
        this.listening = true;
      },
      lost: () => {
        this.listening = false;
      },
    });
  }
}
