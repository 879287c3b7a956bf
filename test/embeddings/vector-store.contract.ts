import { expect } from 'chai';
import type { VectorStore } from '../../src/embeddings/vector-store.port.js';
import { pointId } from '../../src/embeddings/point-id.js';
import { seeded } from '../support/seeded-random.js';

export interface ContractSubject {
  /** A store to test; `second` opens another handle on the same data (another process's view). */
  open(): Promise<{ store: VectorStore; second: () => Promise<VectorStore> }>;
}

const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
};

const dot = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

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

  const point = (key: string, vector: number[], extra: Record<string, unknown> = {}) => ({
    id: pointId(key),
    vector: unit(vector),
    payload: { key, ...extra },
  });

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

  it('retrieves the payloads of the ids asked for, none of ids not stored', async () => {
    await store.upsert(collection, [point('a', [1, 0, 0, 0]), point('b', [0, 1, 0, 0]), point('c', [0, 0, 1, 0])]);
    const found = await store.retrieve(collection, [pointId('c'), pointId('missing'), pointId('a')]);
    expect(found.map((p) => [p.id, p.payload.key]).sort()).to.deep.equal(
      [
        [pointId('a'), 'a'],
        [pointId('c'), 'c'],
      ].sort(),
    );
    expect(await store.retrieve(collection, [])).to.deep.equal([]);
  });

  it('keeps an existing collection and refuses another dimension', async () => {
    await store.upsert(collection, [point('a', [1, 0, 0, 0])]);
    await store.ensureCollection(collection, 4);
    expect(await store.payloads(collection)).to.have.length(1);
    let failed = false;
    await store.ensureCollection(collection, 8).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  // Exact counts are the adapters' own tests: Qdrant documents its counts as approximate.
  const optimize = async (name: string) => {
    const report = await store.optimize(name);
    expect(report.indexed).to.be.at.most(report.points);
  };

  it('after optimize, finds nearest neighbours, points written later and no deleted point', async () => {
    const random = seeded(7);
    const dimension = 16;
    const vector = () => unit(Array.from({ length: dimension }, () => random() - 0.5));
    const big = `${collection}_optimized`;
    const points = Array.from({ length: 1_000 }, (_, i) => ({ id: pointId(`p${i}`), vector: vector(), payload: { key: `p${i}` } }));
    const reader = await second();
    try {
      await store.ensureCollection(big, dimension);
      await store.upsert(big, points);
      await optimize(big);

      // Each stored vector finds itself first; its neighbours are mostly the exact ones.
      const probes = points.slice(0, 50);
      let overlap = 0;
      for (const probe of probes) {
        const hits = await reader.search(big, probe.vector, 5);
        expect(hits[0]!.id).to.equal(probe.id);
        expect(hits[0]!.score).to.be.closeTo(1, 1e-3);
        const exact = points
          .map((p) => ({ id: p.id, score: dot(p.vector, probe.vector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 5)
          .map((p) => p.id);
        overlap += hits.filter((hit) => exact.includes(hit.id)).length;
      }
      expect(overlap / (probes.length * 5)).to.be.at.least(0.9);

      // Written after the index: new points, moved points and deletes of both kinds.
      const added = Array.from({ length: 50 }, (_, i) => ({ id: pointId(`n${i}`), vector: vector(), payload: { key: `n${i}` } }));
      const moved = points.slice(50, 60).map((p) => ({ ...p, vector: vector() }));
      await store.upsert(big, [...added, ...moved]);
      const deleted = [...points.slice(60, 80), ...added.slice(0, 10)];
      await store.delete(
        big,
        deleted.map((p) => p.id),
      );
      const live = [...added.slice(10), ...moved, ...points.slice(0, 50), ...points.slice(80, 120)];
      const check = async () => {
        for (const p of live) expect((await reader.search(big, p.vector, 1))[0]?.id, p.payload.key).to.equal(p.id);
        for (const p of [...deleted, ...points.slice(50, 60)]) {
          const stale = (await reader.search(big, p.vector, 5)).find((hit) => hit.id === p.id && hit.score > 0.999);
          expect(stale, p.payload.key).to.equal(undefined);
        }
      };
      await check();
      await optimize(big);
      await check();
      expect(await reader.payloads(big)).to.have.length(1_020);
    } finally {
      await reader.close();
      await store.dropCollection(big);
    }
  });

  it('optimizes a small or empty collection', async () => {
    await optimize(collection);
    await store.upsert(collection, [point('a', [1, 0, 0, 0]), point('b', [0, 1, 0, 0])]);
    await optimize(collection);
    expect((await store.search(collection, unit([0, 1, 0, 0]), 1))[0]!.payload.key).to.equal('b');
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
