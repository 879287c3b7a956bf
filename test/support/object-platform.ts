import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformHttpError, type HttpMethod } from '../../src/platform/platform.port.js';
import type { PlatformObjects } from './platform-objects.js';

export interface ObjectPlatform {
  url: string;
  /** Every request but those for the description: method and path with its query string. */
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}

/**
 * A platform on 127.0.0.1 and a free port over PlatformObjects: its OpenAPI description at
 * /api/docs/?format=openapi, the objects' API everywhere else (JSON bodies, the platform's error
 * answers).
 */
export async function startObjectPlatform(description: unknown, objects: PlatformObjects): Promise<ObjectPlatform> {
  const served = JSON.stringify(description);
  const requests: ObjectPlatform['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://platform');
      if (req.method === 'GET' && url.pathname === '/api/docs/') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(served);
        return;
      }
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
      const params: Record<string, string[]> = {};
      for (const [name, value] of url.searchParams) (params[name] ??= []).push(value);
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const result = objects.handle({
          method: (req.method ?? 'GET') as HttpMethod,
          path: url.pathname,
          params: Object.fromEntries(Object.entries(params).map(([name, values]) => [name, values.length === 1 ? values[0] : values])),
          ...(text ? { body: JSON.parse(text) as unknown } : {}),
        });
        if (result.status === 204) res.writeHead(204).end();
        else res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.data));
      } catch (error) {
        const status = error instanceof PlatformHttpError ? error.status : 500;
        const body = error instanceof PlatformHttpError ? error.body : { detail: String(error) };
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
