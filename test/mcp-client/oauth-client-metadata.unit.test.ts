import { expect } from 'chai';
import { loadConfig } from '../../src/roles/config.js';
import { clientMetadataDocument, StoredOAuthProvider, type McpOAuthSettings } from '../../src/mcp-client/adapters/sdk-oauth.adapter.js';
import type { McpOAuthStore } from '../../src/mcp-client/mcp-oauth.port.js';
import { oauthClientMetadataUrl } from '../../src/roles/mcp-oauth.js';

const DOCUMENT_PATH = '/api/plugins/ai-ops/mcp-oauth/client-metadata/';

/** The provider the service would use for a user of one server under these settings (no store is reached). */
const providerFor = (env: Record<string, string>) => {
  const config = loadConfig(env);
  const clientMetadataUrl = oauthClientMetadataUrl(config);
  const settings: McpOAuthSettings = {
    store: {} as McpOAuthStore,
    redirectUrl: `${config.http.publicUrl}/api/plugins/ai-ops/mcp-oauth/callback/`,
    stateTtlMs: 60_000,
    clientName: 'aiops',
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
  };
  return { settings, provider: new StoredOAuthProvider(settings, { serverId: 's', url: 'https://mcp.example.test/mcp', userId: 'u' }) };
};

describe('the OAuth client ID metadata document (SEP-991)', () => {
  it('is offered to the SDK as the client_id on an https PUBLIC_URL, and never on plain http', () => {
    expect(providerFor({ PUBLIC_URL: 'https://aiops.example.test/' }).provider.clientMetadataUrl).to.equal(
      `https://aiops.example.test${DOCUMENT_PATH}`,
    );
    expect(providerFor({ PUBLIC_URL: 'http://aiops.example.test' }).provider.clientMetadataUrl).to.equal(undefined);
  });

  it('is where MCP_OAUTH_CLIENT_METADATA_URL says when set, which takes https URLs with a path only', () => {
    const elsewhere = 'https://clients.example.test/aiops.json';
    expect(
      providerFor({ PUBLIC_URL: 'http://127.0.0.1:8080', MCP_OAUTH_CLIENT_METADATA_URL: elsewhere }).provider.clientMetadataUrl,
    ).to.equal(elsewhere);
    for (const refused of ['http://clients.example.test/aiops.json', 'https://clients.example.test/', 'not a url'])
      expect(() => loadConfig({ MCP_OAUTH_CLIENT_METADATA_URL: refused }), refused).to.throw(/MCP_OAUTH_CLIENT_METADATA_URL/);
  });

  it('says what the service is as a public client, its client_id its own URL', () => {
    const { settings } = providerFor({ PUBLIC_URL: 'https://aiops.example.test' });
    expect(clientMetadataDocument(settings)).to.deep.equal({
      client_id: `https://aiops.example.test${DOCUMENT_PATH}`,
      client_name: 'aiops',
      redirect_uris: ['https://aiops.example.test/api/plugins/ai-ops/mcp-oauth/callback/'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(clientMetadataDocument(providerFor({ PUBLIC_URL: 'http://aiops.example.test' }).settings)).to.equal(undefined);
  });
});
