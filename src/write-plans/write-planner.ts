import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { EndpointDocument } from '../endpoint-search/endpoint-document.js';
import { endpointPurpose, endpointShape } from '../endpoint-search/endpoint-shape.js';
import { isObject, type Json } from '../endpoint-search/openapi-refs.js';
import { UnknownOperationError } from '../endpoint-search/operation-lookup.js';
import { ValidationError } from '../kernel/errors.js';
import { isCredentialField, REDACTED, redactJson } from '../kernel/security/redact-secrets.js';
import { PlatformHttpError, type ApiRequest, type PlatformClient } from '../platform/platform.port.js';
import type { DeclaredRelation } from '../endpoint-search/schema-shape.js';
import { checkBody, requestBodyShape, type BodyField, type RequestBodyShape } from './body-check.js';
import { counted, displayOf, newObjectName, resourceNames, type ResourceNames } from './operation-words.js';
import { comparable, fieldOf, sameValue, shown } from './plan-values.js';
import { declaredQueryParameters, selectingParameters, undeclaredParameters } from './query-check.js';
import type { FieldChange, PlanError, PlannedObject, WritePlan } from './write-plan.js';

/** The platform's API as its description tells it: where plans read operations and schemas. */
export interface ApiOperations {
  readonly document: Json;
  /** The operation at a method and path (ids filled in or not), or UnknownOperationError naming the closest. */
  find(method: string, path: string): EndpointDocument;
  /** The collection whose objects a field of a request to `fromPath` points at, by the model it names. */
  relatedCollection(model: string, fromPath: string): string | undefined;
}

export interface WritePlannerOptions {
  /** The description (waiting for the endpoint index's first build). */
  operations: () => Promise<ApiOperations>;
  /** WRITE_MAX_OBJECTS: a plan changing or deleting more objects is refused; a bulk create shows this many. */
  maxObjects: number;
}

/** Plans only read: a client that may write is taken only for its reads. */
type Reader = Pick<PlatformClient, 'request'>;

/** Objects of a collection read to match a name in any case, and offered as the choices when none matches. */
const NAMED_CHOICES = 50;
/** Objects read at once while planning or reading back a bulk write. */
const READS_AT_ONCE = 8;
const ID = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

const withSlash = (path: string) => path.replace(/\/?$/, '/');
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The part of a plan one kind of write works out. */
type Planned = Pick<WritePlan, 'summary' | 'objects' | 'count'>;

/**
 * Plans writes to the platform with reads only, under the rights of the client it is given: what
 * the operation does in words, the body checked against the request schema, related objects looked
 * up by their display, the objects changed or deleted as they are now and each change (before →
 * after). Also refuses query parameters an operation does not declare, and reads a write back.
 */
export class WritePlanner {
  constructor(private readonly options: WritePlannerOptions) {}

  /**
   * Throws ValidationError for query parameters the operation does not declare, each with the
   * closest declared names. A request without filters waits for nothing; an operation the
   * description does not have is not checked (its request goes as asked).
   */
  async checkParameters(request: ApiRequest): Promise<void> {
    if (selectingParameters(request.params).length === 0) return;
    const api = await this.options.operations();
    let endpoint: EndpointDocument;
    try {
      endpoint = api.find(request.method, request.path);
    } catch (error) {
      if (error instanceof UnknownOperationError) return;
      throw error;
    }
    const errors = undeclaredParameters(api.document, endpoint, request.params);
    if (errors.length > 0)
      throw new ValidationError(Object.fromEntries(errors.map(({ field, message }) => [field ?? 'params', [message]])));
  }

  /** The plan of one request; what makes it impossible is in its `errors`. Fails only when the platform cannot be reached. */
  async plan(request: ApiRequest, reader: Reader): Promise<WritePlan> {
    const api = await this.options.operations();
    let endpoint: EndpointDocument;
    try {
      endpoint = api.find(request.method, request.path);
    } catch (error) {
      if (!(error instanceof UnknownOperationError)) throw error;
      const { method, path } = request;
      return {
        method,
        path,
        operation: '',
        summary: `${method} ${path}`,
        objects: [],
        count: 0,
        errors: [{ message: error.message }],
        notes: [],
      };
    }
    return new Planning(api, endpoint, reader, request, this.options.maxObjects).run();
  }

