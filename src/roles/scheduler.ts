import { jobQueue, openQueue } from '../kernel/bullmq/job-queue.adapter.js';
import { createRedisClient } from '../kernel/redis/redis-client.js';
import type { Config } from '../kernel/config/config.js';
import { serversToCheck } from '../health/health-requests.js';
import { JobName, QueueName } from '../kernel/jobs/catalogue.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createRecords } from '../records/adapters/redis-records.js';
import { startScheduler } from './periodic-jobs.js';
import { reportRedis } from './redis.js';

/**
 * The scheduler role (`aiops scheduler`): node-cron with the queues it enqueues on (add only, no
 * event readers) and the records it reads; `stop` ends them all. `reportRedis`: say which Redis it
 * uses, or that it is unreachable (`aiops start` says it once for every role).
 */
export function openScheduler(
  config: Pick<Config, 'redis' | 'chat' | 'health'>,
  logger: Logger,
  { reportRedis: report = false } = {},
): { stop(): Promise<void> } {
  const redis = createRedisClient({ topology: config.redis.topology, role: 'request', logger, connectionName: 'aiops-scheduler' });
  if (report) void reportRedis(redis, config.redis.topology, logger, 'no periodic job is enqueued');
  const options = { connection: redis, keyPrefix: config.redis.keyPrefix, logger, events: false };
  const chatQueue = openQueue(QueueName.Chat, options);
  const healthQueue = openQueue(QueueName.Health, options);
  const close = async () => {
    await Promise.all([chatQueue.close(), healthQueue.close()]);
    redis.disconnect();
  };
  try {
    const servers = serversToCheck(createRecords(redis, config.redis.keyPrefix).mcpServers);
    const scheduler = startScheduler({
      cleanupCron: config.chat.cleanupCron,
      queue: jobQueue(chatQueue, JobName.CheckpointCleanup),
      logger,
      health: { cron: config.health.cron, queue: jobQueue(healthQueue, JobName.HealthCheck), servers },
    });
    return {
      async stop() {
        await scheduler.stop();
        await close();
        logger.info('scheduler stopped');
      },
    };
  } catch (error) {
    void close();
    throw error;
  }
}
