import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One API call the stub platform received. */
export interface PlatformCall {
  method: string;
  path: string;
  authorization: string;
}

export interface PlatformStub {
  url: string;
  calls: PlatformCall[];
  close(): Promise<void>;
}

/** An external platform with one collection; it keeps the method, path and Authorization of every API call. */
export async function startPlatformStub(): Promise<PlatformStub> {
  const calls: PlatformCall[] = [];
  const document = {
    openapi: '3.0.3',
    info: { title: 'stub platform', version: '1' },
    paths: {
      '/api/dcim/devices/': {
        get: { operationId: 'dcim_devices_list', summary: 'List devices', responses: { '200': { description: 'devices' } } },
        post: {
          operationId: 'dcim_devices_create',
          summary: 'Create a device',
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } },
          responses: { '201': { description: 'created' } },
        },
      },
    },
  };
  const server = http.createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://stub');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/api/docs/') return res.end(JSON.stringify(document));
    calls.push({ method: req.method ?? '', path: url.pathname, authorization: String(req.headers.authorization ?? '') });
    if (req.method === 'POST') return res.writeHead(201).end(JSON.stringify({ id: '1', name: 'r1' }));
    res.end(JSON.stringify({ count: 0, next: null, previous: null, results: [] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
