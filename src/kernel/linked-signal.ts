/** A signal tied to others and, optionally, to a time limit. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** True when the time limit, not a source, aborted it. */
  readonly timedOut: boolean;
  /** Ends the time limit and the links to the sources: call it when the work is over. */
  dispose(): void;
  /** Starts the time limit again from now (a tool reported progress); nothing once aborted or without one. */
  restart(): void;
  /** Stops the time limit until `restart` (the work waits on a person, not on its own). */
  hold(): void;
}

/**
 * A signal that aborts with the first of `sources` to abort, or after `timeoutMs` with a
 * `TimeoutError` (as `AbortSignal.timeout`'s). Not `AbortSignal.any` over `AbortSignal.timeout`:
 * on Node 20 the combined signal holds its sources weakly, so a garbage collection can take the
 * timeout's signal, and then the time limit never comes; each `any` also costs tens of
 * microseconds of weak-reference bookkeeping. Here the timer holds the signal until it fires or
 * `dispose` ends it, and it does not keep the process alive.
 */
export function linkedSignal(sources: ReadonlyArray<AbortSignal | undefined>, timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  const linked = sources.filter((source): source is AbortSignal => source !== undefined);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const dispose = () => {
    disposed = true;
    clearTimeout(timer);
    for (const source of linked) source.removeEventListener('abort', follow);
  };
  function follow(this: AbortSignal) {
    dispose();
    controller.abort(this.reason);
  }
  const arm = () => {
    if (timeoutMs === undefined || disposed || controller.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      dispose();
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    timer.unref();
  };
  const aborted = linked.find((source) => source.aborted);
  if (aborted) controller.abort(aborted.reason);
  else {
    for (const source of linked) source.addEventListener('abort', follow, { once: true });
    arm();
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose,
    restart: arm,
    hold: () => clearTimeout(timer),
  };
}
