import type { WritePlan } from '../../write-plans/write-plan.js';

/** How a tool call ended: it answered, it failed (the model saw the error), or its owner declined it. */
export const AUDIT_OUTCOMES = ['ok', 'error', 'declined'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** The owner's decision on a call that needed one; `decided_by` is null when no one decided in time. */
export interface AuditApproval {
  decision: 'approved' | 'declined';
  decided_by: string | null;
  decided_at: string;
  note?: string;
}

/** How a host's user confirmed a write made through the tool server (`none`: TOOLSERVER_WRITE_CONFIRM=none). */
export const HOST_DECISIONS = ['elicitation', 'confirm_token', 'chat_approval', 'none'] as const;
export type HostDecision = (typeof HOST_DECISIONS)[number];

/** A write made through the tool server: the host that asked for it (its clientInfo name) and how it was confirmed. */
export interface AuditHost {
  client: string | null;
  decision: HostDecision;
}

/** One tool call, as the audit log keeps it. Arguments are stored with secret values redacted. */
export interface AuditEntryInput {
  /** When the call finished (ISO 8601). */
  time: string;
  /** The asking user's name (their id when the turn carried no token). */
  user: string;
  user_id: string;
  session_id: string;
  job_id: string;
  /** The MCP server that ran it, `built-in` for the platform tools; null when no server had the tool. */
  server: string | null;
  tool: string;
  arguments: Record<string, unknown>;
  outcome: AuditOutcome;
  /** The platform's HTTP status, for platform API calls. */
  http_status: number | null;
  approval: AuditApproval | null;
  /** What a write to the platform was planned to do (values redacted like the arguments); null for other calls, absent in entries from before plans. */
  plan?: WritePlan | null;
  duration_ms: number;
  /** A write through the tool server (its entries have no session or job: those are ''). */
  host?: AuditHost;
  /** The turn's trace, when it was traced. */
  trace_id?: string;
}

export interface AuditEntry extends Omit<AuditEntryInput, 'approval'> {
  /** Its position in the log (time-ordered). */
  id: string;
  /** The decision, with the decider's name for people to read beside their id. */
  approval: (AuditApproval & { decided_by_name: string | null }) | null;
}

/**
 * The decider's name: only the asking user decides their calls, so it is the entry's `user` for
 * their id (the id itself for any other, which no entry has); null when no one decided in time.
 */
export function withDeciderName(entry: AuditEntryInput, id: string): AuditEntry {
  const { approval } = entry;
  if (!approval) return { ...entry, id, approval: null };
  const { decided_by } = approval;
  return { ...entry, id, approval: { ...approval, decided_by_name: decided_by === entry.user_id ? entry.user : decided_by } };
}

export interface AuditQuery {
  /** A user name or id. */
  user?: string;
  tool?: string;
  outcome?: AuditOutcome;
  since?: Date;
  limit: number;
  offset: number;
}

/**
 * Port: the append-only log of the agent's tool calls, kept for a retention period. There is
 * no way to change or delete an entry: only time removes them.
 */
export interface AuditLog {
  append(entry: AuditEntryInput): Promise<void>;
  /** Matching entries, newest first: one page of them and how many match. */
  list(query: AuditQuery): Promise<{ count: number; results: AuditEntry[] }>;
}
