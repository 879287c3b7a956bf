import type { Request } from 'express';
import type { Page } from './openapi-types.js';

/** Builds `next`/`previous` links the way Nautobot does, from the request's own URL. */
function pageLink(req: Request, offset: number, limit: number): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
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
