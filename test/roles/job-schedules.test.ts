import { expect } from 'chai';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { SessionStore } from '../../src/chat/session-store.port.js';
import { queuePrefix } from '../../src/kernel/bullmq/bullmq-connection.js';
import { loadConfig, type Config } from '../../src/roles/config.js';
import { StartupError } from '../../src/kernel/errors.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

/** What `startWorkers` rejected with (undefined: it started). */
async function startFailure(config: Config, queues: QueueName[]): Promise<unknown> {
  try {
    await (await startWorkers(config, silentLogger(), { queues })).close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('periodic jobs (BullMQ job schedulers set by the workers)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let prefix: string;
  let running: RunningWorkers[] = [];
  /** The queue as BullMQ shows it, to read its schedulers and finished jobs. */
  const bullQueue = (name: QueueName) => new Queue(name, { connection: redis.client, prefix: queuePrefix(prefix, name, false) });

  beforeEach(async () => {
    redis = await startTestRedis();
    prefix = `sch${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    await Promise.all(running.map((workers) => workers.close()));
    running = [];
    await redis.destroy();
  });

  it('two workers setting the same session cleanup schedule run each cleanup once', async () => {
    let cleanups = 0;
    const counted = (store: SessionStore): SessionStore =>
      new Proxy(store, {
        get(target, key) {
          if (key === 'removeExpired')
            return () => {
              cleanups += 1;
              return target.removeExpired();
            };
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    const config = loadConfig({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, CHECKPOINT_CLEANUP_CRON: '* * * * * *' });
    running = await Promise.all(
      [1, 2].map(() => startWorkers(config, silentLogger(), { queues: [QueueName.Chat], sessionStore: counted })),
    );
    await Promise.all(running.map((workers) => workers.ready()));
    const chat = bullQueue(QueueName.Chat);
    try {
      expect((await chat.getJobSchedulers()).map(({ key, pattern }) => ({ key, pattern }))).to.deep.equal([
        { key: 'checkpoint-cleanup', pattern: '* * * * * *' },
      ]);
      const finished = () => chat.getJobs(['completed']);
      await until(async () => (await finished()).length >= 3, 20_000, 'three cleanups');
      expect((await chat.getJobCounts('delayed')).delayed, 'one next cleanup, not one per worker').to.be.at.most(1);
      await Promise.all(running.map((workers) => workers.close()));
      running = [];

      const done = await finished();
      const slots = done.map((job) => job.opts.prevMillis);
      expect(new Set(slots).size, 'one cleanup per slot').to.equal(done.length);
      expect(cleanups, 'each cleanup ran once').to.equal(done.length);
      expect(done.map((job) => job.returnvalue as unknown)).to.deep.equal(done.map(() => ({ sessions: 0 })));
    } finally {
      await chat.close();
    }
  });

  it("sets only the schedules of the worker's own queues", async () => {
    const config = loadConfig({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    running = [await startWorkers(config, silentLogger(), { queues: [QueueName.Health] })];
    await running[0]!.ready();
    const [chat, health] = [bullQueue(QueueName.Chat), bullQueue(QueueName.Health)];
    try {
      expect(await chat.getJobSchedulers()).to.deep.equal([]);
      expect((await health.getJobSchedulers()).map(({ key, pattern }) => ({ key, pattern }))).to.deep.equal([
        { key: 'health-round', pattern: '*/30 * * * * *' },
      ]);
    } finally {
      await Promise.all([chat.close(), health.close()]);
    }
  });

  it('refuses at start-up a cron expression it cannot read', async () => {
    const config = loadConfig({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    const cleanup = await startFailure({ ...config, chat: { ...config.chat, cleanupCron: 'every hour' } }, [QueueName.Chat]);
    expect(cleanup).to.be.instanceOf(StartupError);
    expect((cleanup as Error).message).to.equal("invalid configuration: SESSION_CLEANUP_CRON 'every hour' is not a cron expression");
    const health = await startFailure({ ...config, health: { ...config.health, cron: 'twice a minute' } }, [QueueName.Health]);
    expect(health).to.be.instanceOf(StartupError);
    expect((health as Error).message).to.equal("invalid configuration: HEALTH_CRON 'twice a minute' is not a cron expression");
  });
});
