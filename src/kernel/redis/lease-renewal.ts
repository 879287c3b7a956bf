/** A lease being kept alive: stop it when the work is done; `lost` says why it lapsed, if it did. */
export interface LeaseRenewal {
  stop(): void;
  readonly lost: string | undefined;
}

/**
 * Renews a lease kept in Redis (a lock, a slot) every third of `expiryMs` until stopped. A renewal
 * that finds the lease gone marks it lost; one that fails (Redis away, a cluster failing over) is
 * tried again at the next turn, and the lease counts as lost once none has succeeded for
 * `expiryMs`. Nothing is thrown from the timer: redis-semaphore's own refresh rejects unhandled
 * when Redis fails it, which ends the process.
 */
export function renewLease(renew: () => Promise<boolean>, expiryMs: number): LeaseRenewal {
  let renewedAt = Date.now();
  let lost: string | undefined;
  const timer = setInterval(
    () => {
      renew().then(
        (held) => {
          if (held) renewedAt = Date.now();
          else lost ??= 'another holder has it';
        },
        () => {
          if (Date.now() - renewedAt >= expiryMs) lost ??= `not renewed for ${Math.round(expiryMs / 1000)} s (Redis unreachable)`;
        },
      );
    },
    Math.max(1, Math.round(expiryMs / 3)),
  );
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    get lost() {
      return lost;
    },
  };
}
