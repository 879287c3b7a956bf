import { Router } from 'express';
import { ConflictError } from '../../kernel/errors.js';
import type { PersonalTokenStore } from '../personal-tokens.port.js';
import type { RequestBody, ResponseBody } from '../../api/openapi-types.js';

export const PLATFORM_TOKEN_PATH = '/api/plugins/ai-ops/platform-token/';

/**
 * The calling user's own token for an external platform: stored, described and removed, never
 * answered. Without PLATFORM_TOKEN_KEY (no store) GET says so (`enabled: false`), the normal state
 * of a service that keeps none, and a PUT or DELETE is a 409 saying so.
 */
export function platformTokenRouter(tokens: PersonalTokenStore | undefined): Router {
  const router = Router();
  const store = (): PersonalTokenStore => {
    if (!tokens)
      throw new ConflictError('personal platform tokens are not enabled: the operator sets PLATFORM_TOKEN_KEY on the API and the workers');
    return tokens;
  };

  router.get(PLATFORM_TOKEN_PATH, async (_req, res) => {
    const state = tokens ? await tokens.describe(res.locals.principal!.userId) : { configured: false, updated: null };
    res.json({ enabled: tokens !== undefined, ...state } satisfies ResponseBody<'platform_token_retrieve', 200>);
  });

  router.put(PLATFORM_TOKEN_PATH, async (req, res) => {
    await store().set(res.locals.principal!.userId, (req.body as RequestBody<'platform_token_update'>).token);
    res.status(204).end();
  });

  router.delete(PLATFORM_TOKEN_PATH, async (_req, res) => {
    await store().remove(res.locals.principal!.userId);
    res.status(204).end();
  });

  return router;
}
