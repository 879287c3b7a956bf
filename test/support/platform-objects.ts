import type { ApiRequest, ApiResult, PlatformClient } from '../../src/platform/platform.port.js';
import { PlatformHttpError } from '../../src/platform/platform.port.js';

type Json = Record<string, unknown>;

/** One write the platform received (reads are not kept). */
export interface PlatformWrite {
  method: string;
  path: string;
  body: unknown;
}

export interface PlatformObjectsOptions {
  /** How new objects are numbered: NetBox counts, Nautobot 1.x names objects by UUID. */
  ids: 'integer' | 'uuid';
  /** Body fields that name another object, and the collection it is in (`site` → `/api/dcim/sites/`). */
  references?: Record<string, string>;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const PAGING = new Set(['limit', 'offset', 'ordering', 'brief', 'fields']);

/**
 * The objects of a platform in memory, answering requests as NetBox and Nautobot do: lists with
 * `count` and `results`, related objects nested as `{id, url, display, name, slug}`, choices as
 * `{value, label}`, `last_updated` moved by every write, and filters it does not know ignored, so a
 * list "filtered" by a misspelled name answers every object, like the real ones.
 */
export class PlatformObjects {
  readonly writes: PlatformWrite[] = [];
  private readonly collections = new Map<string, Map<string, Json>>();
  private clock = Date.UTC(2025, 0, 1);
  private serial = 0;

  constructor(private readonly options: PlatformObjectsOptions) {}

  /** Stores objects in a collection (`/api/dcim/devices/`), each with an id, display and timestamps. */
  seed(collection: string, objects: Json[]): Json[] {
    if (!this.collections.has(collection)) this.collections.set(collection, new Map());
    return objects.map((object) => this.store(collection, object));
  }

  /** An object as stored now. */
  get(collection: string, id: string | number): Json | undefined {
    return this.collections.get(collection)?.get(String(id));
  }

  all(collection: string): Json[] {
    return [...(this.collections.get(collection)?.values() ?? [])];
  }

  /** Someone else's change, as another user of the platform makes it: `last_updated` moves. */
  edit(collection: string, id: string | number, fields: Json): Json {
    const object = this.get(collection, id);
    if (!object) throw new Error(`no object ${id} in ${collection}`);
    Object.assign(object, this.expanded(fields), { last_updated: this.tick() });
    return object;
  }

  /** Answers one request as the platform would, or throws PlatformHttpError. */
  handle({ method, path, params = {}, body }: ApiRequest): ApiResult {
    const [collection, id] = this.locate(path);
    const objects = this.collections.get(collection)!;
    if (method !== 'GET') this.writes.push({ method, path, body });
    const answer = (status: number, data: unknown): ApiResult => ({ status, data, count: null });
    const fail = (status: number, data: unknown): never => {
      throw new PlatformHttpError(status, data, method, path);
    };
    const one = (key: string) => objects.get(key) ?? fail(404, { detail: 'Not found.' });
    if (id !== undefined) {
      if (method === 'GET') return answer(200, one(id));
      if (method === 'DELETE') {
        one(id);
        objects.delete(id);
        return answer(204, null);
      }
      if (method === 'PATCH' || method === 'PUT') {
        const object = one(id);
        const kept = method === 'PUT' ? { id: object.id, url: object.url, created: object.created } : object;
        const next = { ...kept, ...this.checked(body), last_updated: this.tick() };
        objects.set(id, { ...next, display: this.display(next) });
        return answer(200, objects.get(id));
      }
      return fail(405, { detail: `Method "${method}" not allowed.` });
    }
    switch (method) {
      case 'GET': {
        const matching = [...objects.values()].filter((object) => this.matches(object, params));
        const offset = Number(params.offset ?? 0);
        const limit = Number(params.limit ?? 50);
        return {
          status: 200,
          data: { count: matching.length, next: null, previous: null, results: matching.slice(offset, offset + limit) },
          count: matching.length,
        };
      }
      case 'POST': {
        const made = (Array.isArray(body) ? body : [body]).map((item) => this.store(collection, this.checked(item)));
        return answer(201, Array.isArray(body) ? made : made[0]);
      }
      case 'PATCH':
      case 'DELETE': {
        if (!Array.isArray(body)) return fail(400, { detail: 'Expected a list of items.' });
        for (const item of body) if (!isObject(item) || !objects.has(String(item.id))) fail(400, { id: ['Object not found.'] });
        for (const item of body as Json[]) {
          const key = String(item.id);
          if (method === 'DELETE') objects.delete(key);
          else objects.set(key, { ...objects.get(key), ...this.checked(item), last_updated: this.tick() });
        }
        return answer(method === 'DELETE' ? 204 : 200, method === 'DELETE' ? null : body);
      }
      default:
        return fail(405, { detail: `Method "${method}" not allowed.` });
    }
  }

