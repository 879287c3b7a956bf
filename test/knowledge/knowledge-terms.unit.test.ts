import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LanceDbLexicalIndex } from '../../src/knowledge/adapters/lancedb-lexical-index.adapter.js';
import type { ChunkToStore } from '../../src/knowledge/chunk-store.port.js';
import { knowledgeTerms } from '../../src/knowledge/knowledge-terms.js';
import { LexicalChunkStore } from '../../src/knowledge/lexical-chunk-store.js';

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
    const dir = await mkdtemp(path.join(tmpdir(), 'aiops-terms-'));
    const index = await LanceDbLexicalIndex.open(dir);
    try {
      await rankingCase(new LexicalChunkStore(index));
    } finally {
      await index.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The answering chunk against one repeating a word of the question, among chunks about something else. */
async function rankingCase(store: LexicalChunkStore): Promise<void> {
  const writer = await store.writer('acme/lib');
  const chunk = (id: string, text: string): ChunkToStore => ({
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
  const hits = await store.search([{ name: 'acme/lib' }], 'Which header carries the proxy token?', 2);
  expect(hits.map(({ chunk: { file_path } }) => file_path)).to.deep.equal(['answers.md', 'repeats.md']);
}
