import type { Embedder } from '../embeddings/embedder.port.js';
import { collectionName } from '../embeddings/point-id.js';
import type { VectorStore } from '../embeddings/vector-store.port.js';
import type { ChunkStore, ChunkToStore, ChunkWriter, KnowledgeChunk, ScoredChunk, SearchedRepository } from './chunk-store.port.js';
import { inOrder } from './chunk-store.port.js';

const EMBED_BATCH = 64;

/** Chunks as vectors in the vector store: one collection per repository, model and dimension. */
export class DenseChunkStore implements ChunkStore {
  readonly mode = 'dense';
  readonly key: string;

  private constructor(
    private readonly embedder: Embedder,
    private readonly store: VectorStore,
    private readonly dimension: number,
  ) {
    this.key = collectionName('dense', store.kind, embedder.model, dimension);
  }

  /** Loads the model; rejects when it cannot be loaded (the caller falls back to lexical). */
  static async open(embedder: Embedder, store: VectorStore): Promise<DenseChunkStore> {
    const { dimension } = await embedder.load();
    return new DenseChunkStore(embedder, store, dimension);
  }

  private collection(repository: string): string {
    return collectionName('kb', repository, this.embedder.model, this.dimension);
  }

  async writer(repository: string): Promise<ChunkWriter> {
    const collection = this.collection(repository);
    await this.store.ensureCollection(collection, this.dimension);
    let changed = false;
    return {
      upsert: async (chunks: ChunkToStore[]) => {
        changed ||= chunks.length > 0;
        for (let start = 0; start < chunks.length; start += EMBED_BATCH) {
          const batch = chunks.slice(start, start + EMBED_BATCH);
          const vectors = await this.embedder.embed(batch.map((item) => item.text));
          await this.store.upsert(
            collection,
            batch.map((item, index) => ({ id: item.id, vector: vectors[index]!, payload: { ...item.chunk } })),
          );
        }
      },
      delete: async (ids) => {
        changed ||= ids.length > 0;
        await this.store.delete(collection, ids);
      },
      ids: async () => (await this.store.payloads(collection)).map((point) => point.id),
      commit: async () => {
        // Each upsert and delete is durable on its own; once per run that changed vectors, the
        // store folds them into its nearest-neighbour index (and builds one for a large collection).
        if (changed) await this.store.optimize(collection);
        // Every process reads the vector store itself: there is no copy to catch up.
        return undefined;
      },
    };
  }

  drop(repository: string): Promise<void> {
    return this.store.dropCollection(this.collection(repository));
  }

  async read(repository: string, ids: string[]): Promise<KnowledgeChunk[]> {
    if (!ids.length) return [];
    const found = await this.store.retrieve(this.collection(repository), ids);
    return inOrder(ids, found, (point) => point.payload as unknown as KnowledgeChunk);
  }

  async search(repositories: SearchedRepository[], query: string, limit: number): Promise<ScoredChunk[]> {
    if (!repositories.length) return [];
    const [vector] = await this.embedder.embed([query]);
    const lists = await Promise.all(
      repositories.map(({ name }) => this.store.search(this.collection(name), vector!, limit).catch(() => [])),
    );
    return lists
      .flat()
      .map((hit) => ({ id: hit.id, score: hit.score, chunk: hit.payload as unknown as KnowledgeChunk }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}
