import type { Logger } from '../kernel/logging/logger.js';
import { ConflictError } from '../kernel/errors.js';
import type { ToolVersionStore } from '../mcp-client/tool-versions.port.js';
import type { McpServerRecord } from '../records/mcp-server.js';
import type { RecordCollection } from '../records/record-collection.port.js';
import type { StatusRecord } from '../records/status.js';
import type { HealthCheckReason, HealthCheckResult, HealthChecker } from './health-checker.port.js';
import { HealthStatus } from '../records/status.js';
import { nextStatus, type HealthThresholds } from './health-policy.js';
import type { HealthStreakStore } from './health-streaks.port.js';

export interface HealthCheckDependencies {
  servers: Pick<RecordCollection<McpServerRecord>, 'get' | 'swap'>;
  statuses: Pick<RecordCollection<StatusRecord>, 'all'>;
  checker: HealthChecker;
  streaks: HealthStreakStore;
  versions: ToolVersionStore;
  thresholds: HealthThresholds;
  timeoutMs: number;
  now?: () => Date;
}

/** Compare-and-swap attempts when the record is edited while its check runs. */
const MAX_SWAP_ATTEMPTS = 10;

/**
 * One health check of one server, as a worker runs it: check, count the result in the shared
 * streak, decide the status with the fall/rise thresholds, and store status, last_checked,
 * last_error and latency_ms with a compare-and-swap (an edit made meanwhile is kept). A flip bumps
 * the server's tool version, so every process drops its cached tools; a manual check bumps it too
 * (a refresh on demand).
 */
export class HealthCheckService {
  private readonly now: () => Date;

  constructor(private readonly deps: HealthCheckDependencies) {
    this.now = deps.now ?? (() => new Date());
  }

  async check(serverId: string, reason: HealthCheckReason, logger: Logger): Promise<HealthCheckResult> {
    const { servers, checker, streaks, versions, thresholds, timeoutMs } = this.deps;
    let record = await servers.get(serverId);
    if (!record) return skipped(serverId, 'gone');
    const statuses = await this.statusNames();
    const maintenance = statuses.get(record.status_id) === HealthStatus.Maintenance;
    if (maintenance && reason !== 'manual') {
      return skipped(serverId, 'maintenance', HealthStatus.Maintenance);
    }

    const probe = await checker.check(record, timeoutMs);
    // A manual check of a server in maintenance is stored but does not count towards a flip.
    const streak = maintenance ? { passes: 0, fails: 0 } : await streaks.record(serverId, probe.ok);
    const checked = {
      last_checked: this.now().toISOString(),
      last_error: probe.error,
      latency_ms: probe.latencyMs,
      last_check_method: probe.method,
    };
    for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS && record; attempt++) {
      const before = statuses.get(record.status_id) ?? HealthStatus.Unknown;
      const after = nextStatus(before, probe.ok, streak, thresholds);
      const statusId = [...statuses].find(([, name]) => name === after)?.[0] ?? record.status_id;
      const outcome = await servers.swap(record, { ...record, ...checked, status_id: statusId });
      if (outcome === 'ok') {
        const changed = statusId !== record.status_id;
        if (changed) {
          logger.warn('mcp server status changed', {
            server: record.name,
            server_id: serverId,
            from: before,
            to: after,
            passes: streak.passes,
            fails: streak.fails,
            method: probe.method,
            error: probe.error,
          });
        }
        if (changed || reason === 'manual') await versions.bump(serverId);
        logger.info('mcp server checked', {
          server: record.name,
          server_id: serverId,
          reason,
          method: probe.method,
          healthy: probe.ok,
          latency_ms: probe.latencyMs,
          status: after,
        });
        return {
          server_id: serverId,
          status: after,
          healthy: probe.ok,
          latency_ms: probe.latencyMs,
          error: probe.error,
          url: probe.url,
          method: probe.method,
          changed,
        };
      }
      if (outcome === 'gone') return skipped(serverId, 'gone');
      record = await servers.get(serverId);
    }
    if (!record) return skipped(serverId, 'gone');
    throw new ConflictError(`the health of MCP server ${serverId} could not be stored: the record keeps changing`);
  }

  private async statusNames(): Promise<Map<string, string>> {
    return new Map((await this.deps.statuses.all()).records.map((status) => [status.id, status.name]));
  }
}

/** The answer for a server left unchecked: in maintenance, or gone (no status). */
function skipped(serverId: string, reason: 'maintenance' | 'gone', status: HealthCheckResult['status'] = null): HealthCheckResult {
  return {
    server_id: serverId,
    status,
    healthy: null,
    latency_ms: null,
    error: null,
    url: null,
    method: null,
    changed: false,
    skipped: reason,
  };
}
