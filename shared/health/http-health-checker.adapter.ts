import http from 'node:http';
import https from 'node:https';
import { healthUrl, timed, type CheckedServer, type CredentialLookup, type HealthChecker, type HealthProbe } from './health-checker.js';

/**
 * `GET url + health_check`: any 2xx passes; redirects are not followed. One fresh connection per
 * check, closed afterwards (a check every 30 s gains nothing from keep-alive, and hundreds of idle
 * sockets would). TLS certificates are verified. The server's own credential, if it has one, is
 * sent as a bearer token; nothing else identifying a user or this service is.
 */
export class HttpHealthChecker implements HealthChecker {
  constructor(private readonly credential: CredentialLookup) {}

  check(server: CheckedServer, timeoutMs: number): Promise<HealthProbe> {
    const url = healthUrl(server);
    return timed(url, async () => {
      const credential = await this.credential(server);
      const status = await get(new URL(url), credential, timeoutMs);
      if (status < 200 || status > 299) throw new Error(`health check answered HTTP ${status}`);
    });
  }
}

function get(url: URL, credential: string | undefined, timeoutMs: number): Promise<number> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        agent: false,
        headers: { connection: 'close', accept: 'application/json, text/plain, */*', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', (error: Error) => reject(error.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : error));
  });
}