  /**
   * Reads the objects of an approved plan after the write (`answer`: the platform's answer to it)
   * and says which did not end up as planned: a field with another value, an object still there
   * after a delete. Empty when everything is as planned.
   */
  async readBack(plan: WritePlan, answer: unknown, reader: Reader): Promise<string[]> {
    const made = Array.isArray(answer) ? answer : [answer];
    const limit = pLimit(READS_AT_ONCE);
    const found = await Promise.all(
      plan.objects.map((object, index) =>
        limit(async (): Promise<string[]> => {
          let path = object.path;
          if (object.effect === 'create') {
            const id = isObject(made[index]) ? made[index].id : undefined;
            if (typeof id !== 'string' && typeof id !== 'number')
              return [`${object.display}: the answer names no id, so it was not read back`];
            path = `${withSlash(plan.path)}${encodeURIComponent(String(id))}/`;
          }
          if (!path || object.effect === 'other') return [];
          const read = await readObject(reader, path);
          if (object.effect === 'delete') return 'found' in read ? [`${object.display} still exists after the delete`] : [];
          if (!('found' in read)) return [`${object.display} could not be read back (HTTP ${read.status})`];
          const planned = object.changes
            .filter((change) => change.planned !== REDACTED && !sameValue(readValue(read.found, change.field), change.planned))
            .map(
              (change) => `${object.display}: ${change.field} is ${shown(readValue(read.found, change.field))}, planned ${change.after}`,
            );
          const moved = Object.entries(object.kept ?? {})
            .filter(([field, before]) => !sameValue(keptValue(readValue(read.found, field)), before))
            .map(
              ([field, before]) =>
                `${object.display}: ${field} is ${shown(readValue(read.found, field))}, it was ${shown(before)} and the plan did not change it`,
            );
          return [...planned, ...moved];
        }),
      ),
    );
    return found.flat();
  }
}

/** The object at `path`, or the HTTP status that answered instead (404 when there is none; 502 for an answer that is no object). */
async function readObject(reader: Reader, path: string): Promise<{ found: Json } | { status: number }> {
  try {
    const { data } = await reader.request({ method: 'GET', path });
    return isObject(data) ? { found: data } : { status: 502 };
  } catch (error) {
    if (error instanceof PlatformHttpError) return { status: error.status };
    throw error;
  }
}

/** A field of an object read from the platform, credentials inside it blanked as they are in the plan. */
function readValue(object: Json, field: string): unknown {
  return redactJson(fieldOf(object, field), []);
}

/** Longest value a plan keeps as it is for the read-back (as JSON); a longer one (a system prompt) is kept as its digest. */
const KEPT_CHARS = 500;

/** A field's value as a plan keeps it for the read-back: as compared, or, when long, its SHA-256, so that a plan stays small. */
function keptValue(value: unknown): unknown {
  const compared = comparable(value);
  const json = JSON.stringify(compared) ?? 'null';
  return json.length > KEPT_CHARS ? `sha256:${createHash('sha256').update(json).digest('hex')}` : compared;
}

/** A plain (not related) value of the body: compared and shown as given, credentials inside it blanked. */
function plainValue(given: unknown): Resolved {
  const value = redactJson(given, []);
  return { planned: comparable(value), after: shown(value) };
}

/** A value of the body as planned (a related one looked up): what is compared, and what is shown. */
interface Resolved {
  planned: unknown;
  after: string;
}

/** A key an object field loses: read back, it is absent. */
const REMOVED: Resolved = { planned: null, after: '(removed)' };

/** Object fields a write merges into what is set (NetBox's and Nautobot's custom fields), not replaced whole. */
const MERGED_FIELDS = new Set(['custom_fields']);

