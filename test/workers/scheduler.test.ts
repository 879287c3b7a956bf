import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/kernel/config/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { QueueName } from '../../src/kernel/jobs/catalogue.js';
import { openQueue, type CatalogueQueue } from '../../src/kernel/bullmq/job-queue.adapter.js';
import { enqueueCleanup, startScheduler } from '../../src/roles/periodic-jobs.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

describe('Checkpoint cleanup scheduling', () => {
  let redis: TestRedis;
  let queue: CatalogueQueue<QueueName.Chat>;
  let workers: RunningWorkers | undefined;
  let prefix: string;

  beforeEach(async () => {
    redis = await startTestRedis();
    prefix = `sch${randomUUID().slice(0, 8)}`;
    queue = openQueue(QueueName.Chat, { connection: redis.client, keyPrefix: prefix, logger: silentLogger(), events: true });
    await queue.ready();
  });
  afterEach(async () => {
    await workers?.close();
    workers = undefined;
    await queue.close();
    await redis.destroy();
  });

  it('enqueues one job per cron slot however many schedulers fire, and a worker runs it', async () => {
    const slot = new Date('2026-03-01T10:17:05Z');
    const ids = await Promise.all([
      enqueueCleanup(queue, slot, silentLogger()),
      enqueueCleanup(queue, new Date('2026-03-01T10:17:40Z'), silentLogger()),
    ]);
    expect(ids).to.deep.equal(['checkpoint-cleanup-202603011017', 'checkpoint-cleanup-202603011017']);
    expect((await queue.counts()).waiting).to.equal(1);

    workers = await startWorkers(loadConfig({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix }), silentLogger(), {
      queues: [QueueName.Chat],
    });
    expect(await queue.waitFor(ids[0], 10_000)).to.deep.equal({ state: 'completed', result: { sessions: 0 } });
  });

  it('refuses a cron expression it cannot read', () => {
    expect(() => startScheduler({ cleanupCron: 'every hour', queue, logger: silentLogger() })).to.throw(/CHECKPOINT_CLEANUP_CRON/);
  });
});
