import { expect } from 'chai';
import { openRedisConnection } from '../../../src/kernel/redis/redis-client.js';
import { RedisProviderSlots } from '../../../src/chat/adapters/redis-provider-slots.adapter.js';
import { UnavailableError } from '../../../src/kernel/errors.js';
import { ConcurrencyLimiter } from '../../../src/chat/providers/concurrency-limiter.js';
import { gate as openGate } from '../../support/gate.js';
import { startTestRedis, type TestRedis } from '../../support/redis.js';
import { until } from '../../support/until.js';

describe(RedisProviderSlots.name, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });

  it('holds four workers of eight calls each to the shared total, per LLM model', async () => {
    const prefix = `slots${process.pid}`;
    const workers = Array.from(
      { length: 4 },
      () => new ConcurrencyLimiter(8, new RedisProviderSlots(redis.client, { prefix, limit: 3, waitMs: 20_000 })),
    );
    const gate = openGate();
    let running = 0;
    let most = 0;
    const call = async () => {
      running++;
      most = Math.max(most, running);
      await gate.opened;
      running--;
    };
    const calls = workers.flatMap((limiter) => Array.from({ length: 8 }, () => limiter.run('model-a', call)));
    const other = workers[0]!.run('model-b', async () => 'another model has slots of its own');
    expect(await other).to.equal('another model has slots of its own');
    await until(() => running === 3, 10_000, 'three calls to run');
    gate.open();
    await Promise.all(calls);
    expect(most).to.equal(3);
  });

  it('keeps the slot of a call that outlasts its expiry, and lets a call finish when Redis fails its renewal', async function () {
    this.timeout(20_000);
    const prefix = `slots${process.pid}c`;
    const expiryMs = 600;
    const slots = new RedisProviderSlots(redis.client, { prefix, limit: 1, waitMs: 100, expiryMs });
    const long = slots.run('openai', () => new Promise((resolve) => setTimeout(resolve, expiryMs * 4)));
    await new Promise((resolve) => setTimeout(resolve, expiryMs * 3));
    expect(await slots.run('openai', async () => 'ran').catch((caught: unknown) => caught)).to.be.instanceOf(UnavailableError);
    await long;

    // A client that fails commands at once while disconnected, as a request client does.
    const failing = openRedisConnection(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await new Promise((resolve) => failing.once('ready', resolve));
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const cut = new RedisProviderSlots(failing, { prefix, limit: 1, waitMs: 1_000, expiryMs });
      const answer = await cut.run('openai', async () => {
        failing.disconnect();
        await new Promise((resolve) => setTimeout(resolve, expiryMs * 2));
        return 'finished';
      });
      expect(answer).to.equal('finished');
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('fails a call as unavailable when no slot frees up in time', async () => {
    const slots = new RedisProviderSlots(redis.client, { prefix: `slots${process.pid}b`, limit: 1, waitMs: 200 });
    const gate = openGate();
    const holder = slots.run('openai', () => gate.opened);
    await until(async () => (await redis.client.keys(`*slots${process.pid}b*`)).length > 0, 5_000, 'the slot to be taken');
    const error = await slots.run('openai', async () => 'ran').catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(UnavailableError);
    gate.open();
    await holder;
  });
});
