import type { RedisClient } from '../../src/kernel/redis/redis-client.js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RecordChanges } from '../../src/records/adapters/record-changes.js';
import { RedisRecordCollection } from '../../src/records/adapters/redis-record-collection.adapter.js';
import type { BaseRecord } from '../../src/records/record-collection.port.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

interface Thing extends BaseRecord {
  name: string;
  size: number;
}

function thing(name: string, size = 0): Thing {
  return { id: randomUUID(), created: '2026-01-01T00:00:00.000Z', last_updated: '2026-01-01T00:00:00.000Z', name, size };
}

describe(RedisRecordCollection.name, () => {
  let redis: TestRedis;
  let sut: RedisRecordCollection<Thing>;
  let run = 0;

  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });
  beforeEach(() => {
    sut = new RedisRecordCollection<Thing>(redis.client, { prefix: `c${run++}`, name: 'things', keyField: 'name' });
  });

  for (const holderIndex of [null, 0, 1, 7, 15]) {
    it(`lists in key order with the flag holder first (holder at ${holderIndex ?? 'none'})`, async () => {
      const things = Array.from({ length: 16 }, (_, i) => thing(`t${String(i).padStart(2, '0')}`));
      for (const [i, t] of [...things.entries()].reverse()) await sut.insert(t, { flag: i === holderIndex });
      const expected = holderIndex === null ? things : [things[holderIndex]!, ...things.filter((_, i) => i !== holderIndex)];
      const listing = await sut.all();
      expect(listing.records.map((t) => t.name)).to.deep.equal(expected.map((t) => t.name));
      expect(listing.flagHolder).to.equal(holderIndex === null ? null : things[holderIndex]!.id);
    });
  }

  it('serves an unchanged collection from its cache and sees every write, from any client', async () => {
    const first = thing('first');
    await sut.insert(first);
    expect((await sut.all()).records.map((t) => t.name)).to.deep.equal(['first']);
    // Another process's writes go through another client and another collection object.
    const client = redis.client.duplicate();
    const other = new RedisRecordCollection<Thing>(client, { prefix: `c${run - 1}`, name: 'things', keyField: 'name' });
    await other.insert(thing('second'), { flag: true });
    const afterInsert = await sut.all();
    expect(afterInsert.records.map((t) => t.name)).to.deep.equal(['second', 'first']);
    await other.swap(first, { ...first, size: 7 });
    expect((await sut.all()).records.find((t) => t.name === 'first')?.size).to.equal(7);
    await other.remove(first.id);
    expect((await sut.all()).records.map((t) => t.name)).to.deep.equal(['second']);
    // What a caller does to its array does not reach the cache.
    (await sut.all()).records.splice(0);
    expect((await sut.all()).records).to.have.length(1);
    client.disconnect();
  });

  it('swaps only when the stored record is unchanged', async () => {
    const original = thing('cas', 1);
    await sut.insert(original);
    expect(await sut.swap(original, { ...original, size: 2 })).to.equal('ok');
    expect(await sut.swap(original, { ...original, size: 3 })).to.equal('changed');
    expect((await sut.get(original.id))?.size).to.equal(2);
    await sut.remove(original.id);
    expect(await sut.swap(original, { ...original, size: 4 })).to.equal('gone');
  });

  it('frees the key, the order entry and the flag on remove', async () => {
    const flagged = thing('flagged');
    await sut.insert(flagged, { flag: true });
    expect(await sut.remove(flagged.id)).to.equal(true);
    expect(await sut.remove(flagged.id)).to.equal(false);
    expect(await sut.flagHolder()).to.equal(null);
    expect(await sut.getByKey('flagged')).to.equal(null);
    expect((await sut.all()).records).to.deep.equal([]);
    expect(await sut.insert(thing('flagged'))).to.equal('ok');
  });

  it('removes a record stored without its key (as an unchecked write once left one) with its index entries, all or nothing', async () => {
    const nameless = { ...thing('x'), name: undefined } as unknown as Thing;
    await sut.insert(nameless);
    expect(await sut.remove(nameless.id)).to.equal(true);
    expect((await sut.all()).records).to.deep.equal([]);
    const prefix = `c${run - 1}`;
    expect(await redis.client.hlen(`{${prefix}:things}:keys`)).to.equal(0);
    expect(await redis.client.zcard(`{${prefix}:things}:order`)).to.equal(0);
  });

  describe('writeBatch', () => {
    /** Everything stored of the collection, to compare before and after a batch that must change nothing. */
    const snapshot = async () => {
      const tag = `{c${run - 1}:things}`;
      return {
        records: await redis.client.hgetall(`${tag}:records`),
        keys: await redis.client.hgetall(`${tag}:keys`),
        order: await redis.client.zrange(`${tag}:order`, 0, -1),
        flag: await redis.client.get(`${tag}:flag`),
      };
    };

    it('inserts, swaps and removes in one step, moving the flag and the keys', async () => {
      const kept = thing('kept');
      const renamed = thing('old-name');
      const removed = thing('removed');
      await sut.insert(kept, { flag: true });
      await sut.insert(renamed);
      await sut.insert(removed);
      const added = thing('added');
      const outcome = await sut.writeBatch([
        { kind: 'insert', record: added },
        { kind: 'swap', expected: renamed, next: { ...renamed, name: 'new-name' }, flag: true },
        { kind: 'remove', expected: removed },
      ]);
      expect(outcome).to.deep.equal({ outcome: 'ok' });
      expect((await sut.all()).records.map((t) => t.name)).to.deep.equal(['new-name', 'added', 'kept']);
      expect(await sut.flagHolder()).to.equal(renamed.id);
      expect(await sut.getByKey('old-name')).to.equal(null);
      expect(await sut.getByKey('removed')).to.equal(null);
      expect(await sut.insert(thing('old-name'))).to.equal('ok');
    });

    it('lets records of one batch trade their keys', async () => {
      const a = thing('a');
      const b = thing('b');
      await sut.insert(a);
      await sut.insert(b);
      const outcome = await sut.writeBatch([
        { kind: 'swap', expected: a, next: { ...a, name: 'b' } },
        { kind: 'swap', expected: b, next: { ...b, name: 'a' } },
      ]);
      expect(outcome).to.deep.equal({ outcome: 'ok' });
      expect((await sut.getByKey('a'))?.id).to.equal(b.id);
      expect((await sut.getByKey('b'))?.id).to.equal(a.id);
    });

    it('writes nothing when one write fails, and names it', async () => {
      const stored = thing('stored', 1);
      const other = thing('other', 1);
      await sut.insert(stored, { flag: true });
      await sut.insert(other);
      const before = await snapshot();
      const cases: [Parameters<typeof sut.writeBatch>[0], Awaited<ReturnType<typeof sut.writeBatch>>][] = [
        [
          [
            { kind: 'insert', record: thing('new') },
            { kind: 'insert', record: thing('stored') },
          ],
          { outcome: 'duplicate-key', index: 1 },
        ],
        [
          [
            { kind: 'insert', record: thing('twice') },
            { kind: 'insert', record: thing('twice') },
          ],
          { outcome: 'duplicate-key', index: 1 },
        ],
        [
          [
            { kind: 'swap', expected: other, next: { ...other, size: 2 }, flag: true },
            { kind: 'swap', expected: { ...stored, size: 9 }, next: { ...stored, size: 3 } },
          ],
          { outcome: 'changed', index: 1 },
        ],
        [
          [
            { kind: 'remove', expected: other },
            { kind: 'remove', expected: thing('never-stored') },
          ],
          { outcome: 'gone', index: 1 },
        ],
      ];
      for (const [writes, outcome] of cases) {
        expect(await sut.writeBatch(writes)).to.deep.equal(outcome);
        expect(await snapshot()).to.deep.equal(before);
      }
    });

    it('removes a record stored without its key with its index entries', async () => {
      const nameless = { ...thing('x'), name: undefined } as unknown as Thing;
      await sut.insert(nameless);
      expect(await sut.writeBatch([{ kind: 'remove', expected: nameless }])).to.deep.equal({ outcome: 'ok' });
      expect(await snapshot()).to.deep.equal({ records: {}, keys: {}, order: [], flag: null });
    });
  });
});

