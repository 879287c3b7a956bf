import { Router, type Request } from 'express';
import type { Filters, RecordReader, RecordWriter } from '../../shared/records/record-service.js';

/** Builds `next`/`previous` links the way Nautobot does, from the request's own URL. */
function pageLink(req: Request, offset: number, limit: number): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  url.searchParams.set('limit', String(limit));
  if (offset > 0) url.searchParams.set('offset', String(offset));
  else url.searchParams.delete('offset');
  return url.toString();
}

/**
 * Nautobot-style CRUD for one record type: list and retrieve, plus create, replace, partial update
 * and delete when a writer is given. Shapes and permissions come from the OpenAPI document (the
 * validator has checked every body and query before a handler runs); this only delegates.
 */
export function recordsRouter<O, W>(basePath: string, reader: RecordReader<O>, writer?: RecordWriter<O, W>): Router {
  const router = Router();
  router.get(basePath, async (req, res) => {
    const { limit, offset, ...filters } = req.query as unknown as Filters & { limit: number; offset: number };
    const page = await reader.list({ limit, offset, filters });
    res.json({
      count: page.count,
      next: offset + limit < page.count ? pageLink(req, offset + limit, limit) : null,
      previous: offset > 0 ? pageLink(req, Math.max(0, offset - limit), limit) : null,
      results: page.results,
    });
  });
  router.get(`${basePath}:id/`, async (req, res) => {
    res.json(await reader.get(req.params.id as string));
  });
  if (!writer) return router;

  router.post(basePath, async (req, res) => {
    res.status(201).json(await writer.create(req.body as W));
  });
  router.put(`${basePath}:id/`, async (req, res) => {
    res.json(await writer.update(req.params.id as string, req.body as W, 'replace'));
  });
  router.patch(`${basePath}:id/`, async (req, res) => {
    res.json(await writer.update(req.params.id as string, req.body as Partial<W>, 'patch'));
  });
  router.delete(`${basePath}:id/`, async (req, res) => {
    await writer.delete(req.params.id as string);
    res.status(204).end();
  });
  return router;
}
