import { Router } from 'express';
import { UnavailableError, ValidationError } from '../../kernel/errors.js';
import type { KnowledgeBase } from '../knowledge-base.service.js';
import type { RequestBody, ResponseBody } from '../../api/openapi-types.js';

export const KB_BASE = '/api/plugins/ai-ops/kb/';

/**
 * The knowledge-base administration API: thin delegation to KnowledgeBase, whose index work runs
 * as `index` queue jobs (this process never clones or embeds). Without a knowledge base (an app
 * built for records only) every operation answers 503.
 */
export function kbRouter(knowledge: KnowledgeBase | undefined): Router {
  const router = Router();
  const service = (): KnowledgeBase => {
    if (!knowledge) throw new UnavailableError('the knowledge base is not enabled in this process');
    return knowledge;
  };
  const repoName = (params: Record<string, string | string[] | undefined>) => `${String(params.owner)}/${String(params.name)}`;

  router.get(`${KB_BASE}repos/`, async (_req, res) => {
    const results = await service().listRepositories();
    res.json({ count: results.length, next: null, previous: null, results } satisfies ResponseBody<'kb_repos_list', 200>);
  });

  router.post(`${KB_BASE}repos/`, async (req, res) => {
    const { url, name, ...rest } = req.body as RequestBody<'kb_repos_create'>;
    const repo = url ?? name;
    if (repo === undefined)
      throw ValidationError.field('name', 'This field is required (owner/name), unless url gives a Git URL or a local folder.');
    // Authentication put the caller there (its security handler runs before any route).
    const writer = { superuser: res.locals.principal?.superuser === true };
    const request = { ...rest, repo, ...(url === undefined ? {} : { name }) };
    const { repository, job_id } = await service().addRepository(request, writer, {
      repo: url === undefined ? 'name' : 'url',
      name: 'name',
    });
    res.status(201).json({ ...repository, job_id } satisfies ResponseBody<'kb_repos_create', 201>);
  });

  router.delete(`${KB_BASE}repos/:owner/:name/`, async (req, res) => {
    res.json((await service().removeRepository(repoName(req.params))) satisfies ResponseBody<'kb_repos_destroy', 200>);
  });

  router.post(`${KB_BASE}repos/:owner/:name/reindex/`, async (req, res) => {
    const force = Boolean((req.body as RequestBody<'kb_repos_reindex'> | undefined)?.force);
    res.status(202).json((await service().startIndexing(repoName(req.params), force)) satisfies ResponseBody<'kb_repos_reindex', 202>);
  });

  router.get(`${KB_BASE}status/`, async (_req, res) => {
    res.json((await service().status()) satisfies ResponseBody<'kb_status_retrieve', 200>);
  });

  return router;
}
