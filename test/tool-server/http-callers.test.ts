import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { AuthenticationError } from '../../src/kernel/errors.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import type { Records } from '../../src/records/records.js';
import {
  buildPlatformToolServer,
  toolServerCallers,
  type PlatformToolServer,
  openToolServerWrites,
  type ToolServerWrites,
} from '../../src/roles/mcp.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { fixture, startStubPlatform, type StubPlatform } from '../endpoint-search/support/stub-platform.js';
import { sendRaw } from '../support/http.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { toolServerUser } from '../support/tokens.js';

const STATIC_TOKEN = 'static-tool-token-0123456789abcdef';
const PREFIX = 'toolcallers';

/** `aiops mcp --http` with the service as its own platform (the stub stands for its API) and no PLATFORM_TOKEN. */
describe('HTTP tool server: who a call acts as, and which pages may call', () => {
  let platform: StubPlatform;
  let redis: TestRedis;
  let records: Records;
  let dir: string;
  let runtime: PlatformToolServer;
  let auth: ReturnType<typeof toolServerCallers>;
  let http: McpHttpServer;
  let url: string;
  let writes: ToolServerWrites;

  before(async () => {
    platform = await startStubPlatform(fixture('netbox-openapi.json'));
    redis = await startTestRedis();
    records = createRecords(redis.client, PREFIX);
    dir = await mkdtemp(path.join(tmpdir(), 'aiops-tool-callers-'));
    const config = loadConfig({
      PLATFORM_URL_LOCAL: platform.url,
      PLATFORM_SELF: 'true',
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dir,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: PREFIX,
      MCP_HTTP_TOKEN: STATIC_TOKEN,
      MCP_ALLOWED_ORIGINS: 'https://assistant.example.com',
    });
    runtime = await buildPlatformToolServer(config, silentLogger());
    auth = toolServerCallers(config, silentLogger());
    expect(auth.delegate, 'the service is its own platform: calls are delegated').to.not.equal(undefined);
    writes = openToolServerWrites(config, runtime.deps, silentLogger());
    http = await serveHttp(runtime.deps, 'test', {
      host: '127.0.0.1',
      port: 0,
      callers: auth.callers,
      ...(auth.delegate ? { delegate: auth.delegate } : {}),
      allowedOrigins: config.toolServer.allowedOrigins,
      writes,
    });
    url = `http://127.0.0.1:${http.port}/mcp`;
  });
  after(async () => {
    await http.close();
    await writes.close();
    await auth.close();
    await runtime.close();
    await redis.destroy();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function callAs(token: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      return (await client.callTool({ name: 'platform_dynamic_api_request', arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }
  const delegatedTokens = async () => (await records.tokens.list()).filter((token) => token.parent_id !== undefined);

  it("acts on the service's own API with the caller's rights, by a key delegated for the call and ended after it", async () => {
    const { key, token } = await toolServerUser(records.tokens);
    platform.answer('GET', '/api/dcim/sites/', 200, { count: 0, results: [] });
    const result = await callAs(key, { method: 'GET', path: '/api/dcim/sites/' });
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    const sent = platform.requests.at(-1)!.headers.authorization;
    expect(sent).to.match(/^Token [0-9a-f]{40}$/);
    expect(sent).to.not.equal(`Token ${key}`);
    expect(JSON.stringify(result)).to.not.include(sent!.slice('Token '.length));
    // Ended once the answer is out (the close of the response ends it).
    for (let tries = 0; (await delegatedTokens()).length > 0 && tries < 200; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await delegatedTokens()).to.deep.equal([]);
    expect((await records.tokens.get(token.id)).id).to.equal(token.id);
  });

  it("delegates a call of a host signed in by OAuth with the person's rights, ended with the host's access token", async () => {
    const { token: person } = await toolServerUser(records.tokens, 'oauth-engineer', {
      permissions: ['ai_ops.use_toolserver', 'extras.view_status'],
    });
    const access = await records.tokens.delegate(person.id, {
      ttlMs: 60_000,
      description: 'OAuth: host',
      workId: 'oauth access',
      audience: 'http://127.0.0.1:1/mcp',
    });
    const call = await auth.delegate!({ kind: 'user', username: person.username, superuser: false, tokenId: access.token.id });
    const principal = await records.tokens.authenticate(call.key);
    expect(principal).to.include({ userId: person.user_id, writeEnabled: true, delegated: true });
    expect(principal.audience, 'the access token’s audience is not inherited').to.equal(undefined);
    expect([...principal.permissions]).to.deep.equal(['ai_ops.use_toolserver', 'extras.view_status']);
    await records.tokens.revoke(access.token.id);
    await records.tokens.authenticate(call.key).then(
      () => expect.fail('the call key outlived the access token'),
      (error: unknown) => expect(error).to.be.instanceOf(AuthenticationError),
    );
    await call.revoke();
  });

  it('names the missing setting when a call without a user (the static token) meets a platform that wants a credential', async () => {
    platform.answer('GET', '/api/dcim/devices/', 401, { detail: 'Authentication credentials were not provided.' });
    const result = await callAs(STATIC_TOKEN, { method: 'GET', path: '/api/dcim/devices/' });
    expect(result.isError).to.equal(true);
    expect((result.content[0] as { text: string }).text).to.include('set PLATFORM_TOKEN');
    // A dry run of a delete reads the object first: the service's own description has this operation.
    const model = '/api/plugins/ai-ops/llm-models/5f1c0000-0000-4000-8000-000000000000/';
    platform.answer('GET', model, 401, { detail: 'Authentication credentials were not provided.' });
    const planned = await callAs(STATIC_TOKEN, { method: 'DELETE', path: model, dry_run: true });
    expect((planned.content[0] as { text: string }).text).to.include('set PLATFORM_TOKEN');
  });

  it('refuses a request whose Origin is neither its own nor in MCP_ALLOWED_ORIGINS with 403', async () => {
    const list = (origin?: string) =>
      sendRaw(url, 'POST', {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${STATIC_TOKEN}`,
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const evil = await list('http://evil.example.com');
    expect(evil.status).to.equal(403);
    expect(JSON.parse(evil.text).error.code).to.equal(-32000);
    expect((await list('null')).status).to.equal(403);
    expect((await list(`http://127.0.0.1:${http.port + 1}`)).status).to.equal(403);
    expect((await list()).status).to.equal(200);
    expect((await list(`http://127.0.0.1:${http.port}`)).status).to.equal(200);
    expect((await list('https://assistant.example.com')).status).to.equal(200);
  });
});
