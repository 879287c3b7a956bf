import { Router } from 'express';
import { tokenView, type TokenService } from '../auth/token.service.js';
import type { RequestBody, ResponseBody } from '../../api/openapi-types.js';
import { recordLocator } from '../../api/list-page.js';
import { answerOptions, principalOf, recordPage, type RecordsApi } from './records.router.js';

export const TOKENS_BASE = '/api/users/tokens/';

/**
 * API tokens, Nautobot's path: list, read, create (the key answered once) and revoke through the
 * same TokenService as `aiops token`, plus the calling token itself. The document requires a
 * superuser for all but `me/`.
 */
export function tokensRouter(tokens: TokenService, { document, maxPageSize }: RecordsApi): Router {
  const router = Router();

  router.get(TOKENS_BASE, async (req, res) => {
    const all = await tokens.list();
    res.json(
      (await recordPage(req, TOKENS_BASE, maxPageSize, async ({ limit, offset }) => ({
        count: all.length,
        results: all.slice(offset, offset + limit).map(tokenView),
      }))) satisfies ResponseBody<'users_tokens_list', 200>,
    );
  });
  answerOptions(router, TOKENS_BASE, TOKENS_BASE, document);

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
    res.status(201).json({ ...recordLocator(req, TOKENS_BASE)(tokenView(token)), key } satisfies ResponseBody<'users_tokens_create', 201>);
  });

  // Before `{id}/`: "me" is not a token id.
  router.get(`${TOKENS_BASE}me/`, async (req, res) => {
    res.json(
      recordLocator(req, TOKENS_BASE)(tokenView(await tokens.get(principalOf(res).tokenId))) satisfies ResponseBody<'users_tokens_me', 200>,
    );
  });

  router.get(`${TOKENS_BASE}:id/`, async (req, res) => {
    res.json(
      recordLocator(req, TOKENS_BASE)(tokenView(await tokens.get(req.params.id))) satisfies ResponseBody<'users_tokens_retrieve', 200>,
    );
  });

  router.delete(`${TOKENS_BASE}:id/`, async (req, res) => {
    await tokens.revoke(req.params.id);
    res.status(204).end();
  });

  return router;
}
