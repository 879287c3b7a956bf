import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { createServer } from './server.js';
import type { ToolDeps } from './tools/index.js';

export interface McpHttpServer {
  port: number;
  close(): Promise<void>;
}

const jsonRpcError = (res: Response, status: number, code: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * Streamable HTTP at `/mcp`, stateless: each POST gets its own server and transport, closed with
 * the response, so any instance behind a round-robin balancer can answer any request. GET and
 * DELETE on /mcp answer 405 (no sessions, no server-initiated stream). `GET /health` reports the
 * endpoint index state; `GET /metrics` the search latencies (Prometheus text).
 */
export async function serveHttp(deps: ToolDeps, version: string, { host, port, allowedHosts }: { host: string; port: number; allowedHosts?: string[] }): Promise<McpHttpServer> {
  const app = createMcpExpressApp({ host, ...(allowedHosts ? { allowedHosts } : {}) });

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

  app.post('/mcp', async (req: Request, res: Response) => {
    const { server, cleanup } = createServer(deps, version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void cleanup();
    });
    try {
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

  const listener = await new Promise<Server>((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once('error', reject);
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
