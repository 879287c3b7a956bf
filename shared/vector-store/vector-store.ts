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
  /** Every point's id and payload (no vectors), for change detection. */
  payloads(name: string): Promise<Array<{ id: string; payload: Record<string, unknown> }>>;
  dropCollection(name: string): Promise<void>;
  close(): Promise<void>;
}
