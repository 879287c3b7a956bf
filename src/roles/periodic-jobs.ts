import { schedule, validate } from 'node-cron';
import { StartupError } from '../kernel/errors.js';
import type { HealthJobQueue } from '../health/health-requests.js';
import { jobIds, JobName } from '../kernel/jobs/catalogue.js';
import type { JobQueue } from '../kernel/jobs/job-queue.port.js';
import type { Logger } from '../kernel/logging/logger.js';

/** Port: the checkpoint cleanups on the `chat` queue. */
export type CleanupJobQueue = Pick<JobQueue<JobName.CheckpointCleanup>, 'add'>;

export interface SchedulerOptions {
  /** CHECKPOINT_CLEANUP_CRON. */
  cleanupCron: string;
  queue: CleanupJobQueue;
  logger: Logger;
  /** MCP server health rounds (HEALTH_CRON); none when left out. */
  health?: { cron: string; queue: Pick<HealthJobQueue, 'add'>; servers: HealthRoundServers };
}

/** The ids of the servers a round checks (every server not in Maintenance). */
export type HealthRoundServers = () => Promise<string[]>;

/** Jobs added at once while enqueuing a round. */
const ROUND_BATCH = 500;

export interface RunningScheduler {
  stop(): Promise<void>;
}

/**
 * Enqueues the checkpoint cleanup for one cron slot. The job id names the slot (to the minute), so
 * any number of schedulers enqueue it once while the finished job is kept.
 */
export async function enqueueCleanup(queue: CleanupJobQueue, slot: Date, logger: Logger): Promise<string> {
  const minute = new Date(Math.floor(slot.getTime() / 60_000) * 60_000);
  const jobId = jobIds.checkpointCleanup(minute);
  await queue.add({ name: JobName.CheckpointCleanup, data: { slot: minute.toISOString() } }, jobId);
  logger.info('checkpoint cleanup enqueued', { job_id: jobId });
  return jobId;
}

/**
 * Enqueues one health check per server for one cron slot. Job ids name the server and the slot (to
 * the second), so any number of schedulers enqueue each check once while the finished job is kept.
 */
export async function enqueueHealthRound(
  queue: Pick<HealthJobQueue, 'add'>,
  servers: HealthRoundServers,
  slot: Date,
  logger: Logger,
): Promise<number> {
  const second = new Date(Math.floor(slot.getTime() / 1_000) * 1_000);
  const ids = await servers();
  for (let start = 0; start < ids.length; start += ROUND_BATCH) {
    await Promise.all(
      ids
        .slice(start, start + ROUND_BATCH)
        .map((serverId) =>
          queue.add({ name: JobName.HealthCheck, data: { serverId, reason: 'scheduled' } }, jobIds.healthScheduled(serverId, second)),
        ),
    );
  }
  logger.debug('health round enqueued', { slot: second.toISOString(), servers: ids.length });
  return ids.length;
}

/** `aiops scheduler`: node-cron enqueuing periodic jobs; the workers run them. */
export function startScheduler({ cleanupCron, queue, logger, health }: SchedulerOptions): RunningScheduler {
  if (!validate(cleanupCron))
    throw new StartupError(`invalid configuration: CHECKPOINT_CLEANUP_CRON '${cleanupCron}' is not a cron expression`);
  if (health && !validate(health.cron))
    throw new StartupError(`invalid configuration: HEALTH_CRON '${health.cron}' is not a cron expression`);
  const task = schedule(
    cleanupCron,
    (context) =>
      enqueueCleanup(queue, context.date, logger).catch((error: unknown) =>
        logger.warn('checkpoint cleanup not enqueued; the next slot will try again', { error: (error as Error).message }),
      ),
    { name: 'checkpoint-cleanup', noOverlap: true },
  );
  const tasks = [task];
  if (health) {
    tasks.push(
      schedule(
        health.cron,
        (context) =>
          enqueueHealthRound(health.queue, health.servers, context.date, logger).then(
            () => undefined,
            (error: unknown) => logger.warn('health round not enqueued; the next slot will try again', { error: (error as Error).message }),
          ),
        { name: 'mcp-health', noOverlap: true },
      ),
    );
  }
  logger.info('scheduler started', { checkpoint_cleanup: cleanupCron, health: health?.cron ?? 'off' });
  return {
    async stop() {
      for (const each of tasks) {
        await each.stop();
        await each.destroy();
      }
    },
  };
}
