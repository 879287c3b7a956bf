import { AUDIT_OUTCOMES, type AuditEntry, type AuditOutcome } from '../../chat/audit/audit-log.port.js';
import type { Config } from '../../roles/config.js';
import { ValidationError } from '../../kernel/errors.js';
import { commandLogger } from '../../kernel/logging/logger.js';
import { openAuditLog } from '../../roles/audit.js';
import { writeTable } from '../table.js';

export interface AuditCommandOptions {
  user?: string;
  tool?: string;
  outcome?: string;
  since?: string;
  limit?: number;
  json?: boolean;
}

function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw ValidationError.field('since', `'${value}' is not an ISO 8601 date or date-time.`);
  return date;
}

function parseOutcome(value: string | undefined): AuditOutcome | undefined {
  if (value === undefined) return undefined;
  if (!(AUDIT_OUTCOMES as readonly string[]).includes(value))
    throw ValidationError.field('outcome', `'${value}' is not one of ${AUDIT_OUTCOMES.join(', ')}.`);
  return value as AuditOutcome;
}

function describe(entry: AuditEntry): string[] {
  const decision = entry.approval ? `${entry.approval.decision} by ${entry.approval.decided_by_name ?? '(no one, in time)'}` : '';
  return [
    entry.time,
    entry.user,
    entry.server ?? '-',
    entry.tool,
    entry.outcome,
    entry.http_status === null ? '' : String(entry.http_status),
    `${entry.duration_ms} ms`,
    decision,
    JSON.stringify(entry.arguments),
  ];
}

/** `aiops audit`: the newest tool calls first, as a table or JSON. */
export async function listAudit(config: Config, options: AuditCommandOptions, out: NodeJS.WritableStream): Promise<number> {
  const outcome = parseOutcome(options.outcome);
  const since = parseSince(options.since);
  const logger = commandLogger('error');
  const { log, close } = await openAuditLog(config, logger);
  let page: Awaited<ReturnType<typeof log.list>>;
  try {
    page = await log.list({ user: options.user, tool: options.tool, outcome, since, limit: options.limit ?? 50, offset: 0 });
  } finally {
    await close();
  }
  if (options.json) {
    out.write(`${JSON.stringify(page, null, 2)}\n`);
    return 0;
  }
  const rows = [['TIME', 'USER', 'SERVER', 'TOOL', 'OUTCOME', 'HTTP', 'DURATION', 'APPROVAL', 'ARGUMENTS'], ...page.results.map(describe)];
  writeTable(out, rows);
  if (page.count > page.results.length) out.write(`(${page.results.length} of ${page.count}; --limit shows more)\n`);
  return 0;
}
