import { schedule, validate } from 'node-cron';
import { StartupError } from '../shared/errors.js';
import type { Logger } from '../shared/logging/logger.js';
import { cleanupJobId, JobName } from './jobs.js';
import type { ChatQueue } from './queues.js';

export interface SchedulerOptions {
  /** CHECKPOINT_CLEANUP_CRON. */
  cleanupCron: string;
  queue: Pick<ChatQueue, 'add'>;
  logger: Logger;
}

export interface RunningScheduler {
  stop(): Promise<void>;
}

/**
 * Enqueues the checkpoint cleanup for one cron slot. The job id names the slot (to the minute), so
 * any number of schedulers enqueue it once while the finished job is kept.
 */
export async function enqueueCleanup(queue: Pick<ChatQueue, 'add'>, slot: Date, logger: Logger): Promise<string> {
  const minute = new Date(Math.floor(slot.getTime() / 60_000) * 60_000);
  const jobId = cleanupJobId(minute);
  await queue.add({ name: JobName.CheckpointCleanup, data: { slot: minute.toISOString() } }, jobId);
  logger.info('checkpoint cleanup enqueued', { job_id: jobId });
  return jobId;
}

/** `aiops scheduler`: node-cron enqueuing periodic jobs; the workers run them. */
export function startScheduler({ cleanupCron, queue, logger }: SchedulerOptions): RunningScheduler {
  if (!validate(cleanupCron)) throw new StartupError(`invalid configuration: CHECKPOINT_CLEANUP_CRON '${cleanupCron}' is not a cron expression`);
  const task = schedule(
    cleanupCron,
    (context) =>
      enqueueCleanup(queue, context.date, logger).catch((error: unknown) =>
        logger.warn('checkpoint cleanup not enqueued; the next slot will try again', { error: (error as Error).message }),
      ),
    { name: 'checkpoint-cleanup', noOverlap: true },
  );
  logger.info('scheduler started', { checkpoint_cleanup: cleanupCron });
  return {
    async stop() {
      await task.stop();
      await task.destroy();
    },
  };
}
