import { joinUrl, McpHttpStatusError, mcpEndpointUrl, type McpConnector } from '../mcp-client/mcp-connector.port.js';
import type { McpServerRecord } from '../records/mcp-server.js';

import type {
  CheckedServer,
  CredentialLookup,
  HealthCheckMethod,
  HealthChecker,
  HealthFailure,
  HealthProbe,
} from './health-checker.port.js';

/** `url` with any user:password removed (the URL is shown and stored). */
function shownUrl(address: string): string {
  const url = new URL(address);
  url.username = '';
  url.password = '';
  return url.toString();
}

/** `url + health_check` with any user:password removed. */
export function healthUrl(server: Pick<McpServerRecord, 'url' | 'health_check'>): string {
  return shownUrl(joinUrl(server.url, server.health_check));
}

/** The check a server gets: its health path over HTTP when its record names one, the protocol otherwise. */
export function healthCheckMethod(server: Pick<CheckedServer, 'protocol' | 'health_check'>): HealthCheckMethod {
  return server.protocol === 'http' && server.health_check ? 'http' : 'protocol';
}

/** A health path answered `status`, not a 2xx. */
export class HealthStatusError extends Error {
  constructor(readonly status: number) {
    super(`health check answered HTTP ${status}`);
  }
}

function failureOf(error: unknown): HealthFailure {
  return error instanceof McpHttpStatusError || error instanceof HealthStatusError
    ? { kind: 'http_status', status: error.status }
    : { kind: 'error' };
}

/** What went wrong, for `last_error`: fetch says only `fetch failed`, its cause says why (refused by the outbound policy, no route, ...). */
function failureMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message === 'fetch failed' && error.cause instanceof Error) return failureMessage(error.cause);
  return error.message || error.name;
}

function elapsedMs(started: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
}

/** Runs `probe`, timing it; an exception becomes a failed probe with its message and what kind of failure it was. */
export async function timed(url: string | null, method: HealthCheckMethod, probe: () => Promise<void>): Promise<HealthProbe> {
  const started = process.hrtime.bigint();
  try {
    await probe();
    return { ok: true, latencyMs: elapsedMs(started), error: null, url, method };
  } catch (error) {
    return { ok: false, latencyMs: elapsedMs(started), error: failureMessage(error), url, method, failure: failureOf(error) };
  }
}

/**
 * Checks a server by the protocol, as any MCP client would find it alive: initialize a session,
 * then `ping`, all within the time limit, then close it (a stdio server is started for it and
 * stopped). A server that answers HTTP with a status instead fails with `http_status`.
 */
export class ProtocolHealthChecker implements HealthChecker {
  constructor(
    private readonly connector: McpConnector,
    private readonly credential: CredentialLookup,
  ) {}

  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe> {
    const url = server.protocol === 'http' ? shownUrl(mcpEndpointUrl(server)) : null;
    return timed(url, 'protocol', async () => {
      const signal = AbortSignal.timeout(timeoutMs);
      const deadline = Date.now() + timeoutMs;
      const session = await this.connector.connect(server, await this.credential(server), { signal, timeoutMs });
      try {
        await session.ping({ signal, timeoutMs: Math.max(1, deadline - Date.now()) });
      } finally {
        await session.close().catch(() => undefined);
      }
    });
  }
}

/**
 * Picks the check for the server: its health path (http), or the protocol (stdio, http without a
 * path); an OAuth server checked by the protocol is checked by its challenge (`oauth`), needing no user.
 */
export function healthChecker(checkers: Record<HealthCheckMethod, HealthChecker> & { oauth?: HealthChecker }): HealthChecker {
  return {
    check: (server, timeoutMs) => {
      const method = healthCheckMethod(server);
      const oauth = method === 'protocol' && server.protocol === 'http' && server.auth === 'oauth' ? checkers.oauth : undefined;
      return (oauth ?? checkers[method]).check(server, timeoutMs);
    },
  };
}
