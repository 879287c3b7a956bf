export interface LockRequest {
  /** How long to wait for another holder before giving up with UnavailableError. */
  waitMs: number;
  /** Stops the wait (the holder's work is not affected). */
  signal?: AbortSignal;
}

/** Ends a hold. Rejects when the lock was taken from this holder while held (its exclusion broke). */
export type ReleaseLock = () => Promise<void>;

/**
 * Port: exclusive locks by name between every process that writes the knowledge base (API, tool
 * server, index workers, CLI), wherever they run. A holder keeps its lock alive while it lives;
 * the lock of a holder that died (killed, its machine gone) expires and is taken over. Names are
 * short words and repository slugs.
 */
export interface KnowledgeLocks {
  acquire(name: string, request: LockRequest): Promise<ReleaseLock>;
  /** Whether a live holder has the lock now (a run under way). */
  held(name: string): Promise<boolean>;
}
