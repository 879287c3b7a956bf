import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { serversToCheck } from '../../src/health/health-requests.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import type { McpServerFields } from '../../src/records/mcp-server.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { jobQueue, openQueue, type CatalogueQueue } from '../../src/kernel/bullmq/job-queue.adapter.js';
import { JobName, QueueName } from '../../src/kernel/jobs/catalogue.js';
import { enqueueHealthRound, startScheduler } from '../../src/roles/periodic-jobs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';

describe('health rounds', () => {
  let redis: TestRedis;
  let queue: CatalogueQueue<QueueName.Health>;
  let prefix: string;

  beforeEach(async () => {
    redis = await startTestRedis();
    prefix = `round${randomUUID().slice(0, 8)}`;
    queue = openQueue(QueueName.Health, { connection: redis.client, keyPrefix: prefix, logger: silentLogger(), events: false });
    await queue.ready();
  });
  afterEach(async () => {
    await queue.close();
    await redis.destroy();
  });

  it('enqueue one check per server and slot however many schedulers fire, skipping Maintenance', async () => {
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
    const source = serversToCheck(records.mcpServers);
    const port = jobQueue(queue, JobName.HealthCheck);
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
  });

  it('refuses a HEALTH_CRON it cannot read', () => {
    const chat = openQueue(QueueName.Chat, { connection: redis.client, keyPrefix: prefix, logger: silentLogger(), events: false });
    try {
      expect(() =>
        startScheduler({
          cleanupCron: '17 * * * *',
          queue: chat,
          logger: silentLogger(),
          health: { cron: 'twice a minute', queue: jobQueue(queue, JobName.HealthCheck), servers: async () => [] },
        }),
      ).to.throw(/HEALTH_CRON/);
    } finally {
      void chat.close();
    }
  });
});
