import type { JobOutcome } from './job-queue.port.js';

/** What addAndWait needs of a queue. */
export interface WaitableQueue<R> {
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<R> | null>;
}

/**
 * Adds a job with `add` and waits up to `timeoutMs` for its outcome (null: not finished in time).
 * Listening starts before the add: a job can finish before the add's reply is read (its completion
 * event comes on another connection), and would be missed otherwise. `add` may answer the outcome
 * itself (it found the job over already). A failed add stops the listening and throws; `signal`
 * ends the wait early (null).
 */
export async function addAndWait<R>(
  queue: WaitableQueue<R>,
  jobId: string,
  add: () => Promise<JobOutcome<R> | void>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<JobOutcome<R> | null> {
  const stop = new AbortController();
  const outcome = queue.waitFor(jobId, timeoutMs, signal ? AbortSignal.any([stop.signal, signal]) : stop.signal);
  try {
    return (await add()) ?? (await outcome);
  } finally {
    stop.abort();
  }
}
