import { knowledgeTerms } from './knowledge-terms.js';
import type { ChunkStore, ChunkToStore, ChunkWriter, ScoredChunk } from './chunk-store.port.js';
import type { LexicalChunks, StoredChunk } from './lexical-chunks.port.js';

const K1 = 1.2;
const B = 0.75;
/** How much of a chunk's score depends on the share of the question's distinct words (by rarity) it holds. */
const COVERAGE = 0.8;

/** BM25 over the chunks of one repository file. */
class ChunkBm25 {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly lengths: number[];
  private readonly average: number;

  constructor(readonly chunks: StoredChunk[]) {
    this.lengths = chunks.map((item, index) => {
      const counts = new Map<string, number>();
      const list = knowledgeTerms(item.text);
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
    const scores = new Map<number, { bm25: number; covered: number }>();
    let ideal = 0;
    let weight = 0;
    for (const term of new Set(queryTerms)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.length + 0.5) / (posting.length + 0.5));
      ideal += idf * (K1 + 1);
      weight += idf;
      for (const [index, tf] of posting) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[index]!) / this.average);
        const score = scores.get(index) ?? { bm25: 0, covered: 0 };
        score.bm25 += (idf * tf * (K1 + 1)) / norm;
        score.covered += idf;
        scores.set(index, score);
      }
    }
    if (ideal === 0) return [];
    // A chunk that says many of the question's words answers it more often than one that repeats a few.
    const share = ({ bm25, covered }: { bm25: number; covered: number }) => (bm25 / ideal) * (1 - COVERAGE + (COVERAGE * covered) / weight);
    return [...scores]
      .map(([index, score]) => [index, share(score)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([index, score]) => ({ id: this.chunks[index]!.id, chunk: this.chunks[index]!.chunk, score }));
  }
}

/**
 * Chunks searched with BM25: the knowledge base without an embedding model. The chunks live in
 * `LexicalChunks` (Redis, or a file per repository); each searching process keeps a BM25 index
 * per repository and builds it again when the repository's version changes, so a run committed by
 * any worker is searched by every process. A writer buffers its changes and applies them on commit.
 */
export class LexicalChunkStore implements ChunkStore {
  readonly mode = 'lexical';
  readonly key = 'lexical';
  private readonly cache = new Map<string, { version: string; index: ChunkBm25 }>();

  constructor(private readonly chunks: LexicalChunks) {}

  async writer(repository: string): Promise<ChunkWriter> {
    const upserts = new Map<string, StoredChunk>();
    const deletes = new Set<string>();
    return {
      upsert: async (items: ChunkToStore[]) => {
        for (const item of items) {
          upserts.set(item.id, { id: item.id, chunk: item.chunk, text: item.text });
          deletes.delete(item.id);
        }
      },
      delete: async (ids) => {
        for (const id of ids) {
          upserts.delete(id);
          deletes.add(id);
        }
      },
      ids: async () => [...new Set([...(await this.chunks.ids(repository)), ...upserts.keys()])].filter((id) => !deletes.has(id)),
      commit: () => this.chunks.apply(repository, { upsert: [...upserts.values()], delete: [...deletes] }),
    };
  }

  async drop(repository: string): Promise<void> {
    this.cache.delete(repository);
    await this.chunks.drop(repository);
  }

  /** Each repository's BM25 index as of its current version (undefined: nothing stored). */
  private async indexes(repositories: string[]): Promise<Array<ChunkBm25 | undefined>> {
    const versions = await this.chunks.versions(repositories);
    return Promise.all(
      repositories.map(async (repository, position) => {
        const version = versions[position];
        if (version === undefined) {
          this.cache.delete(repository);
          return undefined;
        }
        const cached = this.cache.get(repository);
        if (cached?.version === version) return cached.index;
        const index = new ChunkBm25(await this.chunks.load(repository));
        this.cache.set(repository, { version, index });
        return index;
      }),
    );
  }

  async search(repositories: string[], query: string, limit: number): Promise<ScoredChunk[]> {
    // Function words in a question ("how do I ...") would favour chunks full of them.
    const queryTerms = knowledgeTerms(query);
    const indexes = await this.indexes(repositories);
    return indexes
      .flatMap((index) => index?.search(queryTerms, limit) ?? [])
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
}
