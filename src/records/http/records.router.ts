import { Router, type Response } from 'express';
import type { Actor } from '../auth/permissions.js';
import type { Filters, RecordReader, RecordWriter } from '../record-service.js';
import { listPage } from '../../api/list-page.js';

/** The authenticated caller (the security handler ran before any route). */
function actor(res: Response): Actor {
  if (!res.locals.principal) throw new Error('a write reached its route without an authenticated principal');
  return res.locals.principal;
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
    res.json(listPage(req, { count: page.count, offset, limit, results: page.results }));
  });
  router.get(`${basePath}:id/`, async (req, res) => {
    res.json(await reader.get(req.params.id));
  });
  if (!writer) return router;

  router.post(basePath, async (req, res) => {
    res.status(201).json(await writer.create(req.body as W, actor(res)));
  });
  router.put(`${basePath}:id/`, async (req, res) => {
    res.json(await writer.update(req.params.id, req.body as W, 'replace', actor(res)));
  });
  router.patch(`${basePath}:id/`, async (req, res) => {
    res.json(await writer.update(req.params.id, req.body as Partial<W>, 'patch', actor(res)));
  });
  router.delete(`${basePath}:id/`, async (req, res) => {
    await writer.delete(req.params.id, actor(res));
    res.status(204).end();
  });
  return router;
}
