import pLimit, { type LimitFunction } from 'p-limit';
import type { ProviderSlots } from './provider-slots.port.js';

/**
 * At most `limit` calls at once per key (one key per LLM model) in this process, the rest wait
 * in order; with `shared`, each call also takes one of the slots every worker process shares.
 */
export class ConcurrencyLimiter {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(
    private readonly limit: number,
    private readonly shared?: ProviderSlots,
  ) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let limitOf = this.limits.get(key);
    if (!limitOf) {
      limitOf = pLimit(this.limit);
      this.limits.set(key, limitOf);
    }
    const { shared } = this;
    return limitOf(shared ? () => shared.run(key, task) : task);
  }

  /** Calls running now for `key`. */
  running(key: string): number {
    return this.limits.get(key)?.activeCount ?? 0;
  }
}
