import type { Schemas } from '../api/openapi-types.js';
import { DomainError } from '../kernel/errors.js';

/**
 * A sign-in under way: made when the connect step sends a user to the authorization server, taken
 * (once) when the callback comes back with its `state`.
 */
export interface PendingSignIn {
  serverId: string;
  userId: string;
  /** The MCP endpoint the sign-in is for: a server pointed elsewhere meanwhile is not given the tokens. */
  url: string;
  /** The PKCE code verifier of this sign-in. */
  verifier: string;
}

/**
 * The service as an OAuth client, as its client ID metadata document (published on its own API)
 * says: `client_id` is the document's own URL.
 */
export type McpClientMetadataDocument = Schemas['McpOAuthClientMetadata'];

/**
 * Port: what the OAuth client keeps for MCP servers, sealed at rest by the adapter. Each entry is
 * bound to the MCP endpoint URL it was made for and reads as absent under another, so tokens,
 * client registrations and discovered endpoints never follow a server record to a new address.
 * Values are the SDK's JSON as text, opaque here.
 */
export interface McpOAuthStore {
  /** The user's tokens for the server. */
  tokens(serverId: string, userId: string, url: string): Promise<string | undefined>;
  saveTokens(serverId: string, userId: string, url: string, tokens: string): Promise<void>;
  forgetTokens(serverId: string, userId: string): Promise<void>;
  /** The servers the user holds tokens for, each with the URL they are bound to. */
  connections(userId: string): Promise<Map<string, string>>;
  /** This service's registration with the server's authorization server (dynamic client registration). */
  client(serverId: string, url: string): Promise<string | undefined>;
  saveClient(serverId: string, url: string, client: string): Promise<void>;
  forgetClient(serverId: string): Promise<void>;
  /** Where discovery found the server's authorization server, and its metadata. */
  discovery(serverId: string, url: string): Promise<string | undefined>;
  saveDiscovery(serverId: string, url: string, state: string): Promise<void>;
  forgetDiscovery(serverId: string): Promise<void>;
  /** Keeps a sign-in for `ttlMs` under its state. */
  putPending(state: string, pending: PendingSignIn, ttlMs: number): Promise<void>;
  /** The sign-in of `state`, removed as it is read: a state is used once. */
  takePending(state: string): Promise<PendingSignIn | undefined>;
}

/**
 * A server using per-user OAuth that this user has not connected their account to (or whose
 * refresh token the authorization server no longer takes): the user signs in at
 * `authorizationUrl`, bound to them by its state.
 */
export class McpConnectRequiredError extends DomainError {
  constructor(
    readonly serverId: string,
    readonly server: string,
    readonly authorizationUrl: string,
  ) {
    super(`the MCP server ${server} needs you to connect your account to it first`);
  }
}
