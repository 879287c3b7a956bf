import { Router } from 'express';
import { UnavailableError } from '../../kernel/errors.js';
import type { ResponseBody } from '../../api/openapi-types.js';
import { hasPermission } from '../../records/auth/permissions.js';
import type { UsageFilter, UsageReportService } from '../usage/usage-report.service.js';

export const USAGE_BASE = '/api/plugins/ai-ops/usage/';

/** Token usage: any token sees its user's own, ai_ops.view_usage every user's. Without a report (an app built for records only) it answers 503. */
export function usageRouter(usage: UsageReportService | undefined): Router {
  const router = Router();

  router.get(USAGE_BASE, async (req, res) => {
    if (!usage) throw new UnavailableError('token usage is not enabled in this process');
    const principal = res.locals.principal!;
    // The validator has checked the query against the document's parameters.
    const filter: UsageFilter = req.query;
    const report = await usage.report(
      { userId: principal.userId, username: principal.username, seesEveryone: hasPermission(principal, 'ai_ops.view_usage') },
      filter,
    );
    res.json(report satisfies ResponseBody<'usage_list', 200>);
  });

  return router;
}
