import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidGrantError, InvalidTargetError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AuthenticationError, NotFoundError, PermissionDeniedError } from '../kernel/errors.js';
import type { Principal } from '../records/auth/permissions.js';
import type { DelegatedToken } from '../records/auth/token.service.js';
import { checkToolServerRights } from './caller-check.js';
import { consentPage, messagePage, sendPage, type ConsentView } from './consent-page.js';
import { isClientMetadataUrl, type ToolServerClients } from './oauth-clients.js';
import type { OAuthState } from './oauth-state.port.js';

/** How long a person has to answer the consent page. */
const CONSENT_TTL_MS = 10 * 60_000;
/** An authorization code is exchanged at once by the client that asked for it. */
const CODE_TTL_MS = 60_000;
const ACCESS_TTL_MS = 60 * 60_000;
const REFRESH_TTL_MS = 30 * 24 * 60 * 60_000;

/** The API tokens as the authorization server uses them: people sign in with theirs; access tokens are delegated from it. */
export interface OAuthTokenPort {
  authenticate(key: string): Promise<Principal>;
  revoke(id: string): Promise<void>;
  delegate(
    tokenId: string,
    options: { ttlMs: number; description: string; workId: string; firstAttempt?: boolean; audience?: string },
  ): Promise<DelegatedToken>;
}

/** An authorization request waiting for the person's answer. */
interface PendingConsent {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  scopes: string[];
}

/** What a code and then a refresh token stand for: this client acting for the person who signed in with token `parentTokenId`. */
interface Grant {
  clientId: string;
  clientName: string;
  parentTokenId: string;
  scopes: string[];
}

interface CodeGrant extends Grant {
  redirectUri: string;
  codeChallenge: string;
}

interface RefreshGrant extends Grant {
  /** The access token issued with this refresh token: revoked (with the user's tokens), it ends the refresh token too. */
  accessTokenId: string;
}

/** Codes and refresh tokens are bearer secrets: Redis knows them by hash only. */
const secretId = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const newSecret = () => randomBytes(32).toString('base64url');

/** The name a person is shown for a client: what it calls itself, else its id. */
const nameOf = (client: OAuthClientInformationFull) => (client.client_name ?? client.client_id).slice(0, 100);

/** The answer to a consent form: a page to show again (with a status), or where to send the person. */
export type ConsentOutcome = { page: string; status: number } | { redirect: string };

/**
 * The tool server as its own OAuth 2.1 authorization server (for the MCP SDK's auth router). A
 * person signs in on the consent page with an API token of this service that may use the tool
 * server, and approves the client. The client then gets that person's delegated token, bound to the
 * tool server's URL (RFC 8707) and named after the client: it is listed and revoked with the
 * person's tokens, stored only as a hash, and ends with the token it was delegated from. Codes are
 * single-use and short-lived; PKCE (S256) is checked by the SDK against the stored challenge;
 * refresh tokens are single-use (each refresh rotates both tokens) and end with their access token.
 */
