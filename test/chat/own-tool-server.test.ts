import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { RedisAuditLog } from '../../src/chat/audit/redis-audit-log.adapter.js';
import { loadConfig } from '../../src/roles/config.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { buildPlatformToolServer, openToolServerWrites, type PlatformToolServer, type ToolServerWrites } from '../../src/roles/mcp.js';
import { callerCheck } from '../../src/tool-server/caller-check.js';
import { serveHttp, type McpHttpServer } from '../../src/tool-server/http.js';
import { fixture } from '../endpoint-search/support/stub-platform.js';
import { startObjectPlatform, type ObjectPlatform } from '../support/object-platform.js';
import { PlatformObjects } from '../support/platform-objects.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startChatHarness, type ChatHarness } from './chat-harness.js';
import { toolResults, turnWithOneCall } from './support/approved-call.js';
import { toolServerUser } from '../support/tokens.js';

const DEVICES = '/api/dcim/devices/';
/** PLATFORM_TOKEN_KEY of the chat's workers and of the tool server alike. */
const KEY = 'a-key-of-at-least-thirty-two-characters';

describe("a chat turn writing through this service's own tool server, registered as an MCP server", function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let objects: PlatformObjects;
  let platform: ObjectPlatform;
  let sut: ChatHarness;
  let dataDir: string;
  let toolServer: PlatformToolServer;
  let writes: ToolServerWrites;
  let http: McpHttpServer;
  let key: string;
  const botVariable = `AIOPS_TEST_BOT_TOKEN_${process.pid}`;

  before(async () => {
    objects = new PlatformObjects({ ids: 'uuid', references: {} });
    platform = await startObjectPlatform(fixture('nautobot-openapi.json'), objects);
    redis = await startTestRedis();
    dataDir = await mkdtemp(path.join(tmpdir(), 'aiops-own-tool-server-'));
    sut = await startChatHarness(redis, { env: { PLATFORM_TOKEN_KEY: KEY, DATA_DIR: dataDir, EMBEDDING_MODEL: 'none' } });
    await sut.model({ name: 'agent' });
    key = await sut.token('nora');

    // The tool server, on the same Redis: it knows the service's API tokens and writes the same audit log.
    const config = loadConfig({
      PLATFORM_URL_LOCAL: platform.url,
      PLATFORM_TOKEN: 'service-token-0123456789',
      PLATFORM_TOKEN_KEY: KEY,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: sut.prefix,
      EMBEDDING_MODEL: 'none',
      DATA_DIR: dataDir,
    });
    toolServer = await buildPlatformToolServer(config, silentLogger());
    writes = openToolServerWrites(config, toolServer.deps, silentLogger());
    http = await serveHttp(toolServer.deps, 'test', {
      host: '127.0.0.1',
      port: 0,
      callers: callerCheck({ tokens: sut.records.tokens }),
      writes,
    });

    // Registered by a superuser with the API token of a user of this service as its secret.
    const bot = await toolServerUser(sut.records.tokens, 'automation');
    process.env[botVariable] = bot.key;
    await sut.records.secrets.create(
      { name: 'automation-token', description: '', provider: 'environment-variable', parameters: { variable: botVariable } },
      OPERATOR,
    );
    await sut.records.mcpServers.create(
      {
        name: 'platform',
        status: 'Healthy',
        protocol: 'http',
        url: `http://127.0.0.1:${http.port}`,
        mcp_endpoint: '/mcp',
        mcp_type: 'internal',
        approval: 'writes',
        auth: 'secret',
        auth_secret_key: 'automation-token',
      } as never,
      OPERATOR,
    );
  });
  after(async () => {
    await sut?.close();
    await http?.close();
    await writes?.close();
    await toolServer?.close();
    await platform?.close();
    await redis?.destroy();
    delete process.env[botVariable];
    await rm(dataDir, { recursive: true, force: true });
  });

  it('makes a write approved in the chat without asking again: the tool server checks the sealed approval and records it', async () => {
    const [device] = objects.seed(DEVICES, [{ name: 'leaf-approved', status: 'active' }]);
    const id = String(device!.id);
    const { reply, answering } = await turnWithOneCall(sut, key, { method: 'DELETE', path: `${DEVICES}${id}/` });

    expect(reply.body.status, JSON.stringify(reply.body)).to.equal('completed');
    expect(objects.get(DEVICES, id)).to.equal(undefined);
    expect(platform.requests.filter((request) => request.method === 'DELETE')).to.have.length(1);
    expect(toolResults(answering).join('')).to.match(/"status": 204/);
    // Asked once, in the chat: the turn never waited for an answer to the tool server's own question.
    expect(JSON.stringify(reply.body)).to.not.include('elicitation');

    const entries = (await new RedisAuditLog(redis.client, { prefix: sut.prefix, retentionMs: 86_400_000 }).list({ limit: 50, offset: 0 }))
      .results;
    const written = entries.find((entry) => entry.host !== undefined && entry.arguments.path === `${DEVICES}${id}/`);
    expect(written, JSON.stringify(entries)).to.deep.include({ outcome: 'ok', http_status: 204, user: 'automation' });
    expect(written!.host).to.deep.equal({ client: 'aiops', decision: 'chat_approval' });
    expect(written!.plan).to.deep.include({ summary: 'Delete device leaf-approved' });
  });
});
