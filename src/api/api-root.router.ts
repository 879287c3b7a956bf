import { Router, type Request } from 'express';
import { absoluteUrl } from './list-page.js';
import { apiVersionOf, type OpenApiDocument } from './openapi.js';
import type { Schemas } from './openapi-types.js';

/** What `/api/status/` reads beyond the versions it knows. */
export interface StatusReadings {
  redisVersion: string | null;
  /** Workers taking each queue's jobs now. */
  workers: Record<string, number>;
}

export interface StatusSources {
  /** This service's version. */
  version: string;
  /** Whether Redis takes writes, as `/status` says it. */
  redis: () => Promise<Schemas['ApiStatus']['redis']>;
  readings: () => Promise<StatusReadings>;
}

const ROOT_RESPONSE = '#/components/responses/ApiRoot';

/** The paths the document answers with a root (`/api/`, `/api/extras/`, ...): those whose GET answers an ApiRoot. */
function rootPaths(document: OpenApiDocument): string[] {
  return Object.entries(document.paths)
    .filter(([, item]) => {
      const ok = (item?.get?.responses as Record<string, { $ref?: string }> | undefined)?.['200'];
      return ok?.$ref === ROOT_RESPONSE;
    })
    .map(([path]) => path);
}

/** What a root lists: each documented path one segment below it that answers GET, by that segment, with its address. */
function rootOf(document: OpenApiDocument, req: Request, root: string): Schemas['ApiRoot'] {
  const below = Object.entries(document.paths)
    .filter(([path, item]) => item?.get && path.startsWith(root) && /^[^/{}]+\/$/.test(path.slice(root.length)))
    .map(([path]) => path)
    .sort();
  return Object.fromEntries(below.map((path) => [path.slice(root.length, -1), absoluteUrl(req, path)]));
}

/**
 * Nautobot's API root and app roots (each part of the API with its address) and `/api/status/`
 * (versions, workers, Redis), as its clients read them. A browser asking `/api/` for HTML was sent
 * to the documentation before this runs (web.router.ts).
 */
export function apiRootRouter(document: OpenApiDocument, status: StatusSources): Router {
  const router = Router();
  for (const root of rootPaths(document)) router.get(root, (req, res) => res.json(rootOf(document, req, root)));
  router.get('/api/status/', async (_req, res) => {
    const [redis, { redisVersion, workers }] = await Promise.all([status.redis(), status.readings()]);
    res.json({
      'aiops-version': status.version,
      'api-version': apiVersionOf(document),
      'node-version': process.versions.node,
      'redis-version': redisVersion,
      redis,
      'workers-running': workers,
    } satisfies Schemas['ApiStatus']);
  });
  return router;
}