/** The planning of one request: the errors and notes it finds on the way. */
class Planning {
  private readonly errors: PlanError[] = [];
  private readonly notes: string[] = [];
  private readonly names: ResourceNames;
  private readonly body: RequestBodyShape;
  private readonly reads = pLimit(READS_AT_ONCE);

  constructor(
    private readonly api: ApiOperations,
    private readonly endpoint: EndpointDocument,
    private readonly reader: Reader,
    private readonly request: ApiRequest,
    private readonly maxObjects: number,
  ) {
    this.names = resourceNames(endpoint.path);
    this.body = requestBodyShape(api.document, endpoint, (model, fromPath) => api.relatedCollection(model, fromPath), request.body);
  }

  async run(): Promise<WritePlan> {
    const { endpoint, request } = this;
    this.errors.push(...undeclaredParameters(this.api.document, endpoint, request.params));
    const check = checkBody(this.api.document, endpoint, this.body, request.body);
    this.errors.push(...check.errors);
    if (check.ignored.length) this.notes.push(`read-only fields the platform ignores: ${check.ignored.join(', ')}`);
    const kind = endpointShape(endpoint).kind;
    let planned: Planned;
    if (request.method === 'GET') planned = { summary: capitalized(endpoint.summary || endpointPurpose(endpoint)), objects: [], count: 0 };
    else if (kind === 'action' || (kind === 'detail' && request.method === 'POST')) planned = await this.action();
    else if (request.method === 'POST') planned = await this.create();
    else if (kind === 'detail') planned = request.method === 'DELETE' ? await this.deleteOne() : await this.updateOne();
    else planned = await this.bulk();
    if (request.method !== 'GET' && request.method !== 'DELETE' && kind !== 'action' && !(kind === 'detail' && request.method === 'POST'))
      planned = await this.withClearedFlags(planned);
    if (request.method === 'PUT') this.noteUndeclaredDefaults();
    return {
      method: request.method,
      path: request.path,
      operation: `${endpoint.method} ${endpoint.path}`,
      ...planned,
      errors: this.errors,
      notes: this.notes,
    };
  }

  private get verb(): string {
    return { POST: 'Create', PUT: 'Replace', PATCH: 'Update', DELETE: 'Delete', GET: 'Read' }[this.request.method];
  }

  private async create(): Promise<Planned> {
    const { body } = this.request;
    const items = Array.isArray(body) ? body : body === undefined ? [] : [body];
    const objects = await Promise.all(
      items.slice(0, this.maxObjects).map(async (item, index): Promise<PlannedObject> => ({
        display: newObjectName(item) || `new ${this.names.one}`,
        effect: 'create',
        changes: isObject(item) ? await this.changes(item, undefined, Array.isArray(body) ? `[${index}].` : '') : [],
      })),
    );
    const name = items.length === 1 ? newObjectName(items[0]) : '';
    return {
      summary: items.length === 1 ? `Create ${this.names.one}${name ? ` ${name}` : ''}` : `Create ${counted(items.length, this.names)}`,
      objects,
      count: items.length,
    };
  }

  private async updateOne(): Promise<Planned> {
    const { path, body } = this.request;
    const current = await this.read(path, `${this.names.one} at ${path}`);
    if (!current) return { summary: `${this.verb} ${this.names.one} at ${path}`, objects: [], count: 1 };
    const object = await this.updated(current, body, path, '');
    if (object.effect === 'unchanged') this.notes.push('this write changes nothing: every field given already has that value');
    return {
      summary: `${this.verb} ${this.names.one} ${object.display}${object.effect === 'unchanged' ? ' (changes nothing)' : ''}`,
      objects: [object],
      count: 1,
    };
  }

  private async deleteOne(): Promise<Planned> {
    const { path } = this.request;
    const current = await this.read(path, `${this.names.one} at ${path}`);
    if (!current) return { summary: `Delete ${this.names.one} at ${path}`, objects: [], count: 1 };
    const object = deleted(current, path);
    return { summary: `Delete ${this.names.one} ${object.display}`, objects: [object], count: 1 };
  }

