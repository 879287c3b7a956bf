import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { buildFixtureServer } from './fixture-tools.js';

/** How the health path answers its n-th request (0-based): a status, once `after` settles if given. */
export type HealthBehaviour = (n: number) => { status: number; after?: Promise<unknown> };

export const healthy: HealthBehaviour = () => ({ status: 200 });
export const failing: HealthBehaviour = () => ({ status: 503 });
/** Answers after `delayMs`: a server with latency, for benchmarks (tests hold answers with `after`). */
export const slow =
  (delayMs: number): HealthBehaviour =>
  () => ({ status: 200, after: new Promise((resolve) => setTimeout(resolve, delayMs)) });
/** Never answers: a server slower than any time limit (closing the fixture ends the request). */
export const hanging: HealthBehaviour = () => ({ status: 200, after: new Promise(() => undefined) });
/** Cycles through `statuses`: a health path that flaps. */
export const flapping =
  (statuses: number[]): HealthBehaviour =>
  (n) => ({ status: statuses[n % statuses.length] as number });

export interface HttpFixtureOptions {
  label: string;
  /** Tool names get `<prefix>`. */
  prefix?: string;
  health?: HealthBehaviour;
  /** Answer only the older HTTP+SSE transport (Streamable HTTP POSTs get 405). */
  sseOnly?: boolean;
  /** When set, MCP requests without `Authorization: Bearer <this>` get 401. */
  requireBearer?: string;
  /** Tools listed a page at a time, never reaching the last page. */
  endlessToolPages?: boolean;
}

export interface HttpFixture {
  url: string;
  /** Headers of every request received (health and MCP), in order. */
  headers: IncomingHttpHeaders[];
  /** Tool calls received, by tool name. */
  calls: { name: string; arguments: unknown }[];
  healthRequests: number;
  /** Open TCP connections right now, and the most seen at once. */
  sockets: { open: number; peak: number };
  health: HealthBehaviour;
  close(): Promise<void>;
}

/**
 * A real MCP server (the SDK's McpServer) over Streamable HTTP at `/mcp` (stateful sessions), or
 * HTTP+SSE only, with a `/health` path whose answers a test scripts.
 */
export async function startHttpFixture(options: HttpFixtureOptions): Promise<HttpFixture> {
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const fixture: HttpFixture = {
    url: '',
    headers: [],
    calls: [],
    healthRequests: 0,
    sockets: { open: 0, peak: 0 },
    health: options.health ?? healthy,
    close: async () => undefined,
  };

  app.use((req: Request, res: Response, next: () => void) => {
    fixture.headers.push(req.headers);
    const body = req.body as { method?: string; params?: { name?: string; arguments?: unknown } } | undefined;
    if (body?.method === 'tools/call') fixture.calls.push({ name: String(body.params?.name), arguments: body.params?.arguments });
    if (options.requireBearer && req.path !== '/health' && req.headers.authorization !== `Bearer ${options.requireBearer}`) {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    next();
  });

  app.get('/health', async (_req: Request, res: Response) => {
    const { status, after } = fixture.health(fixture.healthRequests++);
    await after;
    res.status(status).json({ status: status < 300 ? 'ok' : 'down' });
  });

  const newServer = () => buildFixtureServer({ label: options.label, prefix: options.prefix, endlessToolPages: options.endlessToolPages });

  if (options.sseOnly) {
    app.post('/mcp', (_req: Request, res: Response) => {
      res
        .status(405)
        .set('Allow', 'GET')
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    });
    app.get('/mcp', async (_req: Request, res: Response) => {
      const transport = new SSEServerTransport('/messages', res);
      sseSessions.set(transport.sessionId, transport);
      res.on('close', () => sseSessions.delete(transport.sessionId));
      await newServer().connect(transport);
    });
    app.post('/messages', async (req: Request, res: Response) => {
      const transport = sseSessions.get(typeof req.query.sessionId === 'string' ? req.query.sessionId : '');
      if (!transport) return void res.status(404).end();
      await transport.handlePostMessage(req, res, req.body);
    });
  } else {
    app.all('/mcp', async (req: Request, res: Response) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (typeof id === 'string')
          return void res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport!),
        });
        const created = transport;
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await newServer().connect(created);
      }
      await transport.handleRequest(req, res, req.body);
    });
  }

  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    fixture.sockets.open = open.size;
    fixture.sockets.peak = Math.max(fixture.sockets.peak, open.size);
    socket.on('close', () => {
      open.delete(socket);
      fixture.sockets.open = open.size;
    });
  });
  fixture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fixture.close = async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => undefined);
    for (const transport of sseSessions.values()) await transport.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fixture;
}
