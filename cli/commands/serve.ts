import { startApiServer } from '../../api/server.js';
import { loadKnowledgeConfig, type Config } from '../../shared/config/config.js';
import { createLogger } from '../../shared/logging/logger.js';
import { createMetrics } from '../../shared/metrics/metrics.js';
import { connectRedis, untilSignal, VERSION } from '../runtime.js';
import { startBackgroundRoles } from './worker.js';

/**
 * `aiops api` and `aiops start`. `start` is the all-in-one default for one machine: it runs a
 * private Redis when none is reachable and runs the workers and the scheduler in this process.
 */
export async function serve(config: Config, { role, port }: { role: 'api' | 'start'; port?: number }): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role } });
  const redis = await connectRedis(config, logger, { role: 'request', whenUnreachable: role === 'start' ? 'embed' : 'tolerate' });
  const knowledge = loadKnowledgeConfig();
  // One registry: in `start` the workers' job and provider metrics appear on the API's /metrics.
  const metrics = createMetrics();
  const api = await startApiServer({
    config,
    redis: redis.client,
    logger,
    version: VERSION,
    port,
    metrics,
    knowledge: { dataDir: config.dataDir, jobWaitMs: knowledge.jobWaitMs },
  });
  // `start` is every role in one process: the chat workers and the scheduler run beside the API.
  const background = role === 'start' ? await startBackgroundRoles(config, logger, metrics) : undefined;
  await untilSignal(logger);
  await api.close();
  await background?.close();
  await redis.close();
  return 0;
}
