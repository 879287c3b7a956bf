import { randomBytes } from 'node:crypto';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OutboundFetch } from '../../kernel/http/outbound-fetch.js';
import { UpstreamError } from '../../kernel/errors.js';
import type { McpClientMetadataDocument, McpOAuthStore } from '../mcp-oauth.port.js';

/** What the OAuth client of the MCP servers is, for every user. */
export interface McpOAuthSettings {
  store: McpOAuthStore;
  /** The service's callback (PUBLIC_URL + the callback path); without it no user can sign in. */
  redirectUrl: string | undefined;
  /** How long a sign-in's state stays usable. */
  stateTtlMs: number;
  /** The client name shown on consent screens. */
  clientName: string;
  /**
   * Where the service's client ID metadata document is published (an https URL): its client_id
   * with authorization servers that take such documents; the others get a dynamic registration.
   */
  clientMetadataUrl?: string;
}

/** What the service says of itself as an OAuth client, to a registration endpoint or in its metadata document. */
function clientMetadataOf(
  settings: McpOAuthSettings,
  authMethod: 'none' | 'client_secret_basic',
): Omit<McpClientMetadataDocument, 'client_id'> {
  return {
    client_name: settings.clientName,
    redirect_uris: settings.redirectUrl ? [settings.redirectUrl] : [],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
  };
}

/** The client ID metadata document the service publishes (a public client: PKCE, no secret), where it has a URL for it. */
export function clientMetadataDocument(settings: McpOAuthSettings): McpClientMetadataDocument | undefined {
  return settings.clientMetadataUrl ? { client_id: settings.clientMetadataUrl, ...clientMetadataOf(settings, 'none') } : undefined;
}

/** Who the provider works for: the server (its MCP endpoint), the user, and what the record says of its client. */
export interface OAuthSubject {
  serverId: string;
  url: string;
  userId: string;
  /** A client registered beforehand (the record's `oauth_client_id`, its secret resolved); otherwise the service registers itself. */
  client?: { id: string; secret: string | undefined };
}

/**
 * The SDK's OAuth client provider over the service's store, for one user of one server: tokens,
 * the registration, discovery and the pending sign-in, each bound to the server's MCP endpoint.
 * `fresh` ignores stored tokens (a user asking to connect again signs in again); `verifier` is
 * the PKCE verifier of the sign-in the callback finishes. The SDK's `auth()` drives it.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** Set when `auth()` asks for the user to be sent to sign in: what the connect step answers. */
  authorizationUrl: URL | undefined;
  private pendingState: string | undefined;
  /** The access token last read or saved, kept out of what a server's answers and errors show. */
  private accessToken: string | undefined;

  constructor(
    private readonly settings: McpOAuthSettings,
    private readonly subject: OAuthSubject,
    private readonly mode: { fresh?: boolean; verifier?: string } = {},
  ) {}

  get redirectUrl(): string | undefined {
    return this.settings.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataOf(this.settings, this.subject.client?.secret ? 'client_secret_basic' : 'none');
  }

  /** The SDK uses it as the client_id where the authorization server takes metadata documents, before registering. */
  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }

  state(): string {
    this.pendingState = randomBytes(32).toString('base64url');
    return this.pendingState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { client } = this.subject;
    if (client) return { client_id: client.id, ...(client.secret ? { client_secret: client.secret } : {}) };
    const stored = await this.settings.store.client(this.subject.serverId, this.subject.url);
    return stored ? (JSON.parse(stored) as OAuthClientInformationMixed) : undefined;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client is the record's; only the service's own registration is stored.
    if (this.subject.client) return;
    await this.settings.store.saveClient(this.subject.serverId, this.subject.url, JSON.stringify(information));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.mode.fresh) return undefined;
    const stored = await this.settings.store.tokens(this.subject.serverId, this.subject.userId, this.subject.url);
    const tokens = stored ? (JSON.parse(stored) as OAuthTokens) : undefined;
    this.accessToken = tokens?.access_token;
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.accessToken = tokens.access_token;
    await this.settings.store.saveTokens(this.subject.serverId, this.subject.userId, this.subject.url, JSON.stringify(tokens));
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  // Plain Errors here and in codeVerifier: the SDK asks for these only in the sign-in this provider was made for; otherwise it is a bug.
  async saveCodeVerifier(verifier: string): Promise<void> {
    if (!this.pendingState) throw new Error('a sign-in has no state');
    const { serverId, userId, url } = this.subject;
    await this.settings.store.putPending(this.pendingState, { serverId, userId, url, verifier }, this.settings.stateTtlMs);
  }

  codeVerifier(): string {
    if (!this.mode.verifier) throw new Error('no sign-in is being finished');
    return this.mode.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const { store } = this.settings;
    const { serverId, userId } = this.subject;
    if (scope === 'all' || scope === 'tokens') await store.forgetTokens(serverId, userId);
    if ((scope === 'all' || scope === 'client') && !this.subject.client) await store.forgetClient(serverId);
    if (scope === 'all' || scope === 'discovery') await store.forgetDiscovery(serverId);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const stored = await this.settings.store.discovery(this.subject.serverId, this.subject.url);
    return stored ? (JSON.parse(stored) as OAuthDiscoveryState) : undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.settings.store.saveDiscovery(this.subject.serverId, this.subject.url, JSON.stringify(state));
  }

  /** The access token in use, for redaction. */
  get secret(): string | undefined {
    return this.accessToken;
  }
}

/**
 * The `fetch` for a server and everything its OAuth metadata points at: the server's own origin is
 * reached as the record allows (`trusted`, a superuser set it), every other address discovered
 * from metadata (its authorization server, token and registration endpoints) only where the
 * outbound policy allows, so a server's metadata cannot steer the service to an internal host.
 */
export function serverScopedFetch(outbound: OutboundFetch, serverUrl: URL, trusted: boolean): typeof fetch {
  const own = outbound(trusted);
  const elsewhere = outbound(false);
  return (input, init) => {
    const url = input instanceof URL ? input : new URL(typeof input === 'string' ? input : input.url);
    return (url.origin === serverUrl.origin ? own : elsewhere)(input, init);
  };
}

/**
 * Whether an OAuth server is reachable, without any user: asked `initialize` with no token, it
 * answers 401 and its protected resource metadata (RFC 9728, where its challenge points, or the
 * well-known address) names an authorization server. Throws saying what is missing otherwise.
 */
export async function probeOAuthServer(serverUrl: URL, fetchFn: typeof fetch, signal: AbortSignal): Promise<void> {
  const response = await fetchFn(serverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'aiops-health', version: '1' } },
    }),
    signal,
  });
  await response.body?.cancel();
  if (response.status !== 401)
    throw new UpstreamError(`an OAuth server should answer 401 without a token; it answered HTTP ${response.status}`);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  const metadata = await discoverOAuthProtectedResourceMetadata(
    serverUrl,
    resourceMetadataUrl ? { resourceMetadataUrl } : {},
    (input, init) => fetchFn(input, { ...init, signal }),
  );
  if (!metadata.authorization_servers?.length) throw new UpstreamError('its protected resource metadata names no authorization server');
}
