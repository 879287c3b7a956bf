import { randomUUID } from 'node:crypto';
import type { KindNamed } from '../kernel/jobs/job-kind.js';
import type { PeriodicJob } from '../kernel/jobs/periodic-job.js';
import type { QueueDefinition } from '../kernel/jobs/queue-definition.js';
import type { HealthCheckReason, HealthCheckResult } from './health-checker.port.js';

/**
 * Health's jobs, on the `health` queue: what each carries and returns, its id and its retries and
 * retention. Their handlers are in health.processor.ts; the composition's catalogue lists the queue.
 */

/** Job names, `<entity>-<action>`. */
export enum HealthJobName {
  Check = 'health-check',
  Round = 'health-round',
}

/** A health-check job: the server's id and why, never a secret. */
export interface HealthCheckData {
  serverId: string;
  reason: HealthCheckReason;
}

/**
 * The jobs on the `health` queue. A round is periodic (`healthPeriodicJobs`), carries nothing and
 * adds one check per server.
 */
export type HealthJob =
  | { name: HealthJobName.Check; queue: 'health'; data: HealthCheckData; result: HealthCheckResult; progress: never }
  | { name: HealthJobName.Round; queue: 'health'; data: Record<string, never>; result: { servers: number }; progress: never };

export type HealthCheckJob = KindNamed<HealthJob, HealthJobName.Check>;

/** The `health` queue's periodic jobs, each at the times its cron setting gives. */
export function healthPeriodicJobs(settings: { cron: string }): PeriodicJob<HealthJob>[] {
  return [{ job: { name: HealthJobName.Round, data: {} }, setting: 'HEALTH_CRON', pattern: settings.cron }];
}

/** `20260301T101730` (no `:`). */
function compact(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-:]/g, '');
}

/**
 * Deterministic check ids (no `:`, never all digits), so a repeated add is ignored while the job is
 * kept. A round's check is named by the round's cron slot (to the second), so a retried round adds
 * it once; a new server's first check by the record's last edit, so a retried request adds it once;
 * a manual check by its own id, since each request asks anew.
 */
export const healthCheckIds = {
  scheduled: (serverId: string, slot: Date): string => `health-${serverId}-${compact(slot)}`,
  new: (serverId: string, lastUpdated: string): string => `health-${serverId}-new-${compact(new Date(lastUpdated))}`,
  manual: (serverId: string): string => `health-${serverId}-now-${randomUUID()}`,
};

const HOUR_S = 3_600;

/**
 * The `health` queue. A failing server is a result, not a failed job: checks fail only when Redis
 * does. Finished checks are kept 10 minutes (longer than any round), so a retried round's add of
 * a check is a no-op; rounds are kept as long.
 */
export const HEALTH_QUEUE: QueueDefinition<HealthJob> = {
  name: 'health',
  policies: {
    [HealthJobName.Check]: {
      attempts: 2,
      backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
      removeOnComplete: { age: 600, count: 50_000 },
      removeOnFail: { age: 24 * HOUR_S, count: 10_000 },
    },
    [HealthJobName.Round]: {
      attempts: 2,
      backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
      removeOnComplete: { age: 600, count: 1_000 },
      removeOnFail: { age: 24 * HOUR_S, count: 1_000 },
    },
  },
};
