/**
 * Records API through the full stack (validation, token auth, Redis, request log) against a bare
 * Express handler answering the same JSON, in one run, 50 concurrent connections.
 * Target: detail >= 0.5x bare Express, p99 < 20 ms.
 */
import autocannon from 'autocannon';
import express from 'express';
import { fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import winston from 'winston';
import { startApiServer } from '../src/roles/api.js';
import { loadConfig } from '../src/roles/config.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { OPERATOR } from '../src/records/auth/permissions.js';
import { failChild } from './support/child-failure.js';
import { benchFigures, higher, informational, lower } from './support/figures.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const MODELS = 1_000;
// A CPU profile slows the served side: such a run is not compared with one without.
const figures = benchFigures(import.meta.url, {
  BENCH_DURATION_S: DURATION_S,
  BENCH_CPU_PROF: Boolean(process.env.BENCH_CPU_PROF),
  connections: CONNECTIONS,
  models: MODELS,
});

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function listen(app: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Child process: Redis, the full API and the bare baseline, so the load generator has its own core. */
async function serveTargets(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-'));
  const redisServer = await startRedisProcess({ dir });
  // A real logger that formats every line, writing to nowhere: the cost of logging is measured.
  const logger = winston.createLogger({
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Stream({ stream: new Writable({ write: (_c, _e, done) => done() }) })],
  });
  const redis = createRedisClient({ topology: redisServer.url, role: 'request', logger });
  await waitForRedis(redis, 5_000);
  const config = loadConfig({ REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: 'bench' });
  const api = await startApiServer({ config, redis, port: 0, logger, version: 'bench' });
  const records = createRecords(redis, 'bench');
  const { key } = await records.tokens.create({ username: 'bench', superuser: true, permissions: [], writeEnabled: true, expires: null });
  let id = '';
  for (let i = 0; i < MODELS; i++) {
    const created = await records.llmModels.create(
      {
        ...{ description: `model ${i}`, provider: 'openai', model_secret_key: 'openai-key', hosted_endpoint: '', api_version: '' },
        ...{ temperature: 0.2, model_config: { max_tokens: 1024 }, system_prompt: '' },
        name: `model-${String(i).padStart(4, '0')}`,
        is_default: i === 500,
      },
      OPERATOR,
    );
    if (i === 250) id = created.id;
  }
  const detailBody = await records.llmModels.get(id);
  const listBody = await records.llmModels.list({ limit: 50, offset: 0, filters: {} });
  const bare = express();
  bare.get('/detail', (_req, res) => {
    res.json(detailBody);
  });
  bare.get('/list', (_req, res) => {
    res.json({ count: listBody.count, next: null, previous: null, results: listBody.results });
  });
  const bareServer = await listen(bare);
  process.send?.({ full: `http://127.0.0.1:${api.port}`, bare: bareServer.url, key, id });
  const shutdown = async () => {
    await bareServer.close();
    await api.close();
    redis.disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('disconnect', () => {
    shutdown().catch(failChild);
  });
}

interface Targets {
  full: string;
  bare: string;
  key: string;
  id: string;
}

export async function benchRecordsApi(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
  });
  const targets = await new Promise<Targets>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Targets));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const auth = { authorization: `Token ${targets.key}` };
  try {
    const rows: [string, string, Figures, Figures][] = [];
    rows.push([
      'detail',
      'detail',
      await load(`${targets.full}/api/plugins/ai-ops/llm-models/${targets.id}/`, auth),
      await load(`${targets.bare}/detail`, {}),
    ]);
    rows.push([
      'list (50 of 1,000)',
      'list',
      await load(`${targets.full}/api/plugins/ai-ops/llm-models/`, auth),
      await load(`${targets.bare}/list`, {}),
    ]);
    rows.push([
      'list filtered (q, 1,000 scanned)',
      'list_filtered',
      await load(`${targets.full}/api/plugins/ai-ops/llm-models/?q=model%2049`, auth),
      await load(`${targets.bare}/list`, {}),
    ]);
    console.log(
      `records API: full stack vs bare Express, ${CONNECTIONS} connections, ${DURATION_S} s each, ${MODELS} models, embedded Redis`,
    );
    for (const [name, key, stack, baseline] of rows) {
      const detail = key === 'detail';
      figures.print(
        `  ${name.padEnd(34)} full ${stack.rps.toFixed(0).padStart(6)} req/s p50 ${stack.p50} ms p99 ${stack.p99} ms | ` +
          `bare ${baseline.rps.toFixed(0).padStart(6)} req/s p50 ${baseline.p50} ms p99 ${baseline.p99} ms | ` +
          `ratio ${(stack.rps / baseline.rps).toFixed(2)}x | errors ${stack.errors}`,
        {
          [`${key}.throughput`]: higher(stack.rps, 'req/s'),
          [`${key}.p50`]: lower(stack.p50, 'ms'),
          [`${key}.p99`]: lower(stack.p99, 'ms', detail ? { target: 20 } : {}),
          // Bare Express is the yardstick of the machine, not of this code: it explains a change, it is not one.
          [`${key}.bare_throughput`]: informational(baseline.rps, 'req/s'),
          [`${key}.throughput_over_bare`]: higher(stack.rps / baseline.rps, 'x', detail ? { target: 0.5 } : {}),
          [`${key}.errors`]: lower(stack.errors, 'requests', { target: 0 }),
        },
      );
    }
    const [, , detail, detailBare] = rows[0]!;
    const ok = detail.rps / detailBare.rps >= 0.5 && detail.p99 < 20;
    console.log(`  target detail >= 0.5x bare and p99 < 20 ms: ${ok ? 'met' : 'NOT met'}`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--serve')) await serveTargets();
  else await benchRecordsApi();
}
