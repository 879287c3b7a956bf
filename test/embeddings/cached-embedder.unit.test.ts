import { expect } from 'chai';
import { cachedEmbedder } from '../../src/embeddings/cached-embedder.js';
import type { Embedder } from '../../src/embeddings/embedder.port.js';

/** Embeds a text as [its length, its first character code] and records what it was asked. */
function countingEmbedder(): Embedder & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    model: 'fake',
    asked,
    load: async () => ({ dimension: 2 }),
    embed: async (texts) => {
      asked.push(texts);
      return texts.map((text) => [text.length, text.charCodeAt(0)]);
    },
  };
}

describe('cachedEmbedder', () => {
  it('asks the model once per distinct new text and answers in order', async () => {
    const inner = countingEmbedder();
    const sut = cachedEmbedder(inner);
    expect(await sut.embed(['ab', 'c', 'ab'])).to.deep.equal([
      [2, 97],
      [1, 99],
      [2, 97],
    ]);
    expect(await sut.embed(['c', 'def'])).to.deep.equal([
      [1, 99],
      [3, 100],
    ]);
    expect(inner.asked).to.deep.equal([['ab', 'c'], ['def']]);
  });

  it('keeps the most recently used texts when full', async () => {
    const inner = countingEmbedder();
    const sut = cachedEmbedder(inner, 2);
    await sut.embed(['a', 'b']);
    await sut.embed(['a']);
    await sut.embed(['c']);
    await sut.embed(['a', 'b']);
    expect(inner.asked).to.deep.equal([['a', 'b'], ['c'], ['b']]);
  });

  it('answers texts it had even when the new ones of the same call overflow the cache', async () => {
    const inner = countingEmbedder();
    const sut = cachedEmbedder(inner, 2);
    await sut.embed(['a', 'b']);
    expect(await sut.embed(['c', 'dd', 'a'])).to.deep.equal([
      [1, 99],
      [2, 100],
      [1, 97],
    ]);
  });
});
