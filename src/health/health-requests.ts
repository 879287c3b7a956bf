import { NotFoundError, UnavailableError } from '../kernel/errors.js';
import { addAndWait } from '../kernel/jobs/add-and-wait.js';
import type { JobQueue } from '../kernel/jobs/job-queue.port.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { McpServerView } from '../records/mcp-server.js';
import type { RecordReader, RecordWriter } from '../records/record-service.js';
import type { ToolVersionStore } from '../mcp-client/tool-versions.port.js';
import { HealthStatus } from '../records/status.js';
import type { HealthStreakStore } from './health-streaks.port.js';
import type { HealthCheckMethod } from './health-checker.port.js';
import { healthCheckIds, HealthJobName, type HealthCheckJob } from './health.jobs.js';

/** Port: the `health` queue as the API uses it. */
export type HealthJobQueue = Pick<JobQueue<HealthCheckJob>, 'add' | 'waitFor'>;

/** What `POST .../health-check/` answers. */
export interface HealthCheckView {
  status: string | null;
  healthy: boolean | null;
  latency_ms: number | null;
  error: string | null;
  url: string | null;
  method: HealthCheckMethod | null;
}

/** Health checks asked for through the API: they run as jobs, on a worker, like scheduled ones. */
export class HealthCheckRequests {
  constructor(
    private readonly deps: {
      servers: RecordReader<McpServerView>;
      queue: HealthJobQueue;
      /** How long a manual check is waited for (the check's own timeout plus queueing). */
      waitMs: number;
      /** What is kept per server beside its record, forgotten when it is deleted. */
      streaks: Pick<HealthStreakStore, 'forget'>;
      versions: Pick<ToolVersionStore, 'forget'>;
    },
  ) {}

  /** Runs a check now through the queue and answers what it stored. */
  async checkNow(serverId: string): Promise<HealthCheckView> {
    await this.deps.servers.get(serverId);
    const jobId = healthCheckIds.manual(serverId);
    const outcome = await addAndWait(
      this.deps.queue,
      jobId,
      () => this.deps.queue.add({ name: HealthJobName.Check, data: { serverId, reason: 'manual' } }, jobId),
      this.deps.waitMs,
    );
    if (!outcome) {
      throw new UnavailableError(`no health worker finished the check within ${Math.round(this.deps.waitMs / 1_000)} s`, {
        remedy:
          'Start a worker for the health queue (aiops worker, or aiops worker --queues health); the check stays queued until one runs it.',
      });
    }
    if (outcome.state === 'failed') throw new UnavailableError('the health check could not be stored', { remedy: 'Retry shortly.' });
    const { status, healthy, latency_ms, error, url, method, skipped } = outcome.result;
    if (skipped === 'gone') throw new NotFoundError('No MCP server matches the given query.');
    return { status, healthy, latency_ms, error, url, method };
  }

  /** Drops a deleted server's health counts and tool version. */
  async forget(serverId: string): Promise<void> {
    await Promise.all([this.deps.streaks.forget(serverId), this.deps.versions.forget(serverId)]);
  }

  /** Queues the first check of a server that is not known yet (status Unknown). */
  async checkIfUnknown(server: McpServerView): Promise<void> {
    if (server.status?.name !== HealthStatus.Unknown) return;
    await this.deps.queue.add(
      { name: HealthJobName.Check, data: { serverId: server.id, reason: 'new' } },
      healthCheckIds.new(server.id, server.last_updated),
    );
  }
}

/**
 * The MCP server writer, checking servers as soon as they are created (or reset to Unknown) rather
 * than at the next round, and dropping a deleted server's health counts and tool version. If the
 * check cannot be queued the write still stands; the next round checks it.
 */
export function healthTracked<W>(
  writer: RecordWriter<McpServerView, W>,
  requests: HealthCheckRequests,
  logger: Logger,
): RecordWriter<McpServerView, W> {
  const queueCheck = async (server: McpServerView) => {
    await requests.checkIfUnknown(server).catch((error: unknown) =>
      logger.warn('first health check not queued; the next round will check the server', {
        server: server.name,
        error: (error as Error).message,
      }),
    );
    return server;
  };
  // The record is gone either way; what is left beside it is small and harmless.
  const forget = (id: string) =>
    requests
      .forget(id)
      .catch((error: unknown) =>
        logger.warn('health counts of a deleted server not dropped', { server_id: id, error: (error as Error).message }),
      );
  const queueChecks = (servers: McpServerView[]) => Promise.all(servers.map(queueCheck));
  return {
    create: async (input, actor) => queueCheck(await writer.create(input, actor)),
    update: async (id, input, mode, actor) => queueCheck(await writer.update(id, input, mode, actor)),
    delete: async (id, actor) => {
      await writer.delete(id, actor);
      await forget(id);
    },
    createMany: async (inputs, actor) => queueChecks(await writer.createMany(inputs, actor)),
    updateMany: async (changes, mode, actor) => queueChecks(await writer.updateMany(changes, mode, actor)),
    deleteMany: async (ids, actor) => {
      await writer.deleteMany(ids, actor);
      await Promise.all(ids.map(forget));
    },
  };
}
