/** Fields every stored record has. */
export interface BaseRecord {
  id: string;
  created: string;
  last_updated: string;
}

export interface RecordPage<R> {
  count: number;
  results: R[];
}

/** Records in key order (flag holder first) and who holds the flag, read together. */
export interface Listing<R> {
  records: R[];
  flagHolder: string | null;
}

/** What an atomic write reports back; the service turns outcomes into domain errors. */
export type WriteOutcome = 'ok' | 'duplicate-key' | 'gone' | 'changed';

/**
 * One write of a batch: a new record; a compare-and-swap replacement (see `swap`, `flag` too); or
 * the removal of a record as it was read (`expected`), which fails as `changed` if it was changed since.
 */
export type BatchWrite<R> =
  { kind: 'insert'; record: R; flag?: boolean } | { kind: 'swap'; expected: R; next: R; flag?: boolean } | { kind: 'remove'; expected: R };

/** `ok`: every write of the batch was made. Otherwise none was, and `index` names the first write that stopped it. */
export type BatchOutcome = { outcome: 'ok' } | { outcome: Exclude<WriteOutcome, 'ok'>; index: number };

/**
 * Port for one collection of records, each unique by a key (usually its name). Writes are atomic
 * in the store: uniqueness and the optional exclusive flag (at most one record holds it, e.g. the
 * default LLM model) are decided inside one transaction, never by reading first.
 */
export interface RecordCollection<R extends BaseRecord> {
  get(id: string): Promise<R | null>;
  /** The record and the id of the flag holder, in one round trip. */
  getWithFlagHolder(id: string): Promise<{ record: R | null; flagHolder: string | null }>;
  getByKey(key: string): Promise<R | null>;
  /** Every record, ordered by key with the flag holder first, and who holds the flag. */
  all(): Promise<Listing<R>>;
  /** Adds a record whose key and id are both new (`duplicate-key` otherwise: an insert never replaces). */
  insert(record: R, options?: { flag?: boolean }): Promise<WriteOutcome>;
  /**
   * Replaces `expected` with `next` only if the stored record still equals `expected` (compare
   * and swap), so concurrent read-modify-write cycles never lose an update. `flag`: true takes
   * the exclusive flag, false gives it up if held, undefined leaves it alone.
   */
  swap(expected: R, next: R, options?: { flag?: boolean }): Promise<WriteOutcome>;
  remove(id: string): Promise<boolean>;
  /**
   * Makes every write or none, in one transaction. Keys are unique once the whole batch is written,
   * so a key given up by one write may be taken by another of the same batch.
   */
  writeBatch(writes: readonly BatchWrite<R>[]): Promise<BatchOutcome>;
  /** Id of the record holding the exclusive flag, if any. */
  flagHolder(): Promise<string | null>;
}
