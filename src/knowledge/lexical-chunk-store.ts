import { knowledgeTerms } from './knowledge-terms.js';
import type { ChunkStore, ChunkToStore, ChunkWriter, KnowledgeChunk, ScoredChunk, SearchedRepository } from './chunk-store.port.js';
import { inOrder } from './chunk-store.port.js';
import type { SharedLexicalChunks, StoredChunk } from './lexical-chunks.port.js';
import type { LexicalCandidate, LexicalIndex, TermStatistics } from './lexical-index.port.js';

const K1 = 1.2;
const B = 0.75;
/** How much of a chunk's score depends on the share of the question's distinct words (by rarity) it holds. */
const COVERAGE = 0.8;
/**
 * Candidates fetched from the index per result asked: the index ranks by BM25 alone, and a chunk
 * holding more of the question's words can move ahead of chunks BM25 put before it.
 */
const CANDIDATES_PER_RESULT = 3;

/**
 * BM25 over the index's statistics, weighed by coverage. Scores are the share of the query's best
 * possible BM25 that a chunk reaches (0..1): a chunk that says many of the question's words
 * answers it more often than one that repeats a few.
 */
export function rankCandidates(
  queryTerms: string[],
  statistics: TermStatistics,
  candidates: LexicalCandidate[],
  limit: number,
): ScoredChunk[] {
  const average = Math.max(1, statistics.words / Math.max(1, statistics.chunks));
  const idf = new Map<string, number>();
  for (const term of new Set(queryTerms)) {
    const holding = statistics.chunksWith.get(term) ?? 0;
    if (holding > 0) idf.set(term, Math.log(1 + (statistics.chunks - holding + 0.5) / (holding + 0.5)));
  }
  const weight = [...idf.values()].reduce((sum, value) => sum + value, 0);
  const ideal = weight * (K1 + 1);
  if (ideal === 0) return [];
  return candidates
    .map(({ id, chunk, terms }) => {
      const words = terms.split(' ');
      const counts = new Map<string, number>();
      for (const word of words) if (idf.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
      let bm25 = 0;
      let covered = 0;
      for (const [term, tf] of counts) {
        const termIdf = idf.get(term)!;
        bm25 += (termIdf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * words.length) / average));
        covered += termIdf;
      }
      return { id, chunk, score: (bm25 / ideal) * (1 - COVERAGE + (COVERAGE * covered) / weight) };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

const stored = (item: ChunkToStore): StoredChunk => ({ id: item.id, chunk: item.chunk, terms: knowledgeTerms(item.text).join(' ') });

/**
 * Chunks searched with BM25: the knowledge base without an embedding model. Each machine searches
 * its own full-text index (`LexicalIndex`, on disk under DATA_DIR). With a shared store (Redis)
 * runs write there, each commit giving the repository a new version that the run state records,
 * and a search first brings this machine's index up to the versions it is asked for, with only
 * the chunks changed since the version it holds. Without one, runs write the index itself.
 */
export class LexicalChunkStore implements ChunkStore {
  readonly mode = 'lexical';
  readonly key = 'lexical-fts';

  constructor(
    private readonly index: LexicalIndex,
    private readonly shared?: SharedLexicalChunks,
  ) {}

  async writer(repository: string): Promise<ChunkWriter> {
    const upserted = new Set<string>();
    const deleted = new Set<string>();
    const known = async (held: Promise<string[]>) => [...new Set([...(await held), ...upserted])].filter((id) => !deleted.has(id));
    const { shared } = this;
    if (shared) {
      return {
        upsert: async (items) => {
          for (const item of items) upserted.add(item.id);
          await shared.put(repository, items.map(stored));
        },
        delete: async (ids) => {
          for (const id of ids) deleted.add(id);
        },
        ids: () => known(shared.ids(repository)),
        commit: () => shared.commit(repository, { upserted: [...upserted].filter((id) => !deleted.has(id)), deleted: [...deleted] }),
      };
    }
    const change = await this.index.change(repository);
    return {
      upsert: async (items) => {
        for (const item of items) upserted.add(item.id);
        await change.add(items.map(stored));
      },
      delete: async (ids) => {
        for (const id of ids) deleted.add(id);
        change.delete(ids);
      },
      ids: () => known(this.index.ids(repository)),
      commit: async () => {
        await change.commit();
        return undefined;
      },
    };
  }

  async drop(repository: string): Promise<void> {
    await this.shared?.drop(repository);
    await this.index.drop(repository);
  }

  /**
   * A repository removed on another machine leaves its copy in this machine's index: it is never
   * searched, but it fills the disk and counts in every term's statistics until dropped here.
   * Without a shared store the index is the store, and the removal dropped it already.
   */
  async prune(present: ReadonlySet<string>): Promise<void> {
    if (!this.shared) return;
    for (const name of await this.index.held()) if (!present.has(name)) await this.index.drop(name);
  }

  /** Brings this machine's index up to each repository's version (a copy of the shared store's, when there is one). */
  private async catchUp(repositories: SearchedRepository[]): Promise<void> {
    const { shared } = this;
    if (!shared) return;
    // One repository after another: a machine copying several whole builds one segment at a time, in bounded memory.
    for (const { name, version } of repositories) {
      if (version !== undefined && (await this.index.version(name)) !== version) {
        await this.index.catchUp(name, version, (held) => shared.changes(name, held));
      }
    }
  }

  /** From the shared store when there is one (it is the truth every machine's copy catches up to), else from the index. */
  async read(repository: string, ids: string[]): Promise<KnowledgeChunk[]> {
    const found = await (this.shared ?? this.index).read(repository, ids);
    return inOrder(ids, found, (item) => item.chunk);
  }

  async search(repositories: SearchedRepository[], query: string, limit: number): Promise<ScoredChunk[]> {
    if (!repositories.length) return [];
    // Function words in a question ("how do I ...") would favour chunks full of them.
    const queryTerms = [...new Set(knowledgeTerms(query))];
    if (!queryTerms.length) return [];
    await this.catchUp(repositories);
    const { statistics, candidates } = await this.index.candidates(
      repositories.map(({ name }) => name),
      queryTerms,
      { results: limit, candidates: limit * CANDIDATES_PER_RESULT },
    );
    return rankCandidates(queryTerms, statistics, candidates, limit);
  }
}
