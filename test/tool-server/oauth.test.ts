import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import type { Request } from 'express';
import { authorize } from '../../src/records/http/authenticate.js';
import { hashKey } from '../../src/records/auth/token.service.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { accessibilityViolations, launchBrowser, type TestBrowser } from '../web/browser.js';
import { fixture, startStubPlatform } from '../endpoint-search/support/stub-platform.js';
import { startAiops } from '../support/processes.js';
import { tempDirPerTest } from '../support/temp-dir.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startOAuthToolServer, type OAuthToolServer } from './support/oauth-tool-server.js';
import { toolServerUser } from '../support/tokens.js';

/** The host's redirect URI: loopback, as a desktop host's; the browser's visit to it is answered by the test. */
const CALLBACK = 'http://127.0.0.1:9/callback';
const PREFIX = 'toolserver-oauth';

/** A host as the MCP SDK's client drives it: everything kept in memory, the authorization URL handed to the test. */
class MemoryHost implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = CALLBACK;
  readonly clientMetadata = {
    client_name: 'Test Desktop Host',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation = () => this.client;
  saveClientInformation = (client: OAuthClientInformationMixed) => {
    this.client = client;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

describe('the HTTP tool server as OAuth authorization server for hosts', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let server: OAuthToolServer;
  let browser: TestBrowser;
  let userKey: string;
  const dir = tempDirPerTest('tool-oauth');

  before(async () => {
    redis = await startTestRedis();
    server = await startOAuthToolServer(redis.client, PREFIX);
    browser = await launchBrowser();
    userKey = (await toolServerUser(server.records.tokens)).key;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await redis?.destroy();
  });

  const mcpCall = (token: string, url = server.mcpUrl) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  /** The person signs in on the consent page in Chromium and answers; resolves to where the browser was sent back. */
  const consent = async (url: URL, key: string, answer: 'Allow' | 'Deny'): Promise<{ back: URL; page: string }> => {
    const { page, errors, violations } = await browser.page();
    try {
      let back: URL | undefined;
      await page.route(`${CALLBACK}**`, async (route) => {
        back = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the host' });
      });
      await page.goto(url.href);
      const shown = await page.locator('main').innerText();
      await page.getByLabel('Sign in with your API token').fill(key);
      await page.getByRole('button', { name: answer }).click();
      await page.waitForURL(`${CALLBACK}**`);
      expect(errors, errors.join('\n')).to.deep.equal([]);
      expect(violations, violations.join('\n')).to.deep.equal([]);
      return { back: back!, page: shown };
    } finally {
      await page.close();
    }
  };

  it('a fresh host registers, the person consents in the browser, and the host calls the tools; refresh rotates; revoking with the user ends both tokens', async () => {
    // Unauthenticated: 401 naming the protected resource metadata, which names this server as the authorization server.
    const refused = await mcpCall('not-a-token');
    expect(refused.status).to.equal(401);
    const challenge = refused.headers.get('www-authenticate')!;
    expect(challenge).to.include(`resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`);
    const resourceMetadata = (await (await fetch(`${server.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(resourceMetadata).to.include({ resource: server.mcpUrl });
    expect(resourceMetadata.authorization_servers).to.deep.equal([`${server.origin}/`]);
    const metadata = (await (await fetch(`${server.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).to.include({
      issuer: `${server.origin}/`,
      registration_endpoint: `${server.origin}/register`,
      client_id_metadata_document_supported: true,
    });
    expect(metadata.code_challenge_methods_supported).to.deep.equal(['S256']);

    // The host, as the SDK's client: discovery, dynamic registration, PKCE and the resource indicator.
    const host = new MemoryHost();
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: host });
    const first = new Client({ name: 'host', version: '1' });
    let unauthorized: unknown;
    await first.connect(transport).catch((error: unknown) => (unauthorized = error));
    expect(unauthorized).to.be.instanceOf(UnauthorizedError);
    expect(host.client?.client_id).to.be.a('string');
    const authorizationUrl = host.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).to.equal(`${server.origin}/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(authorizationUrl.searchParams.get('resource')).to.equal(server.mcpUrl);

    // A wrong token shows the page again with the reason; the right one sends the browser back with a code.
    const { page } = await browser.page();
    await page.goto(authorizationUrl.href);
    expect(await page.locator('#client-name').innerText()).to.equal('Test Desktop Host');
    expect(await accessibilityViolations(page)).to.deep.equal([]);
    expect(await page.locator('#rights').innerText()).to.include(server.mcpUrl);
    await page.getByLabel('Sign in with your API token').fill('wrong-key');
    await page.getByRole('button', { name: 'Allow' }).click();
    expect(await page.locator('#consent-error').innerText()).to.include('Invalid token');
    await page.close();
    const { back, page: shown } = await consent(authorizationUrl, userKey, 'Allow');
    expect(shown).to.include('Test Desktop Host');
    expect(back.searchParams.get('state')).to.equal(authorizationUrl.searchParams.get('state'));
    const code = back.searchParams.get('code')!;
    expect(code).to.be.a('string');

    await transport.finishAuth(code);
    const access = host.saved!.access_token;
    // The code is single-use.
    const replayedCode = await fetch(`${server.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: host.verifier,
        redirect_uri: CALLBACK,
        client_id: host.client!.client_id,
      }),
    });
    expect(((await replayedCode.json()) as { error: string }).error).to.equal('invalid_grant');

    // The MCP call with the token: the tools, and a search.
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: host }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).to.include('platform_openapi_api_request_schema');
    const found = (await client.callTool({
      name: 'platform_openapi_api_request_schema',
      arguments: { query: 'delete a device' },
    })) as CallToolResult;
    expect(found.isError ?? false, JSON.stringify(found.content)).to.equal(false);
    await client.close();

    // Listed with the user's tokens, named after the client, bound to the tool server, stored as a hash only.
    const issued = (await server.records.tokens.list()).filter((token) => token.description.includes('Test Desktop Host'));
    expect(issued).to.have.length(1);
    expect(issued[0]).to.include({ username: 'engineer', audience: server.mcpUrl, key_hash: hashKey(access) });
    const stored = JSON.stringify(await Promise.all((await redis.client.keys('*')).map((key) => redis.client.dump(key))));
    expect(stored).to.not.include(access);
    expect(stored).to.not.include(host.saved!.refresh_token!);

    // Not a key to the API: its audience is the tool server.
    const apiRequest = { get: () => `Token ${access}`, method: 'GET', path: '/api/users/tokens/' } as unknown as Request;
    expect(await authorize(server.records.tokens, apiRequest).catch((error: Error) => error.message)).to.include('is for');

    // Refresh: new tokens; the old access and refresh tokens end.
    const oldRefresh = host.saved!.refresh_token!;
    expect(await auth(host, { serverUrl: server.mcpUrl })).to.equal('AUTHORIZED');
    const refreshed = host.saved!;
    expect(refreshed.access_token).to.not.equal(access);
    expect(refreshed.refresh_token).to.not.equal(oldRefresh);
    expect((await mcpCall(access)).status).to.equal(401);
    expect((await mcpCall(refreshed.access_token)).status).to.equal(200);
    const replay = await fetch(`${server.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: oldRefresh, client_id: host.client!.client_id }),
    });
    expect(replay.status).to.equal(400);
    expect(((await replay.json()) as { error: string }).error).to.equal('invalid_grant');

    // Revoked with the user's tokens (as DELETE /api/users/tokens/{id}/ does): the access token is refused, the refresh token too.
    const current = (await server.records.tokens.list()).filter((token) => token.description.includes('Test Desktop Host'));
    expect(current).to.have.length(1);
    await server.records.tokens.revoke(current[0]!.id);
    const revoked = await mcpCall(refreshed.access_token);
    expect(revoked.status).to.equal(401);
    expect(revoked.headers.get('www-authenticate')).to.include('resource_metadata=');
    const afterRevocation = await fetch(`${server.origin}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshed.refresh_token!,
        client_id: host.client!.client_id,
      }),
    });
    expect(((await afterRevocation.json()) as { error: string }).error).to.equal('invalid_grant');
  });

  it('denied: the host gets access_denied and no token exists; the revocation endpoint ends a refresh token with its access token', async () => {
    const host = new MemoryHost();
    expect(await auth(host, { serverUrl: server.mcpUrl })).to.equal('REDIRECT');
    const before = (await server.records.tokens.list()).length;
    const { back } = await consent(host.authorizationUrl!, userKey, 'Deny');
    expect(back.searchParams.get('error')).to.equal('access_denied');
    expect(back.searchParams.has('code')).to.equal(false);
    expect((await server.records.tokens.list()).length).to.equal(before);

    expect(await auth(host, { serverUrl: server.mcpUrl })).to.equal('REDIRECT');
    const { back: approved } = await consent(host.authorizationUrl!, userKey, 'Allow');
    expect(await auth(host, { serverUrl: server.mcpUrl, authorizationCode: approved.searchParams.get('code')! })).to.equal('AUTHORIZED');
    const { access_token: access, refresh_token: refresh } = host.saved!;
    expect((await mcpCall(access)).status).to.equal(200);
    const revoked = await fetch(`${server.origin}/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ token: refresh!, client_id: host.client!.client_id }),
    });
    expect(revoked.status).to.equal(200);
    expect((await mcpCall(access)).status).to.equal(401);
  });

  it('refuses a token for another resource, a read-only or delegated sign-in, and a client metadata document on an internal address', async () => {
    // RFC 8707: an authorization request for another resource is refused back to the host.
    const host = new MemoryHost();
    expect(await auth(host, { serverUrl: server.mcpUrl })).to.equal('REDIRECT');
    const elsewhere = new URL(host.authorizationUrl!);
    elsewhere.searchParams.set('resource', 'https://elsewhere.example.test/mcp');
    const refused = await fetch(elsewhere, { redirect: 'manual' });
    expect(refused.status).to.equal(302);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).to.equal('invalid_target');

    // A token bound to another resource is refused here.
    const parent = (await server.records.tokens.list()).find((token) => token.username === 'engineer' && !token.parent_id)!;
    const foreign = await server.records.tokens.delegate(parent.id, {
      ttlMs: 60_000,
      description: 'another server',
      workId: 'foreign',
      firstAttempt: true,
      audience: 'https://elsewhere.example.test/mcp',
    });
    expect((await mcpCall(foreign.key)).status).to.equal(401);

    // A read-only token cannot consent; a token issued to an application cannot either.
    const readOnly = (await toolServerUser(server.records.tokens, 'reader', { writeEnabled: false })).key;
    const { page } = await browser.page();
    await page.goto(host.authorizationUrl!.href);
    await page.getByLabel('Sign in with your API token').fill(readOnly);
    await page.getByRole('button', { name: 'Allow' }).click();
    expect(await page.locator('#consent-error').innerText()).to.include('read-only');
    await page.getByLabel('Sign in with your API token').fill(foreign.key);
    await page.getByRole('button', { name: 'Allow' }).click();
    expect(await page.locator('#consent-error').innerText()).to.include('not one issued to an application');
    await page.close();

    // A client_id naming a document on loopback: this server's fetch (the outbound policy's) never reaches it.
    const document = new URL(host.authorizationUrl!);
    document.searchParams.set('client_id', 'https://127.0.0.1:1/client.json');
    const unknown = await fetch(document, { redirect: 'manual' });
    expect(unknown.status).to.equal(400);
    expect(((await unknown.json()) as { error: string }).error).to.equal('invalid_client');
  });

  it('`aiops mcp --http` with MCP_PUBLIC_URL and REDIS_URL is its own authorization server; MCP_PUBLIC_URL without Redis does not start', async () => {
    const platform = await startStubPlatform(fixture('netbox-openapi.json'));
    const port = await freePort();
    const base = {
      PLATFORM_URL_LOCAL: platform.url,
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dir(),
      HOST: '127.0.0.1',
      MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
    const served = startAiops(['mcp', '--http', String(port)], { ...base, REDIS_URL: redis.url, REDIS_KEY_PREFIX: PREFIX });
    try {
      await served.waitForLine(/"mcp server listening on http"/, 60_000);
      const refused = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.include(
        `resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
      );
      const metadata = (await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`)).json()) as Record<
        string,
        unknown
      >;
      expect(metadata).to.include({ issuer: `http://127.0.0.1:${port}/`, authorization_endpoint: `http://127.0.0.1:${port}/authorize` });
      // The same users: an API token of this Redis works as before.
      expect((await mcpCall(userKey, `http://127.0.0.1:${port}/mcp`)).status, served.lines.slice(-10).join('\n')).to.equal(200);
    } finally {
      await served.stop();
    }
    const alone = startAiops(['mcp', '--http', '0'], { ...base, REDIS_URL: '', MCP_HTTP_TOKEN: 'static-tool-token-0123456789abcdef' });
    expect(await alone.exited).to.equal(1);
    expect(alone.lines.join('\n')).to.include('MCP_PUBLIC_URL makes the tool server an OAuth authorization server');
    await platform.close();
  });
});
