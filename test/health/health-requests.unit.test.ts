import { expect } from 'chai';
import { NotFoundError, UnavailableError } from '../../src/kernel/errors.js';
import type { HealthCheckResult } from '../../src/health/health-checker.port.js';
import { HealthCheckRequests, healthTracked, type HealthJobQueue } from '../../src/health/health-requests.js';
import { serversToCheck } from '../../src/health/health-rounds.js';
import { healthCheckIds, type HealthCheckData, type HealthCheckJob } from '../../src/health/health.jobs.js';
import type { JobOf } from '../../src/kernel/jobs/job-kind.js';
import type { JobOutcome } from '../../src/kernel/jobs/job-queue.port.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { mcpServerDefaults, type McpServerFields, type McpServerView } from '../../src/records/mcp-server.js';
import type { ListQuery, RecordReader, RecordWriter } from '../../src/records/record-service.js';
import { MemoryHealthStreaks, MemoryToolVersions } from '../support/fakes/memory-health-state.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';

const SERVER_ID = '6f1c2b8e-6d1a-4d1e-9a59-2f1f3c1e9d10';

function view(status: string, fields: Partial<McpServerView> = {}): McpServerView {
  return {
    id: SERVER_ID,
    created: '2026-03-01T10:00:00.000Z',
    last_updated: '2026-03-01T10:17:30.000Z',
    name: 'alpha',
    display: 'alpha',
    status: { id: `status-${status}`, name: status },
    ...mcpServerDefaults(),
    server_url: 'http://mcp.example',
    last_checked: null,
    last_error: null,
    latency_ms: null,
    last_check_method: null,
    ...fields,
  };
}

/**
 * The health queue with a worker played by `finish`: what it answers for a job is heard by the
 * waiters listening when the job is added (null: nobody finished it in time). A waiter that
 * starts listening after the add hears nothing, as with the real queue: it would wait out its
 * time, so it hears null at once.
 */
class FakeHealthQueue implements HealthJobQueue {
  readonly added: { jobId: string; data: HealthCheckData }[] = [];
  readonly waitedMs: number[] = [];
  private readonly waiters = new Map<string, (outcome: JobOutcome<HealthCheckResult> | null) => void>();
  finish: (jobId: string, data: HealthCheckData) => JobOutcome<HealthCheckResult> | null = () => null;
  failAdd?: Error;

  listening(): number {
    return this.waiters.size;
  }

  async add(job: JobOf<HealthCheckJob>, jobId: string): Promise<void> {
    if (this.failAdd) throw this.failAdd;
    this.added.push({ jobId, data: job.data });
    this.waiters.get(jobId)?.(this.finish(jobId, job.data));
  }