export class ToolServerAuthorization implements OAuthServerProvider {
  constructor(
    readonly clientsStore: ToolServerClients,
    private readonly state: OAuthState,
    private readonly tokens: OAuthTokenPort,
    /** The tool server's URL (`…/mcp`): the resource every token is for. */
    private readonly resource: URL,
  ) {}

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.checkResource(params.resource);
    const consent = newSecret();
    const pending: PendingConsent = {
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      scopes: params.scopes ?? [],
      ...(params.state !== undefined ? { state: params.state } : {}),
    };
    await this.state.put('consent', secretId(consent), pending, CONSENT_TTL_MS);
    sendPage(res, 200, consentPage(this.view(client, pending, consent)));
  }

  /**
   * The person's answer on the consent page. A wrong token or missing rights show the page again
   * with the reason; a denial sends them back with `access_denied`; an approval with a code.
   */
  async decide({ consent, token, decision }: { consent: string; token: string; decision: string }): Promise<ConsentOutcome> {
    const pending = (await this.state.get('consent', secretId(consent))) as PendingConsent | undefined;
    const client = pending && (await this.clientsStore.getClient(pending.clientId));
    if (!pending || !client) {
      return { status: 400, page: messagePage('This sign-in request is unknown, used or expired: start again from your application.') };
    }
    const back = new URL(pending.redirectUri);
    if (pending.state !== undefined) back.searchParams.set('state', pending.state);
    if (decision !== 'approve') {
      if (!(await this.state.take('consent', secretId(consent))))
        return { status: 400, page: messagePage('This sign-in request was answered already.') };
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied the request.');
      return { redirect: back.href };
    }
    let principal: Principal;
    try {
      principal = await this.tokens.authenticate(token.trim());
      if (principal.delegated || principal.audience)
        throw new AuthenticationError('Sign in with an API token of your own, not one issued to an application.');
      checkToolServerRights(principal);
    } catch (error) {
      if (!(error instanceof AuthenticationError || error instanceof PermissionDeniedError)) throw error;
      return { status: 401, page: consentPage({ ...this.view(client, pending, consent), error: error.message }) };
    }
    if (!(await this.state.take('consent', secretId(consent))))
      return { status: 400, page: messagePage('This sign-in request was answered already.') };
    const code = newSecret();
    const grant: CodeGrant = {
      clientId: client.client_id,
      clientName: nameOf(client),
      parentTokenId: principal.tokenId,
      scopes: pending.scopes,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
    };
    await this.state.put('code', secretId(code), grant, CODE_TTL_MS);
    back.searchParams.set('code', code);
    return { redirect: back.href };
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const grant = (await this.state.get('code', secretId(code))) as CodeGrant | undefined;
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('The authorization code is unknown, used or expired.');
    return grant.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    this.checkResource(resource);
    // Taken, not read: of two exchanges of one code, one gets nothing.
    const grant = (await this.state.take('code', secretId(code))) as CodeGrant | undefined;
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('The authorization code is unknown, used or expired.');
    if (redirectUri !== undefined && redirectUri !== grant.redirectUri)
      throw new InvalidGrantError('redirect_uri differs from the authorization request.');
    return this.issue({ clientId: grant.clientId, clientName: grant.clientName, parentTokenId: grant.parentTokenId, scopes: grant.scopes });
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    _scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    this.checkResource(resource);
    const grant = (await this.state.take('refresh', secretId(refreshToken))) as RefreshGrant | undefined;
    if (!grant || grant.clientId !== client.client_id)
      throw new InvalidGrantError('The refresh token is unknown, used, revoked or expired.');
    // Rotation ends the access token issued with this refresh token. Its record is there until it is
    // revoked (expired or not): one revoked already, with the user's tokens, ends its refresh token.
    if (!(await this.ended(grant.accessTokenId))) throw new InvalidGrantError('The refresh token is revoked.');
    try {
      return await this.issue(grant);
    } catch (error) {
      if (error instanceof AuthenticationError)
        throw new InvalidGrantError('The API token this access was granted with is revoked or expired.');
      throw error;
    }
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    try {
      const principal = await this.tokens.authenticate(token);
      const clientId = principal.audience === this.resource.href ? await this.state.get('access', principal.tokenId) : undefined;
      if (typeof clientId !== 'string') throw new InvalidTokenError('The token was not issued for this server.');
      return { token, clientId, scopes: [], resource: this.resource };
    } catch (error) {
      if (error instanceof AuthenticationError) throw new InvalidTokenError(error.message);
      throw error;
    }
  }

  /** RFC 7009: a refresh token ends with its access token; an access token alone. Tokens of other clients, and unknown ones, are left as they are. */
  async revokeToken(client: OAuthClientInformationFull, { token }: OAuthTokenRevocationRequest): Promise<void> {
    const refresh = (await this.state.get('refresh', secretId(token))) as RefreshGrant | undefined;
    if (refresh) {
      if (refresh.clientId !== client.client_id) return;
      await this.state.take('refresh', secretId(token));
      await this.ended(refresh.accessTokenId);
      return;
    }
    const access = await this.verifyAccessToken(token).catch(() => undefined);
    if (access?.clientId !== client.client_id) return;
    await this.tokens.revoke((await this.tokens.authenticate(token)).tokenId).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }

  /** Revokes the access token `id`; false when it was revoked already. */
  private async ended(id: string): Promise<boolean> {
    try {
      await this.tokens.revoke(id);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  /** A new access token (the person's, delegated, bound to the tool server) and a refresh token for it. */
  private async issue(grant: Grant): Promise<OAuthTokens> {
    const access = await this.tokens.delegate(grant.parentTokenId, {
      ttlMs: ACCESS_TTL_MS,
      description: `OAuth: ${grant.clientName} (MCP client ${grant.clientId})`,
      workId: randomUUID(),
      firstAttempt: true,
      audience: this.resource.href,
    });
    const refreshToken = newSecret();
    await this.state.put('access', access.token.id, grant.clientId, ACCESS_TTL_MS);
    await this.state.put(
      'refresh',
      secretId(refreshToken),
      {
        clientId: grant.clientId,
        clientName: grant.clientName,
        parentTokenId: grant.parentTokenId,
        scopes: grant.scopes,
        accessTokenId: access.token.id,
      } satisfies RefreshGrant,
      REFRESH_TTL_MS,
    );
    const expiresIn = Math.floor((Date.parse(access.token.expires!) - Date.now()) / 1000);
    return {
      access_token: access.key,
      token_type: 'Bearer',
      expires_in: expiresIn,
      refresh_token: refreshToken,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(' ') } : {}),
    };
  }

  /** RFC 8707: a token is only ever for the tool server; a request naming another resource is refused. */
  private checkResource(resource: URL | undefined): void {
    if (resource && resource.href.replace(/\/$/, '') !== this.resource.href.replace(/\/$/, '')) {
      throw new InvalidTargetError(`This server issues tokens for ${this.resource.href} only.`);
    }
  }

  private view(client: OAuthClientInformationFull, pending: PendingConsent, consent: string): ConsentView {
    return {
      consent,
      clientName: nameOf(client),
      clientId: client.client_id,
      returnsTo: new URL(pending.redirectUri).origin,
      verified: isClientMetadataUrl(client.client_id),
      resource: this.resource.href,
    };
  }
}
