import type {
  BaseRecord,
  BatchOutcome,
  BatchWrite,
  Listing,
  RecordCollection,
  WriteOutcome,
} from '../../../src/records/record-collection.port.js';

/**
 * A RecordCollection in memory, with the store's rules: unique key, exclusive flag, compare and
 * swap on the whole record, batches written whole or not at all. Records are kept as JSON, so a
 * caller never shares an object with the store. `beforeSwap` (and `beforeBatch`) runs before a
 * swap (a batch) is decided: a test `put`s or removes a record there to play a writer that got in first.
 */
export class MemoryRecordCollection<R extends BaseRecord> implements RecordCollection<R> {
  private readonly records = new Map<string, string>();
  private holder: string | null = null;
  beforeSwap?: (expected: R, next: R) => Promise<void> | void;
  beforeBatch?: (writes: readonly BatchWrite<R>[]) => Promise<void> | void;
  /** Swaps attempted so far, whatever their outcome. */
  swaps = 0;

  constructor(private readonly keyField: keyof R & string) {}

  async get(id: string): Promise<R | null> {
    const raw = this.records.get(id);
    return raw === undefined ? null : (JSON.parse(raw) as R);
  }

  async getWithFlagHolder(id: string): Promise<{ record: R | null; flagHolder: string | null }> {
    return { record: await this.get(id), flagHolder: this.holder };
  }

  async getByKey(key: string): Promise<R | null> {
    return this.parsed().find((record) => this.keyOf(record) === key) ?? null;
  }

  async all(): Promise<Listing<R>> {
    const records = this.parsed().sort((a, b) => (this.keyOf(a) < this.keyOf(b) ? -1 : this.keyOf(a) > this.keyOf(b) ? 1 : 0));
    const first = records.findIndex((record) => record.id === this.holder);
    if (first > 0) records.unshift(...records.splice(first, 1));
    return { records, flagHolder: this.holder };
  }

  async insert(record: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    if (this.records.has(record.id) || (await this.getByKey(this.keyOf(record)))) return 'duplicate-key';
    this.records.set(record.id, JSON.stringify(record));
    if (options.flag) this.holder = record.id;
    return 'ok';
  }

  async swap(expected: R, next: R, options: { flag?: boolean } = {}): Promise<WriteOutcome> {
    this.swaps++;
    await this.beforeSwap?.(expected, next);
    const current = this.records.get(expected.id);
    if (current === undefined) return 'gone';
    if (current !== JSON.stringify(expected)) return 'changed';
    const owner = await this.getByKey(this.keyOf(next));
    if (owner && owner.id !== next.id) return 'duplicate-key';
    this.records.set(next.id, JSON.stringify(next));
    if (options.flag === true) this.holder = next.id;
    if (options.flag === false && this.holder === next.id) this.holder = null;
    return 'ok';
  }

  /** Stores the record as it is, as another process's write would: no rule checked, no hook run. */
  put(record: R): void {
    this.records.set(record.id, JSON.stringify(record));
  }

  async remove(id: string): Promise<boolean> {
    if (this.holder === id) this.holder = null;
    return this.records.delete(id);
  }

  async writeBatch(writes: readonly BatchWrite<R>[]): Promise<BatchOutcome> {
    await this.beforeBatch?.(writes);
    const owners = new Map(this.parsed().map((record) => [this.keyOf(record), record.id]));
    for (const [index, write] of writes.entries()) {
      if (write.kind === 'insert') continue;
      const current = this.records.get(write.expected.id);
      if (current === undefined) return { outcome: 'gone', index };
      if (current !== JSON.stringify(write.expected)) return { outcome: 'changed', index };
      if (write.kind === 'remove' || this.keyOf(write.expected) !== this.keyOf(write.next)) owners.delete(this.keyOf(write.expected));
    }
    for (const [index, write] of writes.entries()) {
      if (write.kind === 'remove') continue;
      const record = write.kind === 'insert' ? write.record : write.next;
      const owner = owners.get(this.keyOf(record));
      if (owner !== undefined && owner !== record.id) return { outcome: 'duplicate-key', index };
      owners.set(this.keyOf(record), record.id);
    }
    for (const write of writes) {
      if (write.kind === 'remove') {
        this.records.delete(write.expected.id);
        if (this.holder === write.expected.id) this.holder = null;
        continue;
      }
      const record = write.kind === 'insert' ? write.record : write.next;
      this.records.set(record.id, JSON.stringify(record));
      if (write.flag === true) this.holder = record.id;
      if (write.flag === false && this.holder === record.id) this.holder = null;
    }
    return { outcome: 'ok' };
  }

  async flagHolder(): Promise<string | null> {
    return this.holder;
  }

  private parsed(): R[] {
    return [...this.records.values()].map((raw) => JSON.parse(raw) as R);
  }

  private keyOf(record: R): string {
    return String(record[this.keyField]);
  }
}
