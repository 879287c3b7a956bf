import type { JobQueue } from '../kernel/jobs/job-queue.port.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { McpServerView } from '../records/mcp-server.js';
import type { RecordReader } from '../records/record-service.js';
import { HealthStatus } from '../records/status.js';
import { healthCheckIds, HealthJobName, type HealthCheckJob } from './health.jobs.js';

/** Port: where a round adds its checks (the `health` queue). */
export type RoundCheckQueue = Pick<JobQueue<HealthCheckJob>, 'add'>;

/** The ids of the servers a round checks. */
export type RoundServers = () => Promise<string[]>;

/** Jobs added at once while a round adds its checks. */
const ROUND_BATCH = 500;

/**
 * Adds one health check per server for the round due at `slot`. Job ids name the server and the
 * slot (to the second), so a round run twice (retried) adds each check once while the finished job is kept.
 */
export async function enqueueHealthRound(queue: RoundCheckQueue, servers: RoundServers, slot: Date, logger: Logger): Promise<number> {
  const second = new Date(Math.floor(slot.getTime() / 1_000) * 1_000);
  const ids = await servers();
  for (let start = 0; start < ids.length; start += ROUND_BATCH) {
    await Promise.all(
      ids
        .slice(start, start + ROUND_BATCH)
        .map((serverId) =>
          queue.add({ name: HealthJobName.Check, data: { serverId, reason: 'scheduled' } }, healthCheckIds.scheduled(serverId, second)),
        ),
    );
  }
  logger.debug('health round enqueued', { slot: second.toISOString(), servers: ids.length });
  return ids.length;
}

/** The servers a round checks: every one not in Maintenance. */
export function serversToCheck(servers: RecordReader<McpServerView>): RoundServers {
  return async () => {
    const { results } = await servers.list({ limit: 1_000_000, offset: 0, filters: {} });
    return results.filter((server) => server.status?.name !== HealthStatus.Maintenance).map((server) => server.id);
  };
}
