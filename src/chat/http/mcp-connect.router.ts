import { Router, type RequestHandler, type Response } from 'express';
import { ConflictError, DomainError, NotFoundError, UpstreamError } from '../../kernel/errors.js';
import type { McpConnectionsService } from '../../mcp-client/mcp-connections.service.js';
import { perUserOAuth } from '../../records/mcp-server.js';
import type { ResponseBody, Schemas } from '../../api/openapi-types.js';
import { RECORD_KINDS } from '../../records/record-kinds.js';

const MCP_SERVERS_PATH = RECORD_KINDS.mcpServers.path;
/** Where authorization servers send users back; PUBLIC_URL + this is the OAuth client's redirect URI. */
export const MCP_OAUTH_CALLBACK_PATH = '/api/plugins/ai-ops/mcp-oauth/callback/';
/** Where the service publishes its OAuth client ID metadata document; PUBLIC_URL + this is its client_id. */
export const MCP_OAUTH_CLIENT_METADATA_PATH = '/api/plugins/ai-ops/mcp-oauth/client-metadata/';

/** A small page for the browser the user signed in with: no script, nothing but what happened. */
function page(res: Response, status: number, message: string): void {
  const text = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .status(status)
    .set('content-security-policy', "default-src 'none'")
    .type('html')
    .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>MCP server sign-in</title><p>${text}</p></html>`);
}

/**
 * Each user's own account on per-user OAuth MCP servers: connect (answers where to sign in),
 * disconnect, the callback that finishes a sign-in for the user its state names (no session:
 * the state says who), and `connected` on the MCP servers list and record for the caller.
 * Without PLATFORM_TOKEN_KEY and PUBLIC_URL (no service) connect answers 409.
 */
export function mcpConnectRouter(connections: McpConnectionsService | undefined): Router {
  const router = Router();
  const service = (): McpConnectionsService => {
    if (!connections) throw new ConflictError('OAuth MCP servers are not enabled: the operator sets PLATFORM_TOKEN_KEY and PUBLIC_URL');
    return connections;
  };

  router.post(`${MCP_SERVERS_PATH}:id/connect/`, async (req, res) => {
    const url = await service().connect(req.params.id, res.locals.principal!.userId);
    res.json({ authorization_url: url } satisfies ResponseBody<'mcp_servers_connect', 200>);
  });

  router.delete(`${MCP_SERVERS_PATH}:id/connect/`, async (req, res) => {
    await service().disconnect(req.params.id, res.locals.principal!.userId);
    res.status(204).end();
  });

  router.get(MCP_OAUTH_CALLBACK_PATH, async (req, res) => {
    const { state, code, error } = req.query as Record<string, string | undefined>;
    if (!connections) return page(res, 400, 'OAuth MCP servers are not enabled on this service.');
    if (error || !code) {
      // The state is spent either way: a refused sign-in is not finished later.
      await connections.finish(state ?? '', '').catch(() => undefined);
      return page(res, 400, `The sign-in was not completed${error ? ` (${error.slice(0, 100)})` : ''}. Connect again from the chat page.`);
    }
    try {
      const { server } = await connections.finish(state ?? '', code);
      page(res, 200, `Your account is connected to ${server}. You may close this page and ask your question again.`);
    } catch (failure) {
      if (!(failure instanceof DomainError)) throw failure;
      page(res, failure instanceof UpstreamError ? 502 : 400, failure.message);
    }
  });

  // Authorization servers fetch it without any credential; it changes only with the service's settings.
  router.get(MCP_OAUTH_CLIENT_METADATA_PATH, (_req, res) => {
    const document = connections?.clientMetadata;
    if (!document) throw new NotFoundError('This service publishes no client metadata document: its PUBLIC_URL is not https.');
    res.set('cache-control', 'public, max-age=3600').json(document satisfies ResponseBody<'mcp_oauth_client_metadata', 200>);
  });

  // The list and a record say, for the caller, whether their account is connected to each per-user OAuth server.
  const withConnected: RequestHandler = (_req, res, next) => {
    if (!connections) return next();
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode !== 200) return json(body);
      type Shown = Schemas['MCPServer'] & { connected?: boolean };
      const shown = (body as { results?: Shown[] }).results ?? [body as Shown];
      void connections
        // A record shown carries its own API URL as `url`; the server's address is `server_url`.
        .connected(
          shown.filter(perUserOAuth).map((server) => ({ id: server.id, url: server.server_url, mcp_endpoint: server.mcp_endpoint })),
          res.locals.principal!.userId,
        )
        .then((connected) => {
          for (const server of shown) if (perUserOAuth(server)) server.connected = connected.has(server.id);
          json(body);
        })
        .catch(next);
      return res;
    };
    next();
  };
  router.get(MCP_SERVERS_PATH, withConnected);
  router.get(`${MCP_SERVERS_PATH}:id/`, withConnected);
  return router;
}
