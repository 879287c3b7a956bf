import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openRedisConnection, type RedisClient, type RedisServerClient } from '../../src/kernel/redis/redis-client.js';
import { freePort, REDIS_CONF, startRedisProcess, type RedisProcess } from '../../src/kernel/redis/redis-process.js';
import { until } from './until.js';

const run = promisify(execFile);

/** Redis of several servers on loopback, started for one test file: the settings that reach it and a client for assertions. */
export interface TestTopology {
  /** REDIS_SENTINELS or REDIS_CLUSTER_NODES (and the rest) for loadConfig. */
  env: Record<string, string>;
  /** A client that follows the topology (waits for Redis rather than fail), for setup and assertions. */
  client: RedisClient;
  /** Stops every server and deletes their data. */
  destroy(): Promise<void>;
}

/**
 * A server of its own folder under `root`, with its own copy of the shipped configuration (a
 * Sentinel's CONFIG REWRITE of a replica writes into it); every server started is listed in
 * `started` so destroy stops them all.
 */
async function startServer(
  root: string,
  name: string,
  started: RedisProcess[],
  options: { config?: string; args?: string[]; port?: number } = {},
): Promise<RedisProcess> {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  const config = options.config ?? path.join(dir, 'redis.conf');
  if (!options.config) copyFileSync(REDIS_CONF, config);
  const server = await startRedisProcess({ dir, ...options, config });
  started.push(server);
  return server;
}

async function stopAll(started: RedisProcess[], root: string): Promise<void> {
  await Promise.all(started.map((server) => server.stop()));
  rmSync(root, { recursive: true, force: true });
}

function server(port: number): RedisServerClient {
  const client = openRedisConnection(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, lazyConnect: false });
  client.on('error', () => {});
  return client;
}

/** INFO replication of one server, as fields. */
async function replication(port: number): Promise<Record<string, string>> {
  const client = server(port);
  try {
    const info = await client.info('replication');
    return Object.fromEntries(
      info
        .split('\r\n')
        .filter((line) => line.includes(':'))
        .map((line) => line.split(':', 2) as [string, string]),
    );
  } catch {
    return {};
  } finally {
    client.disconnect();
  }
}

/**
 * A Redis Cluster of `masters` primaries, each with one replica, made as an operator makes one:
 * `redis-server --cluster-enabled yes` per node, then `redis-cli --cluster create`. Resolves once
 * every slot is served and every primary has its replica in sync.
 */
export async function startTestCluster(masters = 3): Promise<TestTopology & { ports: number[] }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'aiops-cluster-'));
  const started: RedisProcess[] = [];
  try {
    const nodes: RedisProcess[] = [];
    for (let index = 0; index < masters * 2; index++) {
      // The cluster bus gets a free port of its own (by default the data port + 10000, which may be taken).
      const port = await freePort();
      let bus = await freePort();
      while (bus === port) bus = await freePort();
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
        '--cluster-port',
        String(bus),
      ];
      nodes.push(await startServer(root, `node${index}`, started, { args, port }));
    }
    const ports = nodes.map((node) => node.port);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 30_000 },
    );
    await until(
      async () =>
        (
          await Promise.all(
            ports.map(async (port) => {
              const client = server(port);
              try {
                return /cluster_state:ok/.test(await client.cluster('INFO'));
              } catch {
                return false;
              } finally {
                client.disconnect();
              }
            }),
          )
        ).every(Boolean),
      30_000,
      'the cluster to serve every slot',
      200,
    );
    await until(
      async () => {
        const roles = await Promise.all(ports.map(replication));
        const primaries = roles.filter((role) => role.role === 'master');
        return (
          primaries.length === masters &&
          primaries.every((role) => Number(role.connected_slaves) >= 1) &&
          roles.filter((role) => role.master_link_status === 'up').length === masters
        );
      },
      30_000,
      'every primary to have its replica in sync',
      200,
    );
    const env = { REDIS_CLUSTER_NODES: ports.map((port) => `127.0.0.1:${port}`).join(',') };
    const client = openRedisConnection(
      { kind: 'cluster', nodes: ports.map((port) => ({ host: '127.0.0.1', port })) },
      { maxRetriesPerRequest: null },
    );
    client.on('error', () => {});
    return {
      env,
      ports,
      client,
      async destroy() {
        client.disconnect();
        await stopAll(started, root);
      },
    };
  } catch (error) {
    await stopAll(started, root);
    throw error;
  }
}

