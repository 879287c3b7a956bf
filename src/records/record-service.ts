import { randomUUID } from 'node:crypto';
import type { Actor } from './auth/permissions.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import { checkRecordName } from './record-name.js';
import type { WriteContext } from './record-write-rules.js';
import type { BaseRecord, RecordCollection, RecordPage, WriteOutcome } from './record-collection.port.js';

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

/** Writing side of a record type; `W` is the writable shape. `actor` is who writes (superuser-only rules). */
export interface RecordWriter<O, W> {
  create(input: W, actor: Actor): Promise<O>;
  update(id: string, input: Partial<W>, mode: 'patch' | 'replace', actor: Actor): Promise<O>;
  delete(id: string, actor: Actor): Promise<void>;
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
    if ((await this.collection.all()).records.length >= MAX_RECORDS_PER_KIND) {
      throw ValidationError.field(
        'non_field_errors',
        `There are already ${MAX_RECORDS_PER_KIND} records of this kind (${this.kind.label}), the most kept: delete some first.`,
      );
    }
    const timestamp = this.now().toISOString();
    const fields = checkedFields<W>(input, this.kind.defaults());
    const flag = this.flagOf(fields);
    const built = await this.kind.toRecord(fields, { id: randomUUID(), created: timestamp, last_updated: timestamp });
    const record = await this.admit(built, undefined, input, actor, { before: false, after: flag === true });
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
      const flagged = flagHolder === id;
      const base = mode === 'patch' ? this.kind.writable(current, flagged) : this.kind.defaults();
      const fields = checkedFields<W>(input, base);
      const built = await this.kind.toRecord(fields, { id, created: current.created, last_updated: this.now().toISOString() }, current);
      const flag = mode === 'patch' && !(this.kind.flagField && this.kind.flagField in input) ? undefined : this.flagOf(fields);
      const next = await this.admit(built, current, input, actor, { before: flagged, after: flag ?? flagged });
      const outcome = await this.collection.swap(current, next, { flag });
      if (outcome !== 'changed') {
        this.check(outcome, next);
        return this.get(id);
      }
    }
    throw new ValidationError({ non_field_errors: [`The ${this.kind.label} is being changed by others; retry.`] });
  }

  async delete(id: string, actor: Actor): Promise<void> {
    if (this.kind.admitDelete) await this.kind.admitDelete(await this.load(id), actor);
    if (!UUID.test(id) || !(await this.collection.remove(id))) throw this.notFound();
  }

  /** The stored record, for code that needs more than the shown fields (workers, other services). */
  async load(id: string): Promise<S> {
    const record = UUID.test(id) ? await this.collection.get(id) : null;
    if (!record) throw this.notFound();
    return record;
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
    if (outcome === 'duplicate-key') {
      throw ValidationError.field('name', `${this.kind.label} with this name already exists: '${record.name}'.`);
    }
    if (outcome === 'gone') throw this.notFound();
  }

  private notFound(): NotFoundError {
    return new NotFoundError(`No ${this.kind.label} matches the given query.`);
  }
}
