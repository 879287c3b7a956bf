import type { McpServerRecord } from '../records/mcp-server.js';

/** One check's result. `error` never carries a secret; `url` is what was checked (null for stdio). */
export interface HealthProbe {
  ok: boolean;
  latencyMs: number;
  error: string | null;
  url: string | null;
}

export type CheckedServer = Pick<
  McpServerRecord,
  'id' | 'name' | 'protocol' | 'url' | 'mcp_endpoint' | 'health_check' | 'command' | 'args' | 'auth_secret_key' | 'destination_trusted'
>;

/** Port: checks one server within `timeoutMs`. Never throws: a failure is a failed probe. */
export interface HealthChecker {
  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe>;
}

/** Resolves a server's own credential (its `auth_secret_key`), if it has one. */
export type CredentialLookup = (server: CheckedServer) => Promise<string | undefined>;
