import { QdrantClient } from '@qdrant/js-client-rest';
import { ValidationError } from '../../kernel/errors.js';
import type { VectorHit, VectorIndexReport, VectorPoint, VectorStore } from '../vector-store.port.js';

const PAGE = 1_000;

/** Qdrant over its REST API: one collection per name, cosine distance, payloads as given. */
export class QdrantVectorStore implements VectorStore {
  readonly kind = 'qdrant';
  private readonly client: QdrantClient;

  constructor(options: { url: string; apiKey?: string; timeoutMs?: number }) {
    this.client = new QdrantClient({
      url: options.url,
      apiKey: options.apiKey,
      timeout: options.timeoutMs ?? 10_000,
      checkCompatibility: false,
    });
  }

  async ensureCollection(name: string, dimension: number): Promise<void> {
    const { exists } = await this.client.collectionExists(name);
    if (!exists) {
      try {
        await this.client.createCollection(name, { vectors: { size: dimension, distance: 'Cosine' } });
      } catch (error) {
        // Another process may have created it between the check and the create.
        if (!(await this.client.collectionExists(name)).exists) throw error;
      }
    }
    const info = await this.client.getCollection(name);
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    if (vectors?.size !== dimension)
      throw ValidationError.field('collection', `${name} holds vectors of dimension ${vectors?.size}, not ${dimension}`);
  }

  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    for (let start = 0; start < points.length; start += PAGE) {
      await this.client.upsert(name, { wait: true, points: points.slice(start, start + PAGE) });
    }
  }

  async delete(name: string, ids: string[]): Promise<void> {
    if (ids.length) await this.client.delete(name, { wait: true, points: ids });
  }

  async search(name: string, vector: number[], limit: number): Promise<VectorHit[]> {
    const { points } = await this.client.query(name, { query: vector, limit, with_payload: true });
    return points.map((point) => ({ id: String(point.id), score: point.score, payload: point.payload ?? {} }));
  }

  /**
   * Nothing to do: Qdrant's optimizers build each segment's HNSW index in the background once it
   * passes the collection's indexing threshold, and search points not yet indexed exhaustively
   * meanwhile. Reports how far that has got (one request).
   */
  async optimize(name: string): Promise<VectorIndexReport> {
    const info = await this.client.getCollection(name);
    return { points: info.points_count ?? 0, indexed: info.indexed_vectors_count ?? 0 };
  }

  async retrieve(name: string, ids: string[]): Promise<Array<{ id: string; payload: Record<string, unknown> }>> {
    const found: Array<{ id: string; payload: Record<string, unknown> }> = [];
    for (let start = 0; start < ids.length; start += PAGE) {
      const points = await this.client.retrieve(name, { ids: ids.slice(start, start + PAGE), with_payload: true, with_vector: false });
      for (const point of points) found.push({ id: String(point.id), payload: point.payload ?? {} });
    }
    return found;
  }

  async payloads(name: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>> {
    const all: Array<{ id: string; payload: Record<string, unknown> }> = [];
    let offset: string | number | undefined;
    do {
      const page = await this.client.scroll(name, {
        limit: PAGE,
        with_payload: true,
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      });
      for (const point of page.points) all.push({ id: String(point.id), payload: point.payload ?? {} });
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return all;
  }

  async dropCollection(name: string): Promise<void> {
    if ((await this.client.collectionExists(name)).exists) await this.client.deleteCollection(name);
  }

  async close(): Promise<void> {
    // The REST client holds no connection of its own to close.
  }
}
