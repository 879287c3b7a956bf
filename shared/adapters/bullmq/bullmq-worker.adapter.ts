import { Worker, type Job } from 'bullmq';
import type { Logger } from '../../logging/logger.js';
import { bullConnection, queuePrefix, type RedisEndpoint } from './bullmq-connection.js';
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
      /** Aborted when the job is cancelled. */
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
}

function runSeconds(job: Job): number {
  return job.processedOn && job.finishedOn ? (job.finishedOn - job.processedOn) / 1_000 : 0;
}

/** One BullMQ worker on one queue, with an error listener and one log line per failed attempt. */
export class QueueWorker<Item extends QueueItem, Result, Progress> {
  private readonly worker: Worker;

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
          signal: signal ?? new AbortController().signal,
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
  }

  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /** Stops taking jobs and waits for the active ones to finish. */
  async close(): Promise<void> {
    await this.worker.close();
  }
}
