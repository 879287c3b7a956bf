import { expect } from 'chai';
import type { LexicalChunks, StoredChunk } from '../../src/knowledge/lexical-chunks.port.js';
import { knowledgeTerms } from '../../src/knowledge/knowledge-terms.js';
import { LexicalChunkStore } from '../../src/knowledge/lexical-chunk-store.js';

/** Chunks in memory, one version per repository. */
function memoryChunks(): LexicalChunks {
  const stored = new Map<string, Map<string, StoredChunk>>();
  const versions = new Map<string, number>();
  return {
    versions: async (repositories) =>
      repositories.map((repository) => (versions.has(repository) ? String(versions.get(repository)) : undefined)),
    load: async (repository) => [...(stored.get(repository)?.values() ?? [])],
    ids: async (repository) => [...(stored.get(repository)?.keys() ?? [])],
    apply: async (repository, { upsert, delete: deleted }) => {
      const chunks = stored.get(repository) ?? new Map<string, StoredChunk>();
      for (const item of upsert) chunks.set(item.id, item);
      for (const id of deleted) chunks.delete(id);
      stored.set(repository, chunks);
      versions.set(repository, (versions.get(repository) ?? 0) + 1);
    },
    drop: async (repository) => {
      stored.delete(repository);
      versions.delete(repository);
    },
  };
}

describe('knowledge terms', () => {
  it('gives the inflections and derivations of a word one stem', () => {
    for (const family of [
      ['parse', 'parses', 'parsed', 'parsing'],
      ['retry', 'retried', 'retries'],
      ['authenticate', 'authentication'],
      ['reconnect', 'reconnection'],
      ['stop', 'stopped'],
      ['install', 'installed'],
      ['time', 'timing'],
    ]) {
      expect(new Set(family.map((word) => knowledgeTerms(word)[0])).size, family.join(' ')).to.equal(1);
    }
  });

  it('leaves function words out and keeps words that only look alike apart', () => {
    expect(knowledgeTerms('How do I parse the headers?')).to.deep.equal(['pars', 'header']);
    expect(knowledgeTerms('timeout')).to.not.deep.equal(knowledgeTerms('time'));
  });

  it("ranks the chunk that holds more of the question's words ahead of one that repeats a few", async () => {
    const store = new LexicalChunkStore(memoryChunks());
    const writer = await store.writer('acme/lib');
    const chunk = (id: string, text: string): StoredChunk => ({
      id,
      text,
      chunk: {
        repository: 'acme/lib',
        file_path: `${id}.md`,
        file_type: 'markdown',
        start_line: 1,
        end_line: 1,
        commit: 'c',
        last_updated: '',
        content: text,
      },
    });
    await writer.upsert([
      chunk('repeats', 'Proxy proxy proxy proxy proxy proxy proxy proxy proxy proxy, and a token.'),
      chunk(
        'answers',
        'To reach the proxy, the client sends its token in a header of the first request, before the rest of the exchange with the server starts.',
      ),
      ...Array.from({ length: 8 }, (_, i) => chunk(`other${i}`, `Unrelated text about caching number ${i}.`)),
    ]);
    await writer.commit();
    const hits = await store.search(['acme/lib'], 'Which header carries the proxy token?', 2);
    expect(hits.map(({ chunk: { file_path } }) => file_path)).to.deep.equal(['answers.md', 'repeats.md']);
  });
});
