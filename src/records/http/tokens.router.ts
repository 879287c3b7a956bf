import { Router } from 'express';
import { tokenView, type TokenService } from '../auth/token.service.js';
import type { RequestBody, ResponseBody } from '../../api/openapi-types.js';
import { listPage } from '../../api/list-page.js';

export const TOKENS_BASE = '/api/users/tokens/';

/**
 * API tokens, Nautobot's path: list, create (the key answered once) and revoke through the same
 * TokenService as `aiops token`, plus the calling token itself. The document requires a superuser
 * for all but `me/`.
 */
export function tokensRouter(tokens: TokenService): Router {
  const router = Router();

  router.get(TOKENS_BASE, async (req, res) => {
    const { limit, offset } = req.query as unknown as { limit: number; offset: number };
    const all = await tokens.list();
    res.json(
      listPage(req, { count: all.length, offset, limit, results: all.slice(offset, offset + limit).map(tokenView) }) satisfies ResponseBody<
        'users_tokens_list',
        200
      >,
    );
  });

  router.post(TOKENS_BASE, async (req, res) => {
    const input = req.body as RequestBody<'users_tokens_create'>;
    const { token, key } = await tokens.create({
      username: input.user,
      superuser: input.superuser ?? false,
      permissions: input.permissions ?? [],
      writeEnabled: input.write_enabled ?? true,
      expires: input.expires ? new Date(input.expires) : null,
      description: input.description,
    });
    res.status(201).json({ ...tokenView(token), key } satisfies ResponseBody<'users_tokens_create', 201>);
  });

  // Before `{id}/`: "me" is not a token id.
  router.get(`${TOKENS_BASE}me/`, async (_req, res) => {
    res.json(tokenView(await tokens.get(res.locals.principal!.tokenId)) satisfies ResponseBody<'users_tokens_me', 200>);
  });

  router.delete(`${TOKENS_BASE}:id/`, async (req, res) => {
    await tokens.revoke(req.params.id);
    res.status(204).end();
  });

  return router;
}
