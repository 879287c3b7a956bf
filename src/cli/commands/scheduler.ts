import type { Config } from '../../roles/config.js';
import { createLogger } from '../../kernel/logging/logger.js';

/**
 * `aiops scheduler`, kept so that a deployment still starting it does not fail: periodic jobs are
 * BullMQ job schedulers now, set by the workers of their queues. Says so and ends.
 */
export async function runScheduler(config: Config): Promise<number> {
  createLogger({ level: config.logLevel, defaultMeta: { role: 'scheduler' } }).warn(
    'aiops scheduler is no longer needed and does nothing: periodic jobs are scheduled by the workers (aiops worker, aiops start); remove this service',
  );
  return 0;
}
