import type { JobKind } from '../jobs/job-kind.js';
import type { PeriodicJob } from '../jobs/periodic-job.js';
import type { Logger } from '../logging/logger.js';
import type { RedisClient } from '../redis/redis-client.js';
import type { BullQueue } from './bullmq-queue.adapter.js';

/** A periodic job bound to the queue whose scheduler keeps it. */
export interface Schedule {
  setting: string;
  pattern: string;
  set(): Promise<void>;
}

/** The schedules of `queue`'s periodic jobs. */
export function schedulesOf<J extends JobKind>(queue: Pick<BullQueue<J>, 'schedule'>, periodic: ReadonlyArray<PeriodicJob<J>>): Schedule[] {
  return periodic.map(({ job, setting, pattern }) => ({ setting, pattern, set: () => queue.schedule(job, pattern) }));
}

/**
 * Keeps `jobs` in BullMQ's job schedulers: set once `redis` is ready, and again whenever it comes
 * back, so a Redis that lost its data gets them back without a restart. Setting them is
 * idempotent: any number of processes do, and each time's job is added once. `ready` resolves once
 * they were set; `stop` stops setting them (they stay in Redis for the other workers).
 */
export function keepScheduled(jobs: Schedule[], redis: RedisClient, logger: Logger): { ready: Promise<void>; stop(): void } {
  if (jobs.length === 0) return { ready: Promise.resolve(), stop: () => undefined };
  let stopped = false;
  let scheduled!: () => void;
  const ready = new Promise<void>((resolve) => (scheduled = resolve));
  const schedule = () =>
    void Promise.all(jobs.map((job) => job.set())).then(
      () => {
        logger.info('periodic jobs scheduled', Object.fromEntries(jobs.map((job) => [job.setting, job.pattern])));
        scheduled();
      },
      (error: unknown) => {
        if (!stopped) logger.warn('periodic jobs not scheduled; tried again when Redis reconnects', { error: (error as Error).message });
      },
    );
  redis.on('ready', schedule);
  if (redis.status === 'ready') schedule();
  return {
    ready,
    stop() {
      stopped = true;
      redis.off('ready', schedule);
    },
  };
}
