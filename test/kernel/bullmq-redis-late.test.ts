import { expect } from 'chai';
import { BullQueue } from '../../src/kernel/bullmq/bullmq-queue.adapter.js';
import { QueueWorker } from '../../src/kernel/bullmq/bullmq-worker.adapter.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

type Echo = { name: 'echo'; queue: 'late'; data: { text: string }; result: { text: string }; progress: never };

describe('a queue and a worker started before their Redis', function () {
  this.timeout(30_000);
  let redis: TestRedis;

  before(async () => {
    redis = await startTestRedis();
    await redis.stop();
  });
  after(async () => {
    await redis.destroy();
  });

  it('add, run and report jobs once Redis is there, without a restart', async () => {
    const options = { queueName: 'late', connection: redis.client, keyPrefix: 'late', logger: silentLogger() };
    // The API's producer fails fast while Redis is away; its event reader waits.
    const queue = new BullQueue<Echo>({ ...options, events: true, jobOptions: () => ({}) });
    const worker = new QueueWorker<Echo>({ ...options, concurrency: 1 }, async (job) => ({ text: job.data.text }));
    try {
      // Long enough for every connection's first attempt to have been refused.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await redis.restart();
      await queue.ready();
      const outcome = queue.waitFor('job-1', 15_000);
      await queue.add({ name: 'echo', data: { text: 'hello' } }, 'job-1');
      expect(await outcome).to.deep.equal({ state: 'completed', result: { text: 'hello' } });
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
