import { z } from 'zod';
import { settings, type SectionsOf } from '../kernel/config/settings.js';

/** The embedding model and the vector store of a process: the tool server and the knowledge-base workers. */
export const EMBEDDINGS_SETTINGS = settings({
  env: {
    EMBEDDING_MODEL: z.string().min(1).default('Xenova/all-MiniLM-L6-v2'),
    EMBEDDING_MODEL_PATH: z.string().optional(),
    QDRANT_URL: z.string().url().optional(),
    QDRANT_API_KEY: z.string().optional(),
  },
  read: (e) => ({
    vectors: {
      /** `none` turns dense retrieval off (lexical only). */
      embeddingModel: e.EMBEDDING_MODEL,
      embeddingModelPath: e.EMBEDDING_MODEL_PATH,
      qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY } : undefined,
    },
  }),
});

/** The embedding model and the vector store of a process. */
export type VectorConfig = SectionsOf<typeof EMBEDDINGS_SETTINGS>['vectors'];
