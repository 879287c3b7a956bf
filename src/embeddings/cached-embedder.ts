import { LRUCache } from 'lru-cache';
import type { Embedder } from './embedder.port.js';

/** An Embedder with a least-recently-used cache of results: repeated queries skip the model. */
export function cachedEmbedder(inner: Embedder, size = 512): Embedder {
  const cache = new LRUCache<string, number[]>({ max: size });
  return {
    model: inner.model,
    load: () => inner.load(),
    async embed(texts) {
      // Everything this call needs is read out first: caching the new vectors may evict old ones.
      const vectors = new Map<string, number[]>();
      for (const text of texts) {
        const cached = cache.get(text);
        if (cached) vectors.set(text, cached);
      }
      const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
      if (missing.length) (await inner.embed(missing)).forEach((vector, index) => vectors.set(missing[index]!, vector));
      for (const [text, vector] of vectors) cache.set(text, vector);
      return texts.map((text) => vectors.get(text)!);
    },
  };
}
