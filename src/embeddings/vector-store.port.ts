/**
 * Port for a vector store. Two adapters implement it (Qdrant, embedded LanceDB) and one contract
 * suite tests both. Ids are UUID strings (see pointId); payloads are plain JSON objects. Scores
 * are cosine similarities. Readers see what other processes wrote.
 */
export interface VectorPoint {
  id: string;
  vector: number[];
  payload: Record<string, unknown>;
}

export interface VectorHit {
  id: string;
  score: number;
  payload: Record<string, unknown>;
}

/** How much of a collection its approximate-nearest-neighbour index covers, as reported by optimize(). */
export interface VectorIndexReport {
  points: number;
  /** Points the index covers; the rest are searched exhaustively (0 while the store finds no index worth building). */
  indexed: number;
}

export interface VectorStore {
  /** The store's kind, for logs and benchmark records (`qdrant`, `lancedb`). */
  readonly kind: string;
  /** Creates the collection when missing; an existing one must have this dimension. */
  ensureCollection(name: string, dimension: number): Promise<void>;
  /** Inserts or replaces points by id. */
  upsert(name: string, points: VectorPoint[]): Promise<void>;
  delete(name: string, ids: string[]): Promise<void>;
  /** Nearest points first. */
  search(name: string, vector: number[], limit: number): Promise<VectorHit[]>;
  /**
   * Brings the collection's index up to date after a batch of writes: builds an approximate
   * nearest-neighbour index once the collection is large enough for one to pay, and folds points
   * written since into it. Searches are correct without it (points not yet indexed are searched
   * exhaustively and merged), only slower; it costs seconds on a large collection, so call it once
   * after a run of writes, not after every upsert.
   */
  optimize(name: string): Promise<VectorIndexReport>;
  /** The payloads of the points with these ids (no vectors), in no particular order; ids not stored are left out. */
  retrieve(name: string, ids: string[]): Promise<Array<{ id: string; payload: Record<string, unknown> }>>;
  /** Every point's id and payload (no vectors), for change detection. */
  payloads(name: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>>;
  dropCollection(name: string): Promise<void>;
  close(): Promise<void>;
}
