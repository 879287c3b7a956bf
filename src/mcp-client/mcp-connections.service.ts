import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import { mcpEndpointUrl, type McpSignIn } from './mcp-connector.port.js';
import type { McpClientMetadataDocument, McpOAuthStore } from './mcp-oauth.port.js';
import { perUserOAuth, type McpServerRecord } from '../records/mcp-server.js';
import type { RecordCollection } from '../records/record-collection.port.js';

export interface McpConnectionsDependencies {
  servers: Pick<RecordCollection<McpServerRecord>, 'get'>;
  /** Resolves the secret of a server's registered OAuth client (`oauth_client_secret_key`). */
  secrets: { resolve(name: string): Promise<string> };
  signIn: McpSignIn;
  store: McpOAuthStore;
  connectTimeoutMs: number;
  /** The client ID metadata document the service publishes, where it has an https URL for it. */
  clientMetadata?: McpClientMetadataDocument;
}

/**
 * Users' own accounts on per-user OAuth MCP servers: connecting (the sign-in URL), the callback
 * that finishes it for the user its state names, disconnecting, and whose accounts are connected.
 */
export class McpConnectionsService {
  constructor(private readonly deps: McpConnectionsDependencies) {}

  get clientMetadata(): McpClientMetadataDocument | undefined {
    return this.deps.clientMetadata;
  }

  /** Where `userId` signs in to the server. */
  async connect(serverId: string, userId: string): Promise<string> {
    const server = await this.oauthServer(serverId);
    return this.deps.signIn.begin(server, await this.clientSecret(server), userId, { timeoutMs: this.deps.connectTimeoutMs });
  }

  /**
   * The sign-in of `state` (used once, whoever comes with it), finished for the user and server it
   * was made for, as long as the server still has the address it was made for.
   */
  async finish(state: string, code: string): Promise<{ server: string }> {
    const pending = await this.deps.store.takePending(state);
    if (!pending) throw ValidationError.field('state', 'this sign-in is unknown, used or expired: connect again');
    const server = await this.oauthServer(pending.serverId);
    if (mcpEndpointUrl(server) !== pending.url)
      throw new ConflictError(`${server.name} was pointed elsewhere during the sign-in: connect again`);
    await this.deps.signIn.finish(server, await this.clientSecret(server), pending.userId, { code, verifier: pending.verifier });
    return { server: server.name };
  }

  async disconnect(serverId: string, userId: string): Promise<void> {
    if (!(await this.deps.servers.get(serverId))) throw new NotFoundError('No MCP server matches the given id.');
    await this.deps.store.forgetTokens(serverId, userId);
  }

  /** Of the given servers, those `userId` holds tokens for at their current address. */
  async connected(servers: ReadonlyArray<Pick<McpServerRecord, 'id' | 'url' | 'mcp_endpoint'>>, userId: string): Promise<Set<string>> {
    const held = await this.deps.store.connections(userId);
    return new Set(servers.filter((server) => held.get(server.id) === mcpEndpointUrl(server)).map((server) => server.id));
  }

  private async oauthServer(serverId: string): Promise<McpServerRecord> {
    const server = await this.deps.servers.get(serverId);
    if (!server) throw new NotFoundError('No MCP server matches the given id.');
    if (!perUserOAuth(server))
      throw new ConflictError(
        `${server.name} is not reached with each user's own OAuth account (auth: oauth, oauth_grant: authorization_code)`,
      );
    return server;
  }

  private async clientSecret(server: McpServerRecord): Promise<string | undefined> {
    return server.oauth_client_secret_key ? this.deps.secrets.resolve(server.oauth_client_secret_key) : undefined;
  }
}
