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
