import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** The header a test sends to the authorization endpoint to say who signs in (the server approves at once). */
export const TEST_USER_HEADER = 'x-test-user';

interface Grant {
  subject: string;
  clientId: string;
  resource?: string;
}

export interface OAuthFixtureOptions {
  /** The protected resource metadata names this authorization server instead of its own (a refused host). */
  authorizationServer?: string;
  /** Scopes the server's challenge asks for. */
  scopes?: string[];
}

export interface OAuthFixture {
  /** The server's base URL; MCP at `/mcp`. */
  url: string;
  /** Each tool call: the subject of the token it came with, and that token. */
  calls: { subject: string; token: string }[];
  /** Every access token issued, by subject. */
  issued: Map<string, string[]>;
  /** Refresh grants answered. */
  refreshes: number;
  /** The clients registered with the authorization server (dynamic registration). */
  clients: OAuthClientInformationFull[];
  /** The authorization requests received (their resource and scopes). */
  authorizations: AuthorizationParams[];
  /** Every access token stops working (refresh tokens still do). */
  expireAccessTokens(): void;
  /** Every token stops working, refresh tokens included (the user must sign in again). */
  revokeAll(): void;
  close(): Promise<void>;
}

/**
 * An OAuth-protected MCP server on loopback, built from the SDK's server-side auth: its own
 * authorization server (`mcpAuthRouter`, dynamic registration, PKCE checked by the SDK) that
 * approves whoever the test names in TEST_USER_HEADER, and `/mcp` behind `requireBearerAuth`,
 * with a `whoami` tool answering the subject of the token it was called with.
 */
export async function startOAuthFixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const access = new Map<string, Grant>();
  const refresh = new Map<string, Grant>();
  const fixture: OAuthFixture = {
    url: '',
    calls: [],
    issued: new Map(),
    refreshes: 0,
    clients: [],
    authorizations: [],
    expireAccessTokens: () => access.clear(),
    revokeAll: () => {
      access.clear();
      refresh.clear();
    },
    close: async () => undefined,
  };
  const issue = (grant: Grant): OAuthTokens => {
    const token = randomBytes(24).toString('base64url');
    const refreshToken = randomBytes(24).toString('base64url');
    access.set(token, grant);
    refresh.set(refreshToken, grant);
    fixture.issued.set(grant.subject, [...(fixture.issued.get(grant.subject) ?? []), token]);
    return { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: refreshToken };
  };
  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (client) => {
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      fixture.clients.push(full);
      return full;
    },
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    authorize: async (client, params, res: Response) => {
      fixture.authorizations.push(params);
      const subject = res.req.headers[TEST_USER_HEADER];
      if (typeof subject !== 'string') {
        res.status(403).send('no user signed in');
        return;
      }
      const code = randomBytes(16).toString('base64url');
      codes.set(code, {
        subject,
        clientId: client.client_id,
        challenge: params.codeChallenge,
        redirectUri: params.redirectUri,
        ...(params.resource ? { resource: params.resource.href } : {}),
      });
      const back = new URL(params.redirectUri);
      back.searchParams.set('code', code);
      if (params.state) back.searchParams.set('state', params.state);
      res.redirect(302, back.href);
    },
    challengeForAuthorizationCode: async (_client, code) => {
      const grant = codes.get(code);
      if (!grant) throw new InvalidGrantError('unknown code');
      return grant.challenge;
    },
    exchangeAuthorizationCode: async (client, code) => {
      const grant = codes.get(code);
      codes.delete(code);
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown code');
      return issue({ subject: grant.subject, clientId: grant.clientId, ...(grant.resource ? { resource: grant.resource } : {}) });
    },
    exchangeRefreshToken: async (client, refreshToken) => {
      const grant = refresh.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('refresh token revoked');
      refresh.delete(refreshToken);
      fixture.refreshes++;
      return issue(grant);
    },
    verifyAccessToken: async (token): Promise<AuthInfo> => {
      const grant = access.get(token);
      if (!grant) throw new InvalidTokenError('token expired or revoked');
      return {
        token,
        clientId: grant.clientId,
        scopes: options.scopes ?? [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        extra: { subject: grant.subject },
      };
    },
  };

  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const mcpUrl = new URL('/mcp', base);
  fixture.url = base.href.replace(/\/$/, '');
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  if (options.authorizationServer) {
    const pointed = options.authorizationServer;
    app.get(new URL(metadataUrl).pathname, (_req, res) => {
      res.json({ resource: mcpUrl.href, authorization_servers: [pointed] });
    });
  }
  const noLimit = { rateLimit: false as const };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: base,
      resourceServerUrl: mcpUrl,
      ...(options.scopes ? { scopesSupported: options.scopes } : {}),
      authorizationOptions: noLimit,
      clientRegistrationOptions: noLimit,
      tokenOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: metadataUrl,
    ...(options.scopes ? { requiredScopes: options.scopes } : {}),
  });
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.all('/mcp', bearer, async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const opened: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomBytes(8).toString('hex'),
        onsessioninitialized: (sessionId): void => {
          sessions.set(sessionId, opened);
        },
      });
      const mcp = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Who the token belongs to', annotations: { readOnlyHint: true } }, (extra) => {
        const subject = String(extra.authInfo?.extra?.subject);
        fixture.calls.push({ subject, token: extra.authInfo?.token ?? '' });
        return { content: [{ type: 'text', text: `you are ${subject}` }] };
      });
      await mcp.connect(opened);
      transport = opened;
    }
    await transport.handleRequest(req, res, req.body);
  });
  fixture.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fixture;
}
