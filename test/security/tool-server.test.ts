import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callerCheck } from '../../src/tool-server/caller-check.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { buildPlatformToolServer, openToolServerWrites, type PlatformToolServer } from '../../src/roles/mcp.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';
import { sendRaw } from '../support/http.js';
import { NO_SERVICE_ON_DEFAULTS, startAiops } from '../support/processes.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { toolServerUser } from '../support/tokens.js';

const STATIC_TOKEN = 'static-tool-token-0123456789abcdef';
const DELETE_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'platform_dynamic_api_request', arguments: { method: 'DELETE', path: '/api/dcim/devices/1/' } },
};

// Finding 3 of the least-privilege audit: `aiops mcp --http` answered any MCP client, and a bad body got an HTML stack trace.
describe('security: the HTTP tool server authenticates every request', () => {
  let platform: StubPlatform;
  let redis: TestRedis;
  let records: Records;
  let dir: string;
  let runtime: PlatformToolServer;
  let http: McpHttpServer;
  let url: string;
  const post = (body: string, headers: Record<string, string> = {}) =>
    sendRaw(url, 'POST', {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const key = async (permissions: ('ai_ops.chat' | 'ai_ops.use_toolserver')[], writeEnabled = true) =>
    (await toolServerUser(records.tokens, 'engineer', { permissions, writeEnabled })).key;

  before(async () => {
    platform = await startStubPlatform(fixture('netbox-openapi.json'));
    redis = await startTestRedis();
    records = createRecords(redis.client, 'toolserver');
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-tool-auth-'));
    const config = loadConfig({
      PLATFORM_URL_LOCAL: platform.url,
      PLATFORM_TOKEN: 'platform-token',
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dir,
    });
    runtime = await buildPlatformToolServer(config, silentLogger());
    http = await serveHttp(runtime.deps, 'test', {
      host: '127.0.0.1',
      port: 0,
      callers: callerCheck({ staticToken: STATIC_TOKEN, tokens: records.tokens }),
      writes: openToolServerWrites(config, runtime.deps, silentLogger()),
    });
    url = `http://127.0.0.1:${http.port}/mcp`;
  });
  after(async () => {
    await http.close();
    await runtime.close();
    await redis.destroy();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a call without a valid token with a JSON-RPC error, and the platform hears nothing', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${STATIC_TOKEN}` }] as Record<
      string,
      string
    >[]) {
      const refused = await post(JSON.stringify(DELETE_CALL), headers);
      expect(refused.status, JSON.stringify(headers)).to.equal(401);
      expect(JSON.parse(refused.text).error.code).to.equal(-32001);
    }
    expect(platform.requests.filter((request) => request.method === 'DELETE')).to.deep.equal([]);
  });

  it('serves the static token and API tokens carrying ai_ops.use_toolserver, never read-only or other tokens', async () => {
    const list = (token: string) =>
      post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { authorization: `Bearer ${token}` });
    expect((await list(STATIC_TOKEN)).status).to.equal(200);
    expect((await list(await key(['ai_ops.use_toolserver']))).status).to.equal(200);
    const chatOnly = await list(await key(['ai_ops.chat']));
    expect(chatOnly.status).to.equal(403);
    expect(chatOnly.text).to.include('ai_ops.use_toolserver');
    expect((await list(await key(['ai_ops.use_toolserver'], false))).status).to.equal(403);

    // And an MCP client with the header works end to end.
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${STATIC_TOKEN}` } } }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).to.include('platform_dynamic_api_request');
    await client.close();
  });

  it('answers a malformed body with a JSON-RPC parse error, never a stack trace; unauthenticated, with 401 before reading it', async () => {
    const malformed = await post('{"jsonrpc": "2.0", "id": 1,', { authorization: `Bearer ${STATIC_TOKEN}` });
    expect(malformed.status).to.equal(400);
    expect(JSON.parse(malformed.text)).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
      id: null,
    });
    expect((await post('{"jsonrpc": ')).status).to.equal(401);
    const unknown = await sendRaw(`http://127.0.0.1:${http.port}/admin`, 'GET');
    expect(unknown.status).to.equal(404);
    for (const reply of [malformed, unknown]) expect(reply.text).to.not.match(/<html|\n\s+at |node_modules/i);
  });

  it("lets only a superuser's API token name a secret on a knowledge-base repository, not the static token", async () => {
    const add = async (token: string) => {
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      try {
        const result = (await client.callTool({
          name: 'platform_kb_add_repo',
          arguments: { repo: 'https://git.example.test/net/private.git', name: `net/private-${token.slice(-6)}`, secret: 'git-token' },
        })) as CallToolResult;
        return { isError: result.isError === true, text: (result.content[0] as { text: string }).text };
      } finally {
        await client.close();
      }
    };
    const superuser = (
      await records.tokens.create({ username: 'root', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    for (const token of [STATIC_TOKEN, await key(['ai_ops.use_toolserver'])]) {
      const refused = await add(token);
      expect(refused.isError).to.equal(true);
      expect(refused.text).to.include('only a superuser may name a secret');
    }
    const added = await add(superuser);
    expect(added.isError, added.text).to.equal(false);
    expect(JSON.parse(added.text).repository).to.include({ url: 'https://git.example.test/net/private.git', secret: 'git-token' });
  });

  it('refuses a Host header that does not name it (DNS rebinding)', async () => {
    const rebound = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {
      authorization: `Bearer ${STATIC_TOKEN}`,
      host: `attacker.example:${http.port}`,
    });
    expect(rebound.status).to.equal(403);
  });

  it('does not start over HTTP with no way to authenticate callers', async () => {
    const server = startAiops(['mcp', '--http', '0'], {
      PLATFORM_URL_LOCAL: platform.url,
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dir,
      ...NO_SERVICE_ON_DEFAULTS,
      MCP_HTTP_TOKEN: '',
    });
    expect(await server.exited).to.equal(1);
    expect(server.lines.join('\n')).to.match(/aiops mcp --http authenticates every caller: set MCP_HTTP_TOKEN/);
  });
});
