import type { HealthCheckService } from './health-check.service.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';
import { enqueueHealthRound, type RoundCheckQueue, type RoundServers } from './health-rounds.js';
import { HealthJobName, type HealthJob } from './health.jobs.js';

export interface HealthProcessorDependencies {
  health: Pick<HealthCheckService, 'check'>;
  /** Where a round adds its checks, and the servers it checks. */
  rounds: { queue: RoundCheckQueue; servers: RoundServers };
}

/**
 * The processor of the `health` queue. A failing server is a result, not a job failure; the job
 * fails (and is retried) only when the records cannot be read or written.
 */
export function healthProcessor(deps: HealthProcessorDependencies): QueueProcessor<HealthJob> {
  return queueProcessor<HealthJob>(
    {
      [HealthJobName.Check]: (job) => deps.health.check(job.data.serverId, job.data.reason, job.logger),
      // A round added by hand rather than by the scheduler has no slot: it is named by when it runs.
      [HealthJobName.Round]: async (job) => ({
        servers: await enqueueHealthRound(deps.rounds.queue, deps.rounds.servers, job.slot ?? new Date(), job.logger),
      }),
    },
    (error) =>
      new JobFailedError(failureOf(error) ?? { kind: 'internal', message: error instanceof Error ? error.message : String(error) }, false),
  );
}
