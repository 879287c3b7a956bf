import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/roles/config.js';
import { outboundFetch } from '../../../src/kernel/http/outbound-fetch.js';
import { OutboundPolicy } from '../../../src/kernel/http/outbound-policy.js';
import { silentLogger } from '../../../src/kernel/logging/logger.js';
import { freePort } from '../../../src/kernel/redis/redis-process.js';
import type { RedisClient } from '../../../src/kernel/redis/redis-client.js';
import { createRecords } from '../../../src/records/adapters/redis-records.js';
import type { Records } from '../../../src/records/records.js';
import { buildPlatformToolServer, openToolServerWrites } from '../../../src/roles/mcp.js';
import { RedisOAuthState } from '../../../src/tool-server/adapters/redis-oauth-state.adapter.js';
import { callerCheck } from '../../../src/tool-server/caller-check.js';
import { serveHttp } from '../../../src/tool-server/http.js';
import { ToolServerClients } from '../../../src/tool-server/oauth-clients.js';
import { ToolServerAuthorization } from '../../../src/tool-server/oauth-provider.js';
import { fixture, startStubPlatform } from '../../endpoint-search/support/stub-platform.js';

export interface OAuthToolServer {
  /** The issuer: `http://127.0.0.1:<port>`. */
  origin: string;
  /** `<origin>/mcp`, the protected resource. */
  mcpUrl: string;
  records: Records;
  staticToken: string;
  close(): Promise<void>;
}

/**
 * The HTTP tool server in process, as `aiops mcp --http` with MCP_PUBLIC_URL builds it, on a free
 * loopback port, over a stub platform; its users' tokens are those of `prefix` in `redis`.
 * `fetchDocument`: how client metadata documents are fetched (the outbound policy's by default: no loopback).
 */
export async function startOAuthToolServer(
  redis: RedisClient,
  prefix: string,
  fetchDocument: typeof fetch = outboundFetch(OutboundPolicy.fromList([]))(false),
): Promise<OAuthToolServer> {
  const platform = await startStubPlatform(fixture('netbox-openapi.json'));
  const dir = await mkdtemp(path.join(tmpdir(), 'aiops-tool-oauth-'));
  const config = loadConfig({ PLATFORM_URL_LOCAL: platform.url, PLATFORM_TOKEN: 'platform-token', EMBEDDING_MODEL: 'none', DATA_DIR: dir });
  const runtime = await buildPlatformToolServer(config, silentLogger());
  const writes = openToolServerWrites(config, runtime.deps, silentLogger());
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const issuer = new URL(`${origin}/`);
  const resource = new URL('mcp', issuer);
  const records = createRecords(redis, prefix);
  const state = new RedisOAuthState(redis, prefix);
  const staticToken = 'static-tool-token-0123456789abcdef';
  const provider = new ToolServerAuthorization(
    new ToolServerClients(state, fetchDocument, silentLogger()),
    state,
    records.tokens,
    resource,
  );
  const http = await serveHttp(runtime.deps, 'test', {
    host: '127.0.0.1',
    port,
    callers: callerCheck({ staticToken, tokens: records.tokens, resource: resource.href }),
    oauth: { provider, issuer, resource },
    writes,
  });
  void runtime.deps.index.start();
  return {
    origin,
    mcpUrl: resource.href,
    records,
    staticToken,
    async close() {
      await http.close();
      await writes.close();
      await runtime.close();
      await platform.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