describe(`${RedisRecordCollection.name} following record changes`, () => {
  let redis: TestRedis;
  let prefix: string;
  let changes: RecordChanges;
  let stopListening: () => void;
  let followerClient: RedisClient;
  /** Commands the follower sent to Redis. */
  let sent: string[];
  /** A collection in this process, reading through the cache. */
  let follower: RedisRecordCollection<Thing>;
  /** The same collection in another process: its own client, not following. */
  let writer: RedisRecordCollection<Thing>;
  let run = 0;

  before(async () => {
    redis = await startTestRedis();
  });
  after(async () => {
    await redis.destroy();
  });
  beforeEach(async () => {
    prefix = `f${run++}`;
    changes = new RecordChanges();
    stopListening = changes.listen(redis.client, prefix);
    await until(() => changes.stamp('things') !== undefined, 5_000, 'the subscription');
    followerClient = redis.client.duplicate();
    sent = [];
    const send = followerClient.sendCommand.bind(followerClient);
    followerClient.sendCommand = (command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    };
    follower = new RedisRecordCollection<Thing>(followerClient, {
      prefix,
      name: 'things',
      keyField: 'name',
      changes,
      pointReadsFromListing: true,
    });
    writer = new RedisRecordCollection<Thing>(redis.client, { prefix, name: 'things', keyField: 'name' });
  });
  afterEach(() => {
    stopListening();
    followerClient.disconnect();
  });

  it('reads an unchanged collection without a round trip and hears the writes of other processes', async () => {
    const first = thing('first', 1);
    const beforeInsert = changes.stamp('things');
    await writer.insert(first, { flag: true });
    await until(() => changes.stamp('things') !== beforeInsert, 5_000, 'the insert to be heard');
    expect((await follower.getByKey('first'))?.size).to.equal(1);
    sent.length = 0;
    for (let i = 0; i < 50; i++) {
      expect((await follower.get(first.id))?.name).to.equal('first');
      expect((await follower.getWithFlagHolder(first.id)).flagHolder).to.equal(first.id);
      expect(await follower.flagHolder()).to.equal(first.id);
      expect((await follower.all()).records).to.have.length(1);
    }
    expect(sent).to.deep.equal([]);

    await writer.swap(first, { ...first, size: 2 });
    await until(async () => (await follower.get(first.id))?.size === 2, 5_000, 'the update to be heard');
    await writer.remove(first.id);
    await until(async () => (await follower.get(first.id)) === null, 5_000, 'the removal to be heard');
  });

  it('announces no write of a collection written often, and reads its listing again after a write elsewhere', async () => {
    const quietWriter = new RedisRecordCollection<Thing>(redis.client, { prefix, name: 'quiet', keyField: 'name', announced: false });
    const quietReader = new RedisRecordCollection<Thing>(followerClient, {
      prefix,
      name: 'quiet',
      keyField: 'name',
      changes,
      announced: false,
    });
    const unheard = changes.stamp('quiet');
    const first = thing('first');
    await quietWriter.insert(first);
    expect((await quietReader.all()).records.map((each) => each.name)).to.deep.equal(['first']);
    await quietWriter.insert(thing('second'));
    expect((await quietReader.all()).records.map((each) => each.name)).to.deep.equal(['first', 'second']);
    await quietWriter.remove(first.id);
    expect((await quietReader.all()).records.map((each) => each.name)).to.deep.equal(['second']);
    // Notices arrive in order: once a later announced write is heard, a notice of the quiet ones would have been.
    const heard = changes.stamp('things');
    await writer.insert(thing('loud'));
    await until(() => changes.stamp('things') !== heard, 5_000, 'the announced write to be heard');
    expect(changes.stamp('quiet')).to.equal(unheard);
  });

  it('finds a record created elsewhere whose notice has not arrived yet', async () => {
    await writer.insert(thing('first'));
    expect(await follower.getByKey('first')).to.not.equal(null);
    // A create as the insert script makes it, minus the notice (still on its way).
    const late = thing('late');
    const tag = `{${prefix}:things}`;
    await redis.client
      .multi()
      .hset(`${tag}:records`, late.id, JSON.stringify(late))
      .hset(`${tag}:keys`, 'late', late.id)
      .zadd(`${tag}:order`, 0, 'late')
      .incr(`${tag}:version`)
      .exec();
    expect((await follower.getByKey('late'))?.id).to.equal(late.id);
    expect((await follower.get(late.id))?.name).to.equal('late');
  });

  it('sees its own writes at once', async () => {
    const mine = thing('mine', 1);
    await follower.insert(mine);
    expect((await follower.getByKey('mine'))?.size).to.equal(1);
    await follower.swap(mine, { ...mine, size: 2 });
    expect((await follower.getByKey('mine'))?.size).to.equal(2);
  });

  it('checks the store again after its subscription was lost, for the writes made meanwhile', async () => {
    const first = thing('first', 1);
    await writer.insert(first);
    expect((await follower.get(first.id))?.size).to.equal(1);
    const before = changes.stamp('things');
    await redis.client.client('KILL', 'TYPE', 'pubsub');
    // Made while the subscription is down or coming back: its notice may be lost.
    await writer.swap(first, { ...first, size: 2 });
    await until(() => changes.stamp('things') !== undefined && changes.stamp('things') !== before, 5_000, 'the subscription to come back');
    expect((await follower.get(first.id))?.size).to.equal(2);
  });
});