  /** A client over these objects, for unit tests: what the HTTP client would answer. */
  client(): PlatformClient {
    const client: PlatformClient = {
      token: undefined,
      withToken: () => client,
      request: async (request) => this.handle(request),
    };
    return client;
  }

  private locate(path: string): [string, string | undefined] {
    const known = [...this.collections.keys()].filter((collection) => path.startsWith(collection)).sort((a, b) => b.length - a.length)[0];
    if (!known) throw new PlatformHttpError(404, { detail: 'Not found.' }, 'GET', path);
    const rest = path.slice(known.length).replace(/\/$/, '');
    return [known, rest === '' ? undefined : decodeURIComponent(rest)];
  }

  private matches(object: Json, params: Record<string, unknown>): boolean {
    return Object.entries(params).every(([name, wanted]) => {
      if (PAGING.has(name)) return true;
      const values = (Array.isArray(wanted) ? wanted : [wanted]).map(String);
      const field = name === 'id' ? 'id' : name.replace(/_id$/, '');
      // A filter the platform does not know is ignored.
      if (!(field in object)) return true;
      const value = object[field];
      const candidates = isObject(value) ? [value.id, value.slug, value.name, value.value].map(String) : [String(value)];
      return values.some((item) => candidates.includes(item));
    });
  }

  /** A body as stored: related ids become nested objects (a missing one is refused, as the platform does), choices `{value, label}`. */
  private checked(body: unknown): Json {
    if (!isObject(body)) throw new PlatformHttpError(400, { non_field_errors: ['Invalid data.'] }, 'POST', '');
    return this.expanded(body);
  }

  private expanded(body: Json): Json {
    const out: Json = {};
    for (const [name, value] of Object.entries(body)) {
      const collection = this.options.references?.[name];
      if (collection && value !== null && value !== undefined) {
        const related = this.get(collection, String(isObject(value) ? value.id : value));
        if (!related) throw new PlatformHttpError(400, { [name]: ['Related object not found.'] }, 'POST', collection);
        out[name] = { id: related.id, url: related.url, display: related.display, name: related.name, slug: related.slug };
      } else if (name === 'status' && typeof value === 'string') {
        out[name] = { value, label: value.charAt(0).toUpperCase() + value.slice(1) };
      } else out[name] = value;
    }
    return out;
  }

  private store(collection: string, fields: Json): Json {
    const id = this.options.ids === 'integer' ? ++this.serial : `00000000-0000-4000-8000-${String(++this.serial).padStart(12, '0')}`;
    const now = this.tick();
    const object: Json = { id, url: `http://platform${collection}${id}/`, ...this.expanded(fields), created: now, last_updated: now };
    object.display = this.display(object);
    this.collections.get(collection)!.set(String(id), object);
    return object;
  }

  private display(object: Json): string {
    return String(object.name ?? object.model ?? object.prefix ?? object.address ?? object.vid ?? object.id);
  }

  private tick(): string {
    this.clock += 1_000;
    return new Date(this.clock).toISOString();
  }
}
