import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, localhostHostValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { noSniff } from '../api/middleware/no-sniff.js';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AuthenticationError, PermissionDeniedError, ValidationError } from '../kernel/errors.js';
import { refuseDeepJson } from '../kernel/security/json-depth.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { Caller, CallerCheck, CallerDelegation } from './caller-check.js';
import { authorizationServerRoutes, resourceMetadataUrl, type ToolServerOAuth } from './oauth-routes.js';
import { createServer } from './server.js';
import { listenFailure } from '../kernel/listen-failure.js';
import type { ToolDeps } from './tools/index.js';
import type { HostSession, HostState } from './host-state.port.js';
import { hostAnswersOf, initializeOf, isToolCall, relayHostRequests } from './host-relay.js';
import type { HostConnection, WriteConfirmation } from './write-confirmation.js';

export interface McpHttpServer {
  port: number;
  close(): Promise<void>;
}

const jsonRpcError = (res: Response, status: number, code: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];
/** JSON-RPC bodies are small; tool arguments included. */
const BODY_LIMIT = '1mb';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Host names the server answers to (DNS-rebinding protection); loopback names by default on a loopback bind. */
  allowedHosts?: string[];
  /** Decides who may call /mcp. */
  callers: CallerCheck;
  /** The platform is this service's own API: a user's tool calls act with that user's rights, by a key delegated for the call. */
  delegate?: CallerDelegation;
  /** MCP_ALLOWED_ORIGINS: origins of browser pages that may call, besides the server's own. */
  allowedOrigins?: readonly string[];
  /** OTEL_TRUSTED_PROPAGATION: a call's `_meta` trace context is its span's parent, not only a link. */
  trustedPropagation?: boolean;
  /** The tool server as OAuth authorization server for hosts (MCP_PUBLIC_URL and the service's Redis). */
  oauth?: ToolServerOAuth;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (the sign-in endpoints' rate limits count by it). */
  trustProxy?: string[];
  /** How writes are confirmed, and the state (sessions, questions put to hosts, used tokens) every instance shares. */
  writes: { gate: WriteConfirmation; state: HostState; ttlMs: number };
}

/** How long what a host declared at initialize is kept (after that its calls get confirm tokens instead of questions). */
const SESSION_TTL_MS = 24 * 3_600_000;

/** The caller as write confirmations see it: confirm tokens, sessions and answers are bound to `caller`. */
function hostCaller(caller: Caller | undefined): Omit<HostConnection, 'declared'> {
  if (caller?.kind === 'user') return { caller: `user:${caller.username}`, user: caller.username, superuser: caller.superuser };
  return { caller: 'static', user: 'MCP_HTTP_TOKEN', superuser: false };
}

/**
 * The Host header must name this server: a browser page whose name was rebound to this address
 * cannot reach it. Loopback binds accept loopback names; other binds the configured names.
 */
function dnsRebindingProtection(host: string, allowedHosts: string[] | undefined, logger: Logger): RequestHandler {
  if (allowedHosts) return hostHeaderValidation(allowedHosts);
  if (LOOPBACK_HOSTS.includes(host)) return localhostHostValidation();
  logger.warn('aiops mcp --http answers any Host header: set MCP_ALLOWED_HOSTS to the names clients use', { host });
  return (_req, _res, next) => next();
}

/**
 * A request that carries an `Origin` (a browser page made it) must come from this server's own
 * origin or one of `allowed`; any other is refused with 403 before anything else (the spec's MUST:
 * a page elsewhere must not drive a local server). Callers that are not browsers send no Origin.
 */
function originValidation(allowed: readonly string[]): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined || allowed.includes(origin) || sameOrigin(origin, req.get('host'))) return next();
    jsonRpcError(res, 403, -32000, 'Forbidden: requests from this Origin are not allowed (MCP_ALLOWED_ORIGINS lists the allowed ones)');
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && URL.canParse(origin) && new URL(origin).host === host.toLowerCase();
}

/**
 * Whether the answer goes as an SSE stream: a request that asked for progress (a `progressToken`)
 * from a client that accepts `text/event-stream` can hear its notifications before its result.
 * Anything else is one JSON body, simpler for every client and proxy.
 */
