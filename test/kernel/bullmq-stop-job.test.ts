import { expect } from 'chai';
import { stopChannel } from '../../src/kernel/bullmq/bullmq-connection.js';
import { BullQueue } from '../../src/kernel/bullmq/bullmq-queue.adapter.js';
import { QueueWorker } from '../../src/kernel/bullmq/bullmq-worker.adapter.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

type Wait = { name: 'wait'; queue: 'stoppable'; data: Record<string, never>; result: { stoppedBy: string }; progress: never };

describe('stopping a job', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let queue: BullQueue<Wait>;
  let worker: QueueWorker<Wait> | undefined;
  const keyPrefix = 'stops';
  const queueName = 'stoppable';

  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });
  beforeEach(async () => {
    queue = new BullQueue({
      queueName,
      connection: redis.client,
      keyPrefix,
      logger: silentLogger(),
      events: true,
      jobOptions: () => ({}),
      removedReason: 'dropped before it ran',
    });
    await queue.ready();
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await queue.obliterate();
    await queue.close();
  });

  /** A worker whose jobs run until their signal aborts, and answer why. */
  const startWorker = async () => {
    worker = new QueueWorker<Wait>(
      { queueName, connection: redis.client, keyPrefix, concurrency: 2, logger: silentLogger(), stoppable: true },
      (job) =>
        new Promise((resolve) => {
          const answer = () => resolve({ stoppedBy: String(job.signal.reason) });
          if (job.signal.aborted) answer();
          else job.signal.addEventListener('abort', answer);
        }),
    );
    await worker.ready();
    // Its subscription to stops is in place once Redis counts a subscriber on the channel.
    const channel = stopChannel(keyPrefix, queueName);
    await until(async () => ((await redis.client.pubsub('NUMSUB', channel)) as [string, number])[1] > 0, 5_000, 'the stop subscription');
  };

  it('drops a job still queued: whoever waits hears why, and the job is gone', async () => {
    const waiting = queue.waitFor('job-1', 10_000);
    await queue.add({ name: 'wait', data: {} }, 'job-1');
    expect(await queue.stop('job-1')).to.equal('removed');
    expect(await waiting).to.deep.equal({ state: 'failed', failedReason: 'dropped before it ran' });
    expect(await queue.get('job-1')).to.equal(null);
  });

  it("aborts a running job's signal on the worker that runs it", async () => {
    await startWorker();
    const finished = queue.waitFor('job-2', 10_000);
    await queue.add({ name: 'wait', data: {} }, 'job-2');
    await until(async () => (await queue.get('job-2'))?.state === 'active', 5_000, 'the job to run');
    expect(await queue.stop('job-2')).to.equal('signalled');
    expect(await finished).to.deep.equal({ state: 'completed', result: { stoppedBy: 'stopped' } });
  });

  it('aborts at once a job whose stop reached the worker before the job did', async () => {
    await startWorker();
    await redis.client.publish(stopChannel(keyPrefix, queueName), 'job-3');
    const finished = queue.waitFor('job-3', 10_000);
    await queue.add({ name: 'wait', data: {} }, 'job-3');
    expect(await finished).to.deep.equal({ state: 'completed', result: { stoppedBy: 'stopped' } });
  });
});
