/**
 * MCP health checks and the agent's tool calls.
 *
 * 1. Health round: BENCH_SERVERS (default 500) registered http servers, one round enqueued as the
 *    `health-round` job does, run by one `health` worker with HEALTH_CONCURRENCY (default 50). Reports the
 *    seconds until every server's check is stored, against the HEALTH_CRON interval (30 s), and the
 *    peak of open sockets the health endpoint saw (bounded by the concurrency). The endpoint answers
 *    after BENCH_HEALTH_DELAY_MS (default 100), standing in for network and server time.
 * 2. Tool-call step: the agent loop with a stub LLM (OpenAI protocol) and a local MCP server over
 *    Streamable HTTP. Reports the p50 of a turn with one tool step, of a plain turn, their
 *    difference (the overhead of one tool-call step: tool lookup in Redis, the MCP call, the second
 *    model call) and the p50 of the MCP call alone. BENCH_TURNS (default 300).
 *
 *   node --import tsx bench/mcp-agent.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { outboundFetch } from '../src/kernel/http/outbound-fetch.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { OPERATOR } from '../src/records/auth/permissions.js';
import { loadConfig } from '../src/roles/config.js';
import { enqueueHealthRound, serversToCheck } from '../src/health/health-rounds.js';
import { HealthJobName } from '../src/health/health.jobs.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { startWorkers } from '../src/roles/worker.js';
import { buildWorkerMcp } from '../src/roles/worker-mcp.js';
import { ConcurrencyLimiter } from '../src/chat/providers/concurrency-limiter.js';
import { ProviderRegistry } from '../src/chat/providers/provider-registry.adapter.js';
import type { McpServerFields } from '../src/records/mcp-server.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { SecretResolver } from '../src/records/secret-resolver.js';
import { openQueue, QueueName } from '../src/roles/job-catalogue.js';
import { jobQueue } from '../src/kernel/bullmq/job-queue.adapter.js';
import { OutboundPolicy } from '../src/kernel/http/outbound-policy.js';
import { slow, startHttpFixture } from '../test/support/mcp-fixtures/http-fixture.js';
import { replyFor, startProviderStub } from '../test/support/provider-stubs.js';
import { benchFigures, EXACT, higher, lower } from './support/figures.js';

const SERVERS = Number(process.env.BENCH_SERVERS ?? 500);
const CONCURRENCY = process.env.HEALTH_CONCURRENCY ?? '50';
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
/** How long the health endpoint takes to answer, standing in for a network and a real server. */
const HEALTH_DELAY_MS = Number(process.env.BENCH_HEALTH_DELAY_MS ?? 100);
const INTERVAL_S = 30;
const figures = benchFigures(import.meta.url, {
  BENCH_SERVERS: SERVERS,
  HEALTH_CONCURRENCY: CONCURRENCY,
  BENCH_HEALTH_DELAY_MS: HEALTH_DELAY_MS,
  BENCH_TURNS: TURNS,
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2);
const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;
/** The stub provider and tool server listen on loopback. */
const BENCH_OUTBOUND = OutboundPolicy.fromList(['127.0.0.0/8']);

const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-mcp-'));
const redisServer = await startRedisProcess({ dir });
const logger = silentLogger();
const keyPrefix = 'benchmcp';
const config = loadConfig({
  REDIS_URL: redisServer.url,
  REDIS_KEY_PREFIX: keyPrefix,
  HEALTH_CONCURRENCY: CONCURRENCY,
  HEALTH_TIMEOUT_MS: '5000',
  // The round measured is enqueued below; the worker's own schedule does not fire meanwhile.
  HEALTH_CRON: '0 0 1 1 *',
});
const redis = createRedisClient({ topology: redisServer.url, role: 'worker', logger });
await waitForRedis(redis, 5_000);
const records = createRecords(redis, keyPrefix);
await records.seed();

// 1. One health round over many servers.
const endpoint = await startHttpFixture({ label: 'bench', health: slow(HEALTH_DELAY_MS) });
for (let start = 0; start < SERVERS; start += 100) {
  await Promise.all(
    Array.from({ length: Math.min(100, SERVERS - start) }, (_, i) =>
      records.mcpServers.create(
        { name: `server-${String(start + i).padStart(4, '0')}`, url: endpoint.url, health_check: '/health' } as McpServerFields,
        OPERATOR,
      ),
    ),
  );
}
const workers = await startWorkers(config, logger, { queues: [QueueName.Health] });
await workers.ready();
const queue = openQueue(QueueName.Health, { connection: redis, keyPrefix, logger, events: false });
await queue.ready();
const started = process.hrtime.bigint();
await enqueueHealthRound(jobQueue(queue, HealthJobName.Check), serversToCheck(records.mcpServers), new Date(), logger);
for (;;) {
  const counts = await queue.counts();
  if ((counts.completed ?? 0) + (counts.failed ?? 0) >= SERVERS) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const roundSeconds = ms(started) / 1_000;
const healthyCount = (await records.mcpServers.list({ limit: SERVERS, offset: 0, filters: { status: 'Healthy' } })).count;
await queue.close();
await workers.close();
console.log(`health round: ${SERVERS} http servers answering in ${HEALTH_DELAY_MS} ms, HEALTH_CONCURRENCY ${CONCURRENCY}, one worker`);
figures.print(
  `  all checked and stored in ${f(roundSeconds)} s (interval ${INTERVAL_S} s: ${roundSeconds < INTERVAL_S ? 'within' : 'OVER'})   Healthy: ${healthyCount}`,
  {
    'health_round.seconds': lower(roundSeconds, 's', { target: INTERVAL_S }),
    'health_round.healthy': higher(healthyCount, 'servers', EXACT),
  },
);
figures.print(`  peak open sockets at the health endpoint: ${endpoint.sockets.peak} (open after the round: ${endpoint.sockets.open})`, {
  'health_round.peak_open_sockets': lower(endpoint.sockets.peak, 'sockets', { target: Number(CONCURRENCY) }),
  'health_round.open_after': lower(endpoint.sockets.open, 'sockets', { target: 0 }),
});

// 2. The overhead of one tool-call step.
const stub = await startProviderStub();
const tools = await startHttpFixture({ label: 'tools' });
const toolServer = await records.mcpServers.create({ name: 'tools', url: tools.url, status: 'Healthy' } as McpServerFields, OPERATOR);
for (const server of (await records.mcpServers.list({ limit: SERVERS, offset: 0, filters: {} })).results) {
  if (server.id !== toolServer.id) await records.mcpServers.update(server.id, { status: 'Maintenance' }, 'patch', OPERATOR);
}
const runtime = buildWorkerMcp({
  redis,
  collections: records.collections,
  keyPrefix,
  config,
  secrets: new SecretResolver(records.secrets),
  limiter: new ConcurrencyLimiter(8),
  logger,
  outbound: BENCH_OUTBOUND,
  clientVersion: 'bench',
});
const provider = new ProviderRegistry({ ollamaHost: stub.url, custom: new Map(), outbound: outboundFetch(BENCH_OUTBOUND) }).create(
  { provider: 'openai', model: 'bench', hostedEndpoint: `${stub.url}/v1`, apiVersion: '', credential: 'sk-bench' },
  { timeoutMs: 10_000, maxRetries: 0 },
);
let mcpCallMs: number[] = [];
const turn = async (withTool: boolean) => {
  if (withTool)
    stub.respondWith(
      replyFor('openai', '', [{ id: 'call_1', name: 'lookup_device', arguments: { name: 'r1' } }]),
      replyFor('openai', 'r1 is in ams'),
    );
  const began = process.hrtime.bigint();
  await runtime.agent.run({
    provider,
    model: { id: 'model-1', name: 'model-1', provider: 'openai', temperature: 0, model_config: {} },
    prompt: [],
    message: 'where is r1?',
    userId: 'bench',
    signal: AbortSignal.timeout(30_000),
    report: async (progress) => {
      if (progress.type === 'tool_call') mcpCallMs.push(-Number(process.hrtime.bigint()) / 1e6);
      else if (progress.type === 'tool_result') mcpCallMs.push(mcpCallMs.pop()! + Number(process.hrtime.bigint()) / 1e6);
    },
  });
  return ms(began);
};
for (let i = 0; i < 30; i++) await turn(i % 2 === 0); // warm up: sessions, JIT
mcpCallMs = [];
const plain: number[] = [];
const tooled: number[] = [];
for (let i = 0; i < TURNS; i++) {
  plain.push(await turn(false));
  tooled.push(await turn(true));
}
console.log(`tool-call step: stub LLM (OpenAI protocol) + one local MCP server over Streamable HTTP, ${TURNS} turns each`);
figures.print(`  turn without tools p50 ${f(percentile(plain, 50))} ms   turn with one tool step p50 ${f(percentile(tooled, 50))} ms`, {
  'turn_without_tools.p50': lower(percentile(plain, 50), 'ms'),
  'turn_with_tool_step.p50': lower(percentile(tooled, 50), 'ms'),
});
figures.print(
  `  per-step overhead of a tool call p50 ${f(percentile(tooled, 50) - percentile(plain, 50))} ms   (the MCP call itself, lookup included: p50 ${f(percentile(mcpCallMs, 50))} ms)`,
  {
    'tool_step_overhead.p50': lower(percentile(tooled, 50) - percentile(plain, 50), 'ms'),
    'mcp_call.p50': lower(percentile(mcpCallMs, 50), 'ms'),
  },
);

await runtime.close();
await Promise.all([stub.close(), tools.close(), endpoint.close()]);
redis.disconnect();
await redisServer.stop();
rmSync(dir, { recursive: true, force: true });
