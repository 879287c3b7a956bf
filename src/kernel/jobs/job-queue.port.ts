import type { Logger } from '../logging/logger.js';
import type { JobKind, JobOf } from './job-kind.js';

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

/** Port: the producer side of the jobs J (all on one queue), as services use it. Implemented over BullMQ. */
export interface JobQueue<J extends JobKind> {
  /** Adds the job unless one with this id exists (then it is left alone). */
  add(job: JobOf<J>, jobId: string): Promise<void>;
  /**
   * Adds the job unless one with the same `deduplicationId` is queued or running, whatever its id:
   * then that one is joined. Resolves to the id of the job that runs (see joinAndWait).
   */
  addDeduplicated(job: JobOf<J>, jobId: string, deduplicationId: string): Promise<string>;
  /** The job with this id, if it is one of the jobs J. */
  get(jobId: string): Promise<JobSnapshot<J['data'], J['result'], J['progress']> | null>;
  /**
   * Resolves when the job finishes, or with null after `timeoutMs` or when `signal` aborts. Only
   * events from now on count: call it before `add` (or before reading the job's state), so that a
   * job finishing at once is not missed (see addAndWait).
   */
  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<J['result']> | null>;
  /** Calls `listener` for each event of this job from now on; returns the unsubscribe function. */
  watch(jobId: string, listener: (event: JobEvent<J['result'], J['progress']>) => void): () => void;
  /** Calls `listener` with each job's id and outcome as it finishes, from now on; returns the unsubscribe function. */
  watchOutcomes(listener: (jobId: string, outcome: JobOutcome<J['result']>) => void): () => void;
  /**
   * Stops a job that has not finished: dropped if still queued (its waiters hear it failed),
   * otherwise its worker's signal aborts. Check it is not over first.
   */
  stop(jobId: string): Promise<void>;
  /** Runs a parked job (see JobContext.park) now; a job not parked is left alone. */
  resume(jobId: string): Promise<void>;
}

/** Port: what a processor sees of a job, one variant per kind so a `switch (job.name)` narrows `data`. */
export type JobContext<J extends JobKind> = J extends JobKind
  ? {
      id: string;
      name: J['name'];
      data: J['data'];
      /** Attempts already made before this one. */
      attemptsMade: number;
      /**
       * No run of this job started before this one (no retry, no earlier run of a parked job, no run
       * taken over from a killed worker), so none left anything behind; absent where it is not known.
       */
      firstRun?: boolean;
      /** For a job its queue's scheduler added: when it was due (its cron slot), the same on every attempt. */
      slot?: Date;
      /** Aborted when the job is stopped (JobQueue.stop), already at the start if it was stopped before. */
      signal: AbortSignal;
      progress(data: J['progress']): Promise<void>;
      /** The job's last progress report, from an earlier run (a parked or retried job). */
      previousProgress?: J['progress'];
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
