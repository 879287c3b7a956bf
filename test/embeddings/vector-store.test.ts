import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LanceDbVectorStore } from '../../src/embeddings/adapters/lancedb-vector-store.adapter.js';
import { QdrantVectorStore } from '../../src/embeddings/adapters/qdrant-vector-store.adapter.js';
import { pointId } from '../../src/embeddings/point-id.js';
import { vectorStoreContract } from './vector-store.contract.js';

describe(LanceDbVectorStore.name, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-lancedb-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // A low threshold, so that the contract's 1,000-point collection gets a vector index.
  const open = () => LanceDbVectorStore.open(dir, { indexMinRows: 500 });
  vectorStoreContract({ open: async () => ({ store: await open(), second: open }) });

  it('indexes every point once a collection reaches the threshold, and not before', async () => {
    const store = await open();
    try {
      await store.ensureCollection('indexed', 8);
      const batch = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({
          id: pointId(`i${from + i}`),
          vector: Array.from({ length: 8 }, (_, k) => Math.sin((from + i + 1) * (k + 1))),
          payload: {},
        }));
      await store.upsert('indexed', batch(0, 400));
      expect(await store.optimize('indexed')).to.deep.equal({ points: 400, indexed: 0 });
      await store.upsert('indexed', batch(400, 200));
      expect(await store.optimize('indexed')).to.deep.equal({ points: 600, indexed: 600 });
      // Points written later join the index at the next optimize.
      await store.upsert('indexed', batch(600, 100));
      expect(await store.optimize('indexed')).to.deep.equal({ points: 700, indexed: 700 });
    } finally {
      await store.dropCollection('indexed');
      await store.close();
    }
  });
});

describe(`${LanceDbVectorStore.name} with a quantized index`, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-lancedb-pq-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // Thresholds lowered so that 1,000 points get the IVF_PQ index a large collection gets.
  const open = () => LanceDbVectorStore.open(dir, { indexMinRows: 500, quantizedMinRows: 500 });
  vectorStoreContract({ open: async () => ({ store: await open(), second: open }) });

  it('ranks a large collection by exact cosine scores, the quantized ones refined', async () => {
    const store = await open();
    try {
      await store.ensureCollection('quantized', 16);
      const vector = (i: number) => Array.from({ length: 16 }, (_, k) => Math.sin((i + 1) * (k + 1)));
      await store.upsert(
        'quantized',
        Array.from({ length: 1_000 }, (_, i) => ({ id: pointId(`q${i}`), vector: vector(i), payload: { i } })),
      );
      expect(await store.optimize('quantized')).to.deep.equal({ points: 1_000, indexed: 1_000 });
      const [best] = await store.search('quantized', vector(123), 3);
      expect(best).to.include({ id: pointId('q123') });
      expect(best!.score).to.be.closeTo(1, 1e-5);
    } finally {
      await store.dropCollection('quantized');
      await store.close();
    }
  });
});

describe(QdrantVectorStore.name, function () {
  const url = process.env.QDRANT_URL;
  before(function () {
    if (!url) {
      console.warn('    (skipped: set QDRANT_URL to run the vector store contract against a Qdrant server)');
      this.skip();
    }
  });
  vectorStoreContract({
    open: async () => {
      const options = { url: url!, apiKey: process.env.QDRANT_API_KEY };
      return { store: new QdrantVectorStore(options), second: async () => new QdrantVectorStore(options) };
    },
  });
});
