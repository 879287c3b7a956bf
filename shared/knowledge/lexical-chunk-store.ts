import { rm, stat } from 'node:fs/promises';
import { contentTerms, terms } from '../platform/text.js';
import { readJson, writeJsonAtomic } from './json-file.js';
import type { ChunkStore, ChunkToStore, ChunkWriter, KnowledgeChunk, ScoredChunk } from './chunk-store.port.js';

interface StoredChunk {
  id: string;
  chunk: KnowledgeChunk;
  text: string;
}

const K1 = 1.2;
const B = 0.75;

/** BM25 over the chunks of one repository file. */
class ChunkBm25 {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly lengths: number[];
  private readonly average: number;

  constructor(readonly chunks: StoredChunk[]) {
    this.lengths = chunks.map((item, index) => {
      const counts = new Map<string, number>();
      const list = terms(item.text);
      for (const term of list) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, count] of counts) {
        let posting = this.postings.get(term);
        if (!posting) this.postings.set(term, (posting = []));
        posting.push([index, count]);
      }
      return list.length;
    });
    this.average = Math.max(1, this.lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, chunks.length));
  }

  /** Scores are the share of the query's best possible BM25 that a chunk reaches (0..1). */
  search(queryTerms: string[], limit: number): ScoredChunk[] {
    const n = this.chunks.length;
    const scores = new Map<number, number>();
    let ideal = 0;
    for (const term of new Set(queryTerms)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.length + 0.5) / (posting.length + 0.5));
      ideal += idf * (K1 + 1);
      for (const [index, tf] of posting) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[index]!) / this.average);
        scores.set(index, (scores.get(index) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    if (ideal === 0) return [];
    return [...scores]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([index, score]) => ({ id: this.chunks[index]!.id, chunk: this.chunks[index]!.chunk, score: score / ideal }));
  }
}

/**
 * Chunks in one JSON file per repository, searched with BM25: the knowledge base without an
 * embedding model. A writer buffers its changes and replaces the file on commit.
 */
export class LexicalChunkStore implements ChunkStore {
  readonly mode = 'lexical';
  readonly key = 'lexical';
  private readonly cache = new Map<string, { mtimeMs: number; index: ChunkBm25 }>();

  constructor(private readonly fileOf: (repository: string) => string) {}

  private async load(repository: string): Promise<StoredChunk[]> {
    return (await readJson<{ chunks: StoredChunk[] }>(this.fileOf(repository)))?.chunks ?? [];
  }

  async writer(repository: string): Promise<ChunkWriter> {
    const chunks = new Map((await this.load(repository)).map((item) => [item.id, item]));
    return {
      upsert: async (items: ChunkToStore[]) => {
        for (const item of items) chunks.set(item.id, { id: item.id, chunk: item.chunk, text: item.text });
      },
      delete: async (ids) => {
        for (const id of ids) chunks.delete(id);
      },
      ids: async () => [...chunks.keys()],
      commit: () => writeJsonAtomic(this.fileOf(repository), { chunks: [...chunks.values()] }),
    };
  }

  async drop(repository: string): Promise<void> {
    this.cache.delete(repository);
    await rm(this.fileOf(repository), { force: true });
  }

  private async index(repository: string): Promise<ChunkBm25 | undefined> {
    const info = await stat(this.fileOf(repository)).catch(() => undefined);
    if (!info) return undefined;
    const cached = this.cache.get(repository);
    if (cached?.mtimeMs === info.mtimeMs) return cached.index;
    const index = new ChunkBm25(await this.load(repository));
    this.cache.set(repository, { mtimeMs: info.mtimeMs, index });
    return index;
  }

  async search(repositories: string[], query: string, limit: number): Promise<ScoredChunk[]> {
    // Function words in a question ("how do I ...") would favour chunks full of them.
    const queryTerms = contentTerms(query);
    const indexes = await Promise.all(repositories.map((repository) => this.index(repository)));
    return indexes
      .flatMap((index) => index?.search(queryTerms, limit) ?? [])
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}
