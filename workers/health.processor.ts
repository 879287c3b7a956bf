import type { JobContext } from '../shared/adapters/bullmq/bullmq-worker.adapter.js';
import type { HealthCheckResult, HealthCheckService } from '../shared/health/health-check.service.js';
import type { HealthQueueItem } from './jobs.js';

export type HealthJob = JobContext<HealthQueueItem, never>;

/**
 * The processor of the `health` queue. A failing server is a result, not a job failure; the job
 * fails (and is retried) only when the records cannot be read or written.
 */
export function healthProcessor(deps: { health: Pick<HealthCheckService, 'check'> }): (job: HealthJob) => Promise<HealthCheckResult> {
  return (job) => deps.health.check(job.data.serverId, job.data.reason, job.logger);
}
