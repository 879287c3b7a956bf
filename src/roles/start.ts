import type { RedisClient } from '../kernel/redis/redis-client.js';
import type { Config } from './config.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createMetrics } from '../kernel/metrics/metrics.js';
import { startApiServer } from './api.js';
import { QUEUE_NAMES } from './job-catalogue.js';
import { announcePlatform } from './platform.js';
import { startWorkers } from './worker.js';

/**
 * `aiops start`, every role in one process: the API and every queue's worker (with the queues'
 * periodic jobs). One metrics registry, so the workers' job and provider metrics appear on the API's /metrics.
 */
export async function startAllRoles(
  config: Config,
  { redis, logger, version, port }: { redis: RedisClient; logger: Logger; version: string; port?: number },
): Promise<{ close(): Promise<void> }> {
  const metrics = createMetrics();
  const api = await startApiServer({ config, redis, logger, version, port, metrics });
  // A role that fails to start (a custom provider module that does not load, say) stops the
  // ones already running: the process ends rather than serving half of the service.
  let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
  try {
    workers = await startWorkers(config, logger, { queues: [...QUEUE_NAMES], version, metrics, apiUrl: `http://127.0.0.1:${api.port}` });
    const running = workers;
    // This service as the platform is reached at the port the API really listens on (`--port`).
    announcePlatform(config.platform.isSelf ? { ...config.platform, url: `http://127.0.0.1:${api.port}` } : config.platform, logger);
    return {
      async close() {
        await api.close();
        await running.close();
      },
    };
  } catch (error) {
    await workers?.close();
    await api.close();
    throw error;
  }
}
