import { isCronExpression } from '../kernel/config/setting-checks.js';
import { StartupError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';

/** A periodic job of a queue this process works: the setting that says when, its cron pattern, and what sets its scheduler. */
export interface PeriodicJob {
  setting: string;
  pattern: string;
  schedule(): Promise<void>;
}

/** Fails start-up on a cron pattern the job schedulers cannot read (configuration checks it too; a configuration built in code may not). */
export function assertCronSetting(setting: string, pattern: string): void {
  if (!isCronExpression(pattern)) throw new StartupError(`invalid configuration: ${setting} '${pattern}' is not a cron expression`);
}

/**
 * Keeps `jobs` in BullMQ's job schedulers: set once `redis` is ready, and again whenever it comes
 * back, so a Redis that lost its data gets them back without a restart. Setting them is
 * idempotent: any number of processes do, and each time's job is added once. `ready` resolves once
 * they were set; `stop` stops setting them (they stay in Redis for the other workers).
 */
export function keepScheduled(jobs: PeriodicJob[], redis: RedisClient, logger: Logger): { ready: Promise<void>; stop(): void } {
  if (jobs.length === 0) return { ready: Promise.resolve(), stop: () => undefined };
  let stopped = false;
  let scheduled!: () => void;
  const ready = new Promise<void>((resolve) => (scheduled = resolve));
  const schedule = () =>
    void Promise.all(jobs.map((job) => job.schedule())).then(
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
