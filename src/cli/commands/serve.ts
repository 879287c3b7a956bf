import { startApiServer } from '../../roles/api.js';
import type { Config } from '../../roles/config.js';
import { createLogger } from '../../kernel/logging/logger.js';
import { connectRedis } from '../../roles/redis.js';
import { untilSignal, VERSION, warnOnOldNode } from '../process.js';

/**
 * `aiops api` and `aiops start`. `start` is the all-in-one default for one machine: it runs a
 * private Redis when none is reachable and runs every queue's worker in this process.
 */
export async function serve(config: Config, { role, port }: { role: 'api' | 'start'; port?: number }): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role } });
  warnOnOldNode(logger);
  // Listening from the start: a signal during start-up stops the service once it is up.
  const stopped = untilSignal(logger, config.http);
  const redis = await connectRedis(config, logger, { role: 'request', whenUnreachable: role === 'start' ? 'embed' : 'tolerate' });
  let running: { close(): Promise<void> };
  try {
    // The workers' modules (provider SDKs, MCP clients, the tool server) load only for `start`.
    running =
      role === 'start'
        ? await (await import('../../roles/start.js')).startAllRoles(config, { redis: redis.client, logger, version: VERSION, port })
        : await startApiServer({ config, redis: redis.client, logger, version: VERSION, port });
  } catch (error) {
    // The private Redis too: nothing of a failed start keeps running.
    await redis.close();
    throw error;
  }
  await stopped;
  await running.close();
  await redis.close();
  return 0;
}
