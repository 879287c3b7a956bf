import express, { type Request, type Response, type Router } from 'express';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { sendPage } from './consent-page.js';
import type { ToolServerAuthorization } from './oauth-provider.js';

export interface ToolServerOAuth {
  provider: ToolServerAuthorization;
  /** The tool server's address as hosts reach it (MCP_PUBLIC_URL): the issuer, and the base of every endpoint. */
  issuer: URL;
  /** `<issuer>/mcp`: the protected resource, the one audience of the tokens. */
  resource: URL;
}

/** Where a host finds how to sign in (RFC 9728), named in the `WWW-Authenticate` of every 401. */
export function resourceMetadataUrl({ resource }: ToolServerOAuth): string {
  return getOAuthProtectedResourceMetadataUrl(resource);
}

/**
 * The authorization server's endpoints, by the MCP SDK: metadata (RFC 8414 and RFC 9728),
 * `/authorize` (its consent page), `/token`, `/register` (RFC 7591) and `/revoke`; the metadata also
 * says client ID metadata documents are accepted. `POST /consent` takes the consent page's answer.
 */
export function authorizationServerRoutes(oauth: ToolServerOAuth): Router {
  const { provider, issuer, resource } = oauth;
  const options = { provider, issuerUrl: issuer, resourceServerUrl: resource, resourceName: 'aiops tool server' };
  const router = express.Router();
  // The SDK's metadata lacks the client ID metadata documents flag (2025-11-25); served first, this one answers.
  router.use(
    '/.well-known/oauth-authorization-server',
    metadataHandler({ ...createOAuthMetadata(options), client_id_metadata_document_supported: true }),
  );
  router.use(mcpAuthRouter(options));
  router.post('/consent', express.urlencoded({ extended: false, limit: '16kb' }), async (req: Request, res: Response) => {
    const field = (name: string) => {
      const value: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
      return typeof value === 'string' ? value : '';
    };
    const outcome = await provider.decide({ consent: field('consent'), token: field('token'), decision: field('decision') });
    if ('redirect' in outcome) res.setHeader('Cache-Control', 'no-store').redirect(302, outcome.redirect);
    else sendPage(res, outcome.status, outcome.page);
  });
  return router;
}
