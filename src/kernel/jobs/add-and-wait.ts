import { linkedSignal } from '../linked-signal.js';
import type { JobEvent, JobOutcome } from './job-queue.port.js';

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
  const outcome = queue.waitFor(jobId, timeoutMs, signal ? linkedSignal([stop.signal, signal]).signal : stop.signal);
  let found: JobOutcome<R> | void;
  try {
    found = await add();
  } catch (error) {
    stop.abort();
    throw error;
  }
  if (!found) return outcome;
  // The wait settles by itself otherwise: an abort (and the error object it makes) only when it must stop early.
  stop.abort();
  return found;
}

/** What joinAndWait needs of a queue. */
export interface JoinableQueue<R, P> extends WaitableQueue<R> {
  watch(jobId: string, listener: (event: JobEvent<R, P>) => void): () => void;
  watchOutcomes(listener: (jobId: string, outcome: JobOutcome<R>) => void): () => void;
}

/**
 * Adds a job with `add`, which may join one already queued or running and resolves to the id of
 * the job that runs (see JobQueue.addDeduplicated), and waits up to `timeoutMs` for that job's
 * outcome (null: not finished in time), passing its progress reports to `onProgress`. Which job
 * runs is known only once the add answers, and it may finish before: every outcome of the queue is
 * heard from before the add until that job's own are.
 */
export async function joinAndWait<R, P>(
  queue: JoinableQueue<R, P>,
  add: () => Promise<string>,
  timeoutMs: number,
  onProgress?: (progress: P) => void,
): Promise<{ jobId: string; outcome: JobOutcome<R> | null }> {
  const finished = new Map<string, JobOutcome<R>>();
  const stopHearingAll = queue.watchOutcomes((jobId, outcome) => finished.set(jobId, outcome));
  let jobId: string;
  try {
    jobId = await add();
  } catch (error) {
    stopHearingAll();
    throw error;
  }
  // In the same turn as the add's answer: no event of that job comes between these lines.
  const stop = new AbortController();
  const outcome = queue.waitFor(jobId, timeoutMs, stop.signal);
  const stopProgress = onProgress && queue.watch(jobId, (event) => event.type === 'progress' && onProgress(event.data));
  stopHearingAll();
  try {
    return { jobId, outcome: finished.get(jobId) ?? (await outcome) };
  } finally {
    stop.abort();
    stopProgress?.();
  }
}