  /** A change or delete of many objects at once: a list of objects with their ids, each read (within WRITE_MAX_OBJECTS). */
  private async bulk(): Promise<Planned> {
    const { body, method } = this.request;
    const items = Array.isArray(body) ? body.filter(isObject) : [];
    const summary = `${this.verb} ${counted(items.length, this.names)}`;
    if (items.length > this.maxObjects) {
      this.errors.push({
        message:
          `this would ${this.verb.toLowerCase()} ${counted(items.length, this.names)} at once, more than WRITE_MAX_OBJECTS (${this.maxObjects}): ` +
          `narrow the list (by a filter such as site, status or tag, checked with a read first) and send it in parts of at most ${this.maxObjects}`,
      });
      return { summary, objects: [], count: items.length };
    }
    const collection = withSlash(this.request.path);
    const objects = await Promise.all(
      items.map(async (item, index) => {
        if (typeof item.id !== 'string' && typeof item.id !== 'number') return undefined;
        const path = `${collection}${encodeURIComponent(String(item.id))}/`;
        const current = await this.read(path, `${this.names.one} ${String(item.id)}`, `[${index}].id`);
        if (!current) return undefined;
        return method === 'DELETE' ? deleted(current, path) : this.updated(current, item, path, `[${index}].`);
      }),
    );
    const found = objects.filter((object): object is PlannedObject => object !== undefined);
    const nothing = found.length > 0 && found.every((object) => object.effect === 'unchanged');
    if (nothing) this.notes.push('this write changes nothing: every field given already has that value');
    return { summary: `${summary}${nothing ? ' (changes nothing)' : ''}`, objects: found, count: items.length };
  }

  /** A POST to an action (`/api/ipam/prefixes/{id}/available-ips/`): what it does, and the object it acts on. */
  private async action(): Promise<Planned> {
    const { path, body } = this.request;
    const template = this.endpoint.path.split('/').filter(Boolean);
    const asked = path.split('/').filter(Boolean);
    const idAt = template.findIndex((segment) => segment.includes('{'));
    let display: string | undefined;
    if (idAt >= 0) {
      const parent = `/${asked.slice(0, asked.length - (template.length - 1 - idAt)).join('/')}/`;
      const current = await this.read(parent, `${this.names.one} at ${parent}`);
      display = current && displayOf(current);
    }
    const purpose = capitalized(this.endpoint.summary || endpointPurpose(this.endpoint));
    return {
      summary: display ? `${purpose} (${this.names.one} ${display})` : purpose,
      objects: [
        { display: display ?? this.names.one, effect: 'other', changes: isObject(body) ? await this.changes(body, undefined, '') : [] },
      ],
      count: 1,
    };
  }

  /** An object as the write will change it: each field given (of a replacement, also each it resets to its default), before → after. */
  private async updated(current: Json, item: unknown, path: string, at: string): Promise<PlannedObject> {
    const given = isObject(item) ? item : {};
    const written = this.request.method === 'PUT' ? { ...this.defaultsLeftOut(given), ...given } : given;
    return this.changed(current, path, await this.changes(written, current, at));
  }

  /** An object the write changes by `changes`, with every other writable field as it is, for the read-back. */
  private changed(current: Json, path: string, changes: FieldChange[]): PlannedObject {
    const touched = (name: string) => changes.some(({ field }) => field === name || field.startsWith(`${name}.`));
    // An alias (`x-aiops-written-as`) is kept under the field it is written as; what the object shows under its name is another thing.
    const kept = [...this.body.fields.values()]
      .filter(({ name, writtenAs }) => !writtenAs && name !== 'id' && name in current && !touched(name) && !isCredentialField(name))
      .map(({ name }) => [name, keptValue(readValue(current, name))] as const);
    return {
      id: String(current.id),
      display: displayOf(current) || path,
      path,
      last_updated: typeof current.last_updated === 'string' ? current.last_updated : null,
      effect: changes.length > 0 && changes.every((change) => change.unchanged) ? 'unchanged' : 'update',
      changes,
      ...(kept.length ? { kept: Object.fromEntries(kept) } : {}),
    };
  }

