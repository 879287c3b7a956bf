import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { cappedResponse } from '../kernel/http/capped-response.js';
import { UpstreamError } from '../kernel/errors.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { OAuthState } from './oauth-state.port.js';

/** A client metadata document is a few hundred bytes; the spec's guidance caps it at 5 kB. */
const DOCUMENT_MAX_BYTES = 5 * 1024;
const DOCUMENT_TIMEOUT_MS = 5_000;
/** How long a fetched document stands for its client before it is fetched again. */
const DOCUMENT_TTL_MS = 5 * 60_000;

/** A client_id that names its own metadata document (the 2025-11-25 spec's client ID metadata documents): https with a path. */
export function isClientMetadataUrl(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.protocol === 'https:' && url.pathname !== '/' && !url.hash && !url.username && !url.password;
}

/**
 * The authorization server's clients: those registered dynamically (RFC 7591), kept in Redis, and
 * those whose client_id is the https URL of their metadata document, fetched (through `fetch`: the
 * outbound policy's, which reaches no internal address the operator did not allow, and follows no
 * redirect) and kept for a few minutes. A document must name itself as client_id and, being public,
 * authenticate with no secret.
 */
export class ToolServerClients implements OAuthRegisteredClientsStore {
  constructor(
    private readonly state: OAuthState,
    private readonly fetchDocument: typeof fetch,
    private readonly logger: Logger,
  ) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (!isClientMetadataUrl(clientId)) return (await this.state.get('client', clientId)) as OAuthClientInformationFull | undefined;
    const cached = (await this.state.get('document', clientId)) as OAuthClientInformationFull | undefined;
    if (cached) return cached;
    const document = await this.fetchClient(clientId);
    if (document) await this.state.put('document', clientId, document, DOCUMENT_TTL_MS);
    return document;
  }

  /** The SDK generated the id (a UUID, never an https URL: no registration can pose as a document's client). */
  async registerClient(client: OAuthClientInformationFull): Promise<OAuthClientInformationFull> {
    await this.state.put('client', client.client_id, client);
    return client;
  }

  /** The document at `url`, or undefined (with the reason logged) when it cannot stand for a client. */
  private async fetchClient(url: string): Promise<OAuthClientInformationFull | undefined> {
    const refuse = (reason: string) => {
      this.logger.warn('client metadata document refused', { client_id: url, reason });
      return undefined;
    };
    let body: unknown;
    try {
      const response = await this.fetchDocument(url, {
        headers: { accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS),
      });
      if (response.status !== 200) return refuse(`HTTP ${response.status}`);
      body = await cappedResponse(response, DOCUMENT_MAX_BYTES, () => new UpstreamError(`larger than ${DOCUMENT_MAX_BYTES} bytes`)).json();
    } catch (error) {
      return refuse(error instanceof Error ? error.message : String(error));
    }
    const parsed = OAuthClientMetadataSchema.extend({ client_id: z.string() }).safeParse(body);
    if (!parsed.success) return refuse(`not client metadata: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    if (parsed.data.client_id !== url) return refuse('its client_id is not its own URL');
    const method = parsed.data.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') return refuse(`token_endpoint_auth_method ${method}: a published document authenticates with no secret`);
    return { ...parsed.data, token_endpoint_auth_method: 'none' };
  }
}
