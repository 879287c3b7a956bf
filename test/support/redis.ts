import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRedisConnection, type RedisServerClient } from '../../src/kernel/redis/redis-client.js';
import { startRedisProcess, type RedisProcess } from '../../src/kernel/redis/redis-process.js';

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** A plain client for assertions and cleanup. */
  client: RedisServerClient;
  /** Stops the server, keeping its data directory (for restart tests). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

/** A private redis-server on a free loopback port, with the shipped configuration (AOF on). */
export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-redis-'));
  let server: RedisProcess | undefined = await startRedisProcess({ dir });
  const port = server.port;
  const client = openRedisConnection(server.url, { maxRetriesPerRequest: null, lazyConnect: false });
  client.on('error', () => {});
  return {
    url: server.url,
    port,
    dir,
    client,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async restart() {
      server = await startRedisProcess({ dir, port });
    },
    async destroy() {
      client.disconnect();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
