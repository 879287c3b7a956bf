import type { Config } from '../../shared/config/config.js';
import { createLogger, type Logger } from '../../shared/logging/logger.js';
import { createMetrics, serveMetrics, type Metrics } from '../../shared/metrics/metrics.js';
import { QUEUE_NAMES, type QueueName } from '../../workers/jobs.js';
import { startWorkers } from '../../workers/workers.js';
import { untilSignal, VERSION } from '../runtime.js';
import { openScheduler } from './scheduler.js';

export interface WorkerCommandOptions {
  queues?: QueueName[];
  concurrency?: number;
}

/** `aiops worker`: runs the queues' workers until SIGINT or SIGTERM, then lets active jobs finish. */
export async function runWorker(config: Config, options: WorkerCommandOptions): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role: 'worker' } });
  const metrics = createMetrics();
  const workers = await startWorkers(config, logger, { queues: options.queues ?? [...QUEUE_NAMES], concurrency: options.concurrency, version: VERSION, metrics });
  const { metricsPort } = config.http;
  const exporter = metricsPort === undefined ? undefined : await serveMetrics(metrics, config.http.host, metricsPort);
  await untilSignal(logger);
  await workers.close();
  await exporter?.close();
  return 0;
}

/** The background roles `aiops start` runs beside the API: every queue's worker and the scheduler. */
export async function startBackgroundRoles(config: Config, logger: Logger, metrics: Metrics): Promise<{ close(): Promise<void> }> {
  const workers = await startWorkers(config, logger, { queues: [...QUEUE_NAMES], version: VERSION, metrics });
  const scheduler = openScheduler(config, logger);
  return {
    async close() {
      await scheduler.stop();
      await workers.close();
    },
  };
}
