import type { OutboundPolicy } from './outbound-policy.js';
import { nodeFetch } from './node-fetch.js';

/** The `fetch` for one destination: `trusted` when a superuser or the configuration chose it. */
export type OutboundFetch = (trusted: boolean) => typeof fetch;

function urlOf(input: Parameters<typeof fetch>[0]): URL {
  if (input instanceof URL) return input;
  return new URL(typeof input === 'string' ? input : input.url);
}

/**
 * `fetch` as providers and MCP clients use it. Redirects are never followed (a credential must not
 * reach the other end of one; callers see the 3xx). An untrusted destination connects only where
 * the outbound policy allows: an address literal is checked before the request, a name on every
 * resolution, by the connection itself, so a name cannot re-resolve around the check.
 */
export function outboundFetch(policy: OutboundPolicy): OutboundFetch {
  const trustedFetch = nodeFetch();
  const guardedFetch = nodeFetch(policy.lookup);
  const untrustedFetch: typeof fetch = async (input, init) => {
    policy.checkLiteral(urlOf(input));
    return guardedFetch(input, init);
  };
  return (trusted) => (trusted ? trustedFetch : untrustedFetch);
}
