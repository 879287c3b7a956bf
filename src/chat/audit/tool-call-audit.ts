import { redactJson } from '../../kernel/security/redact-secrets.js';
import type { WritePlan } from '../../write-plans/write-plan.js';
import { activeTraceId } from '../../kernel/tracing/tracing.js';
import type { AuditApproval, AuditLog, AuditOutcome } from './audit-log.port.js';

/** Whose turn made the calls: what every entry of the turn shares. */
export interface AuditSubject {
  /** The user's name (their id when the turn carried no token). */
  user: string;
  userId: string;
  sessionId: string;
  jobId: string;
  /** Credentials of this turn (its delegated key): redacted wherever they appear in arguments. */
  secrets: string[];
}

export interface AuditedCall {
  tool: string;
  arguments: Record<string, unknown>;
  server: string | null;
  outcome: AuditOutcome;
  httpStatus?: number;
  approval?: AuditApproval;
  /** What the call was planned to do (a write to the platform). */
  plan?: WritePlan;
  durationMs: number;
}

/**
 * Writes a finished tool call to the audit log: the turn's identity, the call with its arguments
 * redacted (credential-named fields, the turn's own credentials and the service's `secrets`),
 * how it ended and how long it took.
 */
export class ToolCallAudit {
  constructor(
    private readonly log: Pick<AuditLog, 'append'>,
    private readonly secrets: ReadonlyArray<string | undefined> = [],
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(subject: AuditSubject, call: AuditedCall): Promise<void> {
    const traceId = activeTraceId();
    return this.log.append({
      time: this.now().toISOString(),
      user: subject.user,
      user_id: subject.userId,
      session_id: subject.sessionId,
      job_id: subject.jobId,
      server: call.server,
      tool: call.tool,
      arguments: redactJson(call.arguments, [...this.secrets, ...subject.secrets]),
      outcome: call.outcome,
      http_status: call.httpStatus ?? null,
      approval: call.approval ?? null,
      plan: call.plan ? redactJson(call.plan, [...this.secrets, ...subject.secrets]) : null,
      duration_ms: Math.max(0, Math.round(call.durationMs)),
      ...(traceId ? { trace_id: traceId } : {}),
    });
  }
}
