import { Worker, type Job } from 'bullmq';
import type { Logger } from '../../logging/logger.js';
import { subscribeToChannel } from '../redis/redis-subscription.js';
import { bullConnection, queuePrefix, stopChannel, type RedisEndpoint } from './bullmq-connection.js';
import type { QueueItem } from './bullmq-queue.adapter.js';

/** Thrown by a processor for a fault retrying cannot fix (a missing model or secret): no more attempts. */
export { UnrecoverableError } from 'bullmq';

/** What a processor sees of a job, one variant per job name so a `switch (job.name)` narrows `data`. */
export type JobContext<Item extends QueueItem, Progress> = Item extends QueueItem
  ? {
      id: string;
      name: Item['name'];
      data: Item['data'];
      /** Attempts already made before this one. */
      attemptsMade: number;
      /** Aborted when the job is stopped (BullQueue.stop), already at the start if it was stopped before. */
      signal: AbortSignal;
      progress(data: Progress): Promise<void>;
      logger: Logger;
    }
  : never;

/** Told how each attempt ended (for metrics): its queue, how long it ran and why it failed. */
export interface JobObserver {
  settled(queue: string, seconds: number, outcome: 'completed' | 'failed', reason?: 'unrecoverable' | 'retrying' | 'exhausted'): void;
}

export interface QueueWorkerOptions {
  queueName: string;
  connection: RedisEndpoint;
  keyPrefix: string;
  concurrency: number;
  logger: Logger;
  /** How long a job's lock lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  /** How often stalled jobs (of killed workers) are looked for. */
  stalledIntervalMs?: number;
  observer?: JobObserver;
  /** Hear BullQueue.stop for the jobs this worker runs: their processor's signal aborts. */
  stoppable?: boolean;
}

/** The abort reason a stopped job's signal carries. */
export const STOPPED = 'stopped';
/** A stop heard for a job not running here yet (it may be on its way to this worker) is kept this long. */
const EARLY_STOP_MS = 30_000;

function runSeconds(job: Job): number {
  return job.processedOn && job.finishedOn ? (job.finishedOn - job.processedOn) / 1_000 : 0;
}

/** One BullMQ worker on one queue, with an error listener and one log line per failed attempt. */
export class QueueWorker<Item extends QueueItem, Result, Progress> {
  private readonly worker: Worker;
  /** Stops heard before their job ran here: job id -> when the stop is forgotten. */
  private readonly earlyStops = new Map<string, number>();
  private readonly stopListening?: () => void;

  constructor(options: QueueWorkerOptions, processor: (job: JobContext<Item, Progress>) => Promise<Result>) {
    const { logger, queueName } = options;
    this.worker = new Worker(
      queueName,
      async (job: Job, _token, signal) =>
        processor({
          id: job.id ?? '',
          name: job.name,
          data: job.data,
          attemptsMade: job.attemptsMade,
          signal: this.stoppedEarly(job.id ?? '') ? AbortSignal.abort(STOPPED) : (signal ?? new AbortController().signal),
          progress: (data: Progress) => job.updateProgress(data as object),
          logger: logger.child({ job_id: job.id, queue: queueName }),
        } as JobContext<Item, Progress>),
      {
        connection: bullConnection(options.connection, 'worker'),
        prefix: queuePrefix(options.keyPrefix),
        concurrency: options.concurrency,
        ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
        ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      },
    );
    this.worker.on('error', (error) => logger.warn('worker error', { queue: queueName, error: error.message }));
    this.worker.on('failed', (job, error) => {
      logger.warn('job attempt failed', { queue: queueName, job_id: job?.id, job_name: job?.name, attempt: job?.attemptsMade, error: error.message });
      if (!job) return;
      const final = error.name === 'UnrecoverableError' ? 'unrecoverable' : job.attemptsMade >= (job.opts.attempts ?? 1) ? 'exhausted' : 'retrying';
      options.observer?.settled(queueName, runSeconds(job), 'failed', final);
    });
    const { observer } = options;
    if (observer) this.worker.on('completed', (job) => observer.settled(queueName, runSeconds(job), 'completed'));
    if (options.stoppable) {
      this.stopListening = subscribeToChannel(bullConnection(options.connection, 'worker'), stopChannel(options.keyPrefix, queueName), {
        message: (jobId) => this.stop(jobId),
        live: () => undefined,
        lost: () => undefined,
      });
    }
  }

  private stop(jobId: string): void {
    if (this.worker.cancelJob(jobId, STOPPED)) return;
    const now = Date.now();
    for (const [id, until] of this.earlyStops) if (until <= now) this.earlyStops.delete(id);
    this.earlyStops.set(jobId, now + EARLY_STOP_MS);
  }

  private stoppedEarly(jobId: string): boolean {
    const until = this.earlyStops.get(jobId);
    this.earlyStops.delete(jobId);
    return until !== undefined && until > Date.now();
  }

  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /** Stops taking jobs and waits for the active ones to finish. */
  async close(): Promise<void> {
    this.stopListening?.();
    await this.worker.close();
  }
}
