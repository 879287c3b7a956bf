import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { packagePath } from '../../src/kernel/package-root.js';
import type { RunningProcess } from './processes.js';
import { until } from './until.js';

const run = promisify(execFile);

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Two consecutive free loopback ports, for the frontend's port range. They are taken below Linux's
 * ephemeral range (32768 and up): there, the outgoing connection of any process may take one
 * between this check and HAProxy's bind.
 */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await isFree(base)) && (await isFree(base + 1))) return base;
  }
}

/**
 * Writes `infra/haproxy/haproxy.cfg` into `dir` with only its addresses changed: the frontend on
 * loopback ports `front` and `front + 1`, web-a and web-b on the given loopback ports.
 */
export function renderHaproxyConfig(
  dir: string,
  ports: { front: number; webA: number; webB: number },
): { file: string; original: string; rendered: string } {
  const original = readFileSync(packagePath('infra/haproxy/haproxy.cfg'), 'utf8');
  const rendered = original
    .replace('bind *:60000-60001', `bind 127.0.0.1:${ports.front}-${ports.front + 1}`)
    .replace('web-a:5001', `127.0.0.1:${ports.webA}`)
    .replace('web-b:5002', `127.0.0.1:${ports.webB}`);
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, rendered);
  return { file, original, rendered };
}

/**
 * Writes `infra/haproxy/haproxy.prod.cfg` into `dir` runnable here: its frontends on free loopback
 * ports, a throwaway certificate (openssl) and the project's error pages where it expects them, and
 * the servers on the given loopback ports.
 */
export async function renderProductionHaproxyConfig(
  dir: string,
  ports: { http: number; https: number; webA: number; webB: number },
): Promise<string> {
  const certificate = path.join(dir, 'aiops.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-days',
    '1',
    '-keyout',
    certificate,
    '-out',
    certificate,
  ]);
  const rendered = readFileSync(packagePath('infra/haproxy/haproxy.prod.cfg'), 'utf8')
    .replaceAll('/etc/haproxy/errors/', `${packagePath('infra/haproxy/errors')}/`)
    .replaceAll('/etc/haproxy/certs/aiops.pem', certificate)
    .replace('bind *:80', `bind 127.0.0.1:${ports.http}`)
    .replace('bind *:443', `bind 127.0.0.1:${ports.https}`)
    .replace('web-a:5001', `127.0.0.1:${ports.webA}`)
    .replace('web-b:5002', `127.0.0.1:${ports.webB}`);
  const file = path.join(dir, 'haproxy.prod.cfg');
  writeFileSync(file, rendered);
  return file;
}

/**
 * Waits until `check` passes through a started HAProxy (its first health checks of the servers
 * done); on a timeout the error carries HAProxy's own last lines, which say why it did not serve.
 */
export async function untilHaproxyServes(haproxy: RunningProcess, check: () => Promise<boolean>, where: string): Promise<void> {
  try {
    await until(() => check().catch(() => false), 30_000, `HAProxy to answer at ${where}`);
  } catch (error) {
    throw new Error(`${(error as Error).message}; its output:\n${haproxy.lines.slice(-20).join('\n')}`);
  }
}
