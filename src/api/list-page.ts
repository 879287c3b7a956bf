import type { Request } from 'express';
import type { Page, Schemas } from './openapi-types.js';

/** `path` on this service, as the client reached it. */
export function absoluteUrl(req: Request, path: string): string {
  return new URL(path, `${req.protocol}://${req.get('host') ?? 'localhost'}`).toString();
}

/** Builds `next`/`previous` links the way Nautobot does, from the request's own URL. */
function pageLink(req: Request, offset: number, limit: number): string {
  const url = new URL(absoluteUrl(req, req.originalUrl));
  url.searchParams.set('limit', String(limit));
  if (offset > 0) url.searchParams.set('offset', String(offset));
  else url.searchParams.delete('offset');
  return url.toString();
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

/** A record in brief, as Nautobot nests records: its id, its own address, how it is shown and its name. */
export function briefRecord(
  req: Request,
  basePath: string,
  { id, display, name }: { id: string; display: string; name?: string },
): Schemas['BriefRecord'] {
  return { id, url: absoluteUrl(req, `${basePath}${id}/`), display, ...(name === undefined ? {} : { name }) };
}
