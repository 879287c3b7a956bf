import { expect } from 'chai';
import { RedisApprovalStore } from '../../src/chat/adapters/redis-approval-store.adapter.js';
import type { PausedAgent } from '../../src/chat/agent/turn-types.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const PAUSED: PausedAgent = {
  step: 1,
  messages: [{ role: 'user', content: 'go' }],
  usage: { input_tokens: 0, output_tokens: 0 },
  ran: {},
  pending: [{ id: 'c1', tool: 'lookup', server: 'inventory', arguments: { write: true } }],
};

describe('RedisApprovalStore: approved calls across attempts of a turn', () => {
  let redis: TestRedis;
  let store: RedisApprovalStore;

  before(async () => {
    redis = await startTestRedis();
    store = new RedisApprovalStore(redis.client, { prefix: 'approvals' });
  });
  after(async () => {
    await redis.destroy();
  });

  it('marks a call started once, then answers its outcome; a new round starts without marks', async () => {
    await store.open('t1', { paused: PAUSED, expiresAt: Date.now() + 60_000 }, 60_000, 'u1');
    expect(await store.startCall('t1', 'c1')).to.equal(null);
    expect(await store.startCall('t1', 'c1')).to.equal('started');
    const outcome = {
      ok: true,
      content: 'did create',
      approval: { approved: true, decided_by: 'u1', decided_at: '2026-01-01T00:00:00.000Z' },
    };
    await store.finishCall('t1', 'c1', outcome);
    expect(await store.startCall('t1', 'c1')).to.deep.equal(outcome);
    expect((await store.get('t1'))?.decisions, 'marks are not decisions').to.deep.equal({});

    await store.open('t1', { paused: PAUSED, expiresAt: Date.now() + 60_000 }, 60_000, 'u1');
    expect(await store.startCall('t1', 'c1')).to.equal(null);
  });

  it('keeps no mark for a turn without a round (expired): the key is never made without its time to live', async () => {
    expect(await store.startCall('gone', 'c1')).to.equal(null);
    await store.finishCall('gone', 'c1', { ok: true, content: 'x' });
    expect(await redis.client.exists('approvals:chat-approval:gone')).to.equal(0);
  });

  it('closes a round as it stands (a stopped turn): no longer waiting, decisions refused, its calls undecided; no round made for a turn without one', async () => {
    const now = Date.now();
    await store.open('s1', { paused: PAUSED, expiresAt: now + 60_000 }, 60_000, 'stopper');
    await store.close('s1');
    expect(await store.waiting('stopper', now)).to.deep.equal([]);
    const decision = { approved: true, decided_by: 'stopper', decided_at: new Date(now).toISOString() };
    expect(await store.decide('s1', { c1: decision }, now)).to.deep.equal({ outcome: 'not_waiting' });
    expect(await store.get('s1')).to.deep.include({ closed: true, decisions: {} });
    await store.close('never-paused');
    expect(await redis.client.exists('approvals:chat-approval:never-paused')).to.equal(0);
  });

  it("lists a user's turns whose round waits: not another user's, not one decided or past its expiry", async () => {
    const now = Date.now();
    await store.open('w1', { paused: PAUSED, expiresAt: now + 60_000 }, 60_000, 'alice');
    await store.open('w2', { paused: PAUSED, expiresAt: now + 60_000 }, 60_000, 'alice');
    await store.open('w3', { paused: PAUSED, expiresAt: now + 60_000 }, 60_000, 'bob');
    await store.open('w4', { paused: PAUSED, expiresAt: now + 1_000 }, 60_000, 'alice');
    await store.decide('w2', { c1: { approved: true, decided_by: 'alice', decided_at: new Date(now).toISOString() } }, now);
    await store.settle('w2', now, { approved: false, decided_by: null, decided_at: new Date(now).toISOString() });
    expect(await store.waiting('alice', now)).to.deep.equal(['w1', 'w4']);
    expect(await store.waiting('alice', now + 2_000)).to.deep.equal(['w1']);
    expect(await store.waiting('bob', now)).to.deep.equal(['w3']);
    expect(await store.waiting('carol', now)).to.deep.equal([]);
  });

  it("reads back a decision on a call id that names a property of plain objects as that call's, and no other", async () => {
    const pending = ['__proto__', 'constructor'].map((id) => ({ id, tool: 'lookup', server: 'inventory', arguments: {} }));
    await store.open('odd', { paused: { ...PAUSED, pending }, expiresAt: Date.now() + 60_000 }, 60_000, 'u1');
    const decision = { approved: true, decided_by: 'u1', decided_at: '2026-01-01T00:00:00.000Z' };
    expect(await store.decide('odd', Object.fromEntries([['__proto__', decision]]), Date.now())).to.deep.equal({
      outcome: 'recorded',
      complete: false,
    });
    const decisions = (await store.get('odd'))!.decisions;
    expect(Object.keys(decisions)).to.deep.equal(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(decisions, '__proto__')?.value).to.deep.equal(decision);
    expect(Object.getPrototypeOf(decisions)).to.equal(Object.prototype);
  });

  it('refuses a decision from the expiry on, though no worker has settled the round, and records none of it', async () => {
    const expiresAt = Date.now() + 60_000;
    await store.open('late', { paused: PAUSED, expiresAt }, 120_000, 'u1');
    const decision = { approved: true, decided_by: 'u1', decided_at: new Date(expiresAt).toISOString() };
    expect(await store.decide('late', { c1: decision }, expiresAt)).to.deep.equal({ outcome: 'expired', expiresAt });
    expect((await store.get('late'))?.decisions).to.deep.equal({});
    expect(await store.decide('late', { c1: decision }, expiresAt - 1)).to.deep.equal({ outcome: 'recorded', complete: true });
  });
});
