import { joinUrl, type McpConnector } from '../mcp-client/mcp-connector.port.js';
import type { McpServerRecord } from '../records/mcp-server.js';

import type { CheckedServer, CredentialLookup, HealthChecker, HealthProbe } from './health-checker.port.js';

/** `url + health_check` with any user:password removed (the URL is shown and stored). */
export function healthUrl(server: Pick<McpServerRecord, 'url' | 'health_check'>): string {
  const url = new URL(joinUrl(server.url, server.health_check));
  url.username = '';
  url.password = '';
  return url.toString();
}

function elapsedMs(started: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
}

/** Runs `probe`, timing it; an exception becomes a failed probe with its message. */
export async function timed(url: string | null, probe: () => Promise<void>): Promise<HealthProbe> {
  const started = process.hrtime.bigint();
  try {
    await probe();
    return { ok: true, latencyMs: elapsedMs(started), error: null, url };
  } catch (error) {
    return { ok: false, latencyMs: elapsedMs(started), error: (error as Error).message || String(error), url };
  }
}

/**
 * Checks a stdio server the only way it can be: start it, initialize a session and list its
 * tools, all within the time limit, then stop it.
 */
export class StdioHealthChecker implements HealthChecker {
  constructor(
    private readonly connector: McpConnector,
    private readonly credential: CredentialLookup,
  ) {}

  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe> {
    return timed(null, async () => {
      const signal = AbortSignal.timeout(timeoutMs);
      const deadline = Date.now() + timeoutMs;
      const session = await this.connector.connect(server, await this.credential(server), { signal, timeoutMs });
      try {
        await session.listTools({ signal, timeoutMs: Math.max(1, deadline - Date.now()) });
      } finally {
        await session.close().catch(() => undefined);
      }
    });
  }
}

/** Picks the checker for the server's protocol; an OAuth server over HTTP is checked by its challenge (`oauth`), needing no user. */
export function protocolChecker(checkers: Record<CheckedServer['protocol'], HealthChecker> & { oauth?: HealthChecker }): HealthChecker {
  return {
    check: (server, timeoutMs) =>
      (server.protocol === 'http' && server.auth === 'oauth' && checkers.oauth ? checkers.oauth : checkers[server.protocol]).check(
        server,
        timeoutMs,
      ),
  };
}
