import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { JobFailedError, JobParkedError } from '../jobs/job-failure.js';
import type { JobKind, JobOf } from '../jobs/job-kind.js';
import type { JobContext } from '../jobs/job-queue.port.js';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { isClustered, type RedisClient } from '../redis/redis-client.js';
import { subscribeToChannel } from '../redis/redis-subscription.js';
import { bullConnection, hearLateErrors, queuePrefix, stopChannel, stoppedJobKey } from './bullmq-connection.js';
import { quietErrorLog } from './error-log.js';

/** Told how each attempt ended (for metrics): its queue, how long it ran and why it failed. */
export interface JobObserver {
  settled(queue: string, seconds: number, outcome: 'completed' | 'failed', reason?: 'unrecoverable' | 'retrying' | 'exhausted'): void;
}

/** Job outcomes into `aiops_job_duration_seconds` and `aiops_job_failures_total`. */
export function jobObserver(metrics: Metrics): JobObserver {
  return {
    settled(queue, seconds, outcome, reason) {
      metrics.jobDuration.observe({ queue, outcome }, seconds);
      if (outcome === 'failed') metrics.jobFailures.inc({ queue, reason: reason ?? 'retrying' });
    },
  };
}

export interface QueueWorkerOptions {
  queueName: string;
  /** A client whose server (or servers) and login the worker's own connections copy. */
  connection: RedisClient;
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

/**
 * Told of each job that failed for good, whatever ended it (its last attempt, a permanent failure,
 * or BullMQ's stall limit, which fails a job twice abandoned by a killed worker without running it).
 */
export type FailedForGood<J extends JobKind> = (job: JobOf<J>) => Promise<void>;

/** The abort reason a stopped job's signal carries. */
export const STOPPED = 'stopped';
/** A stop heard for a job not running here yet (it may be on its way to this worker) is kept this long. */
const EARLY_STOP_MS = 30_000;

export interface WorkerCloseOptions {
  /** How long active jobs may run on; still running then, they are left to another worker (see `close`). */
  withinMs?: number;
  /** False when Redis is away: nothing can finish, so the connections are dropped at once. */
  redisReachable?: boolean;
}

/**
 * How long the worker waits to fetch again after a fetch failed (Redis gone, a failover): BullMQ's
 * 15 s default left a worker idle for up to 15 s after its Redis was back; the client's own
 * reconnection backoff already keeps the retries from spinning.
 */
const RUN_RETRY_DELAY_MS = 1_000;

function runSeconds(job: Job): number {
  return job.processedOn && job.finishedOn ? (job.finishedOn - job.processedOn) / 1_000 : 0;
}

/** One BullMQ worker on one queue, with an error listener and one log line per failed attempt. */
export class QueueWorker<J extends JobKind> {
  private readonly worker: Worker;
  /** The worker's non-blocking connection: BullMQ leaves a connection it was given open, and we close it. */
  private readonly connection: RedisClient;
  /** Stops heard before their job ran here: job id -> when the stop is forgotten. */
  private readonly earlyStops = new Map<string, number>();
  private readonly stopListening?: () => void;
  private readonly logger: Logger;
  private readonly queueName: string;
  private readonly keyPrefix: string;
  private readonly stoppable: boolean;

