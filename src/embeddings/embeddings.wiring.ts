import path from 'node:path';
import { cachedEmbedder } from './cached-embedder.js';
import type { Embedder } from './embedder.port.js';
import type { VectorConfig } from './embeddings.settings.js';
import type { VectorStore } from './vector-store.port.js';

/**
 * The embeddings' wiring: the embedder and vector store a process opens once, for whichever of its
 * parts use them (the knowledge base's index and search, the endpoint index).
 */

/** The embedder and vector store of a process (none with EMBEDDING_MODEL=none). */
export interface DenseParts {
  embedder?: Embedder;
  vectors?: VectorStore;
}

/** Opens the dense parts; their adapters load on demand, so a lexical-only process never pays for them. */
export async function openDenseParts(settings: VectorConfig, dataDir: string): Promise<DenseParts> {
  if (settings.embeddingModel === 'none') return {};
  let vectors: VectorStore;
  if (settings.qdrant) {
    const { QdrantVectorStore } = await import('./adapters/qdrant-vector-store.adapter.js');
    vectors = new QdrantVectorStore({ url: settings.qdrant.url, apiKey: settings.qdrant.apiKey });
  } else {
    const { LanceDbVectorStore } = await import('./adapters/lancedb-vector-store.adapter.js');
    vectors = await LanceDbVectorStore.open(path.join(dataDir, 'vectors'));
  }
  const { TransformersEmbedder } = await import('./adapters/transformers-embedder.adapter.js');
  const embedder = cachedEmbedder(
    new TransformersEmbedder({
      model: settings.embeddingModel,
      modelPath: settings.embeddingModelPath,
      cacheDir: path.join(dataDir, 'models'),
    }),
  );
  return { embedder, vectors };
}
