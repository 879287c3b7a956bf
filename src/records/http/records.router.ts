import { Router, type Request, type Response } from 'express';
import type { Principal } from '../auth/permissions.js';
import type { Filters, RecordReader, RecordWriter } from '../record-service.js';
import { KIND_NAMES, RECORD_KINDS, type KindInput, type KindName, type ServedRecord, type WritableKind } from '../record-kinds.js';
import { BatchValidationError, DomainError, ValidationError } from '../../kernel/errors.js';
import { endpointMetadata } from '../../api/endpoint-metadata.js';
import { briefRecord, listPage, pageSize, queryYes, recordLocator } from '../../api/list-page.js';
import { queryBooleans, type OpenApiDocument } from '../../api/openapi.js';
import type { Schemas } from '../../api/openapi-types.js';
import { mayWrite } from './authenticate.js';

/** What the records endpoints share beyond their records: the document they describe in OPTIONS, and MAX_PAGE_SIZE. */
export interface RecordsApi {
  document: OpenApiDocument;
  /** The most records a page holds and a bulk write takes. */
  maxPageSize: number;
}

/** What every record shows, and a brief answer keeps. */
interface ShownRecord {
  id: string;
  display: string;
  name: string;
}

/** The authenticated caller (the security handler ran before any route). */
export function principalOf(res: Response): Principal {
  if (!res.locals.principal) throw new DomainError('a request reached its route without an authenticated principal');
  return res.locals.principal;
}

/** A list answer of one page of `limit` (0: as many as MAX_PAGE_SIZE allows), in brief when asked. */
export async function recordPage<O extends { id: string; display: string; name?: string }>(
  req: Request,
  basePath: string,
  maxPageSize: number,
  read: (page: { limit: number; offset: number }) => Promise<{ count: number; results: O[] }>,
) {
  const { limit, offset, brief } = req.query as unknown as { limit: number; offset: number; brief?: string };
  const size = pageSize(limit, maxPageSize);
  const { count, results } = await read({ limit: size, offset });
  const locate = recordLocator(req, basePath);
  const shown: ((O & { url: string }) | Schemas['BriefRecord'])[] = queryYes(brief)
    ? results.map((record) => briefRecord(locate, record))
    : results.map(locate);
  return listPage(req, { count, offset, limit: size, results: shown });
}

/** OPTIONS on `path` (a template of the document): the endpoint described, with the write this caller may make. */
export function answerOptions(router: Router, path: string, expressPath: string, document: OpenApiDocument): void {
  router.options(expressPath, (_req, res) => {
    const principal = principalOf(res);
    res.json(endpointMetadata(document, path, (operation) => mayWrite(principal, operation)));
  });
}

/** A list body of at most MAX_PAGE_SIZE items (the document says it is a list of at least one). */
function bulk<T>(body: unknown, maxPageSize: number): T[] {
  const items = body as T[];
  if (items.length > maxPageSize) {
    throw ValidationError.field('non_field_errors', `A bulk write takes at most ${maxPageSize} records (MAX_PAGE_SIZE).`);
  }
  return items;
}

/** `id` names the record to change in a bulk update only: a new record's id is the service's to choose. */
function withoutIds<T extends object>(items: T[]): T[] {
  if (items.some((item) => 'id' in item)) {
    throw new BatchValidationError(
      items.map((item): Record<string, string[]> => ('id' in item ? { id: ['This field is not allowed.'] } : {})),
    );
  }
  return items;
}

function withoutId<T extends object>(item: T): T {
  if ('id' in item) throw ValidationError.field('id', 'This field is not allowed.');
  return item;
}

/**
 * Nautobot-style CRUD for one record type: list and retrieve, plus create, replace, partial update
 * and delete of one record or of a list (all or nothing) when a writer is given, and OPTIONS.
 * Shapes and permissions come from the OpenAPI document (the validator has checked every body and
 * query before a handler runs); this only delegates, and gives each record shown its own `url`.
 */
export function recordsRouter<O extends ShownRecord, W extends object>(
  basePath: string,
  reader: RecordReader<O>,
  writer: RecordWriter<O, W> | undefined,
  { document, maxPageSize }: RecordsApi,
): Router {
  const router = Router();
  const yesOrNo = queryBooleans(document, basePath);
  const located = (req: Request, record: O) => recordLocator(req, basePath)(record);
  router.get(basePath, async (req, res) => {
    const { limit: _limit, offset: _offset, brief: _brief, ...query } = req.query as Filters;
    const filters = Object.fromEntries(Object.entries(query).map(([name, value]) => [name, yesOrNo.has(name) ? queryYes(value) : value]));
    res.json(await recordPage(req, basePath, maxPageSize, (page) => reader.list({ ...page, filters })));
  });
  router.get(`${basePath}:id/`, async (req, res) => {
    res.json(located(req, await reader.get(req.params.id)));
  });
  answerOptions(router, basePath, basePath, document);
  answerOptions(router, `${basePath}{id}/`, `${basePath}:id/`, document);
  if (!writer) return router;

  router.post(basePath, async (req, res) => {
    const body = req.body as W | W[];
    const actor = principalOf(res);
    res
      .status(201)
      .json(
        Array.isArray(body)
          ? (await writer.createMany(withoutIds(bulk(body, maxPageSize)), actor)).map(recordLocator(req, basePath))
          : located(req, await writer.create(withoutId(body), actor)),
      );
  });
  for (const [method, mode] of [
    ['put', 'replace'],
    ['patch', 'patch'],
  ] as const) {
    router[method](basePath, async (req, res) => {
      const changes = bulk<Partial<W> & { id: string }>(req.body, maxPageSize).map(({ id, ...fields }) => ({
        id,
        fields: fields as Partial<W>,
      }));
      res.json((await writer.updateMany(changes, mode, principalOf(res))).map(recordLocator(req, basePath)));
    });
    router[method](`${basePath}:id/`, async (req, res) => {
      res.json(located(req, await writer.update(req.params.id, withoutId(req.body as Partial<W>), mode, principalOf(res))));
    });
  }
  router.delete(basePath, async (req, res) => {
    await writer.deleteMany(
      bulk<{ id: string }>(req.body, maxPageSize).map(({ id }) => id),
      principalOf(res),
    );
    res.status(204).end();
  });
  router.delete(`${basePath}:id/`, async (req, res) => {
    await writer.delete(req.params.id, principalOf(res));
    res.status(204).end();
  });
  return router;
}

/** What the records routes read from, by kind, in the document's shapes. */
export type KindReaders = { [K in KindName]: RecordReader<ServedRecord<K>> };
/** What they write through, for the kinds clients write, in the document's shapes. */
export type KindWriters = { [K in WritableKind]: RecordWriter<ServedRecord<K>, KindInput<K>> };

/** The routes of every record kind of RECORD_KINDS, at its path; `writers` replaces a kind's writer (the services by default). */
export function recordKindsRouter(services: KindReaders & KindWriters, api: RecordsApi, writers: Partial<KindWriters> = {}): Router {
  const router = Router();
  for (const name of KIND_NAMES) {
    const row: { path: string; input?: string } = RECORD_KINDS[name];
    const writer = row.input === undefined ? undefined : (writers[name as WritableKind] ?? services[name as WritableKind]);
    // Each kind's service and writer serve its own schemas (KindReaders, KindWriters); the loop sees their union.
    router.use(recordsRouter(row.path, services[name] as RecordReader<ShownRecord>, writer as RecordWriter<ShownRecord, object>, api));
  }
  return router;
}
