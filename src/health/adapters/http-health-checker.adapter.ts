import { HealthStatusError, healthUrl, timed } from '../health-checker.js';
import type { CheckedServer, CredentialLookup, HealthChecker, HealthProbe } from '../health-checker.port.js';
import type { OutboundPolicy } from '../../kernel/http/outbound-policy.js';
import { httpRequest } from '../../kernel/http/http-request.js';

/**
 * `GET url + health_check`: any 2xx passes; redirects are not followed. One fresh connection per
 * check, closed afterwards (a check every 30 s gains nothing from keep-alive, and hundreds of idle
 * sockets would). TLS certificates are verified. The server's own credential, if it has one, is
 * sent as a bearer token; nothing else identifying a user or this service is. A server whose
 * address was not set by a superuser reaches only what the outbound policy allows, decided on the
 * address the connection resolves (a refused one is never contacted, so its ports stay unknown).
 */
export class HttpHealthChecker implements HealthChecker {
  constructor(
    private readonly credential: CredentialLookup,
    private readonly policy: OutboundPolicy,
  ) {}

  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe> {
    const url = healthUrl(server);
    return timed(url, 'http', async () => {
      const target = new URL(url);
      const trusted = server.destination_trusted === true;
      if (!trusted) this.policy.checkLiteral(target);
      const credential = await this.credential(server);
      const { status } = await httpRequest({
        url: target,
        headers: { accept: 'application/json, text/plain, */*', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
        timeoutMs,
        freshConnection: true,
        ...(trusted ? {} : { lookup: this.policy.lookup }),
      });
      if (status < 200 || status > 299) throw new HealthStatusError(status);
    });
  }
}
