/**
 * The latency of one read tool call, built-in against a registered HTTP MCP server.
 *
 * The same call, `platform_dynamic_api_request` GET /api/extras/statuses/ on this service's own API,
 * made by the agent loop of a chat turn (stub LLM, OpenAI protocol) two ways: through the built-in
 * platform tools (in this process, with the turn's credential) and through `aiops mcp --http`
 * registered as an MCP server (Streamable HTTP, its own token). Reports the time from the call's
 * `tool_call` to its `tool_result` (the tool's whole latency as the turn sees it, the audit-log
 * write included), p50 and p95 of each, and built-in / HTTP as a ratio. BENCH_CALLS (default 200).
 *
 *   node --import tsx bench/tool-latency.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BuiltinPlatformTools } from '../src/tool-server/builtin-tools.adapter.js';
import { serveHttp } from '../src/tool-server/http.js';
import { startApiServer } from '../src/roles/api.js';
import { buildPlatformToolServer, openToolServerWrites, toolServerCallers } from '../src/roles/mcp.js';
import { buildWorkerMcp } from '../src/roles/worker-mcp.js';
import { outboundFetch } from '../src/kernel/http/outbound-fetch.js';
import { RedisAuditLog } from '../src/chat/audit/redis-audit-log.adapter.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { createRecords } from '../src/records/adapters/redis-records.js';
import { ToolCallAudit } from '../src/chat/audit/tool-call-audit.js';
import { OPERATOR } from '../src/records/auth/permissions.js';
import { loadConfig } from '../src/roles/config.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { ConcurrencyLimiter } from '../src/chat/providers/concurrency-limiter.js';
import { ProviderRegistry } from '../src/chat/providers/provider-registry.adapter.js';
import type { McpServerFields } from '../src/records/mcp-server.js';
import { SecretResolver } from '../src/records/secret-resolver.js';
import { OutboundPolicy } from '../src/kernel/http/outbound-policy.js';
import { replyFor, startProviderStub } from '../test/support/provider-stubs.js';
import { benchFigures, lower } from './support/figures.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const HTTP_TOKEN = 'bench-mcp-http-token-0123456789';
const BENCH_OUTBOUND = OutboundPolicy.fromList(['127.0.0.0/8']);
const ARGS = { method: 'GET', path: '/api/extras/statuses/' };
const figures = benchFigures(import.meta.url, { BENCH_CALLS: CALLS });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2);

const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-tools-'));
const redisServer = await startRedisProcess({ dir });
const logger = silentLogger();
const keyPrefix = 'benchtools';
const base = {
  REDIS_URL: redisServer.url,
  REDIS_KEY_PREFIX: keyPrefix,
  DATA_DIR: dir,
  EMBEDDING_MODEL: 'none',
  DRAIN_DELAY_MS: '0',
  CHAT_RATE_PER_MIN: '0',
};
const redis = createRedisClient({ topology: redisServer.url, role: 'worker', logger });
await waitForRedis(redis, 5_000);
const apiRedis = createRedisClient({ topology: redisServer.url, role: 'request', logger });
await waitForRedis(apiRedis, 5_000);
const api = await startApiServer({ config: loadConfig(base), redis: apiRedis, port: 0, logger, version: 'bench' });
const apiUrl = `http://127.0.0.1:${api.port}`;
const records = createRecords(redis, keyPrefix);
await records.seed();
const { key } = await records.tokens.create({ username: 'bench', superuser: true, permissions: [], writeEnabled: true, expires: null });
const config = loadConfig({ ...base, PLATFORM_URL_LOCAL: apiUrl, PLATFORM_SELF: 'true', PLATFORM_TOKEN: key, MCP_HTTP_TOKEN: HTTP_TOKEN });

// The tool server over HTTP, registered as an MCP server, and the same parts built in.
const parts = await buildPlatformToolServer(config, logger);
const callers = toolServerCallers(config, logger);
const writes = openToolServerWrites(config, parts.deps, logger);
const http = await serveHttp(parts.deps, 'bench', { host: '127.0.0.1', port: 0, callers: callers.callers, writes });
process.env.BENCH_MCP_TOKEN = HTTP_TOKEN;
await records.secrets.create(
  { name: 'mcp-token', description: '', provider: 'environment-variable', parameters: { variable: 'BENCH_MCP_TOKEN' } },
  OPERATOR,
);
await records.mcpServers.create(
  {
    name: 'http',
    url: `http://127.0.0.1:${http.port}`,
    status: 'Healthy',
    auth_secret_key: 'mcp-token',
    approval: 'never',
  } as McpServerFields,
  OPERATOR,
);
const builtin = new BuiltinPlatformTools({ deps: parts.deps, version: 'bench', platformIsSelf: true });
const runtime = buildWorkerMcp({
  redis,
  collections: records.collections,
  keyPrefix,
  config,
  secrets: new SecretResolver(records.secrets),
  limiter: new ConcurrencyLimiter(8),
  logger,
  outbound: BENCH_OUTBOUND,
  builtinTools: builtin,
  clientVersion: 'bench',
  audit: new ToolCallAudit(new RedisAuditLog(redis, { prefix: keyPrefix, retentionMs: config.audit.retentionMs })),
});
const stub = await startProviderStub();
const provider = new ProviderRegistry({ ollamaHost: stub.url, custom: new Map(), outbound: outboundFetch(BENCH_OUTBOUND) }).create(
  { provider: 'openai', model: 'bench', hostedEndpoint: `${stub.url}/v1`, apiVersion: '', credential: 'sk-bench' },
  { timeoutMs: 10_000, maxRetries: 0 },
);
const credential = { key, superuser: true, permissions: new Set<never>(), writeEnabled: true };

/** One turn calling `tool` once; the call's latency from its tool_call to its tool_result. */
async function call(tool: string): Promise<number> {
  stub.respondWith(replyFor('openai', '', [{ id: 'call_1', name: tool, arguments: ARGS }]), replyFor('openai', 'done'));
  let began = 0;
  let took = 0;
  let ok = false;
  await runtime.agent.run({
    provider,
    model: { id: 'model-1', name: 'model-1', provider: 'openai', temperature: 0, model_config: {} },
    prompt: [],
    message: 'list the statuses',
    userId: 'bench',
    credential,
    signal: AbortSignal.timeout(30_000),
    audit: { user: 'bench', userId: 'bench', sessionId: 'bench', jobId: 'chat-bench', secrets: [key] },
    report: async (progress) => {
      if (progress.type === 'tool_call') began = performance.now();
      else if (progress.type === 'tool_result') {
        took = performance.now() - began;
        ok = progress.ok;
      }
    },
  });
  if (!ok) throw new Error(`${tool} failed`);
  return took;
}