  /** Whether `item` sets the field `name`, itself or by an alias written as it (`x-aiops-written-as`). */
  private sets(item: Json, name: string): boolean {
    return name in item || [...this.body.fields.values()].some((field) => field.writtenAs === name && field.name in item);
  }

  /** The fields a replacement of `item` leaves out that the description gives a default (`x-aiops-default`), at that default. */
  private defaultsLeftOut(item: Json): Json {
    return Object.fromEntries(
      [...this.body.fields.values()].flatMap((field) =>
        field.default && !this.sets(item, field.name) ? [[field.name, field.default.value]] : [],
      ),
    );
  }

  /** A replacement resets what it leaves out: the fields whose default the description does not say are named (an alias resets nothing of its own). */
  private noteUndeclaredDefaults(): void {
    const items = (Array.isArray(this.request.body) ? this.request.body : [this.request.body]).filter(isObject);
    const unsaid = [...this.body.fields.values()]
      .filter((field) => field.name !== 'id' && !field.writtenAs && !field.default && items.some((item) => !this.sets(item, field.name)))
      .map((field) => field.name);
    if (unsaid.length)
      this.notes.push(`a replacement: fields not given take their defaults, which the description does not say (${unsaid.join(', ')})`);
  }

  /**
   * A write setting a flag one object at most holds (`x-aiops-exclusive`, a default model) also
   * clears it on the object that holds it: that object is planned too, counted and read back.
   */
  private async withClearedFlags(planned: Planned): Promise<Planned> {
    const items = (Array.isArray(this.request.body) ? this.request.body : [this.request.body]).filter(isObject);
    const flags = [...this.body.fields.values()].filter(
      (field) => field.exclusive && items.some((item) => sameValue(item[field.name], true)),
    );
    if (flags.length === 0) return planned;
    const collection =
      endpointShape(this.endpoint).kind === 'detail' ? this.request.path.replace(/[^/]+\/?$/, '') : withSlash(this.request.path);
    const addressed = new Set(planned.objects.map((object) => object.id));
    const filters = this.collectionFilters(collection);
    const cleared: PlannedObject[] = [];
    for (const flag of flags) {
      const holders = await this.list(collection, { ...(filters.has(flag.name) ? { [flag.name]: true } : {}), limit: this.maxObjects });
      for (const holder of holders.filter((found) => sameValue(found[flag.name], true) && !addressed.has(String(found.id)))) {
        const path = `${collection}${encodeURIComponent(String(holder.id))}/`;
        const object = this.changed(holder, path, [this.change(flag.name, plainValue(false), holder)]);
        cleared.push(object);
        this.notes.push(`${flag.name} moves: the write clears it on ${this.names.one} ${object.display}`);
      }
    }
    if (cleared.length === 0) return planned;
    const also = cleared.map((object) => `${this.names.one} ${object.display}`).join(', ');
    return {
      summary: `${planned.summary}; also clears ${flags.map((flag) => flag.name).join(', ')} on ${also}`,
      objects: [...planned.objects, ...cleared],
      count: planned.count + cleared.length,
    };
  }

