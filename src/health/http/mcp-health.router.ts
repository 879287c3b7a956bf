import { Router } from 'express';
import { UnavailableError } from '../../kernel/errors.js';
import type { HealthCheckRequests } from '../health-requests.js';
import type { ResponseBody } from '../../api/openapi-types.js';
import { RECORD_KINDS } from '../../records/record-kinds.js';

/**
 * `POST /api/plugins/ai-ops/mcp-servers/{id}/health-check/`: runs one check now (as a job, on a
 * worker), stores it and answers `{status, healthy, latency_ms, error, url}`. Without health
 * checks in this process (an app built for records only) it answers 503.
 */
export function mcpHealthRouter(health: HealthCheckRequests | undefined): Router {
  const router = Router();
  router.post(`${RECORD_KINDS.mcpServers.path}:id/health-check/`, async (req, res) => {
    if (!health) throw new UnavailableError('health checks are not enabled in this process');
    res.json((await health.checkNow(req.params.id)) satisfies ResponseBody<'mcp_servers_health_check', 200>);
  });
  return router;
}
