import { LRUCache } from 'lru-cache';
import type { Principal } from './permissions.js';

/**
 * Recently authenticated tokens, by key hash, so a request does not cost a Redis round trip for
 * its token. Entries live `ttlMs` at most (never past the token's expiry); revocations published
 * by any process drop them at once (see RevocationFeed), the TTL only bounds a missed message.
 * The least recently used entry goes first when `maxEntries` are held.
 */
export class PrincipalCache {
  private readonly entries: LRUCache<string, Principal>;

  /** `now` is the clock of token expiry dates (milliseconds since the epoch). */
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    maxEntries = 10_000,
  ) {
    // ttlResolution 0: read the clock at every check rather than once per millisecond of real time.
    this.entries = new LRUCache({ max: maxEntries, ttl: ttlMs, ttlResolution: 0, perf: { now } });
  }

  get(keyHash: string): Principal | undefined {
    return this.entries.get(keyHash);
  }

  set(keyHash: string, principal: Principal, tokenExpires: number | null): void {
    const trustedMs = Math.min(this.ttlMs, (tokenExpires ?? Infinity) - this.now());
    // lru-cache keeps an entry while its age is at most its ttl; ours is not trusted at the deadline itself.
    if (trustedMs > 1) this.entries.set(keyHash, principal, { ttl: trustedMs - 1 });
  }

  drop(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  clear(): void {
    this.entries.clear();
  }
}