export const SENTINEL_NAME = 'aiops-test';

/** A primary with one replica watched by three Sentinels (quorum 2), and the ways to fail it over. */
export interface TestSentinel extends TestTopology {
  /** The data port of the primary the Sentinels name now. */
  primaryPort(): Promise<number>;
  /** SENTINEL FAILOVER: the replica is promoted, the old primary made its replica. */
  failover(): Promise<void>;
  /** Kills the primary outright (SIGKILL), then once the Sentinels have promoted the replica starts it again on its port and data, to come back as a replica. */
  crashPrimary(): Promise<void>;
  /** Resolves once the Sentinels name a primary whose replica is in sync (what WAIT 1 needs). */
  settled(): Promise<void>;
}

export async function startTestSentinel(): Promise<TestSentinel> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'aiops-sentinel-'));
  const started: RedisProcess[] = [];
  try {
    const data = [await startServer(root, 'data0', started)];
    data.push(await startServer(root, 'data1', started, { args: ['--replicaof', '127.0.0.1', String(data[0]!.port)] }));
    await until(async () => (await replication(data[1]!.port)).master_link_status === 'up', 20_000, 'the replica to sync', 100);
    const sentinelPorts: number[] = [];
    for (let index = 0; index < 3; index++) {
      const port = await freePort();
      const config = path.join(root, `sentinel${index}.conf`);
      writeFileSync(
        config,
        [
          'bind 127.0.0.1',
          `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${data[0]!.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
          '',
        ].join('\n'),
      );
      await startServer(root, `sentinel${index}`, started, { config, port, args: ['--sentinel'] });
      sentinelPorts.push(port);
    }
    const sentinel = (port: number) => server(port);
    const ask = async <T>(port: number, ...args: string[]): Promise<T | undefined> => {
      const client = sentinel(port);
      try {
        return (await client.call('SENTINEL', ...args)) as T;
      } catch {
        return undefined;
      } finally {
        client.disconnect();
      }
    };
    const primaryPort = async () => {
      for (const port of sentinelPorts) {
        const address = await ask<[string, string]>(port, 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME);
        if (address) return Number(address[1]);
      }
      throw new Error('no Sentinel answers');
    };
    const settled = async () => {
      await until(
        async () => {
          const port = await primaryPort().catch(() => 0);
          if (port === 0) return false;
          const info = await replication(port);
          if (info.role !== 'master' || Number(info.connected_slaves ?? 0) < 1) return false;
          // Every Sentinel knows the replica and the two other Sentinels: a failover can be authorised.
          const views = await Promise.all(
            sentinelPorts.map(async (sentinelPort) => {
              const replicas = await ask<unknown[]>(sentinelPort, 'REPLICAS', SENTINEL_NAME);
              const others = await ask<unknown[]>(sentinelPort, 'SENTINELS', SENTINEL_NAME);
              const named = await ask<[string, string]>(sentinelPort, 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME);
              return (replicas?.length ?? 0) >= 1 && (others?.length ?? 0) >= 2 && Number(named?.[1]) === port;
            }),
          );
          return views.every(Boolean);
        },
        40_000,
        'the Sentinels to agree on a primary with a replica in sync',
        250,
      );
    };
    await settled();
    const env = { REDIS_SENTINELS: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','), REDIS_SENTINEL_NAME: SENTINEL_NAME };
    const client = openRedisConnection(
      { kind: 'sentinel', sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })), name: SENTINEL_NAME },
      { maxRetriesPerRequest: null },
    );
    client.on('error', () => {});
    return {
      env,
      client,
      primaryPort,
      settled,
      async failover() {
        const before = await primaryPort();
        await ask(sentinelPorts[0]!, 'FAILOVER', SENTINEL_NAME);
        await until(async () => (await primaryPort()) !== before, 30_000, 'the Sentinels to promote the replica', 100);
      },
      async crashPrimary() {
        const before = await primaryPort();
        const index = data.findIndex((node) => node.port === before);
        await data[index]!.stop('SIGKILL');
        await until(async () => (await primaryPort()) !== before, 30_000, 'the Sentinels to promote the replica', 100);
        // Restarted as a supervisor would: it comes back as the new primary's replica.
        data[index] = await startServer(root, `data${index}`, started, { port: before });
      },
      async destroy() {
        client.disconnect();
        await stopAll(started, root);
      },
    };
  } catch (error) {
    await stopAll(started, root);
    throw error;
  }
}
