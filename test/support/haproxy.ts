import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { packagePath } from '../../shared/package-root.js';

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Two consecutive free loopback ports, for the frontend's port range. */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(base)) && (await isFree(base + 1))) return base;
  }
}

/**
 * Writes `infra/haproxy/haproxy.cfg` into `dir` with only its addresses changed: the frontend on
 * loopback ports `front` and `front + 1`, web-a and web-b on the given loopback ports.
 */
export function renderHaproxyConfig(dir: string, ports: { front: number; webA: number; webB: number }): { file: string; original: string; rendered: string } {
  const original = readFileSync(packagePath('infra/haproxy/haproxy.cfg'), 'utf8');
  const rendered = original
    .replace('bind *:60000-60001', `bind 127.0.0.1:${ports.front}-${ports.front + 1}`)
    .replace('web-a:5001', `127.0.0.1:${ports.webA}`)
    .replace('web-b:5002', `127.0.0.1:${ports.webB}`);
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, rendered);
  return { file, original, rendered };
}