  constructor(options: QueueWorkerOptions, processor: (job: JobContext<J>) => Promise<J['result']>, failedForGood?: FailedForGood<J>) {
    const { logger, queueName } = options;
    this.logger = logger;
    this.queueName = queueName;
    this.keyPrefix = options.keyPrefix;
    this.stoppable = options.stoppable === true;
    this.connection = bullConnection(options.connection, 'worker');
    this.worker = new Worker(
      queueName,
      async (job: Job, token, signal) => {
        try {
          return await processor({
            id: job.id ?? '',
            name: job.name,
            data: job.data,
            attemptsMade: job.attemptsMade,
            // BullMQ counts every start (a retry, a parked job run again, a stalled one taken over) before the processor runs.
            firstRun: job.attemptsStarted === 1,
            // BullMQ names a scheduler's job by the time it was due and keeps that time in its options.
            ...(job.repeatJobKey && job.opts.prevMillis !== undefined ? { slot: new Date(job.opts.prevMillis) } : {}),
            signal: (await this.stoppedBefore(job)) ? AbortSignal.abort(STOPPED) : (signal ?? new AbortController().signal),
            progress: (data: J['progress']) => job.updateProgress(data as object),
            ...(typeof job.progress === 'object' && job.progress !== null ? { previousProgress: job.progress } : {}),
            park: async (untilMs: number, wakeIf?: () => Promise<boolean>) => {
              await job.moveToDelayed(untilMs, token);
              // A second promote (JobQueue.resume got there too) finds it no longer delayed.
              if (await wakeIf?.()) await job.promote().catch(() => undefined);
              throw new JobParkedError();
            },
            logger: logger.child({ job_id: job.id, queue: queueName }),
          } as JobContext<J>);
        } catch (error) {
          // Moved to the delayed set: BullMQ leaves it there when told so.
          if (error instanceof JobParkedError) throw new DelayedError();
          // A fault retrying cannot fix (a missing model or secret): no more attempts.
          throw error instanceof JobFailedError && error.permanent ? new UnrecoverableError(error.message) : error;
        }
      },
      {
        connection: this.connection,
        prefix: queuePrefix(options.keyPrefix, queueName, isClustered(options.connection)),
        concurrency: options.concurrency,
        runRetryDelay: RUN_RETRY_DELAY_MS,
        ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
        ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      },
    );
    hearLateErrors(this.worker);
    this.worker.on('error', quietErrorLog(logger, 'worker error', { queue: queueName }));
    this.worker.on('failed', (job, error) => {
      logger.warn('job attempt failed', {
        queue: queueName,
        job_id: job?.id,
        job_name: job?.name,
        attempt: job?.attemptsMade,
        error: error.message,
      });
      if (!job) return;
      const final =
        error.name === 'UnrecoverableError' ? 'unrecoverable' : job.attemptsMade >= (job.opts.attempts ?? 1) ? 'exhausted' : 'retrying';
      options.observer?.settled(queueName, runSeconds(job), 'failed', final);
      if (final === 'retrying' || !failedForGood) return;
      failedForGood({ name: job.name, data: job.data as unknown } as JobOf<J>).catch((cleanupError: unknown) =>
        logger.warn('cleanup after a failed job failed', {
          queue: queueName,
          job_id: job.id,
          error: cleanupError instanceof Error ? cleanupError.message : String(cleanupError),
        }),
      );
    });
    const { observer } = options;
    if (observer) this.worker.on('completed', (job) => observer.settled(queueName, runSeconds(job), 'completed'));
    if (options.stoppable) {
      this.stopListening = subscribeToChannel(options.connection, stopChannel(options.keyPrefix, queueName), {
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

  /** Stopped before this run began: heard here, or marked while it waited after an earlier run (see BullQueue.stop). */
  private async stoppedBefore(job: Job): Promise<boolean> {
    const jobId = job.id ?? '';
    if (this.stoppedEarly(jobId)) return true;
    if (!this.stoppable || job.attemptsStarted <= 1) return false;
    return (await this.connection.exists(stoppedJobKey(this.keyPrefix, this.queueName, jobId))) === 1;
  }

  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /**
   * Stops taking jobs and waits for the active ones to finish, up to `withinMs`. A job still running
   * then keeps running until the process exits; its lock lapses and BullMQ's stalled-job check hands
   * it to another worker (jobs are idempotent under retry). Without Redis nothing could finish or be
   * handed back, so the connections are dropped at once.
   */
  async close({ withinMs, redisReachable = true }: WorkerCloseOptions = {}): Promise<void> {
    this.stopListening?.();
    if (!redisReachable) {
      await this.worker.close(true);
      return this.connection.disconnect();
    }
    const closed = this.worker.close().then(
      () => true,
      () => true,
    );
    // Its connection goes once the worker is done (a job left running still needs it).
    void closed.then(() => this.connection.disconnect());
    if (withinMs === undefined) {
      await closed;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([closed, new Promise<boolean>((resolve) => (timer = setTimeout(resolve, withinMs, false)))]);
    clearTimeout(timer);
    if (!finished)
      this.logger.warn('jobs still running at shutdown are left to another worker', { queue: this.queueName, waited_ms: withinMs });
  }
}
