import type { HealthCheckService } from './health-check.service.js';
import { JobName, type QueueName } from '../kernel/jobs/catalogue.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';

/**
 * The processor of the `health` queue. A failing server is a result, not a job failure; the job
 * fails (and is retried) only when the records cannot be read or written.
 */
export function healthProcessor(deps: { health: Pick<HealthCheckService, 'check'> }): QueueProcessor<QueueName.Health> {
  return queueProcessor<QueueName.Health>(
    { [JobName.HealthCheck]: (job) => deps.health.check(job.data.serverId, job.data.reason, job.logger) },
    (error) =>
      new JobFailedError(failureOf(error) ?? { kind: 'internal', message: error instanceof Error ? error.message : String(error) }, false),
  );
}
