import type { McpServerRecord } from '../records/mcp-server.js';

/**
 * Which check ran: `protocol`, an MCP `initialize` then `ping` (stdio servers, and http servers
 * whose record names no health path); `http`, `GET url + health_check`.
 */
export type HealthCheckMethod = 'protocol' | 'http';

/**
 * Why a check failed, as far as a caller may act on it: `http_status`, the server answered HTTP
 * with `status` instead of an MCP answer or a 2xx (a 401 says it wants authorization); `error`,
 * anything else (no answer in time, refused connection, a protocol error).
 */
export type HealthFailure = { kind: 'http_status'; status: number } | { kind: 'error' };

/** One check's result. `error` never carries a secret; `url` is what was checked (null for stdio). */
export interface HealthProbe {
  ok: boolean;
  latencyMs: number;
  error: string | null;
  url: string | null;
  method: HealthCheckMethod;
  /** Set when the check failed. */
  failure?: HealthFailure;
}

export type CheckedServer = Pick<
  McpServerRecord,
  | 'id'
  | 'name'
  | 'protocol'
  | 'url'
  | 'mcp_endpoint'
  | 'health_check'
  | 'command'
  | 'args'
  | 'auth_secret_key'
  | 'destination_trusted'
  | 'roots'
> &
  Partial<Pick<McpServerRecord, 'auth'>>;

/** Why a check runs: a scheduled round, a new (or reset) server, or someone asking now. */
export type HealthCheckReason = 'scheduled' | 'new' | 'manual';

/** What a check found and stored; `status` is the server's status after it (null: server gone). */
export interface HealthCheckResult {
  server_id: string;
  status: string | null;
  healthy: boolean | null;
  latency_ms: number | null;
  error: string | null;
  url: string | null;
  /** Which check ran (null: none did). */
  method: HealthCheckMethod | null;
  /** The status flipped because of this check. */
  changed: boolean;
  /** Not checked: a Maintenance server on a scheduled round, or a deleted server. */
  skipped?: 'maintenance' | 'gone';
}

/** Port: checks one server within `timeoutMs`. Never throws: a failure is a failed probe. */
export interface HealthChecker {
  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe>;
}

/** Resolves a server's own credential (its `auth_secret_key`), if it has one. */
export type CredentialLookup = (server: CheckedServer) => Promise<string | undefined>;
