import type { Logger } from '../logging/logger.js';
import type { DataOf, JobName, JobOf, ProgressOf, ResultOf } from './catalogue.js';

export type JobState = 'queued' | 'active' | 'completed' | 'failed';

export interface JobSnapshot<D, R, P = never> {
  id: string;
  state: JobState;
  data: D;
  result?: R;
  /** The job's latest progress report, if any. */
  progress?: P;
  /** The job's failure reason as stored (see job-failure.ts). */
  failedReason?: string;
}

export type JobOutcome<R> = { state: 'completed'; result: R } | { state: 'failed'; failedReason: string };

export type JobEvent<R, P> =
  | { type: 'queued' }
  | { type: 'active' }
  | { type: 'progress'; data: P }
  | { type: 'completed'; result: R }
  | { type: 'failed'; failedReason: string };

/** Port: the producer side of the jobs named N (all on one queue), as services use it. Implemented over BullMQ. */
export interface JobQueue<N extends JobName> {
  /** Adds the job unless one with this id exists (then it is left alone). */
  add(job: JobOf<N>, jobId: string): Promise<void>;
  /** The job with this id, if it is one of the jobs named N. */
  get(jobId: string): Promise<JobSnapshot<DataOf<N>, ResultOf<N>, ProgressOf<N>> | null>;
  /**
   * Resolves when the job finishes, or with null after `timeoutMs` or when `signal` aborts. Only
   * events from now on count: call it before `add` (or before reading the job's state), so that a
   * job finishing at once is not missed (see addAndWait).
   */
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<ResultOf<N>> | null>;
  /** Calls `listener` for each event of this job from now on; returns the unsubscribe function. */
  watch(jobId: string, listener: (event: JobEvent<ResultOf<N>, ProgressOf<N>>) => void): () => void;
  /**
   * Stops a job that has not finished: dropped if still queued (its waiters hear it failed),
   * otherwise its worker's signal aborts. Check it is not over first.
   */
  stop(jobId: string): Promise<void>;
  /** Runs a parked job (see JobContext.park) now; a job not parked is left alone. */
  resume(jobId: string): Promise<void>;
}

/** Port: what a processor sees of a job, one variant per job name so a `switch (job.name)` narrows `data`. */
export type JobContext<Item extends { name: string; data: unknown }, Progress> = Item extends unknown
  ? {
      id: string;
      name: Item['name'];
      data: Item['data'];
      /** Attempts already made before this one. */
      attemptsMade: number;
      /** Aborted when the job is stopped (JobQueue.stop), already at the start if it was stopped before. */
      signal: AbortSignal;
      progress(data: Progress): Promise<void>;
      /** The job's last progress report, from an earlier run (a parked or retried job). */
      previousProgress?: Progress;
      /**
       * Sets the job aside until `untilMs` (or JobQueue.resume), holding no worker: throws
       * JobParkedError, which the handler lets through; the job runs again from the start.
       * `wakeIf` is asked once the job is aside: true runs it at once (what it waits for came
       * while it was being set aside, when a resume could not reach it yet).
       */
      park(untilMs: number, wakeIf?: () => Promise<boolean>): Promise<never>;
      logger: Logger;
    }
  : never;

/** The job of name N as its processor's handler sees it. */
export type JobContextOf<N extends JobName> = JobContext<JobOf<N>, ProgressOf<N>>;