  /**
   * The fields an item sets, in its order: related ones looked up, a plain object's keys one by one, each against `current` when
   * there is one. An alias (`x-aiops-written-as`) is the change of the field it is written as, and left aside when that field is given too.
   */
  private async changes(item: Json, current: Json | undefined, at: string): Promise<FieldChange[]> {
    const fields = Object.entries(item).flatMap(([name, value]) => {
      const field = this.body.fields.get(name);
      if (!field || name === 'id' || (field.writtenAs && field.writtenAs in item)) return [];
      return [{ field, name: field.writtenAs ?? name, value }];
    });
    const changes = await Promise.all(
      fields.map(async ({ field, name, value }): Promise<FieldChange[]> => {
        if (field.collection) {
          const resolved = await this.resolve(field, value, `${at}${field.name}`);
          return resolved ? [this.change(name, resolved, current)] : [];
        }
        const now = current?.[name];
        if (!isObject(value) || !isObject(now)) return [this.change(name, plainValue(value), current)];
        // The platforms merge custom fields into those set; any other object is replaced whole, its keys left out removed.
        const keys = MERGED_FIELDS.has(name) ? Object.keys(value) : [...new Set([...Object.keys(value), ...Object.keys(now)])];
        if (keys.length === 0) return [this.change(name, plainValue(value), current)];
        return keys.map((key) => this.change(`${name}.${key}`, key in value ? plainValue(value[key]) : REMOVED, current));
      }),
    );
    return changes.flat();
  }

  private change(field: string, { planned, after }: Resolved, current: Json | undefined): FieldChange {
    // A credential is never shown, kept or compared: the plan travels with the turn and into the audit log.
    if (isCredentialField(field.split('.').at(-1)!))
      return { field, ...(current ? { before: REDACTED } : {}), after: REDACTED, planned: REDACTED };
    if (!current) return { field, after, planned };
    const now = readValue(current, field);
    return {
      field,
      before: shown(now),
      after,
      ...(sameValue(now, planned) ? { unchanged: true as const } : {}),
      current: comparable(now),
      planned,
    };
  }

  /** A related field's value (an id, a list of ids, or an object of the related object's fields) looked up in its collection. */
  private async resolve(field: BodyField, value: unknown, at: string): Promise<Resolved | undefined> {
    if (value === null) return { planned: null, after: shown(null) };
    if (Array.isArray(value)) {
      const each = await Promise.all(value.map((item, index) => this.resolveOne(field, item, `${at}[${index}]`)));
      if (each.some((item) => item === undefined)) return undefined;
      return { planned: each.map((item) => item!.planned), after: shown(each.map((item) => item!.after)) };
    }
    return this.resolveOne(field, value, at);
  }

  private async resolveOne(field: BodyField, given: unknown, at: string): Promise<Resolved | undefined> {
    const collection = field.collection!;
    const names = resourceNames(collection);
    const value = isObject(given) && (typeof given.id === 'string' || typeof given.id === 'number') ? given.id : given;
    if (typeof value === 'number' || (typeof value === 'string' && ID.test(value))) {
      const found = await this.read(
        `${withSlash(collection)}${encodeURIComponent(String(value))}/`,
        `${names.one} with id ${String(value)}`,
        at,
      );
      return found && { planned: comparable(found.id ?? value), after: displayOf(found) || String(value) };
    }
    if (isObject(value)) return this.lookUp(collection, value, at);
    if (typeof value === 'string' && field.naming?.name) return this.lookUpNamed(collection, field.naming, value, at);
    if (typeof value === 'string') {
      const found = await this.lookUpByName(collection, value);
      this.errors.push({
        field: at,
        message: found
          ? `give the ${names.one}'s id, not its name: ${String(found.id)} is ${displayOf(found)}`
          : `no ${names.one} is called ${JSON.stringify(value)}; give the id of an existing ${names.one}`,
      });
      return undefined;
    }
    this.errors.push({ field: at, message: `must be the id of a ${names.one}` });
    return undefined;
  }

  /** A related object given by its fields (`{"slug": "ams1"}`): it must match exactly one, by filters the collection declares. */
  private async lookUp(collection: string, fields: Json, at: string): Promise<Resolved | undefined> {
    const names = resourceNames(collection);
    const filters = this.collectionFilters(collection);
    const unknown = Object.keys(fields).filter((name) => !filters.has(name));
    if (unknown.length > 0 || Object.keys(fields).length === 0) {
      this.errors.push({ field: at, message: `cannot look up a ${names.one} by ${unknown.join(', ') || 'nothing'}: give its id` });
      return undefined;
    }
    const matches = await this.list(collection, { ...fields, limit: 2 });
    if (matches.length === 1) return { planned: String(matches[0]!.id), after: displayOf(matches[0]!) };
    this.errors.push({
      field: at,
      message:
        matches.length === 0
          ? `no ${names.one} matches ${JSON.stringify(fields)}`
          : `several ${names.many} match ${JSON.stringify(fields)}: give the id of one`,
    });
    return undefined;
  }

