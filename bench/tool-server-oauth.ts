/**
 * What signing in by OAuth adds to a search on the HTTP tool server.
 *
 * The tool server in process (as `aiops mcp --http` with MCP_PUBLIC_URL and Redis builds it, the
 * token cache on as there), over a stub platform. A host signs in once by OAuth (registration,
 * consent, code, token); then the same search (`platform_openapi_api_request_schema`) is called
 * through the MCP SDK's client over HTTP, alternately with the static token (MCP_HTTP_TOKEN, a
 * digest comparison) and with the OAuth access token (the user's delegated token: looked up in
 * Redis, or found in the token cache). Reports p50 and p95 of each. BENCH_CALLS (default 300).
 *
 *   node --import tsx bench/tool-server-oauth.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRedisClient, waitForRedis } from '../src/kernel/redis/redis-client.js';
import { startRedisProcess } from '../src/kernel/redis/redis-process.js';
import { silentLogger } from '../src/kernel/logging/logger.js';
import { TOKEN_CACHE_TTL_MS } from '../src/records/auth/token.service.js';
import { startOAuthToolServer } from '../test/tool-server/support/oauth-tool-server.js';
import { benchFigures, lower } from './support/figures.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const CALLBACK = 'http://127.0.0.1:9/callback';
const figures = benchFigures(import.meta.url, { BENCH_CALLS: CALLS });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2);

const dir = mkdtempSync(path.join(os.tmpdir(), 'aiops-bench-tool-oauth-'));
const redisServer = await startRedisProcess({ dir });
const redis = createRedisClient({ topology: redisServer.url, role: 'request', logger: silentLogger() });
await waitForRedis(redis, 5_000);
const server = await startOAuthToolServer(redis, 'benchtooloauth');
const stopCache = server.records.tokens.cachePrincipals(TOKEN_CACHE_TTL_MS);
const { key: userKey } = await server.records.tokens.create({
  username: 'bench-user',
  superuser: false,
  permissions: ['ai_ops.use_toolserver'],
  writeEnabled: true,
  expires: null,
});

// The host signs in once: the SDK's client does discovery, registration and PKCE; the person's consent is a form post.
let client: OAuthClientInformationMixed | undefined;
let tokens: OAuthTokens | undefined;
let verifier = '';
let authorizationUrl: URL | undefined;
const host: OAuthClientProvider = {
  redirectUrl: CALLBACK,
  clientMetadata: { client_name: 'bench host', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' },
  clientInformation: () => client,
  saveClientInformation: (information) => void (client = information),
  tokens: () => tokens,
  saveTokens: (issued) => void (tokens = issued),
  redirectToAuthorization: (url) => void (authorizationUrl = url),
  saveCodeVerifier: (saved) => void (verifier = saved),
  codeVerifier: () => verifier,
};
await auth(host, { serverUrl: server.mcpUrl });
const consent = /name="consent" value="([^"]+)"/.exec(await (await fetch(authorizationUrl!)).text())![1]!;
const approved = await fetch(`${server.origin}/consent`, {
  method: 'POST',
  body: new URLSearchParams({ consent, token: userKey, decision: 'approve' }),
  redirect: 'manual',
});
const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
if ((await auth(host, { serverUrl: server.mcpUrl, authorizationCode: code })) !== 'AUTHORIZED') throw new Error('the OAuth sign-in failed');

const connect = async (token: string) => {
  const mcp = new Client({ name: 'bench', version: '1' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return mcp;
};
const viaStatic = await connect(server.staticToken);
const viaOAuth = await connect(tokens!.access_token);
const search = async (mcp: Client): Promise<number> => {
  const began = performance.now();
  const result = (await mcp.callTool({
    name: 'platform_openapi_api_request_schema',
    arguments: { query: 'delete a device' },
  })) as CallToolResult;
  if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  return performance.now() - began;
};

for (let i = 0; i < 30; i++) {
  await search(viaStatic); // warm up: the endpoint index, JIT
  await search(viaOAuth);
}
const withStatic: number[] = [];
const withOAuth: number[] = [];
for (let i = 0; i < CALLS; i++) {
  withStatic.push(await search(viaStatic));
  withOAuth.push(await search(viaOAuth));
}

console.log(`search on the HTTP tool server, ${CALLS} calls each, one at a time, load average ${os.loadavg()[0]!.toFixed(1)}`);
const line = (label: string, values: number[], key: string) =>
  figures.print(`  ${label.padEnd(34)} p50 ${f(percentile(values, 50))} ms   p95 ${f(percentile(values, 95))} ms`, {
    [`${key}.p50`]: lower(percentile(values, 50), 'ms'),
    [`${key}.p95`]: lower(percentile(values, 95), 'ms'),
  });
line('static token (MCP_HTTP_TOKEN):', withStatic, 'static');
line('OAuth access token:', withOAuth, 'oauth');
figures.print(`  OAuth adds: p50 ${f(percentile(withOAuth, 50) - percentile(withStatic, 50))} ms`, {
  'oauth.added_p50': lower(percentile(withOAuth, 50) - percentile(withStatic, 50), 'ms', { noise: 50 }),
});

await viaStatic.close();
await viaOAuth.close();
stopCache();
await server.close();
redis.disconnect();
await redisServer.stop();
rmSync(dir, { recursive: true, force: true });
