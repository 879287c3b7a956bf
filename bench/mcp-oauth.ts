/**
 * What a connected OAuth MCP server adds to a tool call.
 *
 * One server (the OAuth-protected test server of the suite: the SDK's authorization server and
 * bearer check) called through the agent's client manager three ways, one call at a time:
 * `secret`, the user's access token as a static bearer (no store); `oauth`, the same user
 * connected, each request taking the token from the store (Redis, unsealed); `oauth + refresh`,
 * the access token expired before each call, so the call is refused, refreshed and sent again.
 * Reports p50 and p95 of each and what OAuth adds. BENCH_CALLS (default 300).
 *
 *   node --import tsx bench/mcp-oauth.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { outboundFetch } from '../src/kernel/http/outbound-fetch.js';
import { OutboundPolicy } from '../src/kernel/http/outbound-policy.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { loadConfig } from '../src/roles/config.js';
import { SdkMcpConnector } from '../src/mcp-client/adapters/sdk-connector.adapter.js';
import { McpClientManager } from '../src/mcp-client/mcp-client-manager.js';
import { McpConnectionsService } from '../src/mcp-client/mcp-connections.service.js';
import { mcpServerDefaults, type McpServerRecord } from '../src/records/mcp-server.js';
import { mcpOAuthSettings } from '../src/roles/mcp-oauth.js';
import { startOAuthFixture, TEST_USER_HEADER } from '../test/support/mcp-fixtures/oauth-fixture.js';
import { benchFigures, lower } from './support/figures.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const USER = 'bench-user';
const figures = benchFigures(import.meta.url, { BENCH_CALLS: CALLS });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2);

const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-oauth-'));
const redisServer = await startRedisProcess({ dir });
const logger = silentLogger();
const config = loadConfig({
  REDIS_URL: redisServer.url,
  REDIS_KEY_PREFIX: 'benchoauth',
  DATA_DIR: dir,
  PUBLIC_URL: 'https://aiops.bench.test',
  PLATFORM_TOKEN_KEY: 'bench-sealing-key-0123456789abcdefghij',
});
const redis = createRedisClient({ topology: redisServer.url, role: 'worker', logger });
await waitForRedis(redis, 5_000);
const policy = OutboundPolicy.fromList(['127.0.0.0/8']);
const oauth = mcpOAuthSettings(config, redis, policy)!;
const connector = new SdkMcpConnector({ clientName: 'aiops', clientVersion: 'bench', outbound: outboundFetch(policy), oauth });
const fixture = await startOAuthFixture();
const now = new Date().toISOString();
const record = (name: string, fields: Partial<McpServerRecord>): McpServerRecord => ({
  ...mcpServerDefaults(),
  id: randomUUID(),
  created: now,
  last_updated: now,
  name,
  status_id: '',
  url: fixture.url,
  last_checked: null,
  last_error: null,
  latency_ms: null,
  last_check_method: null,
  destination_trusted: true,
  ...fields,
});
const viaOAuth = record('oauth', { auth: 'oauth' });
const viaSecret = record('secret', { auth: 'secret', auth_secret_key: 'access-token' });

// The user connects once, as through the connect step and the callback.
const connections = new McpConnectionsService({
  servers: { get: async (id) => (id === viaOAuth.id ? viaOAuth : null) },
  secrets: { resolve: async () => '' },
  signIn: connector,
  store: oauth.store,
  connectTimeoutMs: 10_000,
});
const approved = await fetch(await connections.connect(viaOAuth.id, USER), { headers: { [TEST_USER_HEADER]: USER }, redirect: 'manual' });
const back = new URL(approved.headers.get('location')!);
await connections.finish(back.searchParams.get('state')!, back.searchParams.get('code')!);

const manager = new McpClientManager({
  connector,
  // The static bearer is whatever token the user holds now.
  credentials: { resolve: async () => fixture.issued.get(USER)!.at(-1)! },
  connectionTtlMs: 600_000,
  connectTimeoutMs: 10_000,
  logger,
});
const call = async (server: McpServerRecord): Promise<number> => {
  const began = performance.now();
  const result = await manager.callTool({ server, version: '1', user: USER }, 'whoami', {}, { timeoutMs: 10_000 });
  if (result.isError) throw new Error('whoami failed');
  return performance.now() - began;
};

for (let i = 0; i < 30; i++) await call(viaOAuth); // warm up: sessions, JIT
for (let i = 0; i < 30; i++) await call(viaSecret);
const secret: number[] = [];
const stored: number[] = [];
const refreshed: number[] = [];
for (let i = 0; i < CALLS; i++) {
  secret.push(await call(viaSecret));
  stored.push(await call(viaOAuth));
}
for (let i = 0; i < CALLS; i++) {
  fixture.expireAccessTokens();
  refreshed.push(await call(viaOAuth));
}
if (fixture.refreshes < CALLS) throw new Error(`expected ${CALLS} refreshes, saw ${fixture.refreshes}`);

console.log(`tool call on an OAuth MCP server, ${CALLS} calls each, one at a time, load average ${os.loadavg()[0]!.toFixed(1)}`);
const line = (label: string, values: number[], key: string) =>
  figures.print(`  ${label.padEnd(38)} p50 ${f(percentile(values, 50))} ms   p95 ${f(percentile(values, 95))} ms`, {
    [`${key}.p50`]: lower(percentile(values, 50), 'ms'),
    [`${key}.p95`]: lower(percentile(values, 95), 'ms'),
  });
line('static bearer (secret):', secret, 'secret');
line('connected, token from the store:', stored, 'oauth');
line('connected, token refreshed first:', refreshed, 'oauth_refresh');
figures.print(
  `  OAuth adds: p50 ${f(percentile(stored, 50) - percentile(secret, 50))} ms; with a refresh, p50 ${f(percentile(refreshed, 50) - percentile(secret, 50))} ms`,
  {
    'oauth.added_p50': lower(percentile(stored, 50) - percentile(secret, 50), 'ms', { noise: 50 }),
    'oauth_refresh.added_p50': lower(percentile(refreshed, 50) - percentile(secret, 50), 'ms', { noise: 50 }),
  },
);

await manager.close();
await fixture.close();
redis.disconnect();
await redisServer.stop();
rmSync(dir, { recursive: true, force: true });
