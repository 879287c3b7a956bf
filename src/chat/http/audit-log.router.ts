import { Router } from 'express';
import type { AuditLog, AuditOutcome } from '../audit/audit-log.port.js';
import { UnavailableError } from '../../kernel/errors.js';
import type { ResponseBody } from '../../api/openapi-types.js';
import { listPage } from '../../api/list-page.js';

export const AUDIT_LOG_BASE = '/api/plugins/ai-ops/audit-log/';

/**
 * The audit log of the agent's tool calls: read only (the document has no other method, so any
 * other answers 405). Without a log (an app built for records only) it answers 503.
 */
export function auditLogRouter(log: AuditLog | undefined): Router {
  const router = Router();

  router.get(AUDIT_LOG_BASE, async (req, res) => {
    if (!log) throw new UnavailableError('the audit log is not enabled in this process');
    const query = req.query as unknown as {
      limit: number;
      offset: number;
      user?: string;
      tool?: string;
      outcome?: AuditOutcome;
      since?: string;
    };
    const { count, results } = await log.list({
      limit: query.limit,
      offset: query.offset,
      ...(query.user ? { user: query.user } : {}),
      ...(query.tool ? { tool: query.tool } : {}),
      ...(query.outcome ? { outcome: query.outcome } : {}),
      ...(query.since ? { since: new Date(query.since) } : {}),
    });
    res.json(listPage(req, { count, offset: query.offset, limit: query.limit, results }) satisfies ResponseBody<'audit_log_list', 200>);
  });

  return router;
}
