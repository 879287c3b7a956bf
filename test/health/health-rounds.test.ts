import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { enqueueHealthRound, serversToCheck } from '../../src/health/health-rounds.js';
import { healthCheckIds, HealthJobName } from '../../src/health/health.jobs.js';
import { queuePrefix } from '../../src/kernel/bullmq/bullmq-connection.js';
import { jobQueue } from '../../src/kernel/bullmq/job-queue.adapter.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import type { McpServerFields } from '../../src/records/mcp-server.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { openQueue, QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

describe('health rounds', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let prefix: string;
  let running: RunningWorkers[] = [];

  beforeEach(async () => {
    redis = await startTestRedis();
    prefix = `round${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    await Promise.all(running.map((workers) => workers.close()));
    running = [];
    await redis.destroy();
  });

  /** Servers a (Healthy), b (Unhealthy), c (Unknown) and d (Maintenance), none answering. */
  async function fourServers() {
    const records = createRecords(redis.client, prefix);
    await records.seed();
    const create = (name: string, status: string) =>
      records.mcpServers.create({ name, status, url: 'http://127.0.0.1:9' } as McpServerFields, OPERATOR);
    const servers = await Promise.all([
      create('a', 'Healthy'),
      create('b', 'Unhealthy'),
      create('c', 'Unknown'),
      create('d', 'Maintenance'),
    ]);
    return { records, servers };
  }

  it('a round adds one check per server and slot however often it runs, skipping Maintenance', async () => {
    const { records, servers } = await fourServers();
    const queue = openQueue(QueueName.Health, { connection: redis.client, keyPrefix: prefix, logger: silentLogger(), events: false });
    try {
      await queue.ready();
      const source = serversToCheck(records.mcpServers);
      const port = jobQueue(queue, HealthJobName.Check);
      const counts = await Promise.all([
        enqueueHealthRound(port, source, new Date('2026-03-01T10:00:30.004Z'), silentLogger()),
        enqueueHealthRound(port, source, new Date('2026-03-01T10:00:30.950Z'), silentLogger()),
      ]);
      expect(counts).to.deep.equal([3, 3]);
      expect((await queue.counts()).waiting).to.equal(3);
      const job = await queue.get(`health-${servers[0].id}-20260301T100030`);
      expect(job?.data).to.deep.equal({ serverId: servers[0].id, reason: 'scheduled' });

      await enqueueHealthRound(port, source, new Date('2026-03-01T10:01:00Z'), silentLogger());
      expect((await queue.counts()).waiting, 'the next slot is a new round').to.equal(6);
    } finally {
      await queue.close();
    }
  });

  it('two workers setting the same schedule check each server once per round, never one in Maintenance', async () => {
    const { records, servers } = await fourServers();
    const config = loadConfig({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, HEALTH_CRON: '* * * * * *', HEALTH_TIMEOUT_MS: '500' });
    running = await Promise.all([1, 2].map(() => startWorkers(config, silentLogger(), { queues: [QueueName.Health] })));
    await Promise.all(running.map((workers) => workers.ready()));
    const health = new Queue(QueueName.Health, { connection: redis.client, prefix: queuePrefix(prefix, QueueName.Health, false) });
    try {
      const rounds = async () => (await health.getJobs(['completed'])).filter((job) => job.name === String(HealthJobName.Round));
      await until(async () => (await rounds()).length >= 2, 20_000, 'two rounds');
      await Promise.all(running.map((workers) => workers.close()));
      running = [];

      const slots = (await rounds()).map((job) => new Date(job.opts.prevMillis!));
      expect(new Set(slots.map(String)).size, 'one round per slot').to.equal(slots.length);
      const checks = (await health.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed'])).filter(
        (job) => job.name === String(HealthJobName.Check),
      );
      const [a, b, c, d] = servers;
      const expected = slots.flatMap((slot) => [a, b, c].map((server) => healthCheckIds.scheduled(server.id, slot)));
      expect(checks.map((job) => job.id).sort(), 'each round checks a, b and c once').to.deep.equal(expected.sort());
      expect(checks.every((job) => (job.data as { reason: string }).reason === 'scheduled')).to.equal(true);
      expect((await records.mcpServers.get(d.id)).last_checked, 'Maintenance is never checked').to.equal(null);
    } finally {
      await health.close();
    }
  });
});
