import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATOR } from '../../src/records/auth/permissions.js';
import { RedisRecordCollection } from '../../src/records/adapters/redis-record-collection.adapter.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { buildWorkerMcp, type WorkerMcp } from '../../src/roles/worker-mcp.js';
import { ConcurrencyLimiter } from '../../src/chat/providers/concurrency-limiter.js';
import type { LlmModelRecord } from '../../src/records/llm-model.js';
import type { McpServerFields, McpServerRecord } from '../../src/records/mcp-server.js';
import type { BaseRecord } from '../../src/records/record-collection.port.js';
import { createRecords } from '../../src/records/adapters/redis-records.js';
import { SecretResolver } from '../../src/records/secret-resolver.js';
import { OutboundPolicy } from '../../src/kernel/http/outbound-policy.js';
import { freePort } from '../../src/kernel/redis/redis-process.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { errorReply, startProviderStub, type ProviderStub } from '../support/provider-stubs.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const MODELS = '/api/plugins/ai-ops/llm-models/';
const SERVERS = '/api/plugins/ai-ops/mcp-servers/';
const CHAT = '/plugins/ai-ops/api/chat/';

/** A loopback listener that counts connections (not only requests). */
async function startListener(): Promise<{ url: string; port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('{"redis_version":"7.0.0","secret":"internal-content"}'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What a record looks like once a name its non-superuser author set re-resolves to an internal address. */
async function writtenByNonSuperuser<R extends BaseRecord & { destination_trusted?: boolean }>(
  collection: RedisRecordCollection<R>,
  id: string,
  fields: Partial<R>,
): Promise<void> {
  const current = (await collection.get(id))!;
  expect(await collection.swap(current, { ...current, ...fields, destination_trusted: false })).to.equal('ok');
}

// Finding 4 of the least-privilege audit: internal reach through provider, MCP and health-check destinations.
describe('security: internal addresses are superuser business', () => {
  let redis: TestRedis;
  let sut: ChatHarness;
  let listener: Awaited<ReturnType<typeof startListener>>;
  let alice: string;
  before(async () => {
    redis = await startTestRedis();
    // No OUTBOUND_ALLOW: the default a deployment starts with.
    sut = await startChatHarness(redis, { env: { OUTBOUND_ALLOW: '' } });
    listener = await startListener();
    alice = await sut.token('alice');
  });
  after(async () => {
    await listener.close();
    await sut.close();
    await redis.destroy();
  });

  it('refuses loopback, private, link-local and encoded addresses from a non-superuser, on write', async () => {
    const key = await sut.token('builder', [
      'ai_ops.add_llmmodel',
      'ai_ops.add_mcpserver',
      'ai_ops.change_mcpserver',
      'ai_ops.view_mcpserver',
    ]);
    const port = listener.port;
    const internal = [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://2130706433:${port}`,
      `http://0x7f.1:${port}`,
      `http://[::1]:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.7:6379',
      'http://192.168.1.1',
      'http://[fd00:ec2::254]',
      'http://0.0.0.0:6379',
    ];
    for (const [i, url] of internal.entries()) {
      const model = await sut.call('POST', MODELS, { key, body: { name: `m${i}`, provider: 'openai', hosted_endpoint: url } });
      expect(model.status, url).to.equal(403);
      expect(model.body.detail).to.match(/hosted_endpoint: only a superuser may point an LLM model at an internal address/);
      expect((await sut.call('POST', SERVERS, { key, body: { name: `s${i}`, url } })).status, url).to.equal(403);
    }
    const publicServer = await sut.call('POST', SERVERS, { key, body: { name: 'public', url: 'https://203.0.113.9.nip.invalid' } });
    expect(publicServer.status).to.equal(201);
    expect(
      (await sut.call('PATCH', `${SERVERS}${publicServer.body.id}/`, { key, body: { url: `http://localhost:${port}` } })).status,
    ).to.equal(403);
    // A superuser may, for the local model runtime and the like.
    const admin = (
      await sut.records.tokens.create({ username: 'root', superuser: true, permissions: [], writeEnabled: true, expires: null })
    ).key;
    expect(
      (
        await sut.call('POST', MODELS, {
          key: admin,
          body: { name: 'local', provider: 'ollama', hosted_endpoint: `http://127.0.0.1:${port}` },
        })
      ).status,
    ).to.equal(201);
    expect(listener.connections()).to.equal(0);
  });

  describe('at request time, on the resolved address', () => {
    let runtime: WorkerMcp;
    let servers: RedisRecordCollection<McpServerRecord>;
    before(() => {
      servers = new RedisRecordCollection<McpServerRecord>(redis.client, { prefix: sut.prefix, name: 'mcp-servers', keyField: 'name' });
      runtime = buildWorkerMcp({
        redis: redis.client,
        collections: createRecords(redis.client, sut.prefix).collections,
        keyPrefix: sut.prefix,
        config: sut.config,
        secrets: new SecretResolver(sut.records.secrets),
        limiter: new ConcurrencyLimiter(1),
        logger: silentLogger(),
        outbound: OutboundPolicy.fromList([]),
        clientVersion: 'test',
      });
    });
    after(async () => {
      await runtime.close();
    });

    it('never connects a health check (by the protocol or a health path) to an internal address, and last_error is the same for an open and a closed port', async () => {
      const closedPort = await freePort();
      for (const health_check of ['', '/health']) {
        const errors: (string | null)[] = [];
        for (const url of [`http://localhost:${listener.port}`, `http://localhost:${closedPort}`, `http://2130706433:${listener.port}`]) {
          const server = await sut.records.mcpServers.create(
            {
              name: `probe-${health_check ? 'path' : 'protocol'}-${errors.length}`,
              url: 'https://mcp.example.com',
              health_check,
            } as McpServerFields,
            OPERATOR,
          );
          await writtenByNonSuperuser(servers, server.id, { url });
          const result = await runtime.health.check(server.id, 'manual', silentLogger());
          expect(result).to.include({ healthy: false, method: health_check ? 'http' : 'protocol' });
          errors.push(result.error);
        }
        expect(listener.connections()).to.equal(0);
        expect(errors[0]).to.equal(
          'localhost is an internal address (loopback, private, link-local or metadata range): only a superuser may set it, or OUTBOUND_ALLOW must list it',
        );
        expect(errors[1]).to.equal(errors[0]);
        expect(errors[2]).to.match(/^127\.0\.0\.1 is an internal address/);
      }
    });

    it('never sends a chat turn to an internal address a name re-resolved to: 502 naming the refusal', async () => {
      const model = await sut.model({ hosted_endpoint: 'https://llm.example.com/v1', model_secret_key: '' });
      const models = new RedisRecordCollection<LlmModelRecord>(redis.client, { prefix: sut.prefix, name: 'llm-models', keyField: 'name' });
      await writtenByNonSuperuser(models, model.id, { hosted_endpoint: `http://localhost:${listener.port}/v1` });
      const failed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
      expect(failed.status).to.equal(502);
      expect(failed.body.detail).to.include('localhost is an internal address');
      expect(listener.connections()).to.equal(0);
    });
  });

  describe('providers', () => {
    let other: ProviderStub;
    beforeEach(async () => {
      other = await startProviderStub();
    });
    afterEach(async () => {
      await other.close();
    });

    it('never follows a redirect with the key: the other host hears nothing', async () => {
      await sut.model({ provider: 'anthropic', hosted_endpoint: sut.stub.url });
      sut.stub.respondWith({ status: 301, headers: { location: `${other.url}/v1/messages` } });
      const failed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
      expect(failed.status).to.equal(502);
      expect(failed.body.detail).to.include('redirect (HTTP 301), which is not followed');
      expect(other.requests).to.have.length(0);
    });

    it('never echoes what the provider answered in the 502', async () => {
      await sut.model();
      sut.stub.respondWith(errorReply('openai', 400, 'internal-content: redis_version 7.0.0'));
      const failed = await sut.call('POST', CHAT, { key: alice, body: { message: 'hello' } });
      expect(failed.status).to.equal(502);
      expect(failed.body.detail).to.include('HTTP 400');
      expect(failed.body.detail).to.not.include('internal-content');
    });
  });
});
