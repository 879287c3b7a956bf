import type { RedisClient } from '../../kernel/redis/redis-client.js';
import { Mutex } from 'redis-semaphore';
import { UnavailableError } from '../../kernel/errors.js';
import type { KnowledgeLocks, LockRequest, ReleaseLock } from '../locks.port.js';
import { renewLease } from '../../kernel/redis/lease-renewal.js';
import { translateRedisError } from '../../kernel/redis/redis-errors.js';

const RETRY_MS = 100;

/**
 * Knowledge-base locks for every process on every machine: redis-semaphore mutexes (a key set
 * with NX and an expiry, owned by a random identifier) under `{P:kb}`. The holder renews its key
 * every `expiryMs / 3`; the key of a holder that died (killed, restarted as PID 1 in a new
 * container, its machine gone) expires after `expiryMs` and the lock is taken over. A holder that
 * could not renew within `expiryMs` has lost the lock, and its release says so.
 */
export class RedisKnowledgeLocks implements KnowledgeLocks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly expiryMs = 30_000,
  ) {}

  /** redis-semaphore stores the lock at `mutex:<key>`. */
  private key(name: string): string {
    return `{${this.prefix}:kb}:lock:${name}`;
  }

  async acquire(name: string, { waitMs, signal }: LockRequest): Promise<ReleaseLock> {
    const key = this.key(name);
    // A wait of 0 is one attempt (redis-semaphore bounds the attempts by time and count). Renewals
    // are renewLease's (refreshInterval 0).
    const once = waitMs <= 0;
    const mutex = new Mutex(this.redis, key, {
      lockTimeout: this.expiryMs,
      acquireTimeout: once ? 60_000 : waitMs,
      acquireAttemptsLimit: once ? 1 : Infinity,
      retryInterval: once ? 0 : RETRY_MS,
      refreshInterval: 0,
    });
    let acquired: boolean;
    try {
      acquired = await translateRedisError(mutex.tryAcquire(signal));
    } catch (error) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new UnavailableError('cancelled');
      throw error;
    }
    if (!acquired) {
      throw new UnavailableError(`${name} is locked by another run`, {
        remedy: 'Another run is working on it: wait for it to finish (its status shows the progress) and retry.',
      });
    }
    // A mutex marked acquiredExternally extends the key only on its first tryAcquire (a later one
    // waits for the key to be free with SET NX), so each renewal is a mutex of its own.
    const renewal = renewLease(
      () =>
        new Mutex(this.redis, key, {
          identifier: mutex.identifier,
          acquiredExternally: true,
          lockTimeout: this.expiryMs,
          refreshInterval: 0,
        }).tryAcquire(),
      this.expiryMs,
    );
    return async () => {
      renewal.stop();
      if (renewal.lost) throw new UnavailableError(`the lock of ${name} was taken over while held (${renewal.lost})`);
      await translateRedisError(mutex.release());
    };
  }

  async held(name: string): Promise<boolean> {
    return (await translateRedisError(this.redis.exists(`mutex:${this.key(name)}`))) === 1;
  }
}
