import pLimit, { type LimitFunction } from 'p-limit';

/**
 * At most `limit` calls at once per key (one key per provider kind), the rest wait in order.
 * In-process: each worker process protects the providers on its own.
 */
export class ConcurrencyLimiter {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(private readonly limit: number) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let limitOf = this.limits.get(key);
    if (!limitOf) {
      limitOf = pLimit(this.limit);
      this.limits.set(key, limitOf);
    }
    return limitOf(task);
  }

  /** Calls running now for `key`. */
  running(key: string): number {
    return this.limits.get(key)?.activeCount ?? 0;
  }
}