const streamsProgress = (req: Request): boolean =>
  Boolean(req.accepts('text/event-stream')) &&
  typeof req.body === 'object' &&
  req.body !== null &&
  (req.body as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken !== undefined;

/**
 * Every /mcp request is authenticated before its body is read (the caller is kept in `callerOf`);
 * refusals are JSON-RPC errors. A 401 names the protected resource metadata when hosts can sign in by OAuth.
 */
function authenticated(callers: CallerCheck, callerOf: WeakMap<Request, Caller>, logger: Logger, oauth?: ToolServerOAuth): RequestHandler {
  const challenge = `Bearer realm="aiops-mcp"${oauth ? `, resource_metadata="${resourceMetadataUrl(oauth)}"` : ''}`;
  return (req: Request, res: Response, next: NextFunction) => {
    callers.verify(req.get('authorization')).then(
      (caller) => {
        callerOf.set(req, caller);
        next();
      },
      (error: unknown) => {
        if (error instanceof PermissionDeniedError) return jsonRpcError(res, 403, -32001, error.message);
        if (error instanceof AuthenticationError) {
          res.setHeader('WWW-Authenticate', challenge);
          return jsonRpcError(res, 401, -32001, error.message);
        }
        logger.error('mcp http caller check failed', { error: error instanceof Error ? error.message : String(error) });
        jsonRpcError(res, 503, -32603, 'The caller could not be checked right now; retry shortly.');
      },
    );
  };
}

/** Parser and unexpected errors as JSON-RPC errors: never Express's HTML page with a stack trace. */
function jsonErrors(logger: Logger): ErrorRequestHandler {
  return (error: Error & { type?: string; status?: number }, _req, res, next) => {
    if (res.headersSent) return next(error);
    if (error.type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    if (error instanceof ValidationError) return jsonRpcError(res, 400, -32600, `Invalid request: ${error.message}`);
    if (error.type === 'entity.too.large') return jsonRpcError(res, 413, -32600, `Request body is larger than ${BODY_LIMIT}`);
    if (error.status && error.status >= 400 && error.status < 500) return jsonRpcError(res, error.status, -32600, 'Invalid request');
    logger.error('mcp http request failed', { error: error.message });
    jsonRpcError(res, 500, -32603, 'Internal server error');
  };
}

/**
 * The host session of a request: a new one for an initialize (its id goes back in Mcp-Session-Id),
 * else the one its Mcp-Session-Id names when the same caller opened it. A request without one is
 * served all the same, as from a host that cannot be asked.
 */
async function hostSession(req: Request, res: Response, caller: string, state: HostState): Promise<{ id?: string; session?: HostSession }> {
  const declared = initializeOf(req.body);
  if (declared) {
    const id = randomUUID();
    const session = { caller, ...declared };
    await state.openSession(id, session, SESSION_TTL_MS);
    res.setHeader('mcp-session-id', id);
    return { id, session };
  }
  const id = req.get('mcp-session-id');
  const session = id ? await state.session(id, caller) : undefined;
  return session ? { id, session } : {};
}

/**
 * Streamable HTTP at `/mcp`, stateless: each POST gets its own server and transport, closed with
 * the response, so any instance behind a round-robin balancer can answer any request (what a host
 * declared at initialize, and questions put to its user mid-call, live in `writes.state`; see
 * host-relay.ts). GET and
 * DELETE on /mcp answer 405 (no sessions, no server-initiated stream). `GET /health` reports the
 * endpoint index state; `GET /metrics` the search latencies (Prometheus text). /mcp answers only
 * authenticated callers (see caller-check.ts); every answer, errors included, is JSON, but a call
 * that asked for progress, or one of a host that can be asked, is answered as an SSE stream (its
 * notifications and questions, then its result). With `oauth`, the server is also its own OAuth
 * authorization server (oauth-routes.ts).
 */
export async function serveHttp(
  deps: ToolDeps,
  version: string,
  {
    host,
    port,
    allowedHosts,
    callers,
    delegate,
    allowedOrigins = [],
    trustedPropagation = false,
    oauth,
    trustProxy = [],
    writes,
  }: McpHttpOptions,
): Promise<McpHttpServer> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy.length > 0 ? trustProxy : false);
  app.use(noSniff);
  app.use(dnsRebindingProtection(host, allowedHosts, deps.logger));

  app.get('/health', (_req: Request, res: Response) => {
    const index = deps.index.status();
    res.status(index.status === 'failed' ? 503 : 200).json({ status: index.status === 'failed' ? 'unhealthy' : 'ok', index });
  });

  const { metrics } = deps;
  if (metrics) {
    app.get('/metrics', async (_req: Request, res: Response) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }

  if (oauth) app.use(authorizationServerRoutes(oauth));

  const callerOf = new WeakMap<Request, Caller>();
  // The transport's MUST. The sign-in pages are left out: their consent form is posted with `Origin: null`
  // (the page sends no referrer), and it carries the person's own token, no ambient credential.
  app.use('/mcp', originValidation(allowedOrigins));
  app.use('/mcp', authenticated(callers, callerOf, deps.logger, oauth), express.json({ limit: BODY_LIMIT, verify: refuseDeepJson }));
  app.post('/mcp', async (req: Request, res: Response) => {
    // Only a superuser's API token may name a secret or an internal host for a repository: the static token stands for no user.
    const caller = callerOf.get(req);
    const who = hostCaller(caller);
    const closed = new AbortController();
    let delegated: Awaited<ReturnType<CallerDelegation>> | undefined;
    res.on('close', () => {
      closed.abort();
      delegated?.revoke().catch((error: unknown) =>
        deps.logger.warn('a tool call key could not be ended; its expiry will', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    });
    try {
      // A host answering a question one of its calls asked: to that call, on whichever instance holds it.
      const answers = hostAnswersOf(req.body);
      if (answers) {
        const delivered = await Promise.all(answers.map((answer) => writes.state.deliverAnswer(answer, who.caller)));
        if (delivered.every(Boolean)) return void res.status(202).end();
        return jsonRpcError(
          res,
          400,
          -32600,
          'No call waits for this answer: it was answered already, timed out, or asked of another caller',
        );
      }
      const { id: sessionId, session } = await hostSession(req, res, who.caller, writes.state);
      const host: HostConnection = {
        ...who,
        declared: () => ({ client: session?.client ?? null, elicitation: session?.elicitation ?? false, session: sessionId ?? null }),
      };
      try {
        // On this service's own API a user's call acts with that user's rights, by a key that lives for the call.
        delegated = delegate && caller?.kind === 'user' && isToolCall(req.body) ? await delegate(caller) : undefined;
      } catch (error) {
        deps.logger.warn('mcp http call could not act for its caller', { error: error instanceof Error ? error.message : String(error) });
        return jsonRpcError(res, 401, -32001, 'Your token could not be delegated for this call (revoked or expired?).');
      }
      // The caller left while the key was minted: the close above came before there was a key to end.
      if (res.destroyed) return void delegated?.revoke();
      const { server, cleanup } = createServer(
        {
          ...deps,
          writer: { superuser: caller?.kind === 'user' && caller.superuser },
          writes: { gate: writes.gate, host },
          ...(delegated ? { client: deps.client.withToken(delegated.key), secrets: [...deps.secrets, delegated.key] } : {}),
        },
        version,
        trustedPropagation,
      );
      // A call of a host that can be asked is answered as a stream: a question may go out on it first.
      const mayAsk = session?.elicitation === true && isToolCall(req.body);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !mayAsk && !streamsProgress(req),
      });
      if (mayAsk) relayHostRequests(transport, writes.state, who.caller, writes.ttlMs, closed.signal);
      res.on('close', () => {
        void transport.close();
        void cleanup();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      deps.logger.error('mcp http request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    }
  });
  const notAllowed = (_req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless, POST JSON-RPC requests to /mcp');
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  app.use((_req: Request, res: Response) => jsonRpcError(res, 404, -32601, 'Not found: the tool server answers POST /mcp'));
  app.use(jsonErrors(deps.logger));

  const listener = await new Promise<Server>((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once('error', (error) => reject(listenFailure(error, 'the tool server', host, port)));
  });
  const actual = (listener.address() as AddressInfo).port;
  deps.logger.info('mcp server listening on http', { host, port: actual, path: '/mcp' });
  return {
    port: actual,
    close: () =>
      new Promise<void>((resolve, reject) => {
        listener.closeAllConnections();
        listener.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
