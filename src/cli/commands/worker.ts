import { startWorkers } from '../../roles/worker.js';
import type { Config } from '../../roles/config.js';
import { QUEUE_NAMES, type QueueName } from '../../roles/job-catalogue.js';
import { createLogger } from '../../kernel/logging/logger.js';
import { createMetrics, serveMetrics } from '../../kernel/metrics/metrics.js';
import { untilSignal, VERSION, warnOnOldNode } from '../process.js';

export interface WorkerCommandOptions {
  queues?: QueueName[];
  concurrency?: number;
}

/** `aiops worker`: runs the queues' workers until SIGINT or SIGTERM, then lets active jobs finish. */
export async function runWorker(config: Config, options: WorkerCommandOptions): Promise<number> {
  const logger = createLogger({ level: config.logLevel, defaultMeta: { role: 'worker' } });
  warnOnOldNode(logger);
  const stopped = untilSignal(logger, config.http);
  const metrics = createMetrics();
  const workers = await startWorkers(config, logger, {
    queues: options.queues ?? [...QUEUE_NAMES],
    concurrency: options.concurrency,
    version: VERSION,
    metrics,
    reportRedis: true,
  });
  const { metricsPort } = config.http;
  const exporter = metricsPort === undefined ? undefined : await serveMetrics(metrics, config.http.host, metricsPort);
  await stopped;
  await workers.close();
  await exporter?.close();
  return 0;
}
