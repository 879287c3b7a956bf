import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LanceDbVectorStore } from '../../shared/adapters/lancedb/lancedb-vector-store.js';
import { QdrantVectorStore } from '../../shared/adapters/qdrant/qdrant-vector-store.js';
import { vectorStoreContract } from './vector-store.contract.js';

describe(LanceDbVectorStore.name, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-lancedb-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  vectorStoreContract({
    open: async () => ({ store: await LanceDbVectorStore.open(dir), second: () => LanceDbVectorStore.open(dir) }),
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
