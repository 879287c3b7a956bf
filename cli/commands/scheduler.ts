import { endpointFromUrl } from '../../shared/adapters/bullmq/bullmq-connection.js';
import type { Config } from '../../shared/config/config.js';
import { createLogger, type Logger } from '../../shared/logging/logger.js';
import { openChatQueue } from '../../workers/queues.js';
import { startScheduler } from '../../workers/scheduler.js';
import { untilSignal } from '../runtime.js';

/** The scheduler with the queue it enqueues on; `stop` ends both. */
export function openScheduler(config: Config, logger: Logger): { stop(): Promise<void> } {
  const queue = openChatQueue({ connection: endpointFromUrl(config.redis.url), keyPrefix: config.redis.keyPrefix, logger, events: false });
  try {
    const scheduler = startScheduler({ cleanupCron: config.chat.cleanupCron, queue, logger });
    return {
      async stop() {
        await scheduler.stop();
        await queue.close();
      },
    };
  } catch (error) {
    void queue.close();
    throw error;
  }
}

/** `aiops scheduler`: enqueues periodic jobs (checkpoint cleanup). Safe to run more than once. */
export async function runScheduler(config: Config): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role: 'scheduler' } });
  const scheduler = openScheduler(config, logger);
  await untilSignal(logger);
  await scheduler.stop();
  return 0;
}
