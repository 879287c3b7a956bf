import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import which from 'which';
import { StartupError } from '../errors.js';
import { packagePath } from '../package-root.js';

/** The shipped Redis configuration (append-only, noeviction, loopback). */
export const REDIS_CONF = packagePath('infra/redis/redis.conf');

export interface RedisProcess {
  port: number;
  url: string;
  /** The server's process id (setpriv, when used, becomes the server: same id). */
  pid: number | undefined;
  /** Stops the server (SIGTERM: Redis flushes the append-only file first; SIGKILL: a crash) and waits for it. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new StartupError('no port'))));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new StartupError(`redis-server exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new StartupError(`redis-server did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * Runs a private `redis-server` with the shipped configuration, its data under `dir`. Used by
 * `aiops start` when no Redis is reachable and by the test suite. Where util-linux's `setpriv` is
 * there (Linux), the kernel stops the server (SIGTERM, so it still flushes its append-only file)
 * when this process dies, even by SIGKILL: no orphaned servers after a killed run. The server has a
 * process group of its own, so a terminal's Ctrl-C or a supervisor's SIGTERM to our group reaches
 * us alone, and we stop it after everything that uses it.
 */
export async function startRedisProcess(options: {
  dir: string;
  port?: number;
  binary?: string;
  /** A configuration file of its own instead of the shipped one (a Sentinel's, which it rewrites). */
  config?: string;
  /** More settings, as command-line arguments (`--cluster-enabled yes`, `--sentinel`). */
  args?: string[];
}): Promise<RedisProcess> {
  const binary = which.sync(options.binary ?? 'redis-server', { nothrow: true });
  if (!binary)
    throw new StartupError('redis-server is not installed; install Redis (Debian: apt-get install redis-server) or set REDIS_URL');
  const port = options.port ?? (await freePort());
  const dir = path.resolve(options.dir);
  mkdirSync(dir, { recursive: true });
  const server = [binary, options.config ?? REDIS_CONF, '--port', String(port), '--dir', dir, '--daemonize', 'no', ...(options.args ?? [])];
  const setpriv = which.sync('setpriv', { nothrow: true });
  const [command, ...args] = setpriv ? [setpriv, '--pdeathsig', 'TERM', '--', ...server] : server;
  const child = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  await waitForPort(port, child, 10_000);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
