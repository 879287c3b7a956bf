import { randomUUID } from 'node:crypto';
import { OPERATOR, type Actor } from './auth/permissions.js';
import { BatchValidationError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { checkRecordName } from './record-name.js';
import type { WriteContext } from './record-write-rules.js';
import type { BaseRecord, BatchOutcome, BatchWrite, RecordCollection, RecordPage, WriteOutcome } from './record-collection.port.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Compare-and-swap attempts before a write under heavy contention gives up. */
const MAX_SWAP_ATTEMPTS = 20;
/**
 * Records of one kind at most: every API and worker process keeps each collection in memory, so
 * their number (with each record's size bounded by the OpenAPI document) bounds that memory.
 */
export const MAX_RECORDS_PER_KIND = 1_000;

export type Filters = Record<string, string | number | boolean | undefined>;
export type RecordView = 'list' | 'detail';

/**
 * What differs between record types: defaults, rules that span fields, how a record is shown and
 * filtered. `W` is the writable shape (what a client sends), `S` what is stored, `O` what is shown.
 */
export interface RecordKind<S extends BaseRecord & { name: string }, W extends { name: string }, O> {
  /** Human label used in messages, e.g. "LLM model". */
  label: string;
  defaults(): Omit<W, 'name'>;
  /** Writable fields of a stored record (the base a PATCH merges onto). */
  writable(record: S, flagged: boolean): W;
  /**
   * Checks rules that span fields, resolves references and produces the stored record.
   * `previous` is the stored record being replaced, whose read-only fields carry over.
   */
  toRecord(fields: W, base: BaseRecord, previous?: S): Promise<S>;
  /**
   * Applies what only some writers may do: throws PermissionDeniedError, or returns the record to
   * store (with a secret reference cleared, say). `sent` names the fields the client sent;
   * `flagged` says whether the record holds the exclusive flag before and after the write.
   */
  admit?(write: WriteContext<S>): Promise<S>;
  /** Applies what only some writers may delete, or what may not be deleted now: throws PermissionDeniedError or ConflictError. */
  admitDelete?(record: S, actor: Actor): void | Promise<void>;
  present(records: S[], flagHolder: string | null, view: RecordView): Promise<O[]>;
  /** Builds a predicate for list filters (the API has already checked their types). */
  filter?(filters: Filters): Promise<(record: S, flagged: boolean) => boolean>;
  /** The boolean field of `W` that at most one record may hold (e.g. `is_default`). */
  flagField?: keyof W & string;
  /** The names of the secrets a record sends (its credentials): a secret so named is neither renamed nor deleted. */
  secretsNamed?: (record: S) => string[];
  /** Records every store has, created on start-up when missing (the statuses). */
  seeds?: readonly W[];
}

export interface ListQuery {
  limit: number;
  offset: number;
  filters: Filters;
}

/**
 * What every write must carry whatever its edge checked: an object of fields with a name. A record
 * without one could not be listed, searched or deleted by name afterwards.
 */
function checkedFields<W extends { name: string }>(input: unknown, base: Omit<W, 'name'> | W): W {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw ValidationError.field('non_field_errors', 'Expected an object of fields.');
  }
  const fields = { ...base, ...input } as W;
  if (typeof fields.name !== 'string' || fields.name.trim() === '') throw ValidationError.field('name', 'This field is required.');
  checkRecordName(fields.name);
  return fields;
}

function isEmptyFilters(filters: Filters): boolean {
  return Object.values(filters).every((value) => value === undefined || value === '');
}

/** Reading side of a record type, as the edges (API, CLI) use it. */
export interface RecordReader<O> {
  list(query: ListQuery): Promise<RecordPage<O>>;
  get(id: string): Promise<O>;
}

/** One item of a bulk update: the record's id and the fields to write. */
export interface RecordChange<W> {
  id: string;
  fields: Partial<W>;
}

/**
 * Writing side of a record type; `W` is the writable shape. `actor` is who writes (superuser-only
 * rules). The `...Many` writes take a list under the same rules as one record at a time, all or
 * nothing: if any item is refused, nothing is written.
 */
