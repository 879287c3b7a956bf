import type { Request } from 'express';
import type { Page, Schemas } from './openapi-types.js';

/** Where links may point: PUBLIC_URL, or the Host a request names when it is one of these. */
export interface LinkOrigins {
  publicUrl?: string;
  /** Lower-case host names, with or without a port. */
  allowedHosts: ReadonlySet<string>;
}

/** Loopback names and the bound HOST, which a link may always name, with ALLOWED_HOSTS. */
export function linkOrigins(publicUrl: string | undefined, host: string, allowedHosts: readonly string[]): LinkOrigins {
  const names = ['localhost', '127.0.0.1', '[::1]', host.includes(':') ? `[${host}]` : host, ...allowedHosts];
  return { ...(publicUrl ? { publicUrl } : {}), allowedHosts: new Set(names.map((name) => name.toLowerCase())) };
}

/**
 * `path` on this service as an absolute URL, for clients that follow links (pynetbox follows `next`):
 * on PUBLIC_URL when set, else on the request's Host when it is an allowed one. A Host the service
 * does not know (`evil.example`) is never echoed: the link is then the path alone.
 */
export function absoluteUrl(req: Request, path: string): string {
  const origins = req.res?.locals.linkOrigins;
  if (origins?.publicUrl) return new URL(path, `${origins.publicUrl}/`).toString();
  const host = (req.get('host') ?? '').toLowerCase();
  const name = host.replace(/:\d+$/, '');
  if (host && origins && (origins.allowedHosts.has(host) || origins.allowedHosts.has(name))) {
    return new URL(path, `${req.protocol}://${host}`).toString();
  }
  const relative = new URL(path, 'http://service.invalid');
  return relative.pathname + relative.search;
}

/** Builds `next`/`previous` links the way Nautobot does, from the request's own URL. */
function pageLink(req: Request, offset: number, limit: number): string {
  const url = new URL(req.originalUrl, 'http://service.invalid');
  url.searchParams.set('limit', String(limit));
  if (offset > 0) url.searchParams.set('offset', String(offset));
  else url.searchParams.delete('offset');
  return absoluteUrl(req, url.pathname + url.search);
}

/** A Nautobot-style list answer: `{count, next, previous, results}` for one page of `count` items. */
export function listPage<T>(req: Request, page: { count: number; offset: number; limit: number; results: T[] }): Page<T> {
  const { count, offset, limit, results } = page;
  return {
    count,
    next: offset + limit < count ? pageLink(req, offset + limit, limit) : null,
    previous: offset > 0 ? pageLink(req, Math.max(0, offset - limit), limit) : null,
    results,
  };
}

/** The page size Nautobot serves for `limit`: 0 (or anything larger) means as many as `maxPageSize` allows. */
export function pageSize(limit: number, maxPageSize: number): number {
  return limit === 0 ? maxPageSize : Math.min(limit, maxPageSize);
}

/** A yes in a query as the document's QueryBoolean spells it (`true`, `True`, `1`). */
export function queryYes(value: unknown): boolean {
  return value === 'true' || value === 'True' || value === '1';
}

/** Gives a record its own API address as `url`, after its id, as Nautobot and NetBox show every record (their clients read it). */
export type RecordLocator = <R extends { id: string }>(record: R) => R & { url: string };

/**
 * The locator of the records under `basePath` for one request: the address's origin is worked out
 * once, since a page locates up to MAX_PAGE_SIZE records (ids are UUIDs, which need no escaping).
 */
export function recordLocator(req: Request, basePath: string): RecordLocator {
  const base = absoluteUrl(req, basePath);
  // One copy of the record: its spread writes `id` again where it already is (first, `url` after it).
  return <R extends { id: string }>(record: R) =>
    ({ id: record.id, url: `${base}${record.id}/`, ...(record as Omit<R, 'id'>) }) as R & { url: string };
}

/** A record in brief, as Nautobot nests records: its id, its own address, how it is shown and its name. */
export function briefRecord(
  locate: RecordLocator,
  { id, display, name }: { id: string; display: string; name?: string },
): Schemas['BriefRecord'] {
  const { url } = locate({ id });
  return { id, url, display, ...(name === undefined ? {} : { name }) };
}
