import { createRecords } from '../records/adapters/redis-records.js';
import type { TokenService } from '../records/auth/token.service.js';
import type { Config } from './config.js';
import type { Logger } from '../kernel/logging/logger.js';
import { connectRedis } from './redis.js';

/** `aiops token`: the token service on a Redis that must answer now (a one-line error otherwise). */
export async function openTokenService(
  config: Pick<Config, 'redis' | 'dataDir'>,
  logger: Logger,
): Promise<{ tokens: TokenService; close: () => Promise<void> }> {
  const redis = await connectRedis(config, logger, { role: 'request', whenUnreachable: 'require' });
  return {
    tokens: createRecords(redis.client, config.redis.keyPrefix, undefined, config.redis.replicaWait).tokens,
    close: () => redis.close(),
  };
}
