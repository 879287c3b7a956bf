import { timed } from '../health-checker.js';
import type { CheckedServer, HealthChecker, HealthProbe } from '../health-checker.port.js';
import type { OutboundFetch } from '../../kernel/http/outbound-fetch.js';
import { linkedSignal } from '../../kernel/linked-signal.js';
import { mcpEndpointUrl } from '../../mcp-client/mcp-connector.port.js';
import { probeOAuthServer, serverScopedFetch } from '../../mcp-client/adapters/sdk-oauth.adapter.js';

/**
 * A server with `auth` oauth needs no user to be checked: answering `initialize` without a token
 * with 401 and valid protected resource metadata, it is reachable (each user then signs in). Its
 * metadata is read as its OAuth client reads it: another host only where the outbound policy allows.
 */
export class OAuthHealthChecker implements HealthChecker {
  constructor(private readonly outbound: OutboundFetch) {}

  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe> {
    const url = mcpEndpointUrl(server);
    return timed(url, 'protocol', async () => {
      const target = new URL(url);
      const deadline = linkedSignal([], timeoutMs);
      try {
        await probeOAuthServer(target, serverScopedFetch(this.outbound, target, server.destination_trusted === true), deadline.signal);
      } finally {
        deadline.dispose();
      }
    });
  }
}
