/**
 * Port for text embeddings. Adapters load a model lazily, once per process, and return
 * unit-length vectors (so a dot product is a cosine).
 */
export interface Embedder {
  /** Model name, used in collection names so two models never share vectors. */
  readonly model: string;
  /** Loads the model (once; later calls share the first). Rejects when it cannot be loaded. */
  load(): Promise<{ dimension: number }>;
  /** Embeds texts in batches, in order. */
  embed(texts: string[]): Promise<number[][]>;
}
