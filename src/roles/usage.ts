import { createRecords } from '../records/adapters/redis-records.js';
import { RedisTokenUsage } from '../chat/usage/redis-token-usage.adapter.js';
import { UsageReportService } from '../chat/usage/usage-report.service.js';
import type { Config } from './config.js';
import type { Logger } from '../kernel/logging/logger.js';
import { connectRedis } from './redis.js';

/** `aiops usage`: the token usage report on a Redis that must answer now (a one-line error otherwise). */
export async function openUsageReport(
  config: Pick<Config, 'redis' | 'dataDir' | 'usage'>,
  logger: Logger,
): Promise<{ report: UsageReportService; close: () => Promise<void> }> {
  const redis = await connectRedis(config, logger, { role: 'request', whenUnreachable: 'require' });
  const { keyPrefix } = config.redis;
  return {
    report: new UsageReportService({
      usage: new RedisTokenUsage(redis.client, { prefix: keyPrefix, retentionDays: config.usage.retentionDays }),
      models: createRecords(redis.client, keyPrefix, undefined, config.redis.replicaWait).llmModels,
    }),
    close: () => redis.close(),
  };
}