  /**
   * A related object given by its name, where the platform takes a name (`x-aiops-related`): found
   * by that filter, else, for a name matched in any case, among the collection's objects.
   */
  private async lookUpNamed(collection: string, naming: DeclaredRelation, name: string, at: string): Promise<Resolved | undefined> {
    const key = naming.name!;
    let matches = await this.list(collection, { [key]: name, limit: 2 });
    if (matches.length === 0 && naming.ignoreCase) {
      const all = await this.list(collection, { limit: NAMED_CHOICES });
      matches = all.filter((found) => typeof found[key] === 'string' && found[key].toLowerCase() === name.toLowerCase());
      if (matches.length === 0) {
        const choices = all.map((found) => found[key]).filter((choice): choice is string => typeof choice === 'string');
        this.errors.push({ field: at, message: `no ${resourceNames(collection).one} is called ${JSON.stringify(name)}`, choices });
        return undefined;
      }
    }
    if (matches.length === 1) return { planned: String(matches[0]!.id), after: displayOf(matches[0]!) || name };
    const names = resourceNames(collection);
    this.errors.push({
      field: at,
      message:
        matches.length === 0
          ? `no ${names.one} is called ${JSON.stringify(name)}`
          : `several ${names.many} are called ${JSON.stringify(name)}: give the id of one`,
    });
    return undefined;
  }

  /** The one object of a collection whose slug, else name, is `name`. */
  private async lookUpByName(collection: string, name: string): Promise<Json | undefined> {
    const filters = this.collectionFilters(collection);
    for (const filter of ['slug', 'name']) {
      if (!filters.has(filter)) continue;
      const matches = await this.list(collection, { [filter]: name, limit: 2 });
      if (matches.length === 1) return matches[0];
    }
    return undefined;
  }

  private collectionFilters(collection: string): Set<string> {
    try {
      return new Set(declaredQueryParameters(this.api.document, this.api.find('GET', collection)));
    } catch (error) {
      if (error instanceof UnknownOperationError) return new Set();
      throw error;
    }
  }

  /** The objects of a list answer (none when the list cannot be read). */
  private async list(collection: string, params: Record<string, unknown>): Promise<Json[]> {
    try {
      const { data } = await this.reads(() => this.reader.request({ method: 'GET', path: collection, params }));
      const results = isObject(data) ? data.results : data;
      return Array.isArray(results) ? results.filter(isObject) : [];
    } catch (error) {
      if (error instanceof PlatformHttpError) return [];
      throw error;
    }
  }

  /** The object at `path`; when it cannot be read, an error at `field` saying why, and undefined. */
  private async read(path: string, what: string, field?: string): Promise<Json | undefined> {
    const read = await this.reads(() => readObject(this.reader, path));
    if ('found' in read) return read.found;
    const at = field ? { field } : {};
    if (read.status === 404) this.errors.push({ ...at, message: `no ${what}` });
    else if (read.status === 401 || read.status === 403)
      this.errors.push({ ...at, message: `${what} cannot be read with your rights (HTTP ${read.status}), so the write cannot be planned` });
    else this.errors.push({ ...at, message: `reading ${what} failed with HTTP ${read.status}` });
    return undefined;
  }
}

/** An object a delete removes. */
function deleted(current: Json, path: string): PlannedObject {
  return {
    id: String(current.id),
    display: displayOf(current) || path,
    path,
    last_updated: typeof current.last_updated === 'string' ? current.last_updated : null,
    effect: 'delete',
    changes: [],
  };
}
