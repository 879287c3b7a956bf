import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/openapi');

/** A fixture file's parsed JSON (the Nautobot 1.3.7 and NetBox 4.2.2 descriptions, the query set). */
export function fixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
}

export function fixturePath(name: string): string {
  return path.join(FIXTURES, name);
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface StubPlatform {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the served description (for re-index tests). */
  setDescription(description: unknown): void;
  /** Sets the answer for `METHOD /path` (path without query string). */
  answer(method: string, path: string, status: number, body: unknown): void;
  close(): Promise<void>;
}

/**
 * A platform on 127.0.0.1 and a free port: serves a description at /api/docs/?format=openapi and
 * canned answers elsewhere (404 with a Nautobot-style body when none is set). It records every
 * request, headers included, so tests can check where the token went.
 */
export async function startStubPlatform(description: unknown): Promise<StubPlatform> {
  let served = JSON.stringify(description);
  const answers = new Map<string, { status: number; body: unknown }>();
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const pathname = url.split('?')[0]!;
      if (req.method === 'GET' && pathname === '/api/docs/') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(served);
        return;
      }
      const answer = answers.get(`${req.method} ${pathname}`) ?? { status: 404, body: { detail: 'Not found.' } };
      if (answer.status === 204) res.writeHead(204).end();
      else res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setDescription(next) {
      served = JSON.stringify(next);
    },
    answer(method, pathname, status, body) {
      answers.set(`${method} ${pathname}`, { status, body });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
