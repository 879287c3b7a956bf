import type { BullQueue } from '../kernel/bullmq/bullmq-queue.adapter.js';
import { jobQueue } from '../kernel/bullmq/job-queue.adapter.js';
import type { KernelSettings } from '../kernel/config/config.js';
import type { HealthSettings } from './health.settings.js';
import type { QueueConsumer } from '../kernel/jobs/queue-consumer.js';
import type { RedisClient } from '../kernel/redis/redis-client.js';
import { RedisToolVersionStore } from '../mcp-client/adapters/redis-tool-versions.adapter.js';
import type { Records } from '../records/records.js';
import { RedisHealthStreakStore } from './adapters/redis-health-streaks.adapter.js';
import type { HealthCheckService } from './health-check.service.js';
import { HealthCheckRequests } from './health-requests.js';
import { serversToCheck } from './health-rounds.js';
import { HealthJobName, type HealthJob } from './health.jobs.js';
import { healthProcessor } from './health.processor.js';

/**
 * Health's wiring: the checks the API asks for and its `health` queue's consumer in a worker, on the
 * clients and the `health` queue the role shares.
 */

/** Queueing and waiting on top of the check's own timeout before a manual check answers 503. */
const MANUAL_CHECK_MARGIN_MS = 10_000;

/** The checks the API adds (a new or reset server, a manual check) and waits for. */
export function healthApi(deps: {
  config: Pick<KernelSettings, 'redis'> & HealthSettings;
  redis: RedisClient;
  records: Pick<Records, 'mcpServers'>;
  queue: BullQueue<HealthJob>;
}): HealthCheckRequests {
  const { keyPrefix } = deps.config.redis;
  return new HealthCheckRequests({
    servers: deps.records.mcpServers,
    queue: jobQueue(deps.queue, HealthJobName.Check),
    waitMs: deps.config.health.timeoutMs + MANUAL_CHECK_MARGIN_MS,
    streaks: new RedisHealthStreakStore(deps.redis, keyPrefix),
    versions: new RedisToolVersionStore(deps.redis, keyPrefix),
  });
}

/** The `health` queue's consumer: each server's check, and the rounds that add one check per server. */
export function healthQueue(deps: {
  config: HealthSettings;
  records: Pick<Records, 'mcpServers'>;
  /** The `health` queue, which a round adds its checks to. */
  queue: BullQueue<HealthJob>;
  /** The checks, on the role's shared MCP clients. */
  health: HealthCheckService;
}): QueueConsumer<HealthJob> {
  const rounds = { queue: jobQueue(deps.queue, HealthJobName.Check), servers: serversToCheck(deps.records.mcpServers) };
  return { processor: healthProcessor({ health: deps.health, rounds }), concurrency: deps.config.health.concurrency };
}