export interface RecordWriter<O, W> {
  create(input: W, actor: Actor): Promise<O>;
  update(id: string, input: Partial<W>, mode: 'patch' | 'replace', actor: Actor): Promise<O>;
  delete(id: string, actor: Actor): Promise<void>;
  createMany(inputs: W[], actor: Actor): Promise<O[]>;
  updateMany(changes: RecordChange<W>[], mode: 'patch' | 'replace', actor: Actor): Promise<O[]>;
  deleteMany(ids: string[], actor: Actor): Promise<void>;
}

/** Field messages of the items of a list that broke rules, by index. */
type ItemProblems = Map<number, Record<string, string[]>>;

/** A batch refused for the items `problems` names, the others passing. */
function batchError(length: number, problems: ItemProblems): BatchValidationError {
  return new BatchValidationError(Array.from({ length }, (_, index) => problems.get(index) ?? {}));
}

/** The record a write of a batch stores; none for a removal. */
function storedBy<S>(write: BatchWrite<S> | undefined): S | undefined {
  if (write?.kind === 'insert') return write.record;
  return write?.kind === 'swap' ? write.next : undefined;
}

/** Refuses a list that names a record twice: one write per record. */
function checkDistinctIds(ids: readonly string[]): void {
  const seen = new Set<string>();
  const problems: ItemProblems = new Map();
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) problems.set(index, { id: ['This record is already named earlier in the list.'] });
    seen.add(id);
  }
  if (problems.size > 0) throw batchError(ids.length, problems);
}

