import type { Embedder } from './embedder.js';

/**
 * An Embedder with a least-recently-used cache of results: repeated queries skip the model.
 * Map keeps insertion order, so re-inserting on use makes the first key the least recently used.
 */
export function cachedEmbedder(inner: Embedder, size = 512): Embedder {
  const cache = new Map<string, number[]>();
  return {
    model: inner.model,
    load: () => inner.load(),
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !cache.has(text)))];
      const fresh = new Map<string, number[]>();
      if (missing.length) {
        const vectors = await inner.embed(missing);
        missing.forEach((text, index) => fresh.set(text, vectors[index]!));
      }
      const result = texts.map((text) => {
        const vector = fresh.get(text) ?? cache.get(text)!;
        cache.delete(text);
        cache.set(text, vector);
        return vector;
      });
      while (cache.size > size) cache.delete(cache.keys().next().value as string);
      return result;
    },
  };
}
