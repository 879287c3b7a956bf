/** A signal that aborts when any of its sources does or when its time runs out. */
export interface Deadline {
  signal: AbortSignal;
  /** True once the time ran out (rather than a source aborting). */
  readonly expired: boolean;
  /** Stops the clock; the signal goes on following its sources (a body still being read stops with them). */
  clear(): void;
}

/**
 * One controller that the time limit and every source abort, with the source's reason, or with
 * `reason()` when the time runs out: lighter than `AbortSignal.any` over `AbortSignal.timeout`,
 * which makes three signals and keeps weak references to them, on every provider call of every turn.
 */
export function deadline(sources: ReadonlyArray<AbortSignal | null | undefined>, timeoutMs: number, reason: () => Error): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(reason());
  }, timeoutMs);
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) controller.abort(source.reason);
    // A plain listener: one removed by a signal of its own costs more than the whole deadline, and a
    // source outlives its deadlines by one turn at most.
    else source.addEventListener('abort', () => controller.abort(source.reason), { once: true });
  }
  if (controller.signal.aborted) clearTimeout(timer);
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear: () => clearTimeout(timer),
  };
}
