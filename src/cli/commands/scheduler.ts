import type { Config } from '../../kernel/config/config.js';
import { createLogger } from '../../kernel/logging/logger.js';
import { openScheduler } from '../../roles/scheduler.js';
import { untilSignal } from '../process.js';

/** `aiops scheduler`: enqueues periodic jobs (checkpoint cleanup, MCP health rounds). Safe to run more than once. */
export async function runScheduler(config: Config): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role: 'scheduler' } });
  const stopped = untilSignal(logger, config.http);
  const scheduler = openScheduler(config, logger, { reportRedis: true });
  await stopped;
  await scheduler.stop();
  return 0;
}