const BUILTIN = 'platform_dynamic_api_request';
const HTTP = 'http_platform_dynamic_api_request';
for (let i = 0; i < 20; i++) await call(i % 2 ? BUILTIN : HTTP); // warm up: index, sessions, JIT
const inProcess: number[] = [];
const overHttp: number[] = [];
for (let i = 0; i < CALLS; i++) {
  inProcess.push(await call(BUILTIN));
  overHttp.push(await call(HTTP));
}
console.log(
  `read tool call (GET /api/extras/statuses/ on this service's API), ${CALLS} calls each, one at a time, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
figures.print(`  built-in tools:              p50 ${f(percentile(inProcess, 50))} ms   p95 ${f(percentile(inProcess, 95))} ms`, {
  'builtin.p50': lower(percentile(inProcess, 50), 'ms'),
  'builtin.p95': lower(percentile(inProcess, 95), 'ms'),
});
figures.print(`  registered HTTP MCP server:  p50 ${f(percentile(overHttp, 50))} ms   p95 ${f(percentile(overHttp, 95))} ms`, {
  'http_server.p50': lower(percentile(overHttp, 50), 'ms'),
  'http_server.p95': lower(percentile(overHttp, 95), 'ms'),
});
figures.print(
  `  built-in / HTTP: p50 ${f(percentile(inProcess, 50) / percentile(overHttp, 50))}x   p95 ${f(percentile(inProcess, 95) / percentile(overHttp, 95))}x`,
  {
    'builtin.p50_over_http': lower(percentile(inProcess, 50) / percentile(overHttp, 50), 'x'),
    'builtin.p95_over_http': lower(percentile(inProcess, 95) / percentile(overHttp, 95), 'x'),
  },
);

await runtime.close();
await http.close();
await callers.close();
await writes.close();
await parts.close();
await api.close();
await stub.close();
redis.disconnect();
apiRedis.disconnect();
await redisServer.stop();
rmSync(dir, { recursive: true, force: true });
delete process.env.BENCH_MCP_TOKEN;
