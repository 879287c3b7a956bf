import { expect } from 'chai';
import type { VectorStore } from '../../shared/vector-store/vector-store.js';
import { pointId } from '../../shared/vector-store/point-id.js';

export interface ContractSubject {
  /** A store to test; `second` opens another handle on the same data (another process's view). */
  open(): Promise<{ store: VectorStore; second: () => Promise<VectorStore> }>;
}

const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
};

/** The behaviour every VectorStore adapter must have. */
export function vectorStoreContract(subject: ContractSubject): void {
  let store: VectorStore;
  let second: () => Promise<VectorStore>;
  let collection: string;
  let counter = 0;

  beforeEach(async () => {
    ({ store, second } = await subject.open());
    collection = `contract_${process.pid}_${Date.now()}_${counter++}`;
    await store.ensureCollection(collection, 4);
  });
  afterEach(async () => {
    await store.dropCollection(collection);
    await store.close();
  });

  const point = (key: string, vector: number[], extra: Record<string, unknown> = {}) => ({ id: pointId(key), vector: unit(vector), payload: { key, ...extra } });

  it('upserts, searches nearest first with cosine scores, and lists payloads', async () => {
    await store.upsert(collection, [point('a', [1, 0, 0, 0]), point('b', [0, 1, 0, 0]), point('c', [1, 1, 0, 0])]);
    const hits = await store.search(collection, unit([1, 0.1, 0, 0]), 2);
    expect(hits.map((hit) => hit.payload.key)).to.deep.equal(['a', 'c']);
    expect(hits[0]!.score).to.be.closeTo(0.995, 0.01);
    expect(hits[0]!.id).to.equal(pointId('a'));
    const payloads = await store.payloads(collection);
    expect(payloads.map((p) => p.payload.key).sort()).to.deep.equal(['a', 'b', 'c']);
  });

  it('replaces a point with the same id and deletes by id', async () => {
    await store.upsert(collection, [point('a', [1, 0, 0, 0], { hash: 'one' }), point('b', [0, 1, 0, 0])]);
    await store.upsert(collection, [point('a', [0, 0, 1, 0], { hash: 'two' })]);
    await store.delete(collection, [pointId('b')]);
    const payloads = await store.payloads(collection);
    expect(payloads).to.have.length(1);
    expect(payloads[0]!.payload).to.deep.equal({ key: 'a', hash: 'two' });
    expect((await store.search(collection, unit([0, 0, 1, 0]), 1))[0]!.payload.key).to.equal('a');
  });

  it('keeps an existing collection and refuses another dimension', async () => {
    await store.upsert(collection, [point('a', [1, 0, 0, 0])]);
    await store.ensureCollection(collection, 4);
    expect(await store.payloads(collection)).to.have.length(1);
    let failed = false;
    await store.ensureCollection(collection, 8).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('lets a reader see what another writer stored', async () => {
    const reader = await second();
    try {
      expect(await reader.payloads(collection)).to.have.length(0);
      await store.upsert(collection, [point('a', [1, 0, 0, 0])]);
      expect((await reader.search(collection, unit([1, 0, 0, 0]), 1))[0]?.payload.key).to.equal('a');
    } finally {
      await reader.close();
    }
  });
}
