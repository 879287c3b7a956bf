import type { HealthCheckService } from './health-check.service.js';
import { failureOf, JobFailedError } from '../kernel/jobs/job-failure.js';
import { queueProcessor, type QueueProcessor } from '../kernel/jobs/queue-processor.js';
import { enqueueHealthRound, type RoundCheckQueue, type RoundServers } from './health-rounds.js';
import { HealthJobName, type HealthJob } from './health.jobs.js';
import type { HealthCheckResult } from './health-checker.port.js';
import { inSpan, type Attributes } from '../kernel/tracing/tracing.js';

/** How a check ended, for its span: status, health, latency, which check ran and whether it flipped (never the probe's error text, which may quote the server). */
function checkAttributes(result: HealthCheckResult): Attributes {
  return {
    'aiops.health.status': result.status ?? '',
    ...(result.healthy === null ? {} : { 'aiops.health.healthy': result.healthy }),
    ...(result.latency_ms === null ? {} : { 'aiops.health.latency_ms': result.latency_ms }),
    ...(result.method === null ? {} : { 'aiops.health.method': result.method }),
    'aiops.health.changed': result.changed,
    ...(result.skipped ? { 'aiops.health.skipped': result.skipped } : {}),
  };
}

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
      // Each check and each round is a trace of its own, whoever asked for it.
      [HealthJobName.Check]: (job) =>
        inSpan(
          'health-check',
          { root: true, attributes: { 'aiops.mcp_server.id': job.data.serverId, 'aiops.health.reason': job.data.reason } },
          async (span) => {
            const result = await deps.health.check(job.data.serverId, job.data.reason, job.logger);
            span.setAttributes(checkAttributes(result));
            return result;
          },
        ),
      // A round added by hand rather than by the scheduler has no slot: it is named by when it runs.
      [HealthJobName.Round]: (job) =>
        inSpan('health-round', { root: true }, async (span) => {
          const servers = await enqueueHealthRound(deps.rounds.queue, deps.rounds.servers, job.slot ?? new Date(), job.logger);
          span.setAttribute('aiops.health.servers', servers);
          return { servers };
        }),
    },
    (error) =>
      new JobFailedError(failureOf(error) ?? { kind: 'internal', message: error instanceof Error ? error.message : String(error) }, false),
  );
}
