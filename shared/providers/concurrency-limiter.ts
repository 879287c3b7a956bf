/**
 * At most `limit` calls at once per key (one key per provider kind), the rest wait in order.
 * In-process: each worker process protects the providers on its own.
 */
export class ConcurrencyLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  /** Calls running now for `key`. */
  running(key: string): number {
    return this.active.get(key) ?? 0;
  }

  private async acquire(key: string): Promise<void> {
    const active = this.active.get(key) ?? 0;
    if (active < this.limit) {
      this.active.set(key, active + 1);
      return;
    }
    // The releasing call hands its slot straight to the next waiter, so the count stays put.
    await new Promise<void>((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(resolve);
      this.waiting.set(key, queue);
    });
  }

  private release(key: string): void {
    const next = this.waiting.get(key)?.shift();
    if (next) {
      next();
      return;
    }
    this.waiting.delete(key);
    const active = (this.active.get(key) ?? 1) - 1;
    if (active === 0) this.active.delete(key);
    else this.active.set(key, active);
  }
}
