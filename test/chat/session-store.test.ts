import type { RedisClient } from '../../src/kernel/redis/redis-client.js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { StoredMessage, TurnToStore } from '../../src/chat/session-store.port.js';
import { historyWithinBudget } from '../../src/chat/history-budget.js';
import { RedisSessionStore } from '../../src/chat/adapters/redis-session-store.adapter.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

function turn(turnId: string, text: string, generation = 0): TurnToStore {
  const created = new Date().toISOString();
  return {
    turnId,
    generation,
    model: 'm',
    title: text,
    response: `re: ${text}`,
    messages: [
      { role: 'user', content: text, turn_id: turnId, created },
      { role: 'assistant', content: `re: ${text}`, turn_id: turnId, created },
    ],
  };
}

describe(RedisSessionStore.name, () => {
  let redis: TestRedis;
  let client: RedisClient;
  let sut: RedisSessionStore;
  let prefix: string;
  const user = 'u1';

  before(async () => {
    redis = await startTestRedis();
    client = redis.client.duplicate({ db: 2 });
  });
  after(async () => {
    client.disconnect();
    await redis.destroy();
  });
  beforeEach(() => {
    prefix = `cs${randomUUID().slice(0, 8)}`;
    sut = new RedisSessionStore(client, { prefix, ttlSeconds: 3_600 });
  });

  it('stores a turn once, whatever the number of attempts', async () => {
    expect(await sut.append(user, 's', turn('t1', 'hi'))).to.equal('stored');
    expect(await sut.append(user, 's', turn('t1', 'hi'))).to.equal('duplicate');
    const { history, stored } = await sut.load(user, 's', 't1');
    expect(history).to.have.length(2);
    expect(stored).to.include({ turn_id: 't1', response: 're: hi', model: 'm' });
    expect((await sut.get(user, 's'))?.turns).to.equal(1);
  });

  it('refuses a turn asked before a clear, and keeps every key under its TTL', async () => {
    await sut.append(user, 's', turn('t1', 'hi'));
    const generation = await sut.generation(user, 's');
    expect(await sut.clear(user, 's')).to.equal(true);
    expect(await sut.append(user, 's', turn('t2', 'late', generation))).to.equal('cleared');
    expect(await sut.get(user, 's')).to.equal(null);
    expect(await sut.append(user, 's', turn('t3', 'fresh', await sut.generation(user, 's')))).to.equal('stored');
    const keys = await client.keys(`{${prefix}:chat:${user}}*`);
    expect(keys.length).to.be.greaterThan(0);
    for (const key of keys) expect(await client.ttl(key), key).to.be.within(1, 3_600);
  });

  it('lists sessions newest first, per user', async () => {
    await sut.append(user, 'a', turn('t1', 'first'));
    await sut.append(user, 'b', turn('t2', 'second'));
    await sut.append('u2', 'c', turn('t3', 'other user'));
    const page = await sut.list(user, 0, 10);
    expect(page.count).to.equal(2);
    expect(page.results.map((s) => [s.id, s.title])).to.deep.equal([
      ['b', 'second'],
      ['a', 'first'],
    ]);
    expect((await sut.list(user, 1, 1)).results.map((s) => s.id)).to.deep.equal(['a']);
  });

  it('cleanup removes sessions idle past the TTL and index entries whose data expired', async () => {
    await sut.append(user, 'old', turn('t1', 'old'));
    await sut.append(user, 'gone', turn('t2', 'gone'));
    await sut.append(user, 'new', turn('t3', 'new'));
    const index = `{${prefix}:chat:${user}}:sessions`;
    await client.zadd(index, Date.now() - 3_601_000, 'old');
    await client.del(`{${prefix}:chat:${user}}:s:gone:meta`);
    expect(await sut.removeExpired()).to.deep.equal({ sessions: 2 });
    expect(await client.zrange(index, 0, -1)).to.deep.equal(['new']);
    expect(await client.exists(`{${prefix}:chat:${user}}:s:old:messages`)).to.equal(0);
    expect((await sut.get(user, 'new'))?.turns).to.equal(1);
  });
});

describe(historyWithinBudget.name, () => {
  const message = (turnId: string, role: 'user' | 'assistant', content: string): StoredMessage => ({
    role,
    content,
    turn_id: turnId,
    created: '',
  });

  it('keeps the newest whole turns within the budget, oldest first, without bookkeeping fields', () => {
    const history = [
      message('a', 'user', 'x'.repeat(50)),
      message('a', 'assistant', 'y'.repeat(50)),
      message('b', 'user', 'second'),
      message('b', 'assistant', 'answer'),
    ];
    expect(historyWithinBudget(history, 20)).to.deep.equal([
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'answer' },
    ]);
    expect(historyWithinBudget(history, 1_000)).to.have.length(4);
    expect(historyWithinBudget(history, 5)).to.deep.equal([]);
  });
});

describe(ConcurrencyLimiter.name, () => {
  it('runs at most the limit per provider at once, the rest in order', async () => {
    const sut = new ConcurrencyLimiter(2);
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const runs = [0, 1, 2, 3].map((index) =>
      sut.run('openai', async () => {
        started.push(index);
        await new Promise<void>((resolve) => releases.push(resolve));
      }),
    );
    const other = sut.run('ollama', async () => 'independent');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).to.deep.equal([0, 1]);
    expect(sut.running('openai')).to.equal(2);
    expect(await other).to.equal('independent');
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).to.deep.equal([0, 1, 2]);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(runs);
    expect(sut.running('openai')).to.equal(0);
  });
});
