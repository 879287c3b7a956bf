import { Router } from 'express';
import type { ResponseBody } from '../../api/openapi-types.js';
import { UnavailableError } from '../../kernel/errors.js';
import type { PlatformCheck } from '../platform-check.js';

export const PLATFORM_PATH = '/api/plugins/ai-ops/platform/';

/**
 * The platform the agent acts on, checked now (the admin page's Platform section and its check
 * button). Without a check (an app built for records only) it answers 503.
 */
export function platformRouter(check: (() => Promise<PlatformCheck>) | undefined): Router {
  const router = Router();
  router.get(PLATFORM_PATH, async (_req, res) => {
    if (!check) throw new UnavailableError('the platform check is not enabled in this process');
    res.json((await check()) satisfies ResponseBody<'platform_check', 200>);
  });
  return router;
}
