import { expect } from 'chai';
import { RedisProviderSlots } from '../../shared/adapters/redis/redis-provider-slots.adapter.js';
import { UnavailableError } from '../../shared/errors.js';
import { ConcurrencyLimiter } from '../../shared/providers/concurrency-limiter.js';
import { gate as openGate } from '../support/gate.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

describe(RedisProviderSlots.name, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });

  it('holds four workers of eight calls each to the shared total, per provider kind', async () => {
    const prefix = `slots${process.pid}`;
    const workers = Array.from({ length: 4 }, () => new ConcurrencyLimiter(8, new RedisProviderSlots(redis.client, { prefix, limit: 3, waitMs: 20_000 })));
    const gate = openGate();
    let running = 0;
    let most = 0;
    const call = async () => {
      running++;
      most = Math.max(most, running);
      await gate.opened;
      running--;
    };
    const calls = workers.flatMap((limiter) => Array.from({ length: 8 }, () => limiter.run('openai', call)));
    const other = workers[0]!.run('anthropic', async () => 'another kind has slots of its own');
    expect(await other).to.equal('another kind has slots of its own');
    await until(() => running === 3, 10_000, 'three calls to run');
    gate.open();
    await Promise.all(calls);
    expect(most).to.equal(3);
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
