/**
 * Throughput through HAProxy (infra/haproxy/haproxy.cfg, two API instances) against one instance
 * directly, in the same run, at 50 connections. Target: through HAProxy >= 0.8x direct, with no
 * errors on either side (a run with errors records no ratio).
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { freePort, startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { freePortPair, renderHaproxyConfig } from '../test/support/haproxy.js';
import { startAiops, startProcess } from '../test/support/processes.js';
import { benchFigures, higher, lower } from './support/figures.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const figures = benchFigures(import.meta.url, { BENCH_DURATION_S: DURATION_S, connections: CONNECTIONS });

async function load(url: string, key: string) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers: { authorization: `Token ${key}` } });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/**
 * Waits until HAProxy sends requests to both instances: the direct phase's load can fail one health
 * check of the instance it loads (`fall 1`), and it takes `rise 5` checks, 5 s, to come back. Two
 * requests in a row go to both instances (round robin, the cookie names the one) only when both are up.
 */
async function untilBothInstancesServe(url: string, key: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const instances = new Set<string>();
    for (let request = 0; request < 2; request++) {
      const response = await fetch(url, { headers: { authorization: `Token ${key}` } });
      await response.arrayBuffer();
      const instance = /SERVER=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      if (response.ok && instance) instances.add(instance);
    }
    if (instances.size === 2) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('HAProxy did not send requests to both instances within 15 s');
}

export async function benchLoadBalancer(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-lb-'));
  const redisServer = await startRedisProcess({ dir: path.join(dir, 'redis') });
  const redis = createRedisClient({ topology: redisServer.url, role: 'request', logger: silentLogger() });
  await waitForRedis(redis, 5_000);
  const records = createRecords(redis, 'lbbench');
  await records.seed();
  const { key } = await records.tokens.create({ username: 'bench', superuser: true, permissions: [], writeEnabled: true, expires: null });
  const env = { REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: 'lbbench', LOG_LEVEL: 'info', TRUST_PROXY: '127.0.0.1' };
  const ports = { front: await freePortPair(), webA: await freePort(), webB: await freePort() };
  const instances = [startAiops(['api', '--port', String(ports.webA)], env), startAiops(['api', '--port', String(ports.webB)], env)];
  const { file } = renderHaproxyConfig(dir, ports);
  const haproxy = startProcess('haproxy', ['-db', '-f', file]);
  try {
    await Promise.all(instances.map((instance) => instance.waitForLine(/"api listening"/)));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const route = '/api/extras/statuses/';
    const direct = await load(`http://127.0.0.1:${ports.webA}${route}`, key);
    await untilBothInstancesServe(`http://127.0.0.1:${ports.front}${route}`, key);
    const balanced = await load(`http://127.0.0.1:${ports.front}${route}`, key);
    console.log(`load balancer: ${CONNECTIONS} connections, ${DURATION_S} s each, GET ${route}`);
    const loadFigures = (name: string, measured: Awaited<ReturnType<typeof load>>) => ({
      [`${name}.throughput`]: higher(measured.rps, 'req/s'),
      [`${name}.p50`]: lower(measured.p50, 'ms'),
      [`${name}.p99`]: lower(measured.p99, 'ms'),
      [`${name}.errors`]: lower(measured.errors, 'requests', { target: 0 }),
    });
    figures.print(
      `  direct to one instance  ${direct.rps.toFixed(0).padStart(6)} req/s  p50 ${direct.p50} ms  p99 ${direct.p99} ms  errors ${direct.errors}`,
      loadFigures('direct', direct),
    );
    figures.print(
      `  through HAProxy (2)     ${balanced.rps.toFixed(0).padStart(6)} req/s  p50 ${balanced.p50} ms  p99 ${balanced.p99} ms  errors ${balanced.errors}`,
      loadFigures('haproxy', balanced),
    );
    // Failed requests (refused, reset, a 5xx) are answered faster than served ones: a run with any says nothing of the ratio.
    const errors = direct.errors + balanced.errors;
    const ratio = balanced.rps / direct.rps;
    const verdict = errors > 0 ? `run INVALID: ${errors} errors` : ratio >= 0.8 ? 'met' : 'NOT met';
    figures.print(`  ratio ${ratio.toFixed(2)}x (target >= 0.8x: ${verdict})`, {
      'haproxy.throughput_over_direct': higher(errors > 0 ? NaN : ratio, 'x', { target: 0.8 }),
    });
  } finally {
    await haproxy.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    redis.disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchLoadBalancer();
