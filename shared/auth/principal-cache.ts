import type { Principal } from './permissions.js';

interface Entry {
  principal: Principal;
  /** When this entry stops being trusted: the cache's TTL, or the token's own expiry if sooner. */
  until: number;
}

/**
 * Recently authenticated tokens, by key hash, so a request does not cost a Redis round trip for
 * its token. Entries live `ttlMs` at most (never past the token's expiry); revocations published
 * by any process drop them at once (see RevocationFeed), the TTL only bounds a missed message.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(keyHash: string, now: number): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.principal;
  }

  set(keyHash: string, principal: Principal, tokenExpires: number | null, now: number): void {
    // Maps iterate in insertion order: the first key is the oldest entry.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyHash, { principal, until: Math.min(now + this.ttlMs, tokenExpires ?? Infinity) });
  }

  drop(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface RevocationListener {
  revoked(keyHash: string): void;
  /** The subscription is (again) in place: anything before may have been missed. */
  live(): void;
  /** The subscription is down: revocations are not heard until `live`. */
  lost(): void;
}

/** Tells every process that a token was revoked, so caches drop it at once. */
export interface RevocationFeed {
  publish(keyHash: string): Promise<void>;
  /** Listens in the background (never blocks on a Redis outage); returns the stop. */
  subscribe(listener: RevocationListener): () => void;
}
