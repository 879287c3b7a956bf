import { RedisAuditLog } from '../chat/audit/redis-audit-log.adapter.js';
import type { AuditLog } from '../chat/audit/audit-log.port.js';
import type { Config } from './config.js';
import type { Logger } from '../kernel/logging/logger.js';
import { connectRedis } from './redis.js';

/** `aiops audit`: the audit log on a Redis that must answer now (a one-line error otherwise). */
export async function openAuditLog(
  config: Pick<Config, 'redis' | 'dataDir' | 'audit'>,
  logger: Logger,
): Promise<{ log: AuditLog; close: () => Promise<void> }> {
  const redis = await connectRedis(config, logger, { role: 'request', whenUnreachable: 'require' });
  return {
    log: new RedisAuditLog(redis.client, { prefix: config.redis.keyPrefix, retentionMs: config.audit.retentionMs }),
    close: () => redis.close(),
  };
}
