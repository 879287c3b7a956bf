import { endpointFromUrl } from '../../shared/adapters/bullmq/bullmq-connection.js';
import { createRedisClient } from '../../shared/adapters/redis/redis-client.js';
import type { Config } from '../../shared/config/config.js';
import { serversToCheck } from '../../shared/health/health-requests.js';
import { createLogger, type Logger } from '../../shared/logging/logger.js';
import { createRecords } from '../../shared/records/records.js';
import { healthJobQueue, openChatQueue, openHealthQueue } from '../../workers/queues.js';
import { startScheduler } from '../../workers/scheduler.js';
import { untilSignal } from '../runtime.js';

/** The scheduler with the queues it enqueues on (and the records it reads); `stop` ends them all. */
export function openScheduler(config: Config, logger: Logger): { stop(): Promise<void> } {
  const queues = { connection: endpointFromUrl(config.redis.url), keyPrefix: config.redis.keyPrefix, logger, events: false };
  const queue = openChatQueue(queues);
  const healthQueue = openHealthQueue(queues);
  const redis = createRedisClient({ url: config.redis.url, role: 'request', logger, connectionName: 'aiops-scheduler' });
  const close = async () => {
    await Promise.all([queue.close(), healthQueue.close()]);
    redis.disconnect();
  };
  try {
    const servers = serversToCheck(createRecords(redis, config.redis.keyPrefix).mcpServers);
    const scheduler = startScheduler({
      cleanupCron: config.chat.cleanupCron,
      queue,
      logger,
      health: { cron: config.health.cron, queue: healthJobQueue(healthQueue), servers },
    });
    return {
      async stop() {
        await scheduler.stop();
        await close();
      },
    };
  } catch (error) {
    void close();
    throw error;
  }
}

/** `aiops scheduler`: enqueues periodic jobs (checkpoint cleanup, MCP health rounds). Safe to run more than once. */
export async function runScheduler(config: Config): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role: 'scheduler' } });
  const scheduler = openScheduler(config, logger);
  await untilSignal(logger);
  await scheduler.stop();
  return 0;
}
