import { expect } from 'chai';
import { RedisKnowledgeLocks } from '../../src/knowledge/adapters/redis-knowledge-locks.adapter.js';
import { UnavailableError } from '../../src/kernel/errors.js';
import { packagePath } from '../../src/kernel/package-root.js';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

/** A holder renews every third of it, so it loses the lock only after two thirds of it without a turn. */
const EXPIRY_MS = 3_000;

describe(RedisKnowledgeLocks.name, () => {
  let redis: TestRedis;
  let holder: RunningProcess | undefined;
  let prefix: string;
  let sut: RedisKnowledgeLocks;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('acquired'),
      (error: unknown) => error as Error,
    );

  before(async () => {
    redis = await startTestRedis();
  });
  beforeEach(() => {
    prefix = `locks${Date.now()}`;
    sut = new RedisKnowledgeLocks(redis.client, prefix, EXPIRY_MS);
  });
  afterEach(async () => {
    await holder?.stop('SIGKILL');
    holder = undefined;
  });
  after(async () => {
    await redis?.destroy();
  });

  it('lets one holder in at a time, keeps names apart and gives up after waitMs naming the lock', async () => {
    const release = await sut.acquire('acme~tools', { waitMs: 0 });
    expect(await sut.held('acme~tools')).to.equal(true);
    await (
      await sut.acquire('repositories', { waitMs: 0 })
    )();
    const error = await failure(sut.acquire('acme~tools', { waitMs: 0 }));
    expect(error).to.be.instanceOf(UnavailableError);
    expect(error.message).to.equal('acme~tools is locked by another run');
    const next = sut.acquire('acme~tools', { waitMs: 10_000 });
    await release();
    await (
      await next
    )();
    expect(await sut.held('acme~tools')).to.equal(false);
  });

  it('renews the lock at every turn, so its key never nears its expiry while held', async function () {
    this.timeout(20_000);
    const release = await sut.acquire('acme~tools', { waitMs: 0 });
    // Four renewals: a renewal that failed after the first would let the key run down to nothing.
    let lowest = EXPIRY_MS;
    for (const end = Date.now() + EXPIRY_MS * 1.5; Date.now() < end;) {
      lowest = Math.min(lowest, await redis.client.pttl(`mutex:{${prefix}:kb}:lock:acme~tools`));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await release();
    expect(lowest).to.be.above(EXPIRY_MS / 3);
  });

  it('keeps the lock of a live holder past its expiry, and takes over the lock of a killed one (a worker restarted as PID 1) once it expires', async function () {
    this.timeout(60_000);
    // A fixture, not the CLI: it runs in the package, where `--import tsx` is found.
    holder = startProcess(
      process.execPath,
      ['--import', 'tsx', packagePath('test/knowledge/support/hold-lock.ts')],
      { REDIS_URL: redis.url, KEY_PREFIX: prefix, LOCK_NAME: 'acme~tools', EXPIRY_MS: String(EXPIRY_MS) },
      packagePath('.'),
    );
    await holder.waitForLine(/^held$/);
    // Alive in another process: renewed for more than twice its expiry, so still refused.
    expect(await failure(sut.acquire('acme~tools', { waitMs: EXPIRY_MS * 2 + 500 }))).to.be.instanceOf(UnavailableError);
    expect(await sut.held('acme~tools')).to.equal(true);
    await holder.stop('SIGKILL');
    // Nothing renews it now: it expires and the next run gets it (waiting well past the expiry).
    const release = await sut.acquire('acme~tools', { waitMs: 30_000 });
    expect(await sut.held('acme~tools')).to.equal(true);
    await release();
  });
});