  waitFor(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome<HealthCheckResult> | null> {
    this.waitedMs.push(timeoutMs);
    if (this.added.some((job) => job.jobId === jobId)) return Promise.resolve(null);
    return new Promise((resolve) => {
      const settle = (outcome: JobOutcome<HealthCheckResult> | null) => {
        this.waiters.delete(jobId);
        resolve(outcome);
      };
      this.waiters.set(jobId, settle);
      signal?.addEventListener('abort', () => settle(null));
    });
  }
}

function checked(result: Partial<HealthCheckResult>): JobOutcome<HealthCheckResult> {
  return {
    state: 'completed',
    result: {
      server_id: SERVER_ID,
      status: 'Healthy',
      healthy: true,
      latency_ms: 8,
      error: null,
      url: 'http://mcp.example/health',
      method: 'http',
      changed: false,
      ...result,
    },
  };
}

describe(HealthCheckRequests.name, () => {
  let servers: Map<string, McpServerView>;
  let queue: FakeHealthQueue;
  let streaks: MemoryHealthStreaks;
  let versions: MemoryToolVersions;

  const reader: RecordReader<McpServerView> = {
    get: async (id) => {
      const server = servers.get(id);
      if (!server) throw new NotFoundError('No MCP server matches the given query.');
      return server;
    },
    list: async ({ offset, limit }: ListQuery) => ({ count: servers.size, results: [...servers.values()].slice(offset, offset + limit) }),
  };
  const requests = () => new HealthCheckRequests({ servers: reader, queue, waitMs: 12_000, streaks, versions });

  beforeEach(() => {
    servers = new Map([[SERVER_ID, view('Healthy')]]);
    queue = new FakeHealthQueue();
    streaks = new MemoryHealthStreaks();
    versions = new MemoryToolVersions();
  });

  describe('checkNow', () => {
    it('queues a manual check, listening before the add, and answers what the worker stored', async () => {
      queue.finish = () => checked({ latency_ms: 8, changed: true });
      expect(await requests().checkNow(SERVER_ID)).to.deep.equal({
        status: 'Healthy',
        healthy: true,
        latency_ms: 8,
        error: null,
        url: 'http://mcp.example/health',
        method: 'http',
      });
      expect(queue.added).to.have.length(1);
      expect(queue.added[0]?.data).to.deep.equal({ serverId: SERVER_ID, reason: 'manual' });
      expect(queue.added[0]?.jobId).to.match(new RegExp(`^health-${SERVER_ID}-now-[0-9a-f-]{36}$`));
      expect(queue.waitedMs).to.deep.equal([12_000]);
    });

    it('asks anew each time: two manual checks are two jobs', async () => {
      queue.finish = () => checked({});
      await requests().checkNow(SERVER_ID);
      await requests().checkNow(SERVER_ID);
      expect(new Set(queue.added.map((job) => job.jobId)).size).to.equal(2);
    });

    it('queues nothing for a server that does not exist', async () => {
      const error = await requests()
        .checkNow('6f1c2b8e-0000-4d1e-9a59-2f1f3c1e9d10')
        .catch((thrown: unknown) => thrown);
      expect(error).to.be.instanceOf(NotFoundError);
      expect(queue.added).to.deep.equal([]);
    });

    it('says no worker finished the check in time (is a worker running?)', async () => {
      const error = await requests()
        .checkNow(SERVER_ID)
        .catch((thrown: unknown) => thrown as Error);
      expect(error).to.be.instanceOf(UnavailableError);
      expect((error as Error).message).to.equal('no health worker finished the check within 12 s');
      expect((error as UnavailableError).remedy).to.match(/Start a worker for the health queue \(aiops worker/);
    });

    it('says the check could not be stored when its job failed', async () => {
      queue.finish = () => ({ state: 'failed', failedReason: 'Error: the record keeps changing' });
      const error = await requests()
        .checkNow(SERVER_ID)
        .catch((thrown: unknown) => thrown as Error);
      expect(error).to.be.instanceOf(UnavailableError);
      expect((error as Error).message).to.equal('the health check could not be stored');
    });

    it('answers not found for a server deleted while its check was queued', async () => {
      queue.finish = () => checked({ status: null, healthy: null, skipped: 'gone' });
      expect(
        await requests()
          .checkNow(SERVER_ID)
          .catch((thrown: unknown) => thrown),
      ).to.be.instanceOf(NotFoundError);
    });

    it('stops listening when the add fails, and says why', async () => {
      queue.failAdd = new UnavailableError('Redis is unavailable');
      expect(
        await requests()
          .checkNow(SERVER_ID)
          .catch((thrown: unknown) => thrown),
      ).to.equal(queue.failAdd);
      expect(queue.listening()).to.equal(0);
    });
  });

  it('queues the first check of an Unknown server under its last edit, so a retried request queues it once', async () => {
    await requests().checkIfUnknown(view('Unknown'));
    await requests().checkIfUnknown(view('Healthy'));
    await requests().checkIfUnknown(view('Maintenance'));
    expect(queue.added).to.deep.equal([{ jobId: `health-${SERVER_ID}-new-20260301T101730`, data: { serverId: SERVER_ID, reason: 'new' } }]);
  });

  it("forgets a server's health counts and tool version", async () => {
    await streaks.record(SERVER_ID, false);
    await versions.bump(SERVER_ID);
    await requests().forget(SERVER_ID);
    expect(streaks.streaks.has(SERVER_ID)).to.equal(false);
    expect(versions.versions.has(SERVER_ID)).to.equal(false);
  });

  it('names jobs without `:`: a scheduled round by its slot, a new server by its last edit', () => {
    expect(healthCheckIds.scheduled('abc', new Date('2026-03-01T10:17:30.250Z'))).to.equal('health-abc-20260301T101730');
    expect(healthCheckIds.new('abc', '2026-03-01T10:17:30.250Z')).to.equal('health-abc-new-20260301T101730');
  });

  it('schedules every server but those in Maintenance', async () => {
    servers = new Map(
      ['Healthy', 'Unhealthy', 'Unknown', 'Maintenance'].map((status, index) => {
        const id = `server-${index}`;
        return [id, view(status, { id })];
      }),
    );
    expect(await serversToCheck(reader)()).to.deep.equal(['server-0', 'server-1', 'server-2']);
  });

  describe(healthTracked.name, () => {
    let stored: McpServerView;
    const writer: RecordWriter<McpServerView, McpServerFields> = {
      create: async () => stored,
      update: async () => stored,
      delete: async () => undefined,
      createMany: async (inputs) => inputs.map((_, index) => ({ ...stored, id: `${SERVER_ID.slice(0, -1)}${index}` })),
      updateMany: async (changes) => changes.map(({ id }) => ({ ...stored, id })),
      deleteMany: async () => undefined,
    };
    const input = { name: 'alpha' } as McpServerFields;

    it('checks a server as soon as it is created or reset to Unknown', async () => {
      const tracked = healthTracked(writer, requests(), silentLogger());
      stored = view('Unknown');
      await tracked.create(input, OPERATOR);
      stored = view('Unknown', { last_updated: '2026-03-01T11:00:00.000Z' });
      await tracked.update(SERVER_ID, input, 'patch', OPERATOR);
      stored = view('Healthy');
      await tracked.update(SERVER_ID, input, 'patch', OPERATOR);
      expect(queue.added.map((job) => job.jobId)).to.deep.equal([
        `health-${SERVER_ID}-new-20260301T101730`,
        `health-${SERVER_ID}-new-20260301T110000`,
      ]);
    });

    it('keeps the write when the check cannot be queued (the next round checks it)', async () => {
      queue.failAdd = new UnavailableError('Redis is unavailable');
      stored = view('Unknown');
      expect(await healthTracked(writer, requests(), silentLogger()).create(input, OPERATOR)).to.equal(stored);
    });

    it('checks every server a list creates or resets, and drops the counts of every server a list deletes', async () => {
      const tracked = healthTracked(writer, requests(), silentLogger());
      stored = view('Unknown');
      const created = await tracked.createMany([input, input], OPERATOR);
      stored = view('Healthy');
      await tracked.updateMany([{ id: SERVER_ID, fields: {} }], 'patch', OPERATOR);
      expect(queue.added.map((job) => job.data.serverId)).to.deep.equal(created.map((server) => server.id));
      await streaks.record(SERVER_ID, true);
      await tracked.deleteMany([SERVER_ID], OPERATOR);
      expect(streaks.streaks.has(SERVER_ID)).to.equal(false);
    });

    it("drops a deleted server's counts, and the delete stands if that fails", async () => {
      await streaks.record(SERVER_ID, true);
      await healthTracked(writer, requests(), silentLogger()).delete(SERVER_ID, OPERATOR);
      expect(streaks.streaks.has(SERVER_ID)).to.equal(false);
      streaks.forget = async () => {
        throw new UnavailableError('Redis is unavailable');
      };
      await healthTracked(writer, requests(), silentLogger()).delete(SERVER_ID, OPERATOR);
    });
  });
});