/** CRUD over one record collection, with atomic uniqueness, exclusive flag and lost-update safety. */
export class RecordService<S extends BaseRecord & { name: string }, W extends { name: string }, O>
  implements RecordReader<O>, RecordWriter<O, W>
{
  constructor(
    private readonly kind: RecordKind<S, W, O>,
    private readonly collection: RecordCollection<S>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get label(): string {
    return this.kind.label;
  }

  async list({ limit, offset, filters }: ListQuery): Promise<RecordPage<O>> {
    const { records, flagHolder } = await this.collection.all();
    const predicate = isEmptyFilters(filters) || !this.kind.filter ? undefined : await this.kind.filter(filters);
    const matching = predicate ? records.filter((record) => predicate(record, record.id === flagHolder)) : records;
    return { count: matching.length, results: await this.kind.present(matching.slice(offset, offset + limit), flagHolder, 'list') };
  }

  async get(id: string): Promise<O> {
    const { record, flagHolder } = UUID.test(id) ? await this.collection.getWithFlagHolder(id) : { record: null, flagHolder: null };
    if (!record) throw this.notFound();
    const [shown] = await this.kind.present([record], flagHolder, 'detail');
    return shown as O;
  }

  async getByName(name: string): Promise<S | null> {
    return this.collection.getByKey(name);
  }

  async create(input: W, actor: Actor): Promise<O> {
    this.checkRoom((await this.collection.all()).records.length, 1);
    const { record, flag } = await this.prepareCreate(input, actor, this.now().toISOString());
    this.check(await this.collection.insert(record, { flag }), record);
    return this.get(record.id);
  }

  /** `patch` merges onto the stored record; `replace` (PUT) starts again from the defaults. */
  async update(id: string, input: Partial<W>, mode: 'patch' | 'replace', actor: Actor): Promise<O> {
    for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
      const { record: current, flagHolder } = UUID.test(id)
        ? await this.collection.getWithFlagHolder(id)
        : { record: null, flagHolder: null };
      if (!current) throw this.notFound();
      const { next, flag } = await this.prepareUpdate(current, flagHolder === id, input, mode, actor);
      const outcome = await this.collection.swap(current, next, { flag });
      if (outcome !== 'changed') {
        this.check(outcome, next);
        return this.get(id);
      }
    }
    throw this.busy();
  }

  async delete(id: string, actor: Actor): Promise<void> {
    if (this.kind.admitDelete) await this.kind.admitDelete(await this.load(id), actor);
    if (!UUID.test(id) || !(await this.collection.remove(id))) throw this.notFound();
  }

  async createMany(inputs: W[], actor: Actor): Promise<O[]> {
    const { records } = await this.collection.all();
    this.checkRoom(records.length, inputs.length);
    const timestamp = this.now().toISOString();
    const writes = await this.batchOf(inputs, records, async (input) => {
      const { record, flag } = await this.prepareCreate(input, actor, timestamp);
      return { kind: 'insert', record, flag };
    });
    this.checkBatchOutcome(await this.collection.writeBatch(writes), writes);
    return this.presentWritten(writes);
  }

  async updateMany(changes: RecordChange<W>[], mode: 'patch' | 'replace', actor: Actor): Promise<O[]> {
    checkDistinctIds(changes.map((change) => change.id));
    for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
      const { records, flagHolder } = await this.collection.all();
      const byId = new Map(records.map((record) => [record.id, record]));
      const writes = await this.batchOf(changes, records, async ({ id, fields }) => {
        const current = byId.get(id);
        if (!current) throw this.notFound();
        const { next, flag } = await this.prepareUpdate(current, flagHolder === id, fields, mode, actor);
        return { kind: 'swap', expected: current, next, flag };
      });
      const outcome = await this.collection.writeBatch(writes);
      if (outcome.outcome !== 'changed') {
        this.checkBatchOutcome(outcome, writes);
        return this.presentWritten(writes);
      }
    }
    throw this.busy();
  }

  async deleteMany(ids: string[], actor: Actor): Promise<void> {
    checkDistinctIds(ids);
    for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
      const byId = new Map((await this.collection.all()).records.map((record) => [record.id, record]));
      const writes: BatchWrite<S>[] = [];
      for (const id of ids) {
        const record = byId.get(id);
        if (!record) throw this.notFound();
        await this.kind.admitDelete?.(record, actor);
        writes.push({ kind: 'remove', expected: record });
      }
      const outcome = await this.collection.writeBatch(writes);
      if (outcome.outcome !== 'changed') return this.checkBatchOutcome(outcome, writes);
    }
    throw this.busy();
  }

  /** Creates the kind's seeded records that are missing; safe to run from many processes at once. */
  async seed(): Promise<void> {
    for (const fields of this.kind.seeds ?? []) {
      if (await this.getByName(fields.name)) continue;
      // A concurrent seeder may win the race; its record is just as good.
      await this.create(fields, OPERATOR).catch((error: unknown) => {
        if (!(error instanceof ValidationError)) throw error;
      });
    }
  }

  /** The stored record, for code that needs more than the shown fields (workers, other services). */
  async load(id: string): Promise<S> {
    const record = UUID.test(id) ? await this.collection.get(id) : null;
    if (!record) throw this.notFound();
    return record;
  }

  /** A new record from what a client sent, under every rule of the kind: what `create` stores. */
  private async prepareCreate(input: W, actor: Actor, timestamp: string): Promise<{ record: S; flag: boolean | undefined }> {
    const fields = checkedFields<W>(input, this.kind.defaults());
    const flag = this.flagOf(fields);
    const built = await this.kind.toRecord(fields, { id: randomUUID(), created: timestamp, last_updated: timestamp });
    return { record: await this.admit(built, undefined, input, actor, { before: false, after: flag === true }), flag };
  }

  /** The record replacing `current` after a client's change, under every rule of the kind: what `update` stores. */
  private async prepareUpdate(
    current: S,
    flagged: boolean,
    input: Partial<W>,
    mode: 'patch' | 'replace',
    actor: Actor,
  ): Promise<{ next: S; flag: boolean | undefined }> {
    const base = mode === 'patch' ? this.kind.writable(current, flagged) : this.kind.defaults();
    const fields = checkedFields<W>(input, base);
    const built = await this.kind.toRecord(
      fields,
      { id: current.id, created: current.created, last_updated: this.now().toISOString() },
      current,
    );
    const flag = mode === 'patch' && !(this.kind.flagField && this.kind.flagField in input) ? undefined : this.flagOf(fields);
    return { next: await this.admit(built, current, input, actor, { before: flagged, after: flag ?? flagged }), flag };
  }

  private checkRoom(stored: number, adding: number): void {
    if (stored + adding <= MAX_RECORDS_PER_KIND) return;
    throw ValidationError.field(
      'non_field_errors',
      adding === 1
        ? `There are already ${MAX_RECORDS_PER_KIND} records of this kind (${this.kind.label}), the most kept: delete some first.`
        : `There are ${stored} records of this kind (${this.kind.label}): ${adding} more would pass ${MAX_RECORDS_PER_KIND}, the most kept; delete some first.`,
    );
  }

  /**
   * The writes of a list, each under the rules of one write: a validation problem is kept for its
   * item, any other refusal (not found, not for this writer) stops at once. Then what the list
   * would break once written whole: a name taken twice in it or by a record it leaves alone, the
   * exclusive flag given to more than one of its records. Every item's problems come together; the
   * store decides uniqueness again when it writes (another writer may get in first).
   */
  private async batchOf<T>(
    items: readonly T[],
    stored: readonly S[],
    prepare: (item: T) => Promise<BatchWrite<S>>,
  ): Promise<BatchWrite<S>[]> {
    const writes: (BatchWrite<S> | undefined)[] = [];
    const problems: ItemProblems = new Map();
    for (const [index, item] of items.entries()) {
      try {
        writes[index] = await prepare(item);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        problems.set(index, error.fields);
      }
    }
    const refuse = (index: number, field: string, message: string) =>
      problems.set(index, { ...problems.get(index), [field]: [...(problems.get(index)?.[field] ?? []), message] });
    const written = new Set(writes.map((write) => (write?.kind === 'insert' ? write.record.id : write?.expected.id)));
    const owners = new Map(stored.filter((record) => !written.has(record.id)).map((record) => [record.name, record.id]));
    let flagTaken = false;
    for (const [index, write] of writes.entries()) {
      if (!write || write.kind === 'remove') continue;
      const record = write.kind === 'insert' ? write.record : write.next;
      const owner = owners.get(record.name);
      if (owner !== undefined) {
        refuse(
          index,
          'name',
          written.has(owner)
            ? `${this.kind.label} with this name comes earlier in the list: '${record.name}'.`
            : this.nameTaken(record.name),
        );
      }
      owners.set(record.name, record.id);
      if (write.flag && this.kind.flagField) {
        if (flagTaken) refuse(index, this.kind.flagField, `Only one ${this.kind.label} of the list may set ${this.kind.flagField}.`);
        flagTaken = true;
      }
    }
    if (problems.size > 0) throw batchError(items.length, problems);
    return writes.filter((write) => write !== undefined);
  }

  private checkBatchOutcome(outcome: BatchOutcome, writes: readonly BatchWrite<S>[]): void {
    if (outcome.outcome === 'ok') return;
    const record = storedBy(writes[outcome.index]);
    if (outcome.outcome === 'duplicate-key' && record) {
      throw batchError(writes.length, new Map([[outcome.index, { name: [this.nameTaken(record.name)] }]]));
    }
    throw this.notFound();
  }

  /** The records a batch wrote, as their detail views. */
  private async presentWritten(writes: readonly BatchWrite<S>[]): Promise<O[]> {
    const records = writes.map(storedBy).filter((record) => record !== undefined);
    return this.kind.present(records, await this.collection.flagHolder(), 'detail');
  }

  private nameTaken(name: string): string {
    return `${this.kind.label} with this name already exists: '${name}'.`;
  }

  private busy(): ValidationError {
    return new ValidationError({ non_field_errors: [`The ${this.kind.label} is being changed by others; retry.`] });
  }

  private admit(
    next: S,
    previous: S | undefined,
    input: Partial<W>,
    actor: Actor,
    flagged: { before: boolean; after: boolean },
  ): Promise<S> {
    return this.kind.admit ? this.kind.admit({ next, previous, sent: Object.keys(input), actor, flagged }) : Promise.resolve(next);
  }

  private flagOf(fields: W): boolean | undefined {
    return this.kind.flagField ? Boolean(fields[this.kind.flagField]) : undefined;
  }

  private check(outcome: WriteOutcome, record: S): void {
    if (outcome === 'duplicate-key') throw ValidationError.field('name', this.nameTaken(record.name));
    if (outcome === 'gone') throw this.notFound();
  }

  private notFound(): NotFoundError {
    return new NotFoundError(`No ${this.kind.label} matches the given query.`);
  }
}
