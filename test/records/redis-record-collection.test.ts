import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RedisRecordCollection } from '../../shared/adapters/redis/redis-record-collection.js';
import type { BaseRecord } from '../../shared/records/record-collection.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

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
});
